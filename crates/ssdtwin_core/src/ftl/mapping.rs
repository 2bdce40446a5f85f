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
//! Entries are stored relative to a mask: `stored = value ^ mask(index)`, where the mask is
//! [`NONE`] (so `stored = !value`) except in the rows a streamed fill laid out without writing them
//! ([`FillLayout`], `fill_layout.rs`), where it is the value the fill gave that entry. So a new
//! table is the kernel's zeroed memory (or a new file's zeroes) as it is: an untouched entry reads
//! [`NONE`], or the fill's mapping inside its rows. A fill of a fresh table writes no entry (its
//! rows are a few numbers per block), its pages cost nothing until first written (reads of them
//! hit the kernel's shared zero page), and a drive that writes a part of its span holds only that
//! part in memory. Decoding is a compare and a `xor` per access, plus a few shifts or
//! multiplications inside the rows.

use std::path::Path;

use super::fill_layout::{FillLayout, RowShape};
use super::reverse::{Reverse, ReverseFile};
#[cfg(feature = "verify")]
use super::types::Stream;
use super::written::Written;
use crate::base::error::ConfigError;
use crate::base::memory::{LargeArray, Pages};

/// Marks an unmapped logical unit and an invalid (free or stale) physical unit (the fill layout's
/// answer outside its rows too).
pub const NONE: u32 = super::fill_layout::NONE;

/// The stored form of a forward or reverse entry outside a fill's rows (bit-inverted: [`NONE`] is
/// stored as 0); its own inverse, so it also decodes.
#[inline]
pub const fn encode(value: u32) -> u32 {
    !value
}

#[derive(Debug, Default)]
pub struct Mapping {
    forward: LargeArray,
    /// Which chunks of `forward` may hold a non-zero entry (`written.rs`): a lookup elsewhere
    /// skips the load.
    written: Written,
    reverse: Reverse,
    /// The rows a fill laid out without writing them: the masks of their entries.
    layout: FillLayout,
    /// Writes through the table since it was made (0: nothing written but the layout's rows, so a
    /// fill may still add rows to it; a table from a snapshot starts at 1). An unchanged count
    /// means no entry changed ([`Self::changes`]).
    changes: u64,
    /// Test builds only (`verify` feature): the version of each unit's data ([`Versions`]).
    #[cfg(feature = "verify")]
    pub versions: Versions,
}

impl Mapping {
    /// The forward and reverse maps decoded (entry values, [`NONE`] for none), for the tests that
    /// compare whole states.
    #[cfg(test)]
    pub fn decoded(&self) -> (Vec<u32>, Vec<u32>) {
        let mut forward = Vec::with_capacity(self.forward.len());
        self.for_each_forward_chunk(1 << 16, |chunk| {
            forward.extend_from_slice(chunk);
            Ok(())
        })
        .expect("in memory");
        let mut reverse = Vec::with_capacity(self.reverse.len());
        self.for_each_reverse_chunk(1 << 16, |chunk| {
            reverse.extend_from_slice(chunk);
            Ok(())
        })
        .expect("the reverse map reads back");
        (forward, reverse)
    }

    /// Logical units a fill laid out without writing them (its rows, [`FillLayout`]).
    #[cfg(test)]
    pub fn laid_out_units(&self) -> u32 {
        self.layout.logical_range().len() as u32
    }

    /// Calls `visit` with the forward map's entry values in order ([`NONE`] for none), a chunk of
    /// at most `chunk` at a time (for snapshots).
    pub fn for_each_forward_chunk(
        &self,
        chunk: usize,
        mut visit: impl FnMut(&[u32]) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        let mut values = vec![0u32; chunk.min(self.forward.len())];
        for (index, stored) in self.forward.chunks(chunk.max(1)).enumerate() {
            let start = (index * chunk) as u32;
            let part = &mut values[..stored.len()];
            for ((value, &stored), logical) in part.iter_mut().zip(stored).zip(start..) {
                *value = stored ^ self.layout.physical(logical);
            }
            visit(part)?;
        }
        Ok(())
    }

    /// Calls `visit` with the reverse map's entry values in order ([`NONE`] for none, entries
    /// possibly stale), a chunk of at most `chunk` at a time (for snapshots).
    pub fn for_each_reverse_chunk(
        &self,
        chunk: usize,
        mut visit: impl FnMut(&[u32]) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        let mut values = Vec::with_capacity(chunk.min(self.reverse.len()));
        let mut start = 0u32;
        self.reverse.for_each_chunk(chunk, |stored| {
            values.clear();
            values.extend(
                stored
                    .iter()
                    .zip(start..)
                    .map(|(&stored, physical)| stored ^ self.layout.logical(physical)),
            );
            start += stored.len() as u32;
            visit(&values)
        })
    }

