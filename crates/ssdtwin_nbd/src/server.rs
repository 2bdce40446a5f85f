//! The server: listeners, one thread per connection for the handshake and for its requests, and
//! the drive (the simulated drive and the stored data) behind one lock, which the connection that
//! brings a request takes to apply it, run the model and answer. The calling thread keeps time:
//! it checks for the stop request, ends a wait for a client in a lull, and in real pace answers
//! when the simulated completion times come.
//!
//! Each connection's thread reads one request (and a write's payload) at a time, so a client that
//! sends faster than the drive answers is slowed by its socket, and the memory held for requests
//! is at most one payload per connection. The drive checks each request ([`protocol::check_request`]), applies it to the [`Store`], turns reads
//! and writes into host commands of the model (at most [`MAX_COMMAND_BYTES`] each, as a host
//! driver splits at the drive's maximum transfer size) and replies when the model completes them.
//!
//! Pacing (`Pace`): `virtual` stamps each request with the simulated time reached and replies as
//! soon as the model has completed it, so the simulated clock moves only with the requests. To
//! keep a closed-loop client (fio at an iodepth) closed in simulated time too, the drive does not
//! run ahead while a client has fewer requests in flight than it had before (its high-water mark):
//! it waits for the client's next request, at most [`LOCKSTEP_WAIT`] of wall time, so the new
//! request arrives at the simulated instant of the completion it answers. `real` maps simulated
//! time to wall time since the session began: requests arrive at the wall time they are read and
//! each reply waits for its simulated completion time.

use std::collections::HashMap;
use std::io::{BufReader, BufWriter, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread;
use std::time::{Duration as WallDuration, Instant};

use ssdtwin_core::base::time::{Duration, Time};
use ssdtwin_core::host::command::CommandSpec;
use ssdtwin_core::sim::live::{LiveCompletion, LiveSimulation};
use ssdtwin_core::{Report, RunError, Scenario};

use crate::protocol::{self, BlockSizes, Command, Request};
use crate::store::Store;

/// Largest host command the model gets for one request [bytes]; longer requests are split, as a
/// host driver splits at an NVMe drive's maximum data transfer size (128 KiB is a common MDTS) [A].
pub const MAX_COMMAND_BYTES: u64 = 128 * 1024;
/// Largest read or write payload advertised [bytes]; one per connection is the memory held for
/// requests being read.
pub const MAX_PAYLOAD: u32 = 4 * 1024 * 1024;
/// Smallest block advertised: offsets and lengths are multiples of it [bytes].
pub const MIN_BLOCK: u32 = 512;
/// Longest wall time the drive waits, in virtual pace, for a client whose in-flight requests fell
/// below their high-water mark before it runs ahead without it (long enough for a client
/// descheduled on a busy machine; a client in a lull costs it once, see `Client::lull`).
pub const LOCKSTEP_WAIT: WallDuration = WallDuration::from_millis(20);
/// Wall time between two looks of the calling thread at a virtual-pace drive.
const TICK: WallDuration = WallDuration::from_millis(2);
/// Longest a reply may wait for a client to read (a client that stops reading is closed, so
/// it cannot hold the drive).
const REPLY_TIMEOUT: WallDuration = WallDuration::from_secs(10);
/// Requests one client may have in flight; past it the model runs before more are read, so a
/// client pipelining without end does not grow the server's memory.
pub const MAX_IN_FLIGHT: u32 = 1024;
/// Longest wall time between two checks of the stop request.
const STOP_POLL: WallDuration = WallDuration::from_millis(50);
/// Export name listed by `NBD_OPT_LIST`; the default (empty) name is accepted too.
pub const EXPORT_NAME: &str = "ssdtwin";

/// How replies are paced; see the module documentation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pace {
    Virtual,
    Real,
}

