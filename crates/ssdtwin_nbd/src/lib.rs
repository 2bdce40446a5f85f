//! ssdtwin over the Network Block Device protocol: any NBD client (fio's `nbd` engine,
//! `qemu-img`/`qemu-io`, `nbdcopy`/`nbdinfo`, the kernel's `nbd-client`) reads and writes a drive
//! that exists only as a simulation.
//!
//! - [`protocol`]: the wire format as pure functions over byte buffers (handshake options and
//!   replies, request headers, request checks), tested on malformed input.
//! - [`store`]: the data clients wrote, sparse in memory with a cap; TRIM and WRITE_ZEROES read
//!   back zeros.
//! - [`server`]: listeners (Unix socket, TCP), a thread per connection, and the drive's loop that
//!   turns requests into host commands of the model through the core's live API
//!   (`ssdtwin_core::sim::live`), paced in virtual or real time, and ends with the same report as
//!   `ssdtwin run`.

pub mod protocol;
pub mod server;
pub mod store;

pub use server::{parse_class, serve, Pace, ServeError, ServeOptions};
