//! Zoned namespaces (issue 31): the zone state machine of the NVMe Zoned Namespace Command Set
//! Specification 1.1 ([ZNS]), pure state with no timing.
//!
//! `state.rs` holds a zone, its states and the specification's status codes; `zones.rs` the
//! namespace's zones, write pointers, zone append, the Zone Send Actions and the open and active
//! zone limits; `params.rs` the `[zns]` keys and
//! their layout in zones and blocks; `layout.rs` where each zone's data lives on the flash; `flash.rs` what each zone command
//! programs and erases there (not yet driven by the simulation). Nothing here is used unless `zns.enabled`.

pub mod flash;
#[cfg(test)]
mod flash_tests;
pub mod layout;
#[cfg(test)]
mod layout_tests;
pub mod params;
pub mod state;
#[cfg(test)]
mod tests;
pub mod zones;

pub use state::{Zone, ZoneAction, ZoneError, ZoneOp, ZoneState};
pub use zones::{Written, ZoneCounts, ZoneLimits, Zones};