/// Where to listen and how to serve.
#[derive(Clone, Debug)]
pub struct ServeOptions {
    /// A Unix socket path.
    pub socket: Option<PathBuf>,
    /// A TCP address (port 0: any free port).
    pub listen: Option<SocketAddr>,
    pub pace: Pace,
    /// Most bytes of written data kept in memory.
    pub store_cap: u64,
    /// End when the last client has disconnected (after at least one connected).
    pub once: bool,
    /// Record the requests (arrival, kind, offset, size) as an MSR Cambridge trace.
    pub record_trace: Option<PathBuf>,
    /// Cut the power once the simulation reaches this simulated time.
    pub power_loss_at: Option<Duration>,
}

/// Why the server could not start or stopped with an error.
#[derive(Debug)]
pub enum ServeError {
    Run(RunError),
    Io(String),
}

impl std::fmt::Display for ServeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ServeError::Run(error) => write!(f, "{error}"),
            ServeError::Io(message) => write!(f, "{message}"),
        }
    }
}

impl From<RunError> for ServeError {
    fn from(error: RunError) -> Self {
        ServeError::Run(error)
    }
}

/// A log line on standard error.
fn log(message: &str) {
    eprintln!("ssdtwin serve: {message}");
}

/// A connection over a Unix socket or TCP.
#[derive(Debug)]
enum Connection {
    Unix(UnixStream),
    Tcp(TcpStream),
}

impl Connection {
    fn try_clone(&self) -> std::io::Result<Connection> {
        Ok(match self {
            Connection::Unix(stream) => Connection::Unix(stream.try_clone()?),
            Connection::Tcp(stream) => Connection::Tcp(stream.try_clone()?),
        })
    }

    fn shutdown(&self) {
        let _ = match self {
            Connection::Unix(stream) => stream.shutdown(std::net::Shutdown::Both),
            Connection::Tcp(stream) => stream.shutdown(std::net::Shutdown::Both),
        };
    }
}

impl Read for Connection {
    fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
        match self {
            Connection::Unix(stream) => stream.read(buffer),
            Connection::Tcp(stream) => stream.read(buffer),
        }
    }
}

impl Write for Connection {
    fn write(&mut self, buffer: &[u8]) -> std::io::Result<usize> {
        match self {
            Connection::Unix(stream) => stream.write(buffer),
            Connection::Tcp(stream) => stream.write(buffer),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Connection::Unix(stream) => stream.flush(),
            Connection::Tcp(stream) => stream.flush(),
        }
    }
}

/// What the export looks like to clients.
#[derive(Clone, Copy, Debug)]
struct Export {
    size: u64,
    sizes: BlockSizes,
}

impl Export {
    fn flags() -> u16 {
        protocol::TRANSMIT_HAS_FLAGS
            | protocol::TRANSMIT_SEND_FLUSH
            | protocol::TRANSMIT_SEND_FUA
            | protocol::TRANSMIT_SEND_TRIM
            | protocol::TRANSMIT_SEND_WRITE_ZEROES
            | protocol::TRANSMIT_CAN_MULTI_CONN
    }
}

