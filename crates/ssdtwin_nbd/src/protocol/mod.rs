//! The NBD wire format: the fixed-newstyle handshake and the transmission phase's simple replies,
//! as pure functions over byte buffers (no I/O), so every malformed input can be tested and fuzzed.
//!
//! Source: the NBD protocol document (`doc/proto.md` of the reference implementation,
//! NetworkBlockDevice/nbd). All integers are big-endian. Structured replies, metadata contexts,
//! extended headers and TLS are not offered: their options are refused with `NBD_REP_ERR_UNSUP`
//! (STARTTLS with `NBD_REP_ERR_POLICY`), and a client that does not negotiate them gets simple
//! replies, as the document requires.
//!
//! - `wire`: the protocol's numbers (magics, flags, options, commands, error values), its size
//!   limits and [`BlockSizes`].
//! - `handshake`: the greeting, client flags, option headers and data, option replies.
//! - `transmission`: request headers, the checks of a request ([`check_request`]), simple replies.
//!
//! Everything is re-exported here: callers name `protocol::parse_request`, `protocol::OPT_GO`.

mod handshake;
mod transmission;
mod wire;

pub use handshake::*;
pub use transmission::*;
pub use wire::*;

#[cfg(test)]
mod tests;
