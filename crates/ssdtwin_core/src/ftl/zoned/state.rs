//! One zone of a zoned namespace: its state, write pointer and the errors a command on it can
//! end with, as the NVMe Zoned Namespace Command Set Specification 1.1 ([ZNS]) defines them.
//!
//! States: section 2.1.1, the zone state machine (ZSE, ZSIO, ZSEO, ZSC, ZSF, ZSRO, ZSO). Errors:
//! section 3.1.2, the command specific status values of the Zoned Namespace Command Set. The
//! transitions and the open/active resources live in `zones.rs`; this file holds the vocabulary.

use serde::{Deserialize, Serialize};

/// A zone's state ([ZNS] 2.1.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ZoneState {
    /// ZSE: no data; the write pointer is the zone's first LBA.
    Empty,
    /// ZSIO: opened by a write or a zone append.
    ImplicitlyOpened,
    /// ZSEO: opened by an Open Zone action.
    ExplicitlyOpened,
    /// ZSC: written, closed; still holds an active resource.
    Closed,
    /// ZSF: written to its capacity, or finished.
    Full,
    /// ZSRO: the controller has made the zone read-only (media wear).
    ReadOnly,
    /// ZSO: out of use (from read-only by an Offline Zone action).
    Offline,
}

impl ZoneState {
    /// Every state, in the order of [ZNS] 2.1.1.
    pub const ALL: [ZoneState; 7] = [
        ZoneState::Empty,
        ZoneState::ImplicitlyOpened,
        ZoneState::ExplicitlyOpened,
        ZoneState::Closed,
        ZoneState::Full,
        ZoneState::ReadOnly,
        ZoneState::Offline,
    ];

    /// An open zone holds an open resource ([ZNS] 2.1.1: ZSIO and ZSEO).
    pub fn is_open(self) -> bool {
        matches!(self, ZoneState::ImplicitlyOpened | ZoneState::ExplicitlyOpened)
    }

    /// An active zone holds an active resource ([ZNS] 2.1.1: ZSIO, ZSEO and ZSC).
    pub fn is_active(self) -> bool {
        self.is_open() || self == ZoneState::Closed
    }

    /// The specification's short name.
    pub fn name(self) -> &'static str {
        match self {
            ZoneState::Empty => "ZSE",
            ZoneState::ImplicitlyOpened => "ZSIO",
            ZoneState::ExplicitlyOpened => "ZSEO",
            ZoneState::Closed => "ZSC",
            ZoneState::Full => "ZSF",
            ZoneState::ReadOnly => "ZSRO",
            ZoneState::Offline => "ZSO",
        }
    }
}

/// The Zone Send Actions of Zone Management Send that change a zone's state ([ZNS] 3.4.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ZoneAction {
    Close,
    Finish,
    Open,
    Reset,
    Offline,
}

/// The zone operation a host command carries (`host::command::CommandSpec::zone`): `None` for a
/// plain read or write (on a zoned namespace a write must start at its zone's write pointer),
/// `Append` for a Zone Append to the zone starting at the command's first LBA, `Send` for a Zone
/// Management Send action on that zone (no data).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum ZoneOp {
    #[default]
    None,
    Append,
    Send(ZoneAction),
}

/// Why a zoned command failed: the status codes of [ZNS] 3.1.2, plus the generic ones a zoned
/// command can meet (an LBA outside the namespace, an invalid field).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ZoneError {
    /// The write would cross the zone's writable capacity.
    ZoneBoundaryError,
    /// Write or append to a full zone.
    ZoneIsFull,
    /// Write or append to a read-only zone.
    ZoneIsReadOnly,
    /// Write or append to an offline zone.
    ZoneIsOffline,
    /// A write that does not start at the zone's write pointer.
    ZoneInvalidWrite,
    /// The zone would need an active resource and all are in use.
    TooManyActiveZones,
    /// The zone would need an open resource, all are in use and none can be closed implicitly.
    TooManyOpenZones,
    /// The Zone Send Action is not allowed in the zone's state.
    InvalidZoneStateTransition,
    /// Generic status: a zero-length write, or an append whose LBA is not a zone start
    /// ([ZNS] 3.4.1).
    InvalidField,
    /// Generic status: an LBA beyond the namespace.
    LbaOutOfRange,
}

impl ZoneError {
    /// The status code: command specific (type 1h) for the zoned ones ([ZNS] 3.1.2), generic
    /// (type 0h) for the last two ([NVME2] Figure "Generic Command Status Values").
    pub fn status_code(self) -> u8 {
        match self {
            ZoneError::ZoneBoundaryError => 0xB8,
            ZoneError::ZoneIsFull => 0xB9,
            ZoneError::ZoneIsReadOnly => 0xBA,
            ZoneError::ZoneIsOffline => 0xBB,
            ZoneError::ZoneInvalidWrite => 0xBC,
            ZoneError::TooManyActiveZones => 0xBD,
            ZoneError::TooManyOpenZones => 0xBE,
            ZoneError::InvalidZoneStateTransition => 0xBF,
            ZoneError::InvalidField => 0x02,
            ZoneError::LbaOutOfRange => 0x80,
        }
    }

    /// The specification's name of the status.
    pub fn name(self) -> &'static str {
        match self {
            ZoneError::ZoneBoundaryError => "Zone Boundary Error",
            ZoneError::ZoneIsFull => "Zone Is Full",
            ZoneError::ZoneIsReadOnly => "Zone Is Read Only",
            ZoneError::ZoneIsOffline => "Zone Is Offline",
            ZoneError::ZoneInvalidWrite => "Zone Invalid Write",
            ZoneError::TooManyActiveZones => "Too Many Active Zones",
            ZoneError::TooManyOpenZones => "Too Many Open Zones",
            ZoneError::InvalidZoneStateTransition => "Invalid Zone State Transition",
            ZoneError::InvalidField => "Invalid Field in Command",
            ZoneError::LbaOutOfRange => "LBA Out of Range",
        }
    }
}

impl std::fmt::Display for ZoneError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({:#04x})", self.name(), self.status_code())
    }
}

/// One zone: its state, first LBA, write pointer, and when it was last opened or written (for the
/// implicit close, `zones.rs`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Zone {
    pub state: ZoneState,
    /// ZSLBA: the zone's first LBA.
    pub start: u64,
    /// The next LBA a write must start at. In ZSF, ZSRO and ZSO the specification leaves it
    /// undefined; here it stays where the zone ended (at `start + capacity` once finished).
    pub write_pointer: u64,
    /// Sequence number of the zone's last open or write (larger is more recent).
    pub(super) last_use: u64,
}

impl Zone {
    /// An empty zone starting at `start`.
    pub fn new(start: u64) -> Zone {
        Zone {
            state: ZoneState::Empty,
            start,
            write_pointer: start,
            last_use: 0,
        }
    }

    /// LBAs written since the last reset.
    pub fn written(&self) -> u64 {
        self.write_pointer - self.start
    }
}
