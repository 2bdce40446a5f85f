//! The streamed fill (docs/models/ftl.md, preconditioning): writes the span once in striping order
//! as the per-unit path (a [`FunctionalWriter`] write per unit, through [`super::placement::place`])
//! would, in whole rounds that stream the mapping table's arrays.
//!
//! A round is `R` programs on every program target in turn, where every plane's open user block
//! takes `R` more pages (a block row when the planes move in step, as on a fresh drive). Within a
//! round the placement is arithmetic: the `r`-th program of the round on target `t` holds logical
//! units `first + (r · T + t) · P + i` (T targets, P units per program) in page `page₀ + r` of its
//! planes' open blocks. So the forward map is written front to back, the reverse map one block's
//! run at a time, and the block table per block (valid units, pages allocated and programmed, the
//! closes in the order the per-unit path closes them) rather than per unit.
//!
//! The per-unit path checks GC before every program and opens a block when a plane's is full; a
//! round is streamed only where those checks would find nothing to do (every plane keeps at least
//! the GC level of free blocks after its round's opening), so the state after the fill is the
//! per-unit path's, bit for bit (the test below compares them). Anything else (a drive already
//! written, targets of unequal width, a plane short of free blocks, the span's last partial round)
//! goes through the per-unit path.
//!
//! A round of whole block rows (every plane's open block a fresh one filled from page 0 to its last)
//! on a table nothing has been written to is not written at all: the mapping records the row (its
//! first logical unit and blocks, `fill_layout.rs`) and stores every entry relative to the value the
//! row gives it (`mapping.rs`), so the untouched (zero) entries read as the row's mapping. Only the
//! block table's work is done per block. Any other round (a partial one, or once anything was written
//! through the table) is written out as above. Measured on full-size `enterprise_tlc` (188 M units):
//! the fill's mapping work falls from about 4 s (84% of it the kernel zeroing the arrays' fresh
//! pages) to the block table's, about 0.1 s; the first writes into the rows fault their pages in
//! during the run instead (docs/guide/benchmark.md).

use super::fill_layout::RowShape;
use super::mapping::NONE;
use super::precondition::FunctionalWriter;
use super::types::Stream;
use super::Ftl;

/// Open blocks of one round: per target in round order, per plane, the block and its first page.
type RoundBlocks = Vec<(u32, u32)>;

impl Ftl {
    /// Writes logical units `0..span_units` once, in order, through `writer` (fresh: nothing
    /// written by it yet). Returns how many of them were streamed (the rest went through the
    /// per-unit path), or `None` if `progress` (called with the fraction of `total` done) cancels.
    pub(super) fn fill(
        &mut self,
        writer: &mut FunctionalWriter,
        span_units: u32,
        total: u64,
        progress: &mut dyn FnMut(f64) -> bool,
    ) -> Result<Option<u32>, String> {
        let streamable = self.uniform_targets() && self.blocks.valid.iter().all(|&valid| valid == 0);
        let program_units = self.targets[0].plane_count * self.geometry.units_per_page;
        let (mut next, mut reported, mut streamed_units) = (0u32, 0u32, 0u32);
        while next < span_units {
            let streamed = if streamable && writer.at_program_boundary(self) {
                self.stream_round(writer, next, span_units - next)
            } else {
                0
            };
            if streamed > 0 {
                next += streamed;
                streamed_units += streamed;
            } else {
                // One program's worth (or the rest of the open one) through the per-unit path.
                let left = match writer.left_in_program(self) {
                    0 => program_units,
                    left => left,
                };
                let end = next.saturating_add(left).min(span_units);
                for logical in next..end {
                    writer.write(self, logical)?;
                }
                next = end;
            }
            if next - reported >= 1 << 20 || next == span_units {
                reported = next;
                if !progress(f64::from(next) / total as f64) {
                    return Ok(None);
                }
            }
        }
        Ok(Some(streamed_units))
    }

