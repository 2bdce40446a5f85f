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
        if !self.fill_counted(&mut writer, span_units, total, progress)? {
            return Ok(false);
        }
        // Rounds of 16 programs per target. A round's overwrites are first spread over the planes
        // in proportion to their valid units; then, target by target, each plane of the target
        // draws its blocks in proportion to their valid units and the target takes its 16
        // programs (its planes' part of the block table stays in cache for both). Spreading a
        // round from the valid counts at its start, and applying a plane's overwrites before its
        // writes, moves each by less than a sixteenth of a block per plane.
        let planes = self.geometry.planes();
        let blocks_per_plane = self.geometry.blocks_per_plane;
        let round = u64::from(planes * self.geometry.units_per_page) * u64::from(ROUND_PROGRAMS);
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
        let targets = self.targets.len();
        let mut done = 0u64;
        while done < random_writes {
            // The fill may end inside a program: a first short round fills it, so that the
            // rounds after it start at a program boundary.
            let count = match writer.left_in_program(self) {
                0 => round,
                left => u64::from(left),
            }
            .min(random_writes - done);
            per_plane.fill(0);
            // The fullest plane bounds the rejection: planes hold nearly equal valid units, so
            // almost every draw is kept (a plane's capacity would reject one in three).
            let fullest = plane_valid.iter().copied().max().unwrap_or(0).max(1);
            for _ in 0..count {
                per_plane[draw(&plane_valid, fullest, rng)] += 1;
            }
            let mut wrote = |block: u32, units: u32| {
                plane_valid[(block / blocks_per_plane) as usize] += u64::from(units);
            };
            if count == round && self.uniform_targets() && writer.at_program_boundary(self) {
                let first_target = writer.next_target();
                for step in 0..targets {
                    let target = self.targets[(first_target + step) % targets];
                    for plane in target.first_plane..target.first_plane + target.plane_count {
                        self.invalidate_drawn(plane, per_plane[plane as usize], rng);
                    }
                    let left =
                        writer.programs_counted(self, (first_target + step) % targets, ROUND_PROGRAMS, &mut wrote);
                    if left > 0 {
                        let units = left * target.plane_count * self.geometry.units_per_page;
                        writer.write_counted(self, units, &mut wrote)?;
                    }
                }
            } else {
                for plane in 0..planes {
                    self.invalidate_drawn(plane, per_plane[plane as usize], rng);
                }
                writer.write_counted(self, count as u32, &mut wrote)?;
            }
            for (valid, &overwritten) in plane_valid.iter_mut().zip(&per_plane) {
                *valid -= u64::from(overwritten);
            }
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
        self.reset_fdp_counts();
        Ok(true)
    }

    /// The fill on the block table: `span_units` writes in striping order, each target's share of
    /// whole programs at once, then the last partial program. `Ok(false)` if `progress` cancels.
    fn fill_counted(
        &mut self,
        writer: &mut FunctionalWriter,
        span_units: u32,
        total: u64,
        progress: &mut dyn FnMut(f64) -> bool,
    ) -> Result<bool, String> {
        let targets = self.targets.len() as u32;
        let mut rest = span_units;
        if self.uniform_targets() {
            let program_units = self.targets[0].plane_count * self.geometry.units_per_page;
            let programs = span_units / program_units;
            let first = writer.next_target() as u32;
            let mut written = 0u32;
            for step in 0..targets {
                let share = programs / targets + u32::from(step < programs % targets);
                let left = writer.programs_counted(self, ((first + step) % targets) as usize, share, |_, _| {});
                if left > 0 {
                    writer.write_counted(self, left * program_units, |_, _| {})?;
                }
                written += share * program_units;
                if !progress(f64::from(written) / total as f64) {
                    return Ok(false);
                }
            }
            writer.set_next_target(((first + programs) % targets) as usize);
            rest = span_units - programs * program_units;
        }
        writer.write_counted(self, rest, |_, _| {})?;
        Ok(true)
    }

    /// `count` overwrites in `plane`: blocks drawn in proportion to their valid units, each losing
    /// one (draws overlap their loads: a few blocks are drawn, then invalidated).
    fn invalidate_drawn(&mut self, plane: u32, count: u32, rng: &mut Rng) {
        let units_per_block = u64::from(self.geometry.units_per_block());
        let blocks_per_plane = self.geometry.blocks_per_plane;
        let first = plane * blocks_per_plane;
        let range = first as usize..(first + blocks_per_plane) as usize;
        let mut drawn = [0u32; 64];
        let mut left = count;
        while left > 0 {
            let batch = left.min(drawn.len() as u32) as usize;
            let valid = &self.blocks.valid[range.clone()];
            for slot in &mut drawn[..batch] {
                *slot = first + draw(valid, units_per_block, rng) as u32;
            }
            for &block in &drawn[..batch] {
                if self.blocks.valid[block as usize] > 0 {
                    self.blocks.invalidate(block);
                } else {
                    // Drawn more often than it had valid units: take another of the plane.
                    let other = first + draw(&self.blocks.valid[range.clone()], units_per_block, rng) as u32;
                    self.blocks.invalidate(other);
                }
            }
            left -= batch as u32;
        }
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
        let mut subset = Subset::new(self.geometry.units_per_block());
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
            let needed = self.blocks.valid[block as usize];
            if needed == 0 {
                continue;
            }
            let pages = self.blocks.allocated_pages[block as usize];
            let first = self.geometry.unit_address(block, 0, 0);
            let partial_block = partial_blocks.binary_search(&block).is_ok();
            let written = if partial_block {
                slots.clear();
                for page in 0..pages {
                    let filled = partial.get(&(block, page)).copied().unwrap_or(units_per_page);
                    slots.extend((0..filled).map(|slot| self.geometry.unit_address(block, page, slot)));
                }
                slots.len() as u32
            } else {
                pages * units_per_page
            };
            debug_assert!(
                needed <= written,
                "block {block}: {needed} valid units in {written} slots"
            );
            // A uniformly random subset of the written slots keeps the valid units.
            for index in subset.draw(written, needed, rng) {
                let physical = if partial_block {
                    slots[index as usize]
                } else {
                    first + index
                };
                self.mapping.set(logical.next().expect("one per valid unit"), physical);
            }
            placed += needed;
        }
        assert_eq!(placed, span_units, "the block table holds the span's units");
    }
}