/// What a connection's thread brings to the drive.
enum Message {
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

/// Runs the option haggling; `Some(())` once the client entered transmission, `None` when it
/// ended the session (or broke the protocol: logged).
fn handshake(stream: &mut Connection, export: Export, client: u64) -> std::io::Result<Option<()>> {
    stream.write_all(&protocol::greeting())?;
    let mut flags = [0u8; 4];
    stream.read_exact(&mut flags)?;
    let no_zeroes = match protocol::parse_client_flags(flags) {
        Ok(no_zeroes) => no_zeroes,
        Err(error) => {
            log(&format!("client {client}: {error}; closing"));
            return Ok(None);
        }
    };
    let reply = |stream: &mut Connection, option: u32, kind: u32, data: &[u8]| {
        stream.write_all(&protocol::option_reply(option, kind, data))
    };
    let known = |name: &str| name.is_empty() || name == EXPORT_NAME;
    loop {
        let mut header = [0u8; 16];
        stream.read_exact(&mut header)?;
        let (option, length) = match protocol::parse_option_header(header) {
            Ok(parsed) => parsed,
            Err(error) => {
                log(&format!("client {client}: {error}; closing"));
                if let protocol::HandshakeError::OptionTooLong(_) = error {
                    let option = u32::from_be_bytes(header[8..12].try_into().expect("4 bytes"));
                    reply(stream, option, protocol::REP_ERR_TOO_BIG, b"option data too long")?;
                }
                return Ok(None);
            }
        };
        let mut data = vec![0u8; length as usize];
        stream.read_exact(&mut data)?;
        match option {
            protocol::OPT_EXPORT_NAME => {
                match protocol::parse_name(&data) {
                    Ok(name) if known(&name) => {}
                    Ok(name) => {
                        log(&format!("client {client}: unknown export `{name}`; closing"));
                        return Ok(None);
                    }
                    Err(error) => {
                        log(&format!("client {client}: {error}; closing"));
                        return Ok(None);
                    }
                }
                stream.write_all(&protocol::export_name_reply(export.size, Export::flags(), no_zeroes))?;
                return Ok(Some(()));
            }
            protocol::OPT_ABORT => {
                reply(stream, option, protocol::REP_ACK, &[])?;
                return Ok(None);
            }
            protocol::OPT_LIST => {
                if !data.is_empty() {
                    reply(stream, option, protocol::REP_ERR_INVALID, b"NBD_OPT_LIST has no data")?;
                    continue;
                }
                reply(
                    stream,
                    option,
                    protocol::REP_SERVER,
                    &protocol::server_entry(EXPORT_NAME),
                )?;
                reply(stream, option, protocol::REP_ACK, &[])?;
            }
            protocol::OPT_INFO | protocol::OPT_GO => {
                let (name, requests) = match protocol::parse_info_request(&data) {
                    Ok(parsed) => parsed,
                    Err(error) => {
                        log(&format!("client {client}: {error}"));
                        reply(stream, option, protocol::REP_ERR_INVALID, error.as_bytes())?;
                        continue;
                    }
                };
                if !known(&name) {
                    reply(stream, option, protocol::REP_ERR_UNKNOWN, b"no such export")?;
                    continue;
                }
                reply(
                    stream,
                    option,
                    protocol::REP_INFO,
                    &protocol::info_export(export.size, Export::flags()),
                )?;
                // Block sizes are sent whether asked for or not (the protocol allows it).
                reply(
                    stream,
                    option,
                    protocol::REP_INFO,
                    &protocol::info_block_size(export.sizes),
                )?;
                if requests.contains(&protocol::INFO_NAME) {
                    let info = protocol::info_text(protocol::INFO_NAME, EXPORT_NAME);
                    reply(stream, option, protocol::REP_INFO, &info)?;
                }
                if requests.contains(&protocol::INFO_DESCRIPTION) {
                    let info = protocol::info_text(protocol::INFO_DESCRIPTION, "ssdtwin simulated drive");
                    reply(stream, option, protocol::REP_INFO, &info)?;
                }
                reply(stream, option, protocol::REP_ACK, &[])?;
                if option == protocol::OPT_GO {
                    return Ok(Some(()));
                }
            }
            protocol::OPT_STARTTLS => {
                reply(stream, option, protocol::REP_ERR_POLICY, b"TLS is not offered")?;
            }
            _ => reply(stream, option, protocol::REP_ERR_UNSUP, b"option not supported")?,
        }
    }
}

/// One connection: the handshake, then its requests to the drive's thread until it ends.
fn connection(mut stream: Connection, export: Export, client: u64, hub: Arc<Hub>) {
    match handshake(&mut stream, export, client) {
        Ok(Some(())) => {}
        Ok(None) => return,
        Err(error) => {
            log(&format!(
                "client {client}: connection lost during the handshake: {error}"
            ));
            return;
        }
    }
    let writer = match stream.try_clone() {
        Ok(writer) => writer,
        Err(error) => {
            log(&format!("client {client}: {error}"));
            return;
        }
    };
    if !hub.deliver(Message::Connected { client, writer }) {
        return;
    }
    let mut reader = BufReader::with_capacity(
        1 << 16,
        Watched {
            stream,
            hub: hub.clone(),
            drained: true,
        },
    );
    loop {
        let mut header = [0u8; protocol::REQUEST_BYTES];
        if let Err(error) = reader.read_exact(&mut header) {
            if error.kind() != std::io::ErrorKind::UnexpectedEof {
                log(&format!("client {client}: {error}"));
            } else {
                log(&format!("client {client}: disconnected without NBD_CMD_DISC"));
            }
            break;
        }
        let request = match protocol::parse_request(&header) {
            Ok(request) => request,
            Err(magic) => {
                log(&format!(
                    "client {client}: request magic {magic:#x} is not NBD_REQUEST_MAGIC; closing"
                ));
                break;
            }
        };
        let length = match protocol::payload_length(&request, export.sizes.maximum) {
            Ok(length) => length,
            Err(error) => {
                log(&format!("client {client}: {error}; closing"));
                break;
            }
        };
        let mut payload = vec![0u8; length as usize];
        if let Err(error) = reader.read_exact(&mut payload) {
            log(&format!(
                "client {client}: disconnected in the middle of a write's data: {error}"
            ));
            break;
        }
        let disconnect = request.kind == protocol::CMD_DISC;
        if !hub.deliver(Message::Request {
            client,
            request,
            payload,
        }) || disconnect
        {
            return;
        }
    }
    hub.deliver(Message::Closed { client });
}

/// A connection's socket as its requests are read: a read that got less than it asked for has
/// emptied the socket, so before the next read (which may wait for the client) the drive runs
/// the model and answers what it can. Requests a client sent together thus reach the model at
/// the same simulated instant, as they would reach a drive.
struct Watched {
    stream: Connection,
    hub: Arc<Hub>,
    drained: bool,
}

impl Read for Watched {
    fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
        if self.drained {
            self.hub.pump();
        }
        let count = self.stream.read(buffer)?;
        self.drained = count < buffer.len();
        Ok(count)
    }
}