    /// Streams one round of whole programs on every target from the writer's next one, writing
    /// logical units from `first` on (at most `left` of them); returns how many it wrote (0: no
    /// round can be streamed here, nothing changed but the writer's open program completed).
    fn stream_round(&mut self, writer: &mut FunctionalWriter, first: u32, left: u32) -> u32 {
        // The per-unit path completes the open program before opening the next one.
        writer.finish(self);
        let targets = self.targets.len() as u32;
        let planes_per_target = self.targets[0].plane_count;
        let units_per_page = self.geometry.units_per_page;
        let pages_per_block = self.geometry.pages_per_block;
        let program_units = planes_per_target * units_per_page;
        let first_target = writer.next_target() as u32;
        let plane_of = |ftl: &Ftl, step: u32, index: u32| {
            ftl.targets[((first_target + step) % targets) as usize].first_plane + index
        };
        // Pages every plane's open block still takes (a full block: a fresh one's), and whether
        // the per-unit path's GC checks would all pass (after the opening, for the round's later
        // programs; the free blocks change only when a block opens).
        let mut rounds = u32::MAX;
        for step in 0..targets {
            for index in 0..planes_per_target {
                let plane = plane_of(self, step, index);
                let opens = self.pages_left(plane, Stream::User) == 0;
                let free_after = self.free[plane as usize].len() - usize::from(opens);
                if (opens && self.free[plane as usize].len() <= 1) || free_after < self.precondition_trigger {
                    return 0;
                }
                let pages = if opens {
                    pages_per_block
                } else {
                    self.pages_left(plane, Stream::User)
                };
                rounds = rounds.min(pages);
            }
        }
        let rounds = rounds.min(left / (targets * program_units));
        if rounds == 0 {
            return 0;
        }
        let mut opened: RoundBlocks = Vec::with_capacity((targets * planes_per_target) as usize);
        for step in 0..targets {
            for index in 0..planes_per_target {
                let (block, page) = self.allocate_page(plane_of(self, step, index), Stream::User);
                self.blocks.allocated_pages[block as usize] += rounds - 1;
                opened.push((block, page));
            }
        }
        let shape = RowShape {
            targets,
            planes_per_target,
            units_per_page,
            pages_per_block,
        };
        let whole_blocks = rounds == pages_per_block && opened.iter().all(|&(_, page)| page == 0);
        let blocks: Vec<u32> = opened.iter().map(|&(block, _)| block).collect();
        if !(whole_blocks && self.mapping.lay_out_row(first, shape, &blocks)) {
            self.lay_out_round(&opened, first, rounds, targets, program_units);
        }
        let round_units = rounds * targets * program_units;
        for &(block, _) in &opened {
            self.blocks.valid[block as usize] += rounds * units_per_page;
            self.pages_programmed(block, rounds);
        }
        self.counts.user_units += u64::from(round_units);
        writer.set_next_target(first_target as usize);
        round_units
    }

    /// Writes the round's entries: the forward map front to back, then the reverse map one block's
    /// run of `rounds` pages at a time (module docs for the arithmetic).
    fn lay_out_round(&mut self, opened: &RoundBlocks, first: u32, rounds: u32, targets: u32, program_units: u32) {
        let units_per_page = self.geometry.units_per_page;
        let pages_per_block = self.geometry.pages_per_block;
        let planes_per_target = program_units / units_per_page;
        let round_units = (rounds * targets * program_units) as usize;
        let (forward, reverse, layout) = self
            .mapping
            .arrays_masked_mut(first as usize..first as usize + round_units);
        let mut entries = forward.iter_mut().zip(first..);
        for round in 0..rounds {
            for &(block, page) in opened {
                let start = (block * pages_per_block + page + round) * units_per_page;
                // The range first: `zip` asks it first, so no entry is taken past the page.
                for (physical, (entry, logical)) in (start..start + units_per_page).zip(entries.by_ref()) {
                    let mask = layout.physical(logical);
                    debug_assert_eq!(*entry ^ mask, NONE, "the fill writes a fresh table");
                    *entry = physical ^ mask;
                }
            }
        }
        for (position, &(block, page)) in opened.iter().enumerate() {
            let (step, index) = (position as u32 / planes_per_target, position as u32 % planes_per_target);
            let start = (block * pages_per_block + page) * units_per_page;
            let mut run = reverse.run_mut(start as usize, (rounds * units_per_page) as usize);
            for (round, page_run) in run.chunks_exact_mut(units_per_page as usize).enumerate() {
                let logical = first + (round as u32 * targets + step) * program_units + index * units_per_page;
                let page_start = start + round as u32 * units_per_page;
                for ((entry, logical), physical) in page_run.iter_mut().zip(logical..).zip(page_start..) {
                    let mask = layout.logical(physical);
                    debug_assert_eq!(*entry ^ mask, NONE, "the fill writes a fresh table");
                    *entry = logical ^ mask;
                }
            }
        }
        #[cfg(feature = "verify")]
        for logical in first..first + round_units as u32 {
            let physical = self.mapping.physical(logical);
            self.mapping.versions.placed(logical, physical, NONE, Stream::User);
        }
    }

