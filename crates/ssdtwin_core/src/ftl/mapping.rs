//! The page-mapping table: a flat forward map (logical → physical) and a reverse map (physical →
//! the logical unit written there) of `u32` mapping-unit addresses.
//!
//! The forward map is the truth: a physical unit `p` holds valid data exactly when
//! `forward[reverse[p]] == p`. The reverse entry is written where a unit is programmed (`remap`,
//! `set`: at a write frontier, one block's run after another) and never cleared, so it may be
//! stale; an overwrite or a trim writes only the forward map (and the block's valid count), one
//! random write fewer than keeping the reverse map exact. A stale entry never reads as valid: the
//! forward map points at a physical unit only through `remap`/`set`, which write its reverse entry
//! in the same step, and at most once between erases (a page is programmed once), so
//! `forward[l] == p` implies `reverse[p] == l`; after an erase nothing points into the block
//! until its units are written again, each with its new entry, so the entries an erase leaves
//! (and those of units allocated but never written) read as none.
//!
//! Forward and reverse maps cost 4 B per logical unit plus 4 B per physical unit (about 9.7 B per
//! logical unit at 30% over-provisioning). The reverse map is read a block's run at a time, so it
//! may live in a file instead of memory (`ftl.reverse_map = "file"`, `reverse.rs`): memory then
//! holds the forward map and a cache of block runs, about 4 B per logical unit.
//!
//! Entries are stored bit-inverted ([`encode`]): [`NONE`] is stored as 0, so a new table is the
//! kernel's zeroed memory (or a new file's zeroes) as it is, with nothing written. Its pages cost
//! nothing until first written (a fill or a snapshot writes each page once, where filling the
//! table with `NONE` first touched every page twice), and a drive that writes a part of its span
//! holds only that part in memory. Decoding is one `not` per access.

use std::path::Path;

use super::reverse::{Reverse, ReverseFile};
#[cfg(feature = "verify")]
use super::types::Stream;
use crate::base::error::ConfigError;
use crate::base::memory::LargeArray;

/// Marks an unmapped logical unit and an invalid (free or stale) physical unit.
pub const NONE: u32 = u32::MAX;

/// The stored form of a forward or reverse entry (bit-inverted: [`NONE`] is stored as 0); its own
/// inverse, so it also decodes.
#[inline]
pub const fn encode(value: u32) -> u32 {
    !value
}

#[derive(Debug, Default)]
pub struct Mapping {
    forward: LargeArray,
    reverse: Reverse,
    /// Test builds only (`verify` feature): the version of each unit's data ([`Versions`]).
    #[cfg(feature = "verify")]
    pub versions: Versions,
}

impl Mapping {
    /// The forward and reverse arrays as stored ([`encode`]d), for the tests that compare whole
    /// states; the reverse map must be in memory.
    #[cfg(test)]
    pub fn arrays(&self) -> (&[u32], &[u32]) {
        match &self.reverse {
            Reverse::Memory(reverse) => (&self.forward, reverse),
            Reverse::File(_) => panic!("the reverse map is in a file"),
        }
    }

    /// The forward map as stored ([`encode`]d; for snapshots).
    pub fn forward_stored(&self) -> &[u32] {
        &self.forward
    }

    /// The reverse map as stored ([`encode`]d, entries possibly stale; for snapshots).
    pub fn reverse_stored(&self) -> &Reverse {
        &self.reverse
    }

    /// The forward array and the reverse map as stored ([`encode`]d), for a caller that lays out
    /// a fresh table in bulk (the streamed fill, `fill.rs`).
    pub(super) fn arrays_mut(&mut self) -> (&mut [u32], &mut Reverse) {
        (&mut self.forward, &mut self.reverse)
    }

    /// The forward array and the reverse map as stored ([`encode`]d), taken out (the mapping is
    /// left empty).
    pub fn take_arrays(&mut self) -> (LargeArray, Reverse) {
        (std::mem::take(&mut self.forward), std::mem::take(&mut self.reverse))
    }

