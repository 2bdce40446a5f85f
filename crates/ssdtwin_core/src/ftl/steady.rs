//! Statistical `steady` preconditioning for page mapping (`workload.steady_method =
//! "statistical"`, docs/models/ftl.md): the random overwrites run on the block table alone, then
//! the mapping table is laid out to match it.
//!
//! A uniformly random overwrite of the (fully written) span invalidates a uniformly random valid
//! unit, so the block losing a unit is a block drawn in proportion to its valid units; which of
//! its units, and which logical unit it held, the block table never needs. Drawing that block by
//! rejection (a uniform block, kept with probability valid / units per block) reads only the block
//! table (a few MiB, cached), where the functional path reads and writes the mapping table (GiBs,
//! a memory latency or two per write). Everything else runs the same code as the functional
//! path: the writer's striping, GC when a plane runs short, the victim policy, wear leveling,
//! erases; so the block table after the overwrites (valid units, closed order, erase counts, free
//! and open blocks, the policy's state) has the same distribution as after the functional path.
//!
//! The layout then gives each block its valid units at random among the slots it has written
//! (uniform invalidation leaves a uniformly random subset), and the span's logical units to those
//! slots in the order of a random permutation ([`Deal`]; which logical unit survives where is
//! exchangeable under uniform overwrites). One thing this does not keep: after `steady_overwrites = 1` about
//! e⁻¹ ≈ 37% of the span has never been overwritten and, on the functional path, still sits where
//! the sequential fill put it (logical neighbours together); here those units are scattered too.

use std::collections::HashMap;

use super::precondition::FunctionalWriter;
use super::Ftl;
use crate::base::rng::Rng;

impl Ftl {
    /// `steady` on the block table: the fill and the overwrites counted, then the mapping laid out
    /// (module docs).
    pub(super) fn precondition_on_blocks(
        &mut self,
        span_units: u32,
        random_writes: u64,
        rng: &mut Rng,
        progress: &mut dyn FnMut(f64) -> bool,
    ) -> Result<bool, String> {
        let total = u64::from(span_units) + random_writes;
        let mut writer = FunctionalWriter::counting();
        let mut done = 0u32;
        while done < span_units {
            let count = (1 << 20).min(span_units - done);
            writer.write_counted(self, count, |_, _| {})?;
            done += count;
            if !progress(f64::from(done) / total as f64) {
                return Ok(false);
            }
        }
        // Rounds of 16 pages per plane. A round's overwrites are first spread over the planes in
        // proportion to their valid units, then applied plane by plane, each drawing its blocks
        // in proportion to their valid units (the plane's block table stays in cache), then the
        // round's writes are made. Spreading a round from the valid counts at its start, and
        // applying its overwrites before its writes, moves each by less than a sixteenth of a
        // block per plane.
        let planes = self.geometry.planes();
        let blocks_per_plane = self.geometry.blocks_per_plane;
        let units_per_block = self.geometry.units_per_block();
        let plane_capacity = u64::from(blocks_per_plane) * u64::from(units_per_block);
        let round = u64::from(planes * self.geometry.units_per_page) * 16;
        let mut plane_valid: Vec<u64> = (0..planes)
            .map(|plane| {
                let first = (plane * blocks_per_plane) as usize;
                self.blocks.valid[first..first + blocks_per_plane as usize]
                    .iter()
                    .map(|&valid| u64::from(valid))
                    .sum()
            })
            .collect();
        let mut per_plane = vec![0u32; planes as usize];
        let mut done = 0u64;
        while done < random_writes {
            let count = round.min(random_writes - done);
            per_plane.fill(0);
            for _ in 0..count {
                per_plane[draw(&plane_valid, plane_capacity, rng)] += 1;
            }
            for plane in 0..planes {
                let first = plane * blocks_per_plane;
                let range = first as usize..(first + blocks_per_plane) as usize;
                let mut drawn = [0u32; 64];
                let mut left = per_plane[plane as usize];
                while left > 0 {
                    // Draw a few blocks, then invalidate them (the draws overlap their loads).
                    let batch = left.min(drawn.len() as u32) as usize;
                    let valid = &self.blocks.valid[range.clone()];
                    for slot in &mut drawn[..batch] {
                        *slot = first + draw(valid, u64::from(units_per_block), rng) as u32;
                    }
                    for &block in &drawn[..batch] {
                        if self.blocks.valid[block as usize] > 0 {
                            self.blocks.invalidate(block);
                        } else {
                            // Drawn more often than it had valid units: take another of the plane.
                            let other =
                                first + draw(&self.blocks.valid[range.clone()], u64::from(units_per_block), rng) as u32;
                            self.blocks.invalidate(other);
                        }
                    }
                    left -= batch as u32;
                }
                plane_valid[plane as usize] -= u64::from(per_plane[plane as usize]);
            }
            writer.write_counted(self, count as u32, |block, units| {
                plane_valid[(block / blocks_per_plane) as usize] += u64::from(units);
            })?;
            let before = done;
            done += count;
            if before >> 20 != done >> 20 && !progress((u64::from(span_units) + done) as f64 / total as f64) {
                return Ok(false);
            }
        }
        // Slots of pages still being filled (the writer's program, the GC pages) that hold no data.
        let mut partial: HashMap<(u32, u32), u32> = writer.filled_pages(self.geometry.units_per_page).collect();
        for open in self.gc_open.iter().flatten() {
            partial.insert((open.block, open.page), open.filled);
        }
        writer.finish(self);
        self.lay_out_mapping(span_units, &partial, rng);
        // Preconditioning is not part of the measured run.
        self.counts = super::types::PlacementCounts::default();
        Ok(true)
    }

