//! Replies: a request whose model commands have all completed is answered (its data read from
//! the store), its latency counted for its connection; in real pace the server's own transport
//! time is measured (`counts::Transport`) and a reply the model gave ahead of the wall clock
//! waits for its request's simulated arrival. Replies are buffered per connection and flushed
//! once per pass.

use std::io::Write;
use std::time::Instant;

use ssdtwin_core::base::time::Time;

use super::drive::Drive;
use super::options::{log, Pace};
use crate::protocol;

/// A request the model served, to answer.
pub(super) struct Done {
    client: u64,
    handle: u64,
    /// A read's range (its data goes with the reply).
    read: Option<(u64, u32)>,
    /// When its request was read off the socket.
    received: Instant,
    /// Its simulated arrival and completion.
    arrived: Time,
    completed: Time,
}

impl Drive {
    pub(super) fn answered_written(&mut self, written: &[(u32, u32)]) {
        if let Some(versions) = &mut self.versions {
            for &(first, end) in written {
                versions.write_answered(first, end);
            }
        }
    }

    /// Replies to the requests whose last command completed.
    pub(super) fn answer_completions(&mut self) {
        let mut completions = std::mem::take(&mut self.completions);
        self.live.take_completions(&mut completions);
        for completion in completions.drain(..) {
            let Some(waiting) = self.waiting.get_mut(&completion.tag) else {
                continue;
            };
            waiting.remaining -= 1;
            if waiting.remaining > 0 {
                continue;
            }
            let waiting = self.waiting.remove(&completion.tag).expect("present");
            self.answered_written(&waiting.written);
            if let Some(state) = self.clients.get_mut(&waiting.client) {
                state.counts.latency.record(completion.at.since(waiting.arrived));
            }
            let done = Done {
                client: waiting.client,
                handle: waiting.handle,
                read: waiting.read.then_some((waiting.offset, waiting.length)),
                received: waiting.received,
                arrived: waiting.arrived,
                completed: completion.at,
            };
            if self.pace == Pace::Real && waiting.arrived > self.wall_time() {
                // The model ran ahead of the wall clock by the transport estimate: the reply
                // waits for its request's simulated arrival.
                self.transport.held += 1;
                self.held.push(done);
            } else {
                self.send(done);
            }
        }
        self.completions = completions;
    }

    /// Real pace: writes the held replies whose request's simulated arrival has come (all of
    /// them with `all`, at the end of the session).
    pub(super) fn send_held(&mut self, all: bool) {
        if self.held.is_empty() {
            return;
        }
        let now = self.wall_time();
        let mut index = 0;
        while index < self.held.len() {
            if all || self.held[index].arrived <= now {
                let done = self.held.swap_remove(index);
                self.send(done);
            } else {
                index += 1;
            }
        }
    }

    /// The wall instant (as simulated time) the first held reply is due, if any.
    pub(super) fn next_held(&self) -> Option<Time> {
        self.held.iter().map(|done| done.arrived).min()
    }

    /// Writes the reply of a request the model served; in real pace, measures the transport.
    fn send(&mut self, done: Done) {
        if self.pace == Pace::Real {
            if self.wall_time() < done.arrived {
                self.transport.early += 1;
            }
            let taken = done.received.elapsed().as_nanos() as i64;
            let simulated = done.completed.since(done.arrived).as_nanos() as i64;
            let estimate = self.transport.estimate;
            self.transport.record(taken - simulated, estimate);
        }
        self.reply(done.client, done.handle, 0, done.read);
    }

    /// Writes a simple reply (with the data of `read` on success) to `client`'s buffer.
    pub(super) fn reply(&mut self, client: u64, handle: u64, error: u32, read: Option<(u64, u32)>) {
        self.answered += 1;
        let Some(state) = self.clients.get_mut(&client) else {
            return;
        };
        state.in_flight -= 1;
        if state.in_flight == 0 {
            state.answered_at = self.received;
        }
        if !state.broken {
            let mut result = state.writer.write_all(&protocol::simple_reply(error, handle));
            if let (Some((offset, length)), true) = (read, result.is_ok()) {
                self.read_buffer.resize(length as usize, 0);
                self.store.read(offset, &mut self.read_buffer);
                result = state.writer.write_all(&self.read_buffer);
            }
            state.unflushed = true;
            if let Err(error) = result {
                log(&format!("client {client}: reply lost: {error}; closing"));
                state.broken = true;
                state.writer.get_ref().shutdown();
            }
        }
        self.close_if_done(client);
    }

    /// Closes a client that asked to disconnect once it has all its replies.
    pub(super) fn close_if_done(&mut self, client: u64) {
        if let Some(state) = self.clients.get(&client) {
            if state.disconnecting && state.in_flight == 0 {
                let mut state = self.clients.remove(&client).expect("present");
                let _ = state.writer.flush();
                state.writer.get_ref().shutdown();
                self.close_queue(&state);
                self.gone.push((client, state.counts));
                log(&format!("client {client}: disconnected"));
            }
        }
    }

    pub(super) fn flush_replies(&mut self) {
        for (client, state) in &mut self.clients {
            if state.unflushed && !state.broken {
                state.unflushed = false;
                if let Err(error) = state.writer.flush() {
                    log(&format!("client {client}: replies lost: {error}; closing"));
                    state.broken = true;
                    state.writer.get_ref().shutdown();
                }
            }
        }
    }
}
