//! One request of a block trace in common units (time in ns, offset and length in bytes): what
//! every format reader in this folder produces and the replay in `mod.rs` consumes.

/// One request of a trace, in common units.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceRecord {
    /// Timestamp in the trace's own clock [ns].
    pub time_ns: u64,
    /// Device, disk or ASU number, for filtering.
    pub device: u32,
    pub is_read: bool,
    /// A trim (discard) of the range; `is_read` is false.
    pub trim: bool,
    /// Start address [bytes].
    pub offset: u64,
    /// Length [bytes].
    pub length: u64,
}
