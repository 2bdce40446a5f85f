//! The drive's side of the server: the simulated drive, the stored data and the connected
//! clients. It applies each request a connection brings ([`Message`]), checks it, turns it into
//! host commands of the model (`plan`: a partial-unit write is a read-modify-write), writes the
//! replies when the model completes them, and cuts the power when asked to (`power`). A TRIM,
//! and a WRITE_ZEROES the client lets the server punch a hole for (no `NBD_CMD_FLAG_NO_HOLE`),
//! zero the stored data and deallocate the whole mapping units inside the range (the model's
//! trim); a WRITE_ZEROES with the flag is a write of zeros. Each connection is a submission
//! queue of its own: its requests in flight, its high-water mark (for the virtual pace's
//! lockstep, `hub`) and its counts.

use std::collections::HashMap;
use std::io::{BufWriter, Write};
use std::time::Instant;

use ssdtwin_core::base::time::Time;
use ssdtwin_core::host::params::Priority;
use ssdtwin_core::sim::live::{LiveCompletion, LiveSimulation};
use ssdtwin_core::RunError;

use super::counts::{Counts, Transport};
use super::options::{log, Export, Pace, ServeOptions};
use super::plan::{plan, Kind};
use super::replies::Done;
use super::stream::Connection;
use super::versions::Versions;
use crate::protocol::{self, Command, Request};
use crate::store::Store;

/// What a connection's thread brings to the drive.
pub(super) enum Message {
    Connected {
        client: u64,
        writer: Connection,
        /// The priority class of its submission queue (the export it chose).
        class: Priority,
    },
    Request {
        client: u64,
        request: Request,
        payload: Vec<u8>,
        /// When it was read off the socket.
        received: Instant,
    },
    Closed {
        client: u64,
    },
}

/// A connected client, one submission queue, as the drive's thread sees it.
pub(super) struct Client {
    pub(super) writer: BufWriter<Connection>,
    /// Its submission queue in the model (`LiveSimulation::open_queue`), opened with its first
    /// request that reaches the model (a client that never sends one costs no queue), and the
    /// queue's class.
    pub(super) queue: Option<u32>,
    class: Priority,
    /// Requests received and not yet answered.
    pub(super) in_flight: u32,
    /// Most requests it had in flight since the drive last waited for it in vain.
    pub(super) high_water: u32,
    /// The drive waited for its next request in vain: it is not waited for again until it sends
    /// one (so a client draining its queue costs one wait, not one per reply).
    pub(super) lull: bool,
    /// With nothing in flight, it is waited for (a closed loop at depth 1 sends its next request
    /// as soon as it is answered). Cleared when a wait for it ends without its request (another
    /// connection's request came first, or the wait's wall time ran out), set again when its
    /// next request is the first the server receives after its reply.
    pub(super) prompt: bool,
    /// `Drive::received` when its last request in flight was answered.
    pub(super) answered_at: u64,
    /// It sent `NBD_CMD_DISC`: closed once its requests are answered.
    pub(super) disconnecting: bool,
    /// Replies written and not yet flushed.
    pub(super) unflushed: bool,
    /// Its socket failed: replies are dropped.
    pub(super) broken: bool,
    pub(super) counts: Counts,
}

impl Client {
    /// In virtual pace: its next request answers a completion just sent, and must arrive before
    /// the drive runs ahead (fewer requests in flight than its high-water mark, and, with none in
    /// flight, a client that has been prompt).
    pub(super) fn owes_request(&self) -> bool {
        !self.lull
            && !self.disconnecting
            && !self.broken
            && self.in_flight < self.high_water
            && (self.in_flight > 0 || self.prompt)
    }
}

/// A request waiting for the model.
pub(super) struct Waiting {
    pub(super) client: u64,
    pub(super) handle: u64,
    pub(super) read: bool,
    pub(super) offset: u64,
    pub(super) length: u32,
    /// Model commands not yet completed.
    pub(super) remaining: u32,
    /// Units written, for the durable versions.
    pub(super) written: Vec<(u32, u32)>,
    /// When it was read off the socket, and its simulated arrival.
    pub(super) received: Instant,
    pub(super) arrived: Time,
}

