//! The state of Flush and FUA (`durability.rs` drives it): the waits open and what they did.

use std::collections::HashSet;

use super::buffer::FastHash;

/// Flushes and FUA writes waiting for their units to be programmed.
#[derive(Debug, Default)]
pub struct Durability {
    /// The hold-up capacitors can flush every volatile write the drive may hold: Flush and FUA
    /// complete at once.
    pub protected: bool,
    waits: Vec<Wait>,
    pub stats: DurabilityStats,
}

#[derive(Debug)]
pub struct Wait {
    pub command: u32,
    /// A FUA write (not acknowledged until done), as opposed to a Flush.
    pub fua: bool,
    pub units: HashSet<u32, FastHash>,
}

/// What Flush and FUA did, for the report's `durability` block.
#[derive(Clone, Copy, Debug, Default)]
pub struct DurabilityStats {
    pub flushes: u64,
    pub fua_writes: u64,
    /// Flushes and FUA writes that had to wait for programs (not protected, volatile data held).
    pub waited: u64,
    /// Units they waited for, summed.
    pub waited_units: u64,
}

impl Durability {
    /// Opens a wait.
    pub fn push(&mut self, wait: Wait) {
        self.waits.push(wait);
    }

    /// Whether a Flush or FUA write waits for programs.
    #[inline]
    pub fn waiting(&self) -> bool {
        !self.waits.is_empty()
    }

    /// Units of FUA writes not yet acknowledged (a power cut does not lose acknowledged data
    /// there: the host holds no acknowledgement).
    pub fn unacknowledged_units(&self) -> HashSet<u32, FastHash> {
        self.waits
            .iter()
            .filter(|wait| wait.fua)
            .flat_map(|wait| wait.units.iter().copied())
            .collect()
    }

    /// `logical` is durable (programmed, or trimmed): the waits done now are returned.
    pub fn settle(&mut self, logical: u32, done: &mut Vec<u32>) {
        self.waits.retain_mut(|wait| {
            wait.units.remove(&logical);
            if wait.units.is_empty() {
                done.push(wait.command);
                false
            } else {
                true
            }
        });
    }
}
