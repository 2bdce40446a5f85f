//! The drive's side of the server: the simulated drive, the stored data and the connected
//! clients. It applies each request a connection brings ([`Message`]), checks it, turns reads,
//! writes and trims into host commands of the model (at most [`MAX_COMMAND_BYTES`] each), writes
//! the replies when the model completes them, and cuts the power when asked to. A TRIM, and a
//! WRITE_ZEROES the client lets the server punch a hole for (no `NBD_CMD_FLAG_NO_HOLE`), zero the
//! stored data and deallocate the whole mapping units inside the range (the model's trim); a
//! WRITE_ZEROES with the flag is a write of zeros.

use std::collections::HashMap;
use std::io::{BufWriter, Write};
use std::time::Instant;

use ssdtwin_core::base::time::Time;
use ssdtwin_core::host::command::CommandSpec;
use ssdtwin_core::sim::live::{LiveCompletion, LiveSimulation};
use ssdtwin_core::RunError;

use super::options::{log, Export, Pace, ServeOptions, MAX_COMMAND_BYTES};
use super::stream::Connection;
use crate::protocol::{self, Command, Request};
use crate::store::Store;

/// What a connection's thread brings to the drive.
pub(super) enum Message {
    Connected {
        client: u64,
        writer: Connection,
    },
    Request {
        client: u64,
        request: Request,
        payload: Vec<u8>,
    },
    Closed {
        client: u64,
    },
}

/// A connected client as the drive's thread sees it.
pub(super) struct Client {
    pub(super) writer: BufWriter<Connection>,
    /// Requests received and not yet answered.
    pub(super) in_flight: u32,
    /// Most requests it had in flight since the drive last waited for it in vain.
    pub(super) high_water: u32,
    /// The drive waited for its next request in vain: it is not waited for again until it sends
    /// one (so a client draining its queue costs one wait, not one per reply).
    pub(super) lull: bool,
    /// It sent `NBD_CMD_DISC`: closed once its requests are answered.
    pub(super) disconnecting: bool,
    /// Replies written and not yet flushed.
    unflushed: bool,
    /// Its socket failed: replies are dropped.
    pub(super) broken: bool,
}

/// What a request asks of the model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Read,
    /// A write; `true`: with FUA (replied once programmed when the drive's volatile writes are
    /// unprotected).
    Write(bool),
    Trim,
    /// NBD_CMD_FLUSH: a Flush of the model (replied once the writes acknowledged before it are
    /// programmed, at once with power-loss protection).
    Flush,
}

/// A request waiting for the model.
struct Waiting {
    client: u64,
    handle: u64,
    read: bool,
    offset: u64,
    length: u32,
    /// Model commands not yet completed.
    remaining: u32,
}

/// The drive's side of the server.
pub(super) struct Drive {
    pub(super) live: LiveSimulation,
    pub(super) store: Store,
    export: Export,
    pub(super) pace: Pace,
    pub(super) clients: HashMap<u64, Client>,
    waiting: HashMap<u64, Waiting>,
    next_tag: u64,
    started: Instant,
    pub(super) trace: Option<BufWriter<std::fs::File>>,
    completions: Vec<LiveCompletion>,
    read_buffer: Vec<u8>,
    /// Requests answered.
    pub(super) answered: u64,
    /// Waits for a client's next request that ended without one (virtual pace).
    pub(super) waits_in_vain: u64,
    /// When a connection last brought something (virtual pace: a client owing its next request
    /// is waited for until `LOCKSTEP_WAIT` after this).
    pub(super) last_activity: Instant,
    /// The model stopped with an error; the session ends with it.
    pub(super) error: Option<RunError>,
    /// The session is over: connections are no longer served.
    pub(super) finished: bool,
    /// A power cut still to come, at this simulated time.
    power_loss_at: Option<Time>,
    pub(super) had_client: bool,
}

