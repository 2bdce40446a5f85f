//! The zones of a zoned namespace and the transitions between their states: writes at the write
//! pointer, zone append, the Zone Send Actions, and the open and active resources
//! ([ZNS] 2.1.1, 3.4.1, 3.4.3; the limits are the namespace's Maximum Open Resources and Maximum
//! Active Resources).
//!
//! Choice the specification leaves to the controller ([ZNS] 2.1.1, managing resources): when a
//! zone must open (a write to an empty or closed zone, or an Open Zone action) and every open
//! resource is in use, the controller closes the implicitly opened zone used least recently
//! (written or opened longest ago) and counts it in `implicit_closes`; only when every open zone
//! is explicitly opened does the command fail with Too Many Open Zones. An explicitly opened zone
//! is never closed by the controller. Finish Zone of an empty or closed zone takes no resource
//! (it ends in ZSF, which holds none).

use serde::{Deserialize, Serialize};

use super::state::{Zone, ZoneAction, ZoneError, ZoneState};

/// The namespace's zone geometry and resource limits, in logical blocks and zones.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ZoneLimits {
    /// Zone size: LBAs from one zone start to the next.
    pub zone_size: u64,
    /// Zone capacity: the writable LBAs at the start of a zone (at most `zone_size`).
    pub zone_capacity: u64,
    /// Maximum open zones (ZSIO + ZSEO).
    pub max_open: u32,
    /// Maximum active zones (ZSIO + ZSEO + ZSC); at least `max_open`.
    pub max_active: u32,
}

/// What the namespace counted since it was made.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ZoneCounts {
    /// Writes and appends accepted.
    pub writes: u64,
    /// LBAs written by them.
    pub lbas_written: u64,
    /// Writes and appends refused, whatever the status.
    pub rejected_writes: u64,
    /// Writes refused because they did not start at the write pointer (Zone Invalid Write).
    pub invalid_writes: u64,
    /// Reset Zone actions on a zone that held data (ZSIO, ZSEO, ZSC or ZSF): each erases.
    pub resets: u64,
    /// Zones the controller closed to open another ([ZNS] 2.1.1).
    pub implicit_closes: u64,
    /// Zones that became full, by writing or by Finish Zone.
    pub zones_filled: u64,
}

/// The outcome of an accepted write or append.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Written {
    /// The zone written.
    pub zone: usize,
    /// The first LBA written (for an append, the LBA it returns).
    pub lba: u64,
    /// The write reached the zone's capacity: the zone is now full.
    pub filled: bool,
    /// The zone the controller closed to give this one an open resource.
    pub closed: Option<usize>,
}

/// Every zone of the namespace and its resource counts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Zones {
    limits: ZoneLimits,
    zones: Vec<Zone>,
    open: u32,
    active: u32,
    clock: u64,
    pub counts: ZoneCounts,
}

impl Zones {
    /// `count` empty zones. The limits are checked by the scenario's validation
    /// (`ftl/zoned/params.rs`); here they must be consistent.
    pub fn new(count: usize, limits: ZoneLimits) -> Zones {
        debug_assert!(limits.zone_capacity >= 1 && limits.zone_capacity <= limits.zone_size);
        debug_assert!(limits.max_open >= 1 && limits.max_open <= limits.max_active);
        Zones {
            limits,
            zones: (0..count as u64).map(|i| Zone::new(i * limits.zone_size)).collect(),
            open: 0,
            active: 0,
            clock: 0,
            counts: ZoneCounts::default(),
        }
    }

    pub fn limits(&self) -> ZoneLimits {
        self.limits
    }

    pub fn len(&self) -> usize {
        self.zones.len()
    }

    pub fn is_empty(&self) -> bool {
        self.zones.is_empty()
    }

    pub fn zone(&self, index: usize) -> &Zone {
        &self.zones[index]
    }

    /// Zones in ZSIO or ZSEO.
    pub fn open_zones(&self) -> u32 {
        self.open
    }

    /// Zones in ZSIO, ZSEO or ZSC.
    pub fn active_zones(&self) -> u32 {
        self.active
    }

    /// The zone holding `lba`.
    pub fn zone_of(&self, lba: u64) -> Result<usize, ZoneError> {
        let index = lba / self.limits.zone_size;
        if index >= self.zones.len() as u64 {
            return Err(ZoneError::LbaOutOfRange);
        }
        Ok(index as usize)
    }

    /// A Write command of `len` LBAs at `lba`: it must start at its zone's write pointer and end
    /// within the zone's capacity. A refused write changes nothing but the counts.
    pub fn write(&mut self, lba: u64, len: u64) -> Result<Written, ZoneError> {
        let result = self.write_inner(lba, len, false);
        self.count(result)
    }

    /// A Zone Append of `len` LBAs to the zone starting at `zone_start` ([ZNS] 3.4.1): written at
    /// the write pointer, whose LBA it returns in `Written::lba`.
    pub fn append(&mut self, zone_start: u64, len: u64) -> Result<Written, ZoneError> {
        let result = self.write_inner(zone_start, len, true);
        self.count(result)
    }

    fn count(&mut self, result: Result<Written, ZoneError>) -> Result<Written, ZoneError> {
        match result {
            Ok(_) => self.counts.writes += 1,
            Err(error) => {
                self.counts.rejected_writes += 1;
                if error == ZoneError::ZoneInvalidWrite {
                    self.counts.invalid_writes += 1;
                }
            }
        }
        result
    }

