//! The NAND flash array: geometry, operation timing, dies and channels.
//!
//! Geometry is channels × chips per channel × dies per chip × planes × blocks × pages. A die runs
//! one operation at a time (read, program, erase); a channel carries one transfer at a time
//! (command/address cycles, data in for programs, data out for reads), granted when it is free
//! (`channel.rs`). The flash model moves time; it never computes watts.

pub mod channel;
pub mod geometry;
pub mod params;
pub mod timing;

pub use channel::{Channel, ChannelChange};
pub use geometry::Geometry;
pub use timing::Timing;