    /// A mapping from its forward array and reverse map as stored ([`encode`]d; a snapshot's).
    pub fn from_arrays(forward: LargeArray, reverse: Reverse) -> Mapping {
        Mapping {
            #[cfg(feature = "verify")]
            versions: Versions::of_maps(&forward, reverse.len()),
            forward,
            reverse,
        }
    }

    pub fn new(logical_units: u64, physical_units: u64) -> Mapping {
        Mapping {
            // Zeroed memory, untouched: every entry `encode(NONE)`.
            forward: LargeArray::filled(logical_units as usize, encode(NONE)),
            reverse: Reverse::Memory(LargeArray::filled(physical_units as usize, encode(NONE))),
            #[cfg(feature = "verify")]
            versions: Versions::new(logical_units, physical_units),
        }
    }

    /// Moves the reverse map, empty still, to a new file in `dir` (for `ftl.reverse_map = "file"`
    /// the directory `TMPDIR` names, else the system's temporary directory) cached by runs of
    /// `units_per_block` entries (`reverse.rs`).
    pub fn reverse_to_file(&mut self, dir: &Path, units_per_block: u32) -> Result<(), ConfigError> {
        let len = self.reverse.len();
        let file = ReverseFile::create(dir, len, units_per_block as usize).map_err(|error| {
            ConfigError::new(
                "ftl.reverse_map",
                format!(
                    "\"file\": cannot make the reverse map's file ({:.2} GiB) in {} (the directory TMPDIR \
                     names, else the system's temporary directory): {error}; allowed: \"memory\", or \"file\" \
                     with TMPDIR naming a writable directory with that much free space",
                    len as f64 * 4.0 / f64::from(1u32 << 30),
                    dir.display()
                ),
            )
        })?;
        self.reverse = Reverse::File(Box::new(file));
        Ok(())
    }

    /// Whether the reverse map lives in a file.
    pub fn reverse_in_file(&self) -> bool {
        matches!(self.reverse, Reverse::File(_))
    }

    /// Physical unit holding `logical`, or [`NONE`].
    #[inline]
    pub fn physical(&self, logical: u32) -> u32 {
        encode(self.forward[logical as usize])
    }

    /// Logical unit whose valid data is at `physical`, or [`NONE`] when the unit holds no valid
    /// data (free, or stale: its reverse entry names a logical unit the forward map has moved on).
    #[inline]
    pub fn logical(&self, physical: u32) -> u32 {
        let logical = encode(self.reverse.get(physical));
        if logical != NONE && self.physical(logical) == physical {
            logical
        } else {
            NONE
        }
    }

    /// The logical unit last written at `physical` as the reverse map holds it, valid or stale
    /// (for the tests that show a stale entry is not taken for valid data).
    pub fn reverse_entry(&self, physical: u32) -> u32 {
        encode(self.reverse.get(physical))
    }

    /// Points `logical` at `physical`; returns the physical unit it held before (now stale), or [`NONE`].
    #[inline]
    pub fn remap(&mut self, logical: u32, physical: u32) -> u32 {
        let old = encode(std::mem::replace(&mut self.forward[logical as usize], encode(physical)));
        self.reverse.set(physical, encode(logical));
        old
    }

    /// Points the unmapped `logical` at the empty `physical` (laying out a table from scratch).
    #[inline]
    pub fn set(&mut self, logical: u32, physical: u32) {
        debug_assert_eq!(self.physical(logical), NONE);
        debug_assert_eq!(self.logical(physical), NONE);
        self.forward[logical as usize] = encode(physical);
        self.reverse.set(physical, encode(logical));
        #[cfg(feature = "verify")]
        self.versions.placed(logical, physical, NONE, Stream::User);
    }

    /// Unmaps `logical` (a host trim); returns the physical unit it held (now stale), or [`NONE`].
    #[inline]
    pub fn unmap(&mut self, logical: u32) -> u32 {
        let old = encode(std::mem::replace(&mut self.forward[logical as usize], encode(NONE)));
        #[cfg(feature = "verify")]
        self.versions.trimmed(logical);
        old
    }