    /// Whether every program target spans as many planes (the striping order then gives each
    /// target the same share of whole programs).
    pub(super) fn uniform_targets(&self) -> bool {
        self.targets
            .iter()
            .all(|target| target.plane_count == self.targets[0].plane_count)
    }
}

#[cfg(test)]
mod tests {
    use super::super::params::FtlConfig;
    use super::*;
    use crate::base::rng::Rng;
    use crate::flash::geometry::Geometry;
    use crate::flash::params::FlashConfig;

    /// A small FTL: 2 channels × 2 dies × `planes` planes of `blocks` blocks of 8 pages.
    fn ftl(planes: u32, blocks: u32, multi_plane: bool, config: &FtlConfig) -> Ftl {
        let flash = FlashConfig {
            channels: 2,
            dies_per_chip: 2,
            planes_per_die: planes,
            blocks_per_plane: blocks,
            pages_per_block: 8,
            multi_plane,
            ..FlashConfig::default()
        };
        let geometry = Geometry::new(&flash, config.mapping_unit);
        Ftl::new(config, multi_plane, geometry, Rng::stream(1, "ftl"))
    }

    /// Everything the FTL holds: the mapping's arrays and the rest as the snapshot writes it.
    fn state(ftl: &Ftl) -> (Vec<u32>, Vec<u32>, String) {
        let (forward, reverse) = ftl.mapping.decoded();
        (forward, reverse, serde_json::to_string(ftl).expect("an FTL serializes"))
    }

    #[test]
    fn the_streamed_fill_leaves_the_state_the_per_unit_path_leaves() {
        let (mut cases, mut all_streamed) = (0, 0u64);
        for (planes, multi_plane) in [(2, true), (2, false), (1, true)] {
            for (over_provisioning, span) in [(0.3, 1.0), (0.3, 0.61), (0.07, 1.0), (0.5, 0.2)] {
                let config = FtlConfig {
                    over_provisioning,
                    ..FtlConfig::default()
                };
                let mut per_unit = ftl(planes, 24, multi_plane, &config);
                let span_units = (span * f64::from(per_unit.logical_units())) as u32;
                let mut writer = FunctionalWriter::default();
                for logical in 0..span_units {
                    writer.write(&mut per_unit, logical).expect("room to fill");
                }
                writer.finish(&mut per_unit);

                let mut streamed = ftl(planes, 24, multi_plane, &config);
                let mut writer = FunctionalWriter::default();
                let streamed_units = streamed
                    .fill(&mut writer, span_units, u64::from(span_units), &mut |_| true)
                    .expect("room to fill")
                    .expect("not cancelled");
                writer.finish(&mut streamed);
                // Rounds of 8 pages on every plane: most of the span unless a plane runs short.
                all_streamed += u64::from(streamed_units);
                let what = format!("{planes} planes, multi-plane {multi_plane}, OP {over_provisioning}, span {span}");
                assert_eq!(
                    streamed.mapping.physical(span_units - 1),
                    per_unit.mapping.physical(span_units - 1),
                    "{what}"
                );
                assert!(state(&streamed) == state(&per_unit), "{what}: the states differ");
                #[cfg(feature = "verify")]
                {
                    let (a, b) = (&streamed.mapping.versions, &per_unit.mapping.versions);
                    assert!(
                        (0..streamed.logical_units()).all(|logical| a.latest(logical) == b.latest(logical)),
                        "{what}: the write versions differ"
                    );
                    let physical_units = streamed.geometry.physical_units() as u32;
                    assert!(
                        (0..physical_units).all(|physical| a.slot(physical) == b.slot(physical)),
                        "{what}: the slot versions differ"
                    );
                }
                streamed
                    .check_invariants()
                    .unwrap_or_else(|error| panic!("{what}: {error}"));
                cases += 1;
            }
        }
        assert_eq!(cases, 12);
        assert!(all_streamed > 0, "no round was streamed: the test compares nothing");
    }
}