/// Uniformly random subsets of `0..n` (n at most a block's units), by Floyd's algorithm on a
/// bitset: the smaller of the subset and its complement is drawn, one `below` per member, so a
/// block costs at most half its slots in draws, and the members come out in increasing order
/// from the bitset's words.
#[derive(Debug)]
struct Subset {
    words: Vec<u64>,
}

impl Subset {
    fn new(capacity: u32) -> Subset {
        Subset {
            words: vec![0; capacity.div_ceil(64) as usize],
        }
    }

    /// `k` of `0..n` drawn uniformly, in increasing order.
    fn draw(&mut self, n: u32, k: u32, rng: &mut Rng) -> impl Iterator<Item = u32> + '_ {
        debug_assert!(k <= n && n as usize <= self.words.len() * 64);
        let used = n.div_ceil(64) as usize;
        self.words[..used].fill(0);
        let complement = k > n - k;
        let count = if complement { n - k } else { k };
        for j in n - count..n {
            let pick = rng.below(u64::from(j) + 1) as u32;
            let chosen = if self.words[(pick / 64) as usize] >> (pick % 64) & 1 == 1 {
                j
            } else {
                pick
            };
            self.words[(chosen / 64) as usize] |= 1 << (chosen % 64);
        }
        self.words[..used].iter().enumerate().flat_map(move |(index, &word)| {
            let base = index as u32 * 64;
            let valid = if base + 64 <= n {
                u64::MAX
            } else {
                (1u64 << (n - base)) - 1
            };
            let mut members = if complement { !word & valid } else { word };
            std::iter::from_fn(move || {
                (members != 0).then(|| {
                    let bit = members.trailing_zeros();
                    members &= members - 1;
                    base + bit
                })
            })
        })
    }
}

/// An index drawn in proportion to `weights`, each at most `capacity`, by rejection: a uniform
/// index, kept with probability weight / capacity (one 64-bit draw per try). Planes by their valid
/// units (capacity: the fullest plane's), blocks of a plane by theirs (capacity: a block's units).
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

/// Programs per target in a round of overwrites.
const ROUND_PROGRAMS: u32 = 16;

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
    fn subsets_have_the_right_size_and_are_uniform() {
        let mut subset = Subset::new(1024);
        let mut rng = Rng::stream(5, "test");
        for (n, k) in [
            (0u32, 0u32),
            (1, 0),
            (1, 1),
            (64, 1),
            (64, 63),
            (100, 30),
            (100, 70),
            (1024, 1024),
            (1000, 999),
        ] {
            let members: Vec<u32> = subset.draw(n, k, &mut rng).collect();
            assert_eq!(members.len(), k as usize, "n = {n}, k = {k}");
            assert!(
                members.windows(2).all(|pair| pair[0] < pair[1]),
                "n = {n}, k = {k}: not increasing"
            );
            assert!(members.iter().all(|&member| member < n), "n = {n}, k = {k}");
        }
        // Each slot is kept with probability k / n, whichever side is drawn: 20,000 draws, within
        // 5 standard deviations.
        for (n, k) in [(100u32, 30u32), (100, 70)] {
            let mut hits = vec![0u32; n as usize];
            let trials = 20_000;
            for _ in 0..trials {
                for member in subset.draw(n, k, &mut rng) {
                    hits[member as usize] += 1;
                }
            }
            let p = f64::from(k) / f64::from(n);
            let sd = (f64::from(trials) * p * (1.0 - p)).sqrt();
            for (slot, &count) in hits.iter().enumerate() {
                let deviation = (f64::from(count) - f64::from(trials) * p).abs();
                assert!(deviation < 5.0 * sd, "n = {n}, k = {k}: slot {slot} kept {count} times");
            }
        }
    }

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
