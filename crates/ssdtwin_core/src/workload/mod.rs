//! Workloads: where host commands come from. One generator per kind behind a closed enum.
pub mod synthetic;

/// One host command, in mapping units.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CommandSpec {
    pub is_read: bool,
    /// First logical mapping unit.
    pub first_unit: u32,
    /// Length in mapping units.
    pub units: u32,
}