/// Accepts connections until `stopping`; each gets its own thread.
fn accept<L: Send + 'static>(
    listener: L,
    accept_one: fn(&L) -> std::io::Result<Connection>,
    export: Export,
    hub: Arc<Hub>,
    next_client: Arc<AtomicU64>,
    stopping: Arc<AtomicBool>,
) -> thread::JoinHandle<()> {
    thread::spawn(move || {
        while !stopping.load(Ordering::Relaxed) {
            match accept_one(&listener) {
                Ok(stream) => {
                    let client = next_client.fetch_add(1, Ordering::Relaxed);
                    let hub = hub.clone();
                    thread::spawn(move || connection(stream, export, client, hub));
                }
                Err(error) if error.kind() == std::io::ErrorKind::WouldBlock => {
                    thread::sleep(WallDuration::from_millis(5));
                }
                Err(error) => {
                    log(&format!("accept: {error}"));
                    thread::sleep(WallDuration::from_millis(50));
                }
            }
        }
    })
}

fn accept_unix(listener: &UnixListener) -> std::io::Result<Connection> {
    let (stream, _) = listener.accept()?;
    stream.set_nonblocking(false)?;
    stream.set_write_timeout(Some(REPLY_TIMEOUT))?;
    Ok(Connection::Unix(stream))
}

fn accept_tcp(listener: &TcpListener) -> std::io::Result<Connection> {
    let (stream, _) = listener.accept()?;
    stream.set_nonblocking(false)?;
    stream.set_nodelay(true)?;
    stream.set_write_timeout(Some(REPLY_TIMEOUT))?;
    Ok(Connection::Tcp(stream))
}

