//! What a session is asked for and what it promises: [`ServeOptions`] and [`Pace`], the errors
//! it stops with, the limits it advertises and keeps (payload and command sizes, requests in
//! flight, the lockstep wait), the shape of the export clients see, and the server's log line.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration as WallDuration;

use ssdtwin_core::base::time::Duration;
use ssdtwin_core::host::params::Priority;
use ssdtwin_core::RunError;

use crate::protocol::{self, BlockSizes};

/// Largest host command the model gets for one request [bytes]; longer requests are split, as a
/// host driver splits at an NVMe drive's maximum data transfer size (128 KiB is a common MDTS) [A].
pub const MAX_COMMAND_BYTES: u64 = 128 * 1024;
/// Largest read or write payload advertised [bytes]; one per connection is the memory held for
/// requests being read.
pub const MAX_PAYLOAD: u32 = 4 * 1024 * 1024;
/// Smallest block advertised [bytes]: 1, any offset and length is served (a write of part of a
/// mapping unit is the drive's read-modify-write). libnbd clients (nbdfuse, nbdcopy) refuse on
/// their side requests not aligned to the advertised minimum, and nbdfuse passes on the byte
/// ranges file systems write (fuse2fs writes some of under 512 B).
pub const MIN_BLOCK: u32 = 1;
/// Longest wall time the drive waits, in virtual pace, for a client whose in-flight requests fell
/// below their high-water mark before it runs ahead without it (long enough for a client
/// descheduled on a busy machine; a client in a lull costs it once, see `Client::lull`, and a
/// connection with nothing in flight at most once, see `Client::prompt`).
pub const LOCKSTEP_WAIT: WallDuration = WallDuration::from_millis(20);
/// Requests one client may have in flight; past it the model runs before more are read, so a
/// client pipelining without end does not grow the server's memory.
pub const MAX_IN_FLIGHT: u32 = 1024;
/// Export name listed by `NBD_OPT_LIST`; the default (empty) name is accepted too. Both give a
/// connection the session's default class ([`ServeOptions::class`]); the exports named after a
/// class ([`CLASS_EXPORTS`]) give it that class.
pub const EXPORT_NAME: &str = "ssdtwin";
/// Exports that choose a connection's priority class by name (`nbd+unix:///urgent?socket=...`,
/// `nbd-client -N low`): the same drive, a submission queue of that class.
pub const CLASS_EXPORTS: [(&str, Priority); 4] = [
    ("urgent", Priority::Urgent),
    ("high", Priority::High),
    ("medium", Priority::Medium),
    ("low", Priority::Low),
];

/// A priority class by name (`urgent`, `high`, `medium`, `low`), or an error naming `what` and the
/// allowed names.
pub fn parse_class(name: &str, what: &str) -> Result<Priority, String> {
    CLASS_EXPORTS
        .iter()
        .find(|(class, _)| *class == name)
        .map(|&(_, priority)| priority)
        .ok_or_else(|| format!("{what} `{name}`: allowed: urgent, high, medium, low"))
}

/// The class of a connection that asked for export `name`, if the name is one of the server's.
pub(super) fn export_class(name: &str, default: Priority) -> Option<Priority> {
    if name.is_empty() || name == EXPORT_NAME {
        return Some(default);
    }
    CLASS_EXPORTS
        .iter()
        .find(|(class, _)| *class == name)
        .map(|&(_, priority)| priority)
}

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
    /// Priority class of a connection to the default export (`ssdtwin` or the empty name); one
    /// to an export named after a class has that class. Used by `host.arbitration`.
    pub class: Priority,
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
pub(super) fn log(message: &str) {
    eprintln!("ssdtwin serve: {message}");
}

/// What the export looks like to clients.
#[derive(Clone, Copy, Debug)]
pub(super) struct Export {
    pub(super) size: u64,
    pub(super) sizes: BlockSizes,
}

impl Export {
    pub(super) fn flags() -> u16 {
        protocol::TRANSMIT_HAS_FLAGS
            | protocol::TRANSMIT_SEND_FLUSH
            | protocol::TRANSMIT_SEND_FUA
            | protocol::TRANSMIT_SEND_TRIM
            | protocol::TRANSMIT_SEND_WRITE_ZEROES
            | protocol::TRANSMIT_CAN_MULTI_CONN
    }
}
