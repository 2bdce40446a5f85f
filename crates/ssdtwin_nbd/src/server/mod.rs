//! The server: listeners, one thread per connection for the handshake and for its requests, and
//! the drive (the simulated drive and the stored data) behind one lock, which the connection that
//! brings a request takes to apply it, run the model and answer. The calling thread keeps time:
//! it checks for the stop request, ends a wait for a client in a lull, and in real pace answers
//! when the simulated completion times come.
//!
//! Each connection's thread reads one request (and a write's payload) at a time, so a client that
//! sends faster than the drive answers is slowed by its socket, and the memory held for requests
//! is at most one payload per connection. Each connection is a submission queue of its own (its
//! requests in flight and counts, logged at the end of the session). The drive checks each
//! request ([`protocol::check_request`](crate::protocol::check_request): any byte offset and
//! length), applies it to the [`Store`](crate::store::Store), turns it into host commands of the
//! model (`plan`: at most [`MAX_COMMAND_BYTES`] each, as a host driver splits at the drive's
//! maximum transfer size; a write of part of a mapping unit is a read-modify-write) and replies
//! when the model completes them. When a power cut can lose acknowledged writes, `versions`
//! keeps the last durable data of the units written, which the units reported lost get back.
//!
//! Pacing (`Pace`): `virtual` stamps each request with the simulated time reached and replies as
//! soon as the model has completed it, so the simulated clock moves only with the requests. To
//! keep a closed-loop client (fio at an iodepth) closed in simulated time too, the drive does not
//! run ahead while a client has fewer requests in flight than it had before (its high-water mark):
//! it waits for the client's next request, at most [`LOCKSTEP_WAIT`] of wall time, so the new
//! request arrives at the simulated instant of the completion it answers. A connection with
//! nothing in flight is waited for only while it is prompt: one stream of requests spread over
//! several connections in turn (nbdfuse) is seen when a connection's request comes while no
//! request is in flight anywhere and others wait, and those others are then not waited for
//! again with nothing in flight (`drive::Client::prompt`). `real` maps simulated time to wall
//! time since the session began: requests arrive at the wall time they are read and each reply
//! waits for its simulated completion time.
//!
//! Modules, lowest first: `options` (what a session is asked for, limits, the export's shape),
//! `stream` (a Unix or TCP stream), `handshake` (option haggling), `plan` (a request's model
//! commands), `versions` (durable versions for power cuts), `drive` (the simulated drive, the
//! stored data and the clients: requests in, replies out), `power` (a power cut, the closing
//! summary), `hub` (the drive behind its lock, and when the model runs), `connection` (one
//! connection's thread), `listen` (listeners and the accept loops), `session` ([`serve`]: the
//! calling thread's loop and the report).

mod connection;
mod counts;
mod drive;
mod handshake;
mod hub;
mod listen;
mod options;
mod plan;
mod power;
mod replies;
mod session;
mod stream;
mod versions;

pub use options::{
    parse_class, Pace, ServeError, ServeOptions, CLASS_EXPORTS, EXPORT_NAME, LOCKSTEP_WAIT, MAX_COMMAND_BYTES,
    MAX_IN_FLIGHT, MAX_PAYLOAD, MIN_BLOCK,
};
pub use session::serve;