    /// The forward array and the reverse map with every entry stored plainly ([`encode`]d: any
    /// fill layout written out first), for a caller that lays out a fresh table in bulk (`steady`).
    pub(super) fn arrays_mut(&mut self) -> (&mut [u32], &mut Reverse) {
        self.materialise();
        self.changes += 1;
        self.written.mark_all();
        (&mut self.forward, &mut self.reverse)
    }

    /// The forward entries of logical units `logicals`, the reverse map and the masks they are
    /// stored with (an entry is stored as its value `^` the layout's value for it, [`NONE`] outside
    /// the layout), for the fill.
    pub(super) fn arrays_masked_mut(
        &mut self,
        logicals: std::ops::Range<usize>,
    ) -> (&mut [u32], &mut Reverse, &FillLayout) {
        self.changes += 1;
        self.written.mark_range(logicals.start, logicals.end);
        (&mut self.forward[logicals], &mut self.reverse, &self.layout)
    }

    /// Takes a streamed fill's row without writing it, if the table holds nothing but earlier rows
    /// it continues (`FillLayout::push_row`); returns whether it did. `blocks`: the row's fresh
    /// blocks per target in row order, per plane, filled from page 0 to the last.
    pub(super) fn lay_out_row(&mut self, first: u32, shape: RowShape, blocks: &[u32]) -> bool {
        if self.changes != 0 {
            return false;
        }
        let units_per_block = shape.pages_per_block * shape.units_per_page;
        let blocks_total = (self.reverse.len() / units_per_block.max(1) as usize) as u32;
        let taken = self.layout.push_row(first, shape, blocks, blocks_total);
        #[cfg(feature = "verify")]
        if taken {
            for logical in first..self.layout.logical_range().end {
                let physical = self.layout.physical(logical);
                self.versions.placed(logical, physical, NONE, Stream::User);
            }
        }
        taken
    }

    /// Writes the layout's entries out plainly ([`encode`]d) and empties it: the table then reads
    /// the same with no layout.
    fn materialise(&mut self) {
        if self.layout.is_empty() {
            return;
        }
        let layout = std::mem::take(&mut self.layout);
        let range = layout.logical_range();
        self.written.mark_range(range.start as usize, range.end as usize);
        for logical in layout.logical_range() {
            let entry = &mut self.forward[logical as usize];
            *entry = encode(*entry ^ layout.physical(logical));
        }
        let units_per_block = layout.units_per_block();
        for &block in layout.blocks() {
            let start = block * units_per_block;
            let mut run = self.reverse.run_mut(start as usize, units_per_block as usize);
            for (entry, physical) in run.iter_mut().zip(start..) {
                *entry = encode(*entry ^ layout.logical(physical));
            }
        }
    }

    /// Takes the forward array and the reverse map out with every entry stored plainly
    /// ([`encode`]d; the mapping is left empty).
    pub fn take_arrays(&mut self) -> (LargeArray, Reverse) {
        self.materialise();
        self.written = Written::default();
        (std::mem::take(&mut self.forward), std::mem::take(&mut self.reverse))
    }

    /// How many writes went through the table (every entry change counts, the fill's unwritten
    /// rows do not): while it is unchanged, no logical unit has moved (admission's blocked read).
    #[inline]
    pub fn changes(&self) -> u64 {
        self.changes
    }

    /// A mapping from its forward array and reverse map, every entry stored plainly ([`encode`]d;
    /// a snapshot's).
    pub fn from_arrays(forward: LargeArray, reverse: Reverse) -> Mapping {
        Mapping {
            #[cfg(feature = "verify")]
            versions: Versions::of_maps(&forward, reverse.len()),
            written: Written::new(forward.len(), true),
            forward,
            reverse,
            layout: FillLayout::default(),
            changes: 1,
        }
    }