    /// Lays out the mapping table for the block table's valid counts: each block's valid units at
    /// random written slots, the span's logical units in the order of a [`Deal`].
    fn lay_out_mapping(&mut self, span_units: u32, partial: &HashMap<(u32, u32), u32>, rng: &mut Rng) {
        // The table is still empty: the fill and the overwrites only counted.
        debug_assert!((0..span_units).all(|logical| self.mapping.physical(logical) == super::mapping::NONE));
        let deal = Deal::new(span_units, rng);
        let mut logical = deal.iter();
        let units_per_page = self.geometry.units_per_page;
        let mut partial_blocks: Vec<u32> = partial.keys().map(|&(block, _)| block).collect();
        partial_blocks.sort_unstable();
        let mut slots: Vec<u32> = Vec::with_capacity(self.geometry.units_per_block() as usize);
        let mut bits = Bits::default();
        let mut placed = 0u32;
        // Blocks in striping order (a block of each die in turn, channel-major, then the next
        // plane and block), so the few logical neighbours a deal puts in consecutive blocks sit on
        // different dies and channels, not in one plane.
        let (dies, planes_per_die) = (self.geometry.dies, self.geometry.planes_per_die);
        let blocks_per_plane = self.geometry.blocks_per_plane;
        for visit in 0..self.blocks.valid.len() as u32 {
            let (die, rest) = (visit % dies, visit / dies);
            let plane = die * planes_per_die + rest % planes_per_die;
            let block = plane * blocks_per_plane + rest / planes_per_die;
            let mut needed = u64::from(self.blocks.valid[block as usize]);
            if needed == 0 {
                continue;
            }
            let pages = self.blocks.allocated_pages[block as usize];
            let first = self.geometry.unit_address(block, 0, 0);
            slots.clear();
            if partial_blocks.binary_search(&block).is_ok() {
                for page in 0..pages {
                    let filled = partial.get(&(block, page)).copied().unwrap_or(units_per_page);
                    slots.extend((0..filled).map(|slot| self.geometry.unit_address(block, page, slot)));
                }
            } else {
                slots.extend(first..first + pages * units_per_page);
            }
            let mut remaining = slots.len() as u64;
            debug_assert!(
                needed <= remaining,
                "block {block}: {needed} valid units in {remaining} slots"
            );
            // Selection sampling: each written slot in turn is kept with probability
            // needed / remaining, which keeps a uniformly random subset of the right size.
            for &physical in &slots {
                if (bits.next(rng) * remaining) >> 32 < needed {
                    self.mapping.set(logical.next().expect("one per valid unit"), physical);
                    placed += 1;
                    needed -= 1;
                    if needed == 0 {
                        break;
                    }
                }
                remaining -= 1;
            }
        }
        assert_eq!(placed, span_units, "the block table holds the span's units");
    }
}

