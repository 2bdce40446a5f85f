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
//! slots in the order of a random permutation (`steady_draws.rs`; which logical unit survives where is
//! exchangeable under uniform overwrites). One thing this does not keep: after `steady_overwrites = 1` about
//! e⁻¹ ≈ 37% of the span has never been overwritten and, on the functional path, still sits where
//! the sequential fill put it (logical neighbours together); here those units are scattered too.

use super::precondition::FunctionalWriter;
use super::steady_draws::{draw, draw_counts, draw_into};
use super::steady_layout::{PartialPages, Stores};
use super::Ftl;
use crate::base::rng::Rng;

impl Ftl {
    /// `steady` on the block table: the fill and the overwrites counted, then the mapping laid out
    /// (module docs). The block table's bucket lists are deferred meanwhile (`blocks.rs`): the
    /// same victims, without relinking a block on each of the overwrites.
    pub(super) fn precondition_on_blocks(
        &mut self,
        span_units: u32,
        random_writes: u64,
        rng: &mut Rng,
        progress: &mut dyn FnMut(f64) -> bool,
    ) -> Result<bool, String> {
        // Two threads from a million units on (a thread start, tens of microseconds, is nothing
        // next to such a layout); smaller drives keep the one.
        let stores = if span_units >= 1 << 20 {
            Stores::TwoThreads
        } else {
            Stores::OneThread
        };
        self.steady_on_blocks(span_units, random_writes, rng, progress, true, stores)
    }

    /// [`Self::precondition_on_blocks`], the bucket lists deferred or (`defer` false, for the test
    /// that compares the two) kept up on each overwrite, the layout's stores on `stores`.
    fn steady_on_blocks(
        &mut self,
        span_units: u32,
        random_writes: u64,
        rng: &mut Rng,
        progress: &mut dyn FnMut(f64) -> bool,
        defer: bool,
        stores: Stores,
    ) -> Result<bool, String> {
        if defer {
            self.blocks.defer_buckets();
        }
        // The counting never touches the mapping table: meanwhile a second thread has the kernel
        // back its pages (zeroing them, seconds for GiBs), which the layout would otherwise wait
        // for page by page. The table's contents do not change, so neither does the result.
        let mapping = std::mem::take(&mut self.mapping);
        let (done, mapping) = std::thread::scope(|scope| {
            let populating = scope.spawn(move || {
                // The span's forward entries and every block's reverse ones: the layout writes them.
                mapping.populate(span_units);
                mapping
            });
            let done = self.count_steady_state(span_units, random_writes, rng, progress);
            let mapping = populating
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            (done, mapping)
        });
        self.mapping = mapping;
        // The bucket lists stay deferred for the run (`blocks.rs`): an overwrite then stamps its
        // old block rather than moving it between two linked lists, two random cache lines
        // instead of six to eight. A snapshot writes them restored.
        let Some(partial) = done? else {
            return Ok(false);
        };
        self.lay_out_mapping(span_units, &partial, rng, stores);
        // Preconditioning is not part of the measured run.
        self.counts = super::types::PlacementCounts::default();
        self.reset_fdp_counts();
        Ok(true)
    }

    /// The fill and the overwrites on the block table; returns the slots of the pages still being
    /// filled that hold data, or `None` if `progress` cancels.
    fn count_steady_state(
        &mut self,
        span_units: u32,
        random_writes: u64,
        rng: &mut Rng,
        progress: &mut dyn FnMut(f64) -> bool,
    ) -> Result<Option<PartialPages>, String> {
        let total = u64::from(span_units) + random_writes;
        let mut writer = FunctionalWriter::counting();
        if !self.fill_counted(&mut writer, span_units, total, progress)? {
            return Ok(None);
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
            draw_counts(&plane_valid, fullest, count, &mut per_plane, rng);
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
                return Ok(None);
            }
        }
        // Slots of pages still being filled (the writer's program, the GC pages) that hold no data.
        let mut partial: PartialPages = writer.filled_pages(self.geometry.units_per_page).collect();
        for open in self.gc_open.iter().flatten() {
            partial.insert((open.block, open.page), open.filled);
        }
        writer.finish(self);
        Ok(Some(partial))
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
            draw_into(
                &self.blocks.valid[range.clone()],
                units_per_block,
                first,
                &mut drawn[..batch],
                rng,
            );
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
}