impl Drive {
    /// The drive of a session starting now, with no client yet.
    pub(super) fn new(
        live: LiveSimulation,
        export: Export,
        options: &ServeOptions,
        trace: Option<BufWriter<std::fs::File>>,
    ) -> Drive {
        Drive {
            live,
            store: Store::new(options.store_cap),
            export,
            pace: options.pace,
            clients: HashMap::new(),
            waiting: HashMap::new(),
            next_tag: 0,
            started: Instant::now(),
            trace,
            completions: Vec::new(),
            read_buffer: Vec::new(),
            answered: 0,
            waits_in_vain: 0,
            last_activity: Instant::now(),
            error: None,
            finished: false,
            power_loss_at: options.power_loss_at.map(|at| Time::ZERO + at),
            had_client: false,
        }
    }

    /// The simulated arrival time of a request read now.
    fn arrival(&self) -> Time {
        match self.pace {
            Pace::Virtual => self.live.now(),
            Pace::Real => self.wall_time().max(self.live.now()),
        }
    }

    pub(super) fn wall_time(&self) -> Time {
        Time::from_nanos(self.started.elapsed().as_nanos() as u64)
    }

    pub(super) fn handle(&mut self, message: Message) {
        match message {
            Message::Connected { client, writer } => {
                log(&format!("client {client}: connected"));
                self.had_client = true;
                self.clients.insert(
                    client,
                    Client {
                        writer: BufWriter::with_capacity(1 << 16, writer),
                        in_flight: 0,
                        high_water: 0,
                        lull: false,
                        disconnecting: false,
                        unflushed: false,
                        broken: false,
                    },
                );
            }
            Message::Closed { client } => {
                if let Some(state) = self.clients.remove(&client) {
                    state.writer.get_ref().shutdown();
                    log(&format!("client {client}: closed"));
                }
            }
            Message::Request {
                client,
                request,
                payload,
            } => self.request(client, request, &payload),
        }
    }

    fn request(&mut self, client: u64, request: Request, payload: &[u8]) {
        let Some(state) = self.clients.get_mut(&client) else {
            return;
        };
        state.in_flight += 1;
        state.high_water = state.high_water.max(state.in_flight);
        state.lull = false;
        let command = match protocol::check_request(&request, self.export.size, self.export.sizes) {
            Ok(command) => command,
            Err(error) => {
                log(&format!(
                    "client {client}: request {:?} refused with error {error}",
                    (request.kind, request.offset, request.length)
                ));
                self.reply(client, request.handle, error, None);
                return;
            }
        };
        let (offset, length) = (request.offset, request.length);
        match command {
            Command::Disconnect => {
                state.in_flight -= 1;
                state.disconnecting = true;
                self.close_if_done(client);
            }
            Command::Flush => self.submit(client, request.handle, Kind::Flush, 0, 0),
            Command::Trim { .. } => {
                self.store.zero(offset, u64::from(length));
                self.submit(client, request.handle, Kind::Trim, offset, length);
            }
            Command::WriteZeroes { .. } if request.flags & protocol::CMD_FLAG_NO_HOLE == 0 => {
                // The server may punch holes: the drive deallocates, as for a TRIM.
                self.store.zero(offset, u64::from(length));
                self.submit(client, request.handle, Kind::Trim, offset, length);
            }
            Command::WriteZeroes { .. } => {
                self.store.zero(offset, u64::from(length));
                self.submit(client, request.handle, Kind::Write(false), offset, length);
            }
            Command::Write { fua } => {
                if self.store.write(offset, payload).is_err() {
                    log(&format!(
                        "client {client}: write refused: the store holds its cap of {} bytes",
                        self.store.stored_bytes()
                    ));
                    self.reply(client, request.handle, protocol::ENOSPC, None);
                    return;
                }
                self.submit(client, request.handle, Kind::Write(fua), offset, length);
            }
            Command::Read => self.submit(client, request.handle, Kind::Read, offset, length),
        }
    }