    pub fn new(logical_units: u64, physical_units: u64) -> Mapping {
        Mapping {
            // Zeroed memory, untouched: every entry `encode(NONE)`.
            forward: LargeArray::filled(logical_units as usize, encode(NONE)),
            written: Written::new(logical_units as usize, false),
            reverse: Reverse::Memory(LargeArray::filled_on(
                physical_units as usize,
                encode(NONE),
                Pages::Base,
            )),
            layout: FillLayout::default(),
            changes: 0,
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

    /// Physical unit holding `logical`, or [`NONE`]. (Inlined everywhere: every host read's lookup.)
    #[inline(always)]
    pub fn physical(&self, logical: u32) -> u32 {
        self.lookup(logical).0
    }

    /// [`Self::physical`], and whether `logical` is still where a fill's row put it with nothing
    /// in its chunk written since: its page is then programmed without a look at its block (the
    /// fill programmed the block whole, and no block is erased while a row maps into it: GC moves
    /// the units first, a trim unmaps them, and either marks their chunk written).
    #[inline(always)]
    pub fn lookup(&self, logical: u32) -> (u32, bool) {
        let mask = self.layout.physical(logical);
        if self.written.holds(logical) {
            (self.forward[logical as usize] ^ mask, false)
        } else {
            (mask, mask != NONE)
        }
    }

    /// Checks `written.rs`'s invariant: every entry of a chunk not marked written is zero.
    pub fn check_written(&self) -> Result<(), String> {
        match (0..self.forward.len() as u32)
            .find(|&logical| !self.written.holds(logical) && self.forward[logical as usize] != 0)
        {
            Some(logical) => Err(format!(
                "logical {logical}'s forward entry was written, its chunk not marked"
            )),
            None => Ok(()),
        }
    }

    /// Logical unit whose valid data is at `physical`, or [`NONE`] when the unit holds no valid
    /// data (free, or stale: its reverse entry names a logical unit the forward map has moved on).
    #[inline]
    pub fn logical(&self, physical: u32) -> u32 {
        let logical = self.reverse_entry(physical);
        if logical != NONE && self.physical(logical) == physical {
            logical
        } else {
            NONE
        }
    }

    /// The logical unit last written at `physical` as the reverse map holds it, valid or stale
    /// (for the tests that show a stale entry is not taken for valid data).
    #[inline]
    pub fn reverse_entry(&self, physical: u32) -> u32 {
        self.reverse.get(physical) ^ self.layout.logical(physical)
    }

    /// Points `logical` at `physical`; returns the physical unit it held before (now stale), or [`NONE`].
    #[inline]
    pub fn remap(&mut self, logical: u32, physical: u32) -> u32 {
        self.changes += 1;
        self.written.mark(logical);
        let mask = self.layout.physical(logical);
        let old = std::mem::replace(&mut self.forward[logical as usize], physical ^ mask) ^ mask;
        self.reverse.set(physical, logical ^ self.layout.logical(physical));
        old
    }

    /// Points the unmapped `logical` at the empty `physical` (laying out a table from scratch).
    #[inline]
    pub fn set(&mut self, logical: u32, physical: u32) {
        debug_assert_eq!(self.physical(logical), NONE);
        debug_assert_eq!(self.logical(physical), NONE);
        self.changes += 1;
        self.written.mark(logical);
        self.forward[logical as usize] = physical ^ self.layout.physical(logical);
        self.reverse.set(physical, logical ^ self.layout.logical(physical));
        #[cfg(feature = "verify")]
        self.versions.placed(logical, physical, NONE, Stream::User);
    }

    /// Unmaps `logical` (a host trim); returns the physical unit it held (now stale), or [`NONE`].
    #[inline]
    pub fn unmap(&mut self, logical: u32) -> u32 {
        self.changes += 1;
        self.written.mark(logical);
        let mask = self.layout.physical(logical);
        let old = std::mem::replace(&mut self.forward[logical as usize], NONE ^ mask) ^ mask;
        #[cfg(feature = "verify")]
        self.versions.trimmed(logical);
        old
    }

    /// Test builds only: drops `logical` from the forward map, as a lost write would (the caller
    /// fixes the block's valid count), so a check can be shown to catch the loss.
    #[cfg(feature = "verify")]
    pub fn forget(&mut self, logical: u32) -> u32 {
        self.changes += 1;
        self.written.mark(logical);
        let mask = self.layout.physical(logical);
        std::mem::replace(&mut self.forward[logical as usize], NONE ^ mask) ^ mask
    }

    /// Backs the pages of the forward entries of logical units `0..span_units` and, in memory, of
    /// the whole reverse map now, contents unchanged ([`LargeArray::populate`]). Not those of a
    /// fill's rows ([`FillLayout`]): they stay untouched (reads of them hit the kernel's zero page)
    /// until first written, so with rows only the forward entries outside them are backed.
    pub fn populate(&self, span_units: u32) {
        if self.layout.is_empty() {
            self.forward.populate(0, span_units as usize);
            self.reverse.populate();
        } else {
            let rows = self.layout.logical_range();
            self.forward.populate(0, rows.start.min(span_units) as usize);
            self.forward.populate(rows.end as usize, span_units as usize);
        }
    }

    pub fn logical_units(&self) -> usize {
        self.forward.len()
    }

    pub fn physical_units(&self) -> usize {
        self.reverse.len()
    }

    /// Bytes of simulator state held by the two maps (the reverse map's wherever it lives).
    pub fn state_bytes(&self) -> usize {
        (self.forward.len() + self.reverse.len()) * std::mem::size_of::<u32>() + self.written.bytes()
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