/// Programs per target in a round of overwrites.
const ROUND_PROGRAMS: u32 = 16;

#[cfg(test)]
mod tests {
    use super::super::mapping::NONE;
    use super::super::params::{FtlConfig, GcPolicyKind};
    use super::*;
    use crate::flash::geometry::Geometry;
    use crate::flash::params::FlashConfig;

    /// The whole state after statistical `steady` on a small drive: the mapping's arrays, then the
    /// rest as a snapshot writes it (the lists' hints settled: a hint may lag, never lead).
    fn steady_state(policy: GcPolicyKind, defer: bool, stores: Stores) -> (Vec<u32>, Vec<u32>, String) {
        steady_state_in(policy, defer, stores, false)
    }

    /// [`steady_state`], the reverse map in a file if `file`.
    fn steady_state_in(policy: GcPolicyKind, defer: bool, stores: Stores, file: bool) -> (Vec<u32>, Vec<u32>, String) {
        let flash = FlashConfig {
            channels: 2,
            dies_per_chip: 2,
            blocks_per_plane: 32,
            pages_per_block: 16,
            ..FlashConfig::default()
        };
        let config = FtlConfig {
            gc_policy: policy,
            ..FtlConfig::default()
        };
        let geometry = Geometry::new(&flash, config.mapping_unit);
        let mut ftl = Ftl::new(&config, flash.multi_plane, geometry, Rng::stream(1, "ftl"));
        if file {
            ftl.mapping
                .reverse_to_file(&std::env::temp_dir(), geometry.units_per_block())
                .expect("a file in the temporary directory");
        }
        let span = ftl.logical_units() * 9 / 10;
        let mut rng = Rng::stream(2, "pattern");
        let done = ftl
            .steady_on_blocks(span, 3 * u64::from(span), &mut rng, &mut |_| true, defer, stores)
            .expect("room to precondition");
        assert!(done);
        // The run keeps the lists deferred: an overwrite then touches two cache lines of the
        // block table, not six to eight (the write benchmark's speed).
        assert_eq!(ftl.blocks.deferred(), defer, "the lists' deferral after steady");
        ftl.check_invariants().expect("a consistent FTL");
        let erases: u32 = ftl.blocks.erase_count.iter().sum();
        assert!(erases > 500, "GC must run for the lists to matter ({erases} erases)");
        for plane in 0..geometry.planes() {
            ftl.blocks.settle_hint(plane);
        }
        let (forward, reverse) = ftl.mapping.decoded();
        let rest = serde_json::to_string(&ftl).expect("an FTL serializes");
        (forward, reverse, rest)
    }

    #[test]
    fn deferring_the_bucket_lists_leaves_the_state_the_per_unit_upkeep_leaves() {
        for policy in [
            GcPolicyKind::Greedy,
            GcPolicyKind::CostBenefit,
            GcPolicyKind::Random,
            GcPolicyKind::Fifo,
        ] {
            assert!(
                steady_state(policy, true, Stores::OneThread) == steady_state(policy, false, Stores::OneThread),
                "{policy:?}: the states differ"
            );
        }
    }

    #[test]
    fn the_two_thread_layout_leaves_the_state_the_one_thread_layout_leaves() {
        for policy in [GcPolicyKind::Greedy, GcPolicyKind::Random] {
            let one = steady_state(policy, true, Stores::OneThread);
            assert!(one.0.iter().any(|&entry| entry != NONE), "the layout mapped nothing");
            assert!(
                steady_state(policy, true, Stores::TwoThreads) == one,
                "{policy:?}: the states differ"
            );
        }
    }

    #[test]
    fn a_reverse_map_in_a_file_is_laid_out_as_in_memory() {
        // Layout windows of a few blocks in tests (`steady_layout.rs`): many windows opened and closed.
        let memory = steady_state(GcPolicyKind::Greedy, true, Stores::OneThread);
        assert!(memory.1.iter().any(|&entry| entry != 0), "the layout mapped nothing");
        for stores in [Stores::OneThread, Stores::TwoThreads] {
            assert!(
                steady_state_in(GcPolicyKind::Greedy, true, stores, true) == memory,
                "{stores:?}: the file's layout differs"
            );
        }
    }
}
