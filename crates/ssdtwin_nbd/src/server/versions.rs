//! The last durable version of the units whose newest data may not be on flash yet, so that a
//! power cut makes the units the model reports lost read what a real drive returns: the data of
//! their last version that was programmed, not zeros.
//!
//! Kept only while a power cut can lose acknowledged writes (the power-loss protection does not
//! cover every volatile write: [`LiveSimulation::writes_at_risk`]), and only for units written
//! since they were last seen durable. Before a write changes a unit's stored data, the unit's
//! current data is its durable version if no write of it is in flight and the model holds no
//! version of it unprogrammed ([`LiveSimulation::is_volatile`]); else the version kept stays.
//! The set is pruned the same way whenever it has doubled since its last pruning, so it holds
//! about what the model's write buffer holds, not everything ever written.
//!
//! The approximation: a unit is seen durable only when it is written again or at a pruning. A
//! version programmed in between two writes of the unit, while a newer one was already on its
//! way, is not seen: if that newer one is lost, the unit reads the older durable version the
//! server knew of, where a drive would return the one programmed.

use std::collections::HashMap;

use ssdtwin_core::sim::live::LiveSimulation;

use crate::store::Store;

/// A unit written since it was last seen durable.
#[derive(Debug)]
struct Version {
    /// Its last durable data (`None`: zeros).
    durable: Option<Box<[u8]>>,
    /// Writes of it received and not yet answered.
    in_flight: u32,
}

/// The durable versions; see the module documentation.
#[derive(Debug)]
pub(super) struct Versions {
    units: HashMap<u32, Version>,
    unit_bytes: u64,
    /// Units kept after the last pruning.
    pruned_len: usize,
    scratch: Vec<u8>,
}

impl Versions {
    pub(super) fn new(unit_bytes: u64) -> Versions {
        Versions {
            units: HashMap::new(),
            unit_bytes,
            pruned_len: 0,
            scratch: Vec::new(),
        }
    }

    /// Units with a version kept.
    pub(super) fn len(&self) -> usize {
        self.units.len()
    }

    /// A write of units `[first, end)` is about to change their stored data.
    pub(super) fn before_write(&mut self, store: &Store, live: &LiveSimulation, first: u32, end: u32) {
        for logical in first..end {
            let durable_now = match self.units.get(&logical) {
                None => true,
                Some(version) => version.in_flight == 0 && !live.is_volatile(logical),
            };
            if durable_now {
                let durable = self.read_unit(store, logical);
                let version = self.units.entry(logical).or_insert(Version {
                    durable: None,
                    in_flight: 0,
                });
                version.durable = durable;
            }
            self.units.get_mut(&logical).expect("inserted").in_flight += 1;
        }
    }

    /// A write of units `[first, end)` was answered.
    pub(super) fn write_answered(&mut self, first: u32, end: u32) {
        for logical in first..end {
            if let Some(version) = self.units.get_mut(&logical) {
                version.in_flight = version.in_flight.saturating_sub(1);
            }
        }
    }

    /// Units `[first, end)` were trimmed: zeros, durable once the model has the trim.
    pub(super) fn trimmed(&mut self, first: u32, end: u32) {
        if u64::from(end - first) > self.units.len() as u64 {
            self.units.retain(|&logical, _| logical < first || logical >= end);
        } else {
            for logical in first..end {
                self.units.remove(&logical);
            }
        }
    }

    /// Drops the units seen durable, when the set has doubled since the last pruning.
    pub(super) fn prune_if_grown(&mut self, live: &LiveSimulation) {
        if self.units.len() < 2 * self.pruned_len + 64 {
            return;
        }
        self.units
            .retain(|&logical, version| version.in_flight > 0 || live.is_volatile(logical));
        self.pruned_len = self.units.len();
    }

    /// The power failed: the `lost` units get their last durable data back (returned: how
    /// many had one kept); the writes that were in flight are forgotten (their connections are
    /// dropped; the model keeps what it had received).
    pub(super) fn power_lost(&mut self, store: &mut Store, lost: &[u32]) -> usize {
        let mut restored = 0;
        for logical in lost {
            if let Some(version) = self.units.remove(logical) {
                let offset = u64::from(*logical) * self.unit_bytes;
                match version.durable {
                    Some(data) => store.restore(offset, &data),
                    None => store.zero(offset, self.unit_bytes),
                }
                restored += 1;
            }
        }
        for version in self.units.values_mut() {
            version.in_flight = 0;
        }
        restored
    }

    fn read_unit(&mut self, store: &Store, logical: u32) -> Option<Box<[u8]>> {
        self.scratch.resize(self.unit_bytes as usize, 0);
        store.read(u64::from(logical) * self.unit_bytes, &mut self.scratch);
        if self.scratch.iter().all(|&byte| byte == 0) {
            None
        } else {
            Some(self.scratch.clone().into_boxed_slice())
        }
    }
}