/// A connected client as the drive's thread sees it.
struct Client {
    writer: BufWriter<Connection>,
    /// Requests received and not yet answered.
    in_flight: u32,
    /// Most requests it had in flight since the drive last waited for it in vain.
    high_water: u32,
    /// The drive waited for its next request in vain: it is not waited for again until it sends
    /// one (so a client draining its queue costs one wait, not one per reply).
    lull: bool,
    /// It sent `NBD_CMD_DISC`: closed once its requests are answered.
    disconnecting: bool,
    /// Replies written and not yet flushed.
    unflushed: bool,
    /// Its socket failed: replies are dropped.
    broken: bool,
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
struct Drive {
    live: LiveSimulation,
    store: Store,
    export: Export,
    pace: Pace,
    clients: HashMap<u64, Client>,
    waiting: HashMap<u64, Waiting>,
    next_tag: u64,
    started: Instant,
    trace: Option<BufWriter<std::fs::File>>,
    completions: Vec<LiveCompletion>,
    read_buffer: Vec<u8>,
    /// Requests answered.
    answered: u64,
    /// Waits for a client's next request that ended without one (virtual pace).
    waits_in_vain: u64,
    /// When a connection last brought something (virtual pace: a client owing its next request
    /// is waited for until `LOCKSTEP_WAIT` after this).
    last_activity: Instant,
    /// The model stopped with an error; the session ends with it.
    error: Option<RunError>,
    /// The session is over: connections are no longer served.
    finished: bool,
    /// A power cut still to come, at this simulated time.
    power_loss_at: Option<Time>,
    had_client: bool,
}

impl Drive {
    /// The simulated arrival time of a request read now.
    fn arrival(&self) -> Time {
        match self.pace {
            Pace::Virtual => self.live.now(),
            Pace::Real => self.wall_time().max(self.live.now()),
        }
    }

    fn wall_time(&self) -> Time {
        Time::from_nanos(self.started.elapsed().as_nanos() as u64)
    }

    fn handle(&mut self, message: Message) {
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
            Command::Flush => self.reply(client, request.handle, 0, None),
            Command::Trim { .. } => {
                self.store.zero(offset, u64::from(length));
                self.reply(client, request.handle, 0, None);
            }
            Command::WriteZeroes { .. } if request.flags & protocol::CMD_FLAG_NO_HOLE == 0 => {
                // The server may punch holes: the drive deallocates, as for a TRIM.
                self.store.zero(offset, u64::from(length));
                self.reply(client, request.handle, 0, None);
            }
            Command::WriteZeroes { .. } => {
                self.store.zero(offset, u64::from(length));
                self.submit(client, request.handle, false, offset, length);
            }
            Command::Write { .. } => {
                if self.store.write(offset, payload).is_err() {
                    log(&format!(
                        "client {client}: write refused: the store holds its cap of {} bytes",
                        self.store.stored_bytes()
                    ));
                    self.reply(client, request.handle, protocol::ENOSPC, None);
                    return;
                }
                self.submit(client, request.handle, false, offset, length);
            }
            Command::Read => self.submit(client, request.handle, true, offset, length),
        }
    }

