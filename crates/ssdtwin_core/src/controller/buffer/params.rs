//! Parameters of the DRAM write buffer (`[buffer]`, docs/models/dram_buffer_plp.md): capacity,
//! write-back or write-through, the fill level that starts a flush, the flush order, the DRAM,
//! and the DRAM read cache with its read-ahead.
//!
//! Declared once, with unit, default and documentation; unknown keys are rejected. Range checks
//! live in `config/validate`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::base::units::ByteSize;

/// Order in which buffered writes go to flash (one file each in `controller/buffer/`).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum FlushOrderKind {
    /// Arrival order.
    Fifo,
    /// Least Increase of Dirtiness First (the capacitor paper, section 3.2): first writes whose
    /// translation page is already dirty, then writes grouped by translation page, the page with
    /// the most buffered writes first.
    Lidf,
}

/// The DRAM write buffer. Off (`capacity = "0B"`, the default): writes are acknowledged once in
/// the frame buffer and programmed as soon as a page is full, as before.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct BufferConfig {
    /// Write buffer in DRAM; 0 = no write buffer. The capacitor paper uses 2GB on a 512 GB drive
    /// (section 5). Default 0B [size].
    pub capacity: ByteSize,
    /// Acknowledge a write once programmed (true) rather than once in the buffer (write-back,
    /// false). Default false.
    pub write_through: bool,
    /// Flushing starts when this fraction of the buffer is occupied and goes on in batches while
    /// it is. Default 0.5 (the capacitor paper, section 4: "when a half of the write buffer becomes
    /// occupied") [fraction].
    pub flush_threshold: f64,
    /// Flush order: `fifo` or `lidf`. Default fifo.
    pub flush_order: FlushOrderKind,
    /// The drive's DRAM: the write buffer and (with `ftl.mapping_cache = "cached"`) the cached
    /// translation pages must fit in it. Default 4GiB [A] [size].
    pub dram_size: ByteSize,
    /// LRU read cache in DRAM: units read from flash are kept and a read of a cached unit is
    /// served in `controller.buffer_read_time` (as MQSim's and SimpleSSD's DRAM data caches); 0 =
    /// no read cache. Counts against `dram_size`. Default 0B [size].
    pub read_cache: ByteSize,
    /// Read-ahead: bytes read from flash into the read cache ahead of a sequential read stream (a
    /// read that starts where an earlier one ended), as SimpleSSD's read-ahead; 0 = none. Needs
    /// `read_cache`, at most its size. Default 0B [size].
    pub read_ahead: ByteSize,
}

impl Default for BufferConfig {
    fn default() -> Self {
        BufferConfig {
            capacity: ByteSize(0),
            write_through: false,
            flush_threshold: 0.5,
            flush_order: FlushOrderKind::Fifo,
            dram_size: ByteSize(4 << 30),
            read_cache: ByteSize(0),
            read_ahead: ByteSize(0),
        }
    }
}