/// 32 random bits at a time from the 64 of each draw.
#[derive(Debug, Default)]
struct Bits {
    spare: Option<u32>,
}

impl Bits {
    #[inline]
    fn next(&mut self, rng: &mut Rng) -> u64 {
        if let Some(bits) = self.spare.take() {
            return u64::from(bits);
        }
        let draw = rng.next_u64();
        self.spare = Some((draw >> 32) as u32);
        draw & 0xFFFF_FFFF
    }
}

/// An index drawn in proportion to `weights`, each at most `capacity`, by rejection: a uniform
/// index, kept with probability weight / capacity (one 64-bit draw per try). Planes by their valid
/// units (capacity: a plane's units), blocks of a plane by theirs (capacity: a block's units).
#[inline]
fn draw<T: Copy + Into<u64>>(weights: &[T], capacity: u64, rng: &mut Rng) -> usize {
    let len = weights.len() as u64;
    loop {
        let bits = rng.next_u64();
        let index = (((bits >> 32) * len) >> 32) as usize;
        if ((bits & 0xFFFF_FFFF) * capacity) >> 32 < weights[index].into() {
            return index;
        }
    }
}

/// The order in which the span's logical units are dealt to the valid slots, block by block: a
/// random permutation of `0..n` built as a grid of `COLUMNS` columns of `rows` consecutive units.
/// The k-th dealt unit is row `k / COLUMNS` of column `σ(k mod COLUMNS)` (σ a random permutation
/// of the columns, each column's rows rotated by a random offset); grid cells past `n` are
/// skipped. Consecutive slots (one block's) get units a column (n / 1,024) apart, so logical
/// neighbours land in different blocks, as after random overwrites; and the mapping table is
/// written as 1,024 interleaved sequential streams, which stay in cache, where a scattered
/// permutation would cost a memory latency per unit (most of the layout's time).
#[derive(Debug)]
struct Deal {
    n: u64,
    rows: u64,
    columns: Vec<(u64, u64)>,
}

const COLUMNS: u64 = 1024;

impl Deal {
    fn new(n: u32, rng: &mut Rng) -> Deal {
        let n = u64::from(n);
        let rows = n.div_ceil(COLUMNS).max(1);
        let mut order: Vec<u64> = (0..COLUMNS).collect();
        for index in (1..order.len()).rev() {
            let pick = rng.below(index as u64 + 1) as usize;
            order.swap(index, pick);
        }
        let columns = order.into_iter().map(|column| (column, rng.below(rows))).collect();
        Deal { n, rows, columns }
    }

    /// The dealt units in order: each of `0..n` once.
    fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        (0..COLUMNS * self.rows).filter_map(move |cell| {
            let (column, offset) = self.columns[(cell % COLUMNS) as usize];
            let mut row = cell / COLUMNS + offset;
            if row >= self.rows {
                row -= self.rows;
            }
            let unit = column * self.rows + row;
            (unit < self.n).then_some(unit as u32)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_deal_is_a_permutation_that_separates_neighbours() {
        for n in [0u32, 1, 2, 7, 1000, 1024, 1025, 65_536, 100_003] {
            let deal = Deal::new(n, &mut Rng::stream(3, "test"));
            let dealt: Vec<u32> = deal.iter().collect();
            assert_eq!(dealt.len(), n as usize, "n = {n}");
            let mut seen = vec![false; n as usize];
            for &unit in &dealt {
                assert!(!seen[unit as usize], "n = {n}: {unit} twice");
                seen[unit as usize] = true;
            }
            if n >= 65_536 {
                // Consecutive dealt units are logically far apart (a block's units scatter).
                let close = dealt
                    .windows(2)
                    .filter(|pair| pair[0].abs_diff(pair[1]) < n / 2048)
                    .count();
                assert!(close < dealt.len() / 100, "n = {n}: {close} close neighbours");
            }
        }
    }
}