    /// Hands a read or write to the model as host commands of at most `MAX_COMMAND_BYTES`.
    fn submit(&mut self, client: u64, handle: u64, read: bool, offset: u64, length: u32) {
        let at = self.arrival();
        if let Some(trace) = &mut self.trace {
            let kind = if read { "Read" } else { "Write" };
            let ticks = at.as_nanos() / 100;
            let _ = writeln!(trace, "{ticks},ssdtwin,0,{kind},{offset},{length},0");
        }
        let tag = self.next_tag;
        self.next_tag += 1;
        if length == 0 {
            self.reply(client, handle, 0, None);
            return;
        }
        let unit = self.live.unit_bytes();
        let first = offset / unit;
        let end = (offset + u64::from(length)).div_ceil(unit);
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
            let command = CommandSpec {
                is_read: read,
                first_unit: unit_at as u32,
                units: units as u32,
            };
            self.live.submit(at, command, tag);
            unit_at += units;
        }
        self.answer_completions();
    }

    /// Replies to the requests whose last command completed.
    fn answer_completions(&mut self) {
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

    fn flush_replies(&mut self) {
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

    /// In virtual pace: a client has fewer requests in flight than before, so its next request
    /// answers a completion just sent and must arrive before the drive runs ahead.
    fn client_owes_requests(&self) -> bool {
        self.clients
            .values()
            .any(|state| !state.lull && !state.disconnecting && !state.broken && state.in_flight < state.high_water)
    }

    /// The wait for a client was in vain: it is in a lull, do not wait for it again until it
    /// fills its queue anew.
    fn lower_high_water(&mut self) {
        self.waits_in_vain += 1;
        for state in self.clients.values_mut() {
            if state.in_flight < state.high_water {
                state.high_water = state.in_flight;
                state.lull = true;
            }
        }
    }

    /// Cuts the power once the simulation has reached `power_loss_at`: the model says which
    /// acknowledged writes its power-loss protection could not save; those units read back zeros
    /// from now on (the store keeps no older data; for units written once, zeros are their
    /// previous data), every connection is dropped, and the server goes on serving.
    fn check_power_loss(&mut self) {
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
    fn pump(&mut self) {
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
    fn drain(&mut self) -> Result<(), RunError> {
        while self.live.outstanding() > 0 && self.live.step()? {
            self.answer_completions();
        }
        self.flush_replies();
        Ok(())
    }
}

/// The drive shared by the connections' threads and the calling thread.
struct Hub {
    drive: Mutex<Drive>,
    /// Real pace: a request came, the calling thread recomputes its wait.
    woken: Condvar,
}

impl Hub {
    fn lock(&self) -> MutexGuard<'_, Drive> {
        // A panic in another connection's thread leaves the data consistent enough to go on.
        self.drive.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Applies `message` (the model runs at the next [`Hub::pump`]); `false` once the session is
    /// over.
    fn deliver(&self, message: Message) -> bool {
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
    fn pump(&self) {
        let mut drive = self.lock();
        if drive.pace == Pace::Virtual && !drive.finished {
            drive.pump();
        }
        drive.flush_replies();
    }
}

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
        drive: Mutex::new(Drive {
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
        }),
        woken: Condvar::new(),
    });
    let next_client = Arc::new(AtomicU64::new(1));
    let stopping = Arc::new(AtomicBool::new(false));
    let mut acceptors = Vec::new();
    if let Some(path) = &options.socket {
        if std::fs::symlink_metadata(path)
            .is_ok_and(|meta| std::os::unix::fs::FileTypeExt::is_socket(&meta.file_type()))
        {
            let _ = std::fs::remove_file(path);
        }
        let listener = UnixListener::bind(path)
            .map_err(|error| ServeError::Io(format!("cannot listen on {}: {error}", path.display())))?;
        listener
            .set_nonblocking(true)
            .map_err(|error| ServeError::Io(error.to_string()))?;
        log(&format!(
            "serving {} bytes on nbd+unix:///?socket={}",
            export.size,
            path.display()
        ));
        acceptors.push(accept(
            listener,
            accept_unix,
            export,
            hub.clone(),
            next_client.clone(),
            stopping.clone(),
        ));
    }
    if let Some(address) = options.listen {
        let listener = TcpListener::bind(address)
            .map_err(|error| ServeError::Io(format!("cannot listen on {address}: {error}")))?;
        listener
            .set_nonblocking(true)
            .map_err(|error| ServeError::Io(error.to_string()))?;
        let bound = listener
            .local_addr()
            .map_err(|error| ServeError::Io(error.to_string()))?;
        log(&format!("serving {} bytes on nbd://{bound}", export.size));
        acceptors.push(accept(
            listener,
            accept_tcp,
            export,
            hub.clone(),
            next_client.clone(),
            stopping.clone(),
        ));
    }
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
    log(&format!(
        "{} requests answered; {} bytes stored; {} waits for a client's next request ended without one",
        drive.answered,
        drive.store.stored_bytes(),
        drive.waits_in_vain
    ));
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
                let now = drive.wall_time();
                drive.live.advance_to(now);
                drive.answer_completions();
                drive.check_power_loss();
                drive.flush_replies();
                let wait = match drive.live.next_event_time() {
                    Some(next) if next > now => {
                        WallDuration::from_nanos(Duration::from_nanos(next.as_nanos() - now.as_nanos()).as_nanos())
                            .min(STOP_POLL)
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