    fn write_inner(&mut self, lba: u64, len: u64, append: bool) -> Result<Written, ZoneError> {
        if len == 0 {
            return Err(ZoneError::InvalidField);
        }
        let index = self.zone_of(lba)?;
        let zone = &self.zones[index];
        match zone.state {
            ZoneState::Full => return Err(ZoneError::ZoneIsFull),
            ZoneState::ReadOnly => return Err(ZoneError::ZoneIsReadOnly),
            ZoneState::Offline => return Err(ZoneError::ZoneIsOffline),
            _ => {}
        }
        if append && lba != zone.start {
            return Err(ZoneError::InvalidField);
        }
        if !append && lba != zone.write_pointer {
            return Err(ZoneError::ZoneInvalidWrite);
        }
        let first = zone.write_pointer;
        let end = zone.start + self.limits.zone_capacity;
        if first + len > end {
            return Err(ZoneError::ZoneBoundaryError);
        }
        let closed = self.make_open(index, false)?;
        self.clock += 1;
        let zone = &mut self.zones[index];
        zone.write_pointer += len;
        zone.last_use = self.clock;
        self.counts.lbas_written += len;
        let filled = zone.write_pointer == end;
        if filled {
            self.release(index);
            self.zones[index].state = ZoneState::Full;
            self.counts.zones_filled += 1;
        }
        Ok(Written {
            zone: index,
            lba: first,
            filled,
            closed,
        })
    }

    /// A Zone Send Action on zone `index` ([ZNS] 3.4.3). Returns the zone the controller closed
    /// implicitly to open this one, if any.
    pub fn send(&mut self, index: usize, action: ZoneAction) -> Result<Option<usize>, ZoneError> {
        use ZoneState::*;
        let state = self.zones[index].state;
        match (action, state) {
            (ZoneAction::Open, Empty | ImplicitlyOpened | Closed) => return self.make_open(index, true),
            (ZoneAction::Open, ExplicitlyOpened)
            | (ZoneAction::Close, Closed)
            | (ZoneAction::Finish, Full)
            | (ZoneAction::Reset, Empty)
            | (ZoneAction::Offline, Offline) => {}
            (ZoneAction::Close, ImplicitlyOpened | ExplicitlyOpened) => {
                self.release(index);
                self.active += 1;
                self.zones[index].state = Closed;
            }
            (ZoneAction::Finish, Empty | ImplicitlyOpened | ExplicitlyOpened | Closed) => {
                self.release(index);
                let zone = &mut self.zones[index];
                zone.write_pointer = zone.start + self.limits.zone_capacity;
                zone.state = Full;
                self.counts.zones_filled += 1;
            }
            (ZoneAction::Reset, ImplicitlyOpened | ExplicitlyOpened | Closed | Full) => {
                self.release(index);
                let zone = &mut self.zones[index];
                zone.write_pointer = zone.start;
                zone.state = Empty;
                self.counts.resets += 1;
            }
            (ZoneAction::Offline, ReadOnly) => self.zones[index].state = Offline,
            _ => return Err(ZoneError::InvalidZoneStateTransition),
        }
        Ok(None)
    }

    /// The controller makes zone `index` read-only (worn media, [ZNS] 2.1.1: any state but ZSO
    /// may go to ZSRO); it gives up its resources.
    pub fn make_read_only(&mut self, index: usize) {
        if self.zones[index].state != ZoneState::Offline {
            self.release(index);
            self.zones[index].state = ZoneState::ReadOnly;
        }
    }

    /// Gives back the open and active resources zone `index` holds (its state is the caller's).
    fn release(&mut self, index: usize) {
        let state = self.zones[index].state;
        if state.is_open() {
            self.open -= 1;
        }
        if state.is_active() {
            self.active -= 1;
        }
    }

    /// Moves zone `index` (ZSE, ZSIO, ZSEO or ZSC) to an open state, taking the resources it
    /// lacks; `explicit` for an Open Zone action. See the file's comment for the implicit close.
    fn make_open(&mut self, index: usize, explicit: bool) -> Result<Option<usize>, ZoneError> {
        let state = self.zones[index].state;
        let target = if explicit {
            ZoneState::ExplicitlyOpened
        } else {
            ZoneState::ImplicitlyOpened
        };
        if state.is_open() {
            if explicit {
                self.zones[index].state = target;
            }
            return Ok(None);
        }
        if state == ZoneState::Empty && self.active >= self.limits.max_active {
            return Err(ZoneError::TooManyActiveZones);
        }
        let mut closed = None;
        if self.open >= self.limits.max_open {
            let victim = (0..self.zones.len())
                .filter(|&i| self.zones[i].state == ZoneState::ImplicitlyOpened)
                .min_by_key(|&i| self.zones[i].last_use)
                .ok_or(ZoneError::TooManyOpenZones)?;
            self.open -= 1;
            self.zones[victim].state = ZoneState::Closed;
            self.counts.implicit_closes += 1;
            closed = Some(victim);
        }
        if state == ZoneState::Empty {
            self.active += 1;
        }
        self.open += 1;
        self.clock += 1;
        let zone = &mut self.zones[index];
        zone.state = target;
        zone.last_use = self.clock;
        Ok(closed)
    }
}