/// The drive's side of the server.
pub(super) struct Drive {
    pub(super) live: LiveSimulation,
    pub(super) store: Store,
    export: Export,
    pub(super) pace: Pace,
    pub(super) clients: HashMap<u64, Client>,
    pub(super) waiting: HashMap<u64, Waiting>,
    next_tag: u64,
    started: Instant,
    pub(super) trace: Option<BufWriter<std::fs::File>>,
    pub(super) completions: Vec<LiveCompletion>,
    pub(super) read_buffer: Vec<u8>,
    /// Real pace: the server's transport per request, measured and subtracted.
    pub(super) transport: Transport,
    /// Real pace: replies held until their request's simulated arrival (`replies.rs`).
    pub(super) held: Vec<Done>,
    /// Requests received.
    pub(super) received: u64,
    /// Requests answered.
    pub(super) answered: u64,
    /// Waits for a client's next request (virtual pace) that ran out of wall time.
    pub(super) waits_timed_out: u64,
    /// Waits for a client with nothing in flight ended by another connection's request.
    pub(super) waits_ended_by_others: u64,
    /// Units written in part (each a read-modify-write in the core).
    pub(super) partial_units: u64,
    /// When a connection last brought something (virtual pace: a client owing its next request
    /// is waited for until `LOCKSTEP_WAIT` after this).
    pub(super) last_activity: Instant,
    /// The model stopped with an error; the session ends with it.
    pub(super) error: Option<RunError>,
    /// The session is over: connections are no longer served.
    pub(super) finished: bool,
    /// A power cut still to come, at this simulated time.
    pub(super) power_loss_at: Option<Time>,
    pub(super) had_client: bool,
    /// Durable versions of the units written (only when a power cut can lose writes).
    pub(super) versions: Option<Versions>,
    /// Per-connection counts of the clients gone, for the session's summary.
    pub(super) gone: Vec<(u64, Counts)>,
}

