//! A session: [`serve`] builds the drive, starts the listeners, keeps time on the calling thread
//! (the stop request, the end of waits for clients in a lull, in real pace the answers at their
//! simulated completion times), then drains the drive and returns the run's report.

use std::io::{BufWriter, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread;
use std::time::{Duration as WallDuration, Instant};

use ssdtwin_core::base::time::Time;
use ssdtwin_core::sim::live::LiveSimulation;
use ssdtwin_core::{Report, RunError, Scenario};

use super::drive::Drive;
use super::hub::Hub;
use super::listen::listen;
use super::options::{log, Export, Pace, ServeError, ServeOptions, LOCKSTEP_WAIT, MAX_PAYLOAD, MIN_BLOCK};
use crate::protocol::BlockSizes;

/// Wall time between two looks of the calling thread at a virtual-pace drive.
const TICK: WallDuration = WallDuration::from_millis(2);
/// Longest wall time between two checks of the stop request.
const STOP_POLL: WallDuration = WallDuration::from_millis(50);

/// Serves `scenario`'s drive over NBD until `stop` returns `true` (checked every few tens of
/// milliseconds) or, with `options.once`, the last client has gone; returns the session's report.
pub fn serve(
    scenario: &Scenario,
    options: &ServeOptions,
    stop: &mut dyn FnMut() -> bool,
) -> Result<Report, ServeError> {
    if options.socket.is_none() && options.listen.is_none() {
        return Err(ServeError::Io(
            "give a Unix socket path or a TCP address to listen on".to_string(),
        ));
    }
    let trace = match &options.record_trace {
        Some(path) => {
            let mut file = std::fs::File::create(path)
                .map(BufWriter::new)
                .map_err(|error| ServeError::Io(format!("cannot create {}: {error}", path.display())))?;
            let _ = writeln!(file, "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime");
            Some(file)
        }
        None => None,
    };
    log("building and preconditioning the drive");
    let live = LiveSimulation::new(scenario, &mut |_| true)?;
    let unit = live.unit_bytes();
    let export = Export {
        size: live.capacity_bytes(),
        sizes: BlockSizes {
            minimum: MIN_BLOCK,
            preferred: (unit as u32).max(MIN_BLOCK),
            maximum: MAX_PAYLOAD,
        },
    };
    let hub = Arc::new(Hub {
        drive: Mutex::new(Drive::new(live, export, options, trace)),
        woken: Condvar::new(),
        default_class: options.class,
    });
    let stopping = Arc::new(AtomicBool::new(false));
    let acceptors = listen(options, export, &hub, &stopping)?;
    let outcome = run_loop(&hub, options, stop);
    stopping.store(true, Ordering::Relaxed);
    let mut drive = hub.lock();
    drive.finished = true;
    let drained = drive.drain();
    for state in drive.clients.values() {
        state.writer.get_ref().shutdown();
    }
    if let Some(path) = &options.socket {
        let _ = std::fs::remove_file(path);
    }
    for acceptor in acceptors {
        let _ = acceptor.join();
    }
    if let Some(mut trace) = drive.trace.take() {
        let _ = trace.flush();
    }
    outcome?;
    drained?;
    if let Some(error) = drive.error.take() {
        return Err(error.into());
    }
    drive.log_summary();
    drop(drive);
    let hub = Arc::try_unwrap(hub).map_err(|_| ServeError::Io("a connection still holds the drive".to_string()))?;
    let drive = hub
        .drive
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    Ok(drive.live.finish())
}

/// The calling thread's loop: the stop request, the end of waits for clients in a lull, and in
/// real pace the answers at their simulated completion times.
fn run_loop(hub: &Hub, options: &ServeOptions, stop: &mut dyn FnMut() -> bool) -> Result<(), RunError> {
    let mut last_stop_check = Instant::now();
    loop {
        if last_stop_check.elapsed() >= STOP_POLL {
            last_stop_check = Instant::now();
            if stop() {
                log("stopping");
                return Ok(());
            }
        }
        let mut drive = hub.lock();
        if let Some(error) = drive.error.take() {
            return Err(error);
        }
        if options.once && drive.had_client && drive.clients.is_empty() {
            return Ok(());
        }
        match drive.pace {
            Pace::Virtual => {
                if drive.live.outstanding() > 0 && drive.last_activity.elapsed() >= LOCKSTEP_WAIT {
                    // Nothing came for a while: a client owing its next request is in a lull.
                    if drive.client_owes_requests() {
                        drive.lower_high_water();
                    }
                    drive.pump();
                    drive.flush_replies();
                    drive.last_activity = Instant::now();
                }
                drop(drive);
                thread::sleep(TICK);
            }
            Pace::Real => {
                // The model runs ahead of the wall clock by the transport estimate, so a reply
                // leaves that much before its simulated completion (`counts::Transport`).
                let now = drive.wall_time();
                let ahead = Time::from_nanos(now.as_nanos() + drive.transport.estimate.as_nanos());
                drive.live.advance_to(ahead);
                drive.answer_completions();
                drive.send_held(false);
                drive.check_power_loss();
                drive.flush_replies();
                let next_event = drive
                    .live
                    .next_event_time()
                    .map(|next| next.as_nanos().saturating_sub(drive.transport.estimate.as_nanos()));
                let next = match (next_event, drive.next_held().map(Time::as_nanos)) {
                    (Some(event), Some(held)) => Some(event.min(held)),
                    (event, held) => event.or(held),
                };
                let wait = match next {
                    Some(next) if next > now.as_nanos() => {
                        WallDuration::from_nanos(next - now.as_nanos()).min(STOP_POLL)
                    }
                    Some(_) => continue,
                    None => STOP_POLL,
                };
                let _ = hub
                    .woken
                    .wait_timeout(drive, wait)
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
            }
        }
    }
}