    /// Test builds only: drops `logical` from the forward map, as a lost write would (the caller
    /// fixes the block's valid count), so a check can be shown to catch the loss.
    #[cfg(feature = "verify")]
    pub fn forget(&mut self, logical: u32) -> u32 {
        encode(std::mem::replace(&mut self.forward[logical as usize], encode(NONE)))
    }

    /// Backs the pages of the forward entries of logical units `0..span_units` and, in memory, of
    /// the whole reverse map now, contents unchanged ([`LargeArray::populate`]).
    pub fn populate(&self, span_units: u32) {
        self.forward.populate(span_units as usize);
        self.reverse.populate();
    }

    pub fn logical_units(&self) -> usize {
        self.forward.len()
    }

    /// Bytes of simulator state held by the two maps (the reverse map's wherever it lives).
    pub fn state_bytes(&self) -> usize {
        (self.forward.len() + self.reverse.len()) * std::mem::size_of::<u32>()
    }
}

#[cfg(feature = "verify")]
/// Test builds only (`verify`): the version of each logical unit's latest write and of the data
/// in each physical slot (`versions.rs` checks them).
#[derive(Clone, Debug, Default)]
pub struct Versions {
    /// Per logical unit: how many times the host placed it (0: never written).
    latest: Vec<u32>,
    /// Per physical slot: the version of the data written there (0: none since the start).
    slot: Vec<u32>,
    /// Per logical unit: a host trim unmapped it after its latest write.
    trimmed: Vec<bool>,
}

#[cfg(feature = "verify")]
impl Versions {
    pub fn new(logical_units: u64, physical_units: u64) -> Versions {
        Versions {
            latest: vec![0; logical_units as usize],
            slot: vec![0; physical_units as usize],
            trimmed: vec![false; logical_units as usize],
        }
    }

    /// The versions of maps loaded from a snapshot (the forward map as stored, [`encode`]d, over
    /// `physical_units`): every mapped unit holds its first version.
    pub fn of_maps(forward: &[u32], physical_units: usize) -> Versions {
        let mut versions = Versions::new(forward.len() as u64, physical_units as u64);
        for (logical, &stored) in forward.iter().enumerate() {
            let physical = encode(stored);
            if physical != NONE {
                versions.latest[logical] = 1;
                versions.slot[physical as usize] = 1;
            }
        }
        versions
    }

    /// `logical` now lives at `physical`, moved from `old` ([`NONE`]: it was unmapped).
    #[inline]
    pub fn placed(&mut self, logical: u32, physical: u32, old: u32, stream: Stream) {
        let version = match stream {
            Stream::User => {
                self.trimmed[logical as usize] = false;
                self.latest[logical as usize] += 1;
                self.latest[logical as usize]
            }
            // A copy carries its source's data; a copy of nothing carries no version.
            Stream::Gc if old == NONE => 0,
            Stream::Gc => self.slot[old as usize],
        };
        self.slot[physical as usize] = version;
    }

    /// A host trim unmapped `logical`: unmapped is its expected state until its next write.
    #[inline]
    pub fn trimmed(&mut self, logical: u32) {
        self.trimmed[logical as usize] = true;
    }

    /// Whether a trim unmapped `logical` after its latest write.
    pub fn is_trimmed(&self, logical: u32) -> bool {
        self.trimmed[logical as usize]
    }

    /// Logical units a trim left unmapped (trimmed and not written since).
    pub fn trimmed_units(&self) -> u32 {
        self.trimmed.iter().filter(|&&trimmed| trimmed).count() as u32
    }

    /// The latest version of `logical` (0: never written).
    pub fn latest(&self, logical: u32) -> u32 {
        self.latest[logical as usize]
    }

    /// The version of the data in `physical` (0: none).
    pub fn slot(&self, physical: u32) -> u32 {
        self.slot[physical as usize]
    }

    /// Host placements since the start, preconditioning included.
    pub fn placements(&self) -> u64 {
        self.latest.iter().map(|&version| u64::from(version)).sum()
    }
}