impl Drive {
    /// The drive of a session starting now, with no client yet.
    pub(super) fn new(
        live: LiveSimulation,
        export: Export,
        options: &ServeOptions,
        trace: Option<BufWriter<std::fs::File>>,
    ) -> Drive {
        let versions = live.writes_at_risk().then(|| Versions::new(live.unit_bytes()));
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
            transport: Transport::default(),
            held: Vec::new(),
            received: 0,
            answered: 0,
            waits_timed_out: 0,
            waits_ended_by_others: 0,
            partial_units: 0,
            last_activity: Instant::now(),
            error: None,
            finished: false,
            power_loss_at: options.power_loss_at.map(|at| Time::ZERO + at),
            had_client: false,
            versions,
            gone: Vec::new(),
        }
    }

    /// `client`'s submission queue, opened now if it has none yet.
    fn queue_of(&mut self, client: u64) -> u32 {
        let Some(state) = self.clients.get_mut(&client) else {
            return 0;
        };
        if let Some(queue) = state.queue {
            return queue;
        }
        let queue = self.live.open_queue(state.class);
        state.queue = Some(queue);
        state.counts.queue = Some(queue);
        log(&format!(
            "client {client}: submission queue sq{queue}, class {}",
            state.class.name()
        ));
        queue
    }

    /// A client is gone: its queue may serve the next client of its class.
    pub(super) fn close_queue(&mut self, state: &Client) {
        if let Some(queue) = state.queue {
            self.live.close_queue(queue);
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
            Message::Connected { client, writer, class } => {
                log(&format!("client {client}: connected"));
                self.had_client = true;
                self.clients.insert(
                    client,
                    Client {
                        writer: BufWriter::with_capacity(1 << 16, writer),
                        queue: None,
                        class,
                        in_flight: 0,
                        high_water: 0,
                        lull: false,
                        prompt: true,
                        answered_at: 0,
                        disconnecting: false,
                        unflushed: false,
                        broken: false,
                        counts: Counts {
                            class: class.name(),
                            ..Counts::default()
                        },
                    },
                );
            }
            Message::Closed { client } => {
                if let Some(state) = self.clients.remove(&client) {
                    state.writer.get_ref().shutdown();
                    self.close_queue(&state);
                    self.gone.push((client, state.counts));
                    log(&format!("client {client}: closed"));
                }
            }
            Message::Request {
                client,
                request,
                payload,
                received,
            } => self.request(client, request, &payload, received),
        }
    }

    /// Virtual pace: a request from `client`, which did not owe one and has sent before, while
    /// no request is in flight on any connection, ends the waits for the clients with nothing
    /// in flight: one stream of requests went on through another connection (nbdfuse's round
    /// robin over its connections). They are not waited for again while they have nothing in
    /// flight, until they prove prompt. Closed loops on several connections (fio's `numjobs`)
    /// keep their waits: one of them is answered while the others have requests in flight, and
    /// a connection's first request (a job starting) ends no wait.
    fn end_waits_for_others(&mut self, client: u64) {
        let fresh = self.clients.get(&client).is_some_and(|state| state.counts.total() == 0);
        if fresh || self.clients.values().any(|state| state.in_flight > 0) {
            return;
        }
        for (&other, state) in &mut self.clients {
            if other != client && state.in_flight == 0 && state.owes_request() {
                state.prompt = false;
                self.waits_ended_by_others += 1;
            }
        }
    }

    fn request(&mut self, client: u64, request: Request, payload: &[u8], read_at: Instant) {
        let received = self.received;
        self.received += 1;
        let Some(state) = self.clients.get(&client) else {
            return;
        };
        if !state.owes_request() {
            self.end_waits_for_others(client);
        }
        let state = self.clients.get_mut(&client).expect("present");
        if state.in_flight == 0 && state.answered_at == received && state.high_water > 0 {
            state.prompt = true;
        }
        state.in_flight += 1;
        state.high_water = state.high_water.max(state.in_flight);
        state.counts.most_in_flight = state.counts.most_in_flight.max(state.in_flight);
        state.lull = false;
        let command = match protocol::check_request(&request, self.export.size, self.export.sizes) {
            Ok(command) => command,
            Err(error) => {
                state.counts.refused += 1;
                log(&format!(
                    "client {client}: request {:?} refused with error {error}",
                    (request.kind, request.offset, request.length)
                ));
                self.reply(client, request.handle, error, None);
                return;
            }
        };
        let (offset, length) = (request.offset, request.length);
        let counts = &mut state.counts;
        match command {
            Command::Disconnect => {
                state.in_flight -= 1;
                state.disconnecting = true;
                self.close_if_done(client);
            }
            Command::Flush => {
                counts.flushes += 1;
                self.submit(client, (request.handle, read_at), Kind::Flush, 0, 0, payload);
            }
            Command::Trim { .. } => {
                counts.trims += 1;
                self.submit(client, (request.handle, read_at), Kind::Trim, offset, length, payload);
            }
            Command::WriteZeroes { .. } if request.flags & protocol::CMD_FLAG_NO_HOLE == 0 => {
                // The server may punch holes: the drive deallocates, as for a TRIM.
                counts.trims += 1;
                self.submit(
                    client,
                    (request.handle, read_at),
                    Kind::Deallocate,
                    offset,
                    length,
                    payload,
                );
            }
            Command::WriteZeroes { fua } | Command::Write { fua } => {
                counts.writes += 1;
                self.submit(
                    client,
                    (request.handle, read_at),
                    Kind::Write(fua),
                    offset,
                    length,
                    payload,
                );
            }
            Command::Read => {
                counts.reads += 1;
                self.submit(client, (request.handle, read_at), Kind::Read, offset, length, payload);
            }
        }
    }

    /// Applies a request to the store and hands its commands to the model (`plan`).
    fn submit(
        &mut self,
        client: u64,
        (handle, received): (u64, Instant),
        kind: Kind,
        offset: u64,
        length: u32,
        payload: &[u8],
    ) {
        let at = self.arrival();
        let plan = plan(kind, offset, u64::from(length), self.live.unit_bytes());
        // The store first: the durable versions keep what a write is about to replace.
        if let Some(versions) = &mut self.versions {
            for &(first, end) in &plan.written {
                versions.before_write(&self.store, &self.live, first, end);
            }
            if let Some((first, end)) = plan.trimmed {
                versions.trimmed(first, end);
            }
        }
        let stored = match kind {
            Kind::Write(_) if payload.len() == length as usize => self.store.write(offset, payload),
            // WRITE_ZEROES: zeros.
            Kind::Write(_) | Kind::Trim | Kind::Deallocate => {
                self.store.zero(offset, u64::from(length));
                Ok(())
            }
            Kind::Read | Kind::Flush => Ok(()),
        };
        if stored.is_err() {
            if let Some(versions) = &mut self.versions {
                for &(first, end) in &plan.written {
                    versions.write_answered(first, end);
                }
            }
            log(&format!(
                "client {client}: write refused: the store holds its cap of {} bytes",
                self.store.stored_bytes()
            ));
            self.reply(client, handle, protocol::ENOSPC, None);
            return;
        }
        if let Some(trace) = &mut self.trace {
            // The MSR format has no trim type: trims are left out of the trace.
            let name = if kind == Kind::Read { "Read" } else { "Write" };
            let ticks = at.as_nanos() / 100;
            if matches!(kind, Kind::Read | Kind::Write(_)) {
                let _ = writeln!(trace, "{ticks},ssdtwin,0,{name},{offset},{length},0");
            }
        }
        if plan.commands.is_empty() {
            self.answered_written(&plan.written);
            self.reply(client, handle, 0, None);
            return;
        }
        let tag = self.next_tag;
        self.next_tag += 1;
        let queue = self.queue_of(client);
        self.partial_units += u64::from(plan.partial_units);
        self.waiting.insert(
            tag,
            Waiting {
                client,
                handle,
                read: kind == Kind::Read,
                offset,
                length,
                remaining: plan.commands.len() as u32,
                written: plan.written,
                received,
                arrived: at,
            },
        );
        for command in plan.commands {
            self.live.submit_to(queue, at, command, tag);
        }
        if let Some(versions) = &mut self.versions {
            versions.prune_if_grown(&self.live);
        }
        self.answer_completions();
    }
}
