//! The drive behind one lock, shared by the connections' threads and the calling thread, and
//! when the model runs: in virtual pace it runs while no client owes its next request (the
//! lockstep of the module documentation; [`Client::owes_request`](super::drive::Client)), and a
//! client past [`MAX_IN_FLIGHT`] requests waits for the model before more are read.

use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::Instant;

use ssdtwin_core::RunError;

use super::drive::{Drive, Message};
use super::options::{Pace, MAX_IN_FLIGHT};

impl Drive {
    /// In virtual pace: a client has fewer requests in flight than before, so its next request
    /// answers a completion just sent and must arrive before the drive runs ahead.
    pub(super) fn client_owes_requests(&self) -> bool {
        self.clients.values().any(|state| state.owes_request())
    }

    /// The wait for a client ran out of wall time: it is in a lull, do not wait for it again
    /// until it fills its queue anew (with nothing in flight: until it proves prompt).
    pub(super) fn lower_high_water(&mut self) {
        self.waits_timed_out += 1;
        for state in self.clients.values_mut() {
            if state.owes_request() {
                state.high_water = state.in_flight;
                state.lull = true;
                if state.in_flight == 0 {
                    state.prompt = false;
                }
            }
        }
    }

    /// Runs the model until `client` has fewer than [`MAX_IN_FLIGHT`] requests in flight.
    fn bound_in_flight(&mut self, client: u64) {
        while self.error.is_none()
            && self.live.outstanding() > 0
            && self
                .clients
                .get(&client)
                .is_some_and(|state| state.in_flight >= MAX_IN_FLIGHT)
        {
            match self.live.step() {
                Ok(_) => {
                    self.answer_completions();
                    self.check_power_loss();
                }
                Err(error) => self.error = Some(error),
            }
        }
    }

    /// Virtual pace: runs the model and answers while no client owes its next request.
    pub(super) fn pump(&mut self) {
        while self.error.is_none() && self.live.outstanding() > 0 && !self.client_owes_requests() {
            match self.live.step() {
                Ok(_) => {
                    self.answer_completions();
                    self.check_power_loss();
                }
                Err(error) => self.error = Some(error),
            }
        }
    }

    /// Lets the model complete what is in flight and answers it (at shutdown).
    pub(super) fn drain(&mut self) -> Result<(), RunError> {
        while self.live.outstanding() > 0 && self.live.step()? {
            self.answer_completions();
        }
        self.send_held(true);
        self.flush_replies();
        Ok(())
    }
}

/// The drive shared by the connections' threads and the calling thread.
pub(super) struct Hub {
    pub(super) drive: Mutex<Drive>,
    /// Real pace: a request came, the calling thread recomputes its wait.
    pub(super) woken: Condvar,
    /// Priority class of a connection to the default export.
    pub(super) default_class: ssdtwin_core::host::params::Priority,
}

impl Hub {
    pub(super) fn lock(&self) -> MutexGuard<'_, Drive> {
        // A panic in another connection's thread leaves the data consistent enough to go on.
        self.drive.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Applies `message` (the model runs at the next [`Hub::pump`]); `false` once the session is
    /// over.
    pub(super) fn deliver(&self, message: Message) -> bool {
        let mut drive = self.lock();
        if drive.finished {
            return false;
        }
        let closed = matches!(message, Message::Closed { .. });
        let from = match &message {
            Message::Request { client, .. } => Some(*client),
            _ => None,
        };
        drive.handle(message);
        if let Some(client) = from {
            drive.bound_in_flight(client);
        }
        drive.last_activity = Instant::now();
        if drive.pace == Pace::Real {
            self.woken.notify_one();
        } else if closed {
            drive.pump();
        }
        drive.flush_replies();
        true
    }

    /// Virtual pace: runs the model and answers while no client owes its next request.
    pub(super) fn pump(&self) {
        let mut drive = self.lock();
        if drive.pace == Pace::Virtual && !drive.finished {
            drive.pump();
        }
        drive.flush_replies();
    }
}