    /// Hands a read, write or trim to the model as host commands of at most `MAX_COMMAND_BYTES`
    /// (a trim: of the whole mapping units inside the range, none when there is none).
    fn submit(&mut self, client: u64, handle: u64, kind: Kind, offset: u64, length: u32) {
        let at = self.arrival();
        let read = kind == Kind::Read;
        if let Some(trace) = &mut self.trace {
            // The MSR format has no trim type: trims are left out of the trace.
            let name = if read { "Read" } else { "Write" };
            let ticks = at.as_nanos() / 100;
            if matches!(kind, Kind::Read | Kind::Write(_)) {
                let _ = writeln!(trace, "{ticks},ssdtwin,0,{name},{offset},{length},0");
            }
        }
        let tag = self.next_tag;
        self.next_tag += 1;
        let unit = self.live.unit_bytes();
        let (first, end) = match kind {
            // Only whole units are deallocated: the others keep their neighbours' data.
            Kind::Trim => (offset.div_ceil(unit), (offset + u64::from(length)) / unit),
            // One command without units.
            Kind::Flush => (0, 1),
            _ => (offset / unit, (offset + u64::from(length)).div_ceil(unit)),
        };
        if kind != Kind::Flush && (length == 0 || end <= first) {
            self.reply(client, handle, 0, None);
            return;
        }
        let per_command = (MAX_COMMAND_BYTES / unit).max(1);
        let commands = (end - first).div_ceil(per_command) as u32;
        self.waiting.insert(
            tag,
            Waiting {
                client,
                handle,
                read,
                offset,
                length,
                remaining: commands,
            },
        );
        let mut unit_at = first;
        while unit_at < end {
            let units = per_command.min(end - unit_at);
            let command = match kind {
                Kind::Flush => CommandSpec::flush(),
                _ => CommandSpec {
                    is_read: read,
                    trim: kind == Kind::Trim,
                    flush: false,
                    fua: kind == Kind::Write(true),
                    first_unit: unit_at as u32,
                    units: units as u32,
                },
            };
            self.live.submit(at, command, tag);
            unit_at += units;
        }
        self.answer_completions();
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
            let range = waiting.read.then_some((waiting.offset, waiting.length));
            self.reply(waiting.client, waiting.handle, 0, range);
        }
        self.completions = completions;
    }

    /// Writes a simple reply (with the data of `read` on success) to `client`'s buffer.
    fn reply(&mut self, client: u64, handle: u64, error: u32, read: Option<(u64, u32)>) {
        self.answered += 1;
        let Some(state) = self.clients.get_mut(&client) else {
            return;
        };
        state.in_flight -= 1;
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
    fn close_if_done(&mut self, client: u64) {
        if let Some(state) = self.clients.get(&client) {
            if state.disconnecting && state.in_flight == 0 {
                let mut state = self.clients.remove(&client).expect("present");
                let _ = state.writer.flush();
                state.writer.get_ref().shutdown();
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

    /// Cuts the power once the simulation has reached `power_loss_at`: the model says which
    /// acknowledged writes its power-loss protection could not save; those units read back zeros
    /// from now on (the store keeps no older data; for units written once, zeros are their
    /// previous data), every connection is dropped, and the server goes on serving.
    pub(super) fn check_power_loss(&mut self) {
        let Some(at) = self.power_loss_at else {
            return;
        };
        if self.live.now() < at {
            return;
        }
        self.power_loss_at = None;
        let event = self.live.power_loss();
        let unit = self.live.unit_bytes();
        for &lba in &event.lost_lbas {
            self.store.zero(u64::from(lba) * unit, unit);
        }
        let lost: Vec<String> = event.lost_lbas.iter().map(u32::to_string).collect();
        log(&format!(
            "power lost at {:.6} s: {} acknowledged writes not on flash, {} lost; drive back at {:.6} s; \
             lost LBAs ({} B units): [{}]",
            event.at_s,
            event.unflushed_writes,
            event.lost_writes,
            event.resumed_at_s,
            unit,
            lost.join(",")
        ));
        // Acknowledgements the drive gave before the cut still reach their clients.
        self.flush_replies();
        for (client, state) in self.clients.drain() {
            state.writer.get_ref().shutdown();
            log(&format!("client {client}: dropped by the power loss"));
        }
        self.waiting.clear();
    }
}
