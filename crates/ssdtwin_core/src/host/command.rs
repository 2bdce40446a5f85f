//! What the host submits: one command in mapping units, and the jobs (streams) that submit them.
//!
//! Workloads produce these and the host and engine consume them, so they belong to the host layer,
//! below the workloads.

/// One host command, in mapping units.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CommandSpec {
    pub is_read: bool,
    /// A deallocate (NVMe Dataset Management, ATA TRIM, fio's `trim`): the units are unmapped and
    /// no data moves; `is_read` is false.
    pub trim: bool,
    /// First logical mapping unit.
    pub first_unit: u32,
    /// Length in mapping units.
    pub units: u32,
}

/// A job (stream) of a workload: its name in reports and, for closed-loop sources, the commands
/// it keeps in flight.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Job {
    pub name: String,
    pub queue_depth: u32,
}
