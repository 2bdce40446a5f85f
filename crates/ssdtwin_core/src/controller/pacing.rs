//! When GC work may run on a plane (`ftl.gc_pacing`; docs/models/ftl.md, "GC pacing").
//!
//! `threshold`: a plane below the start level (`ftl.gc_threshold`) collects victims back to back,
//! `GC_READ_WINDOW` page reads in flight, whatever the host is doing. Host writes are striped
//! evenly, so every plane crosses the level in the same moment and GC then runs on all of them at
//! once (issue 27: seconds of collapsed IOPS, then seconds without GC).
//!
//! `paced` (the default), as drive firmware does:
//! - **Level.** A plane takes a victim when its free blocks are below the stop level
//!   (`ftl.gc_stop_threshold`; by default the start level `ftl.gc_threshold`, at least three
//!   blocks above the foreground level: `FtlConfig::paced_levels`; so a plane keeps
//!   no spare block idle in a band); at or above it, no GC.
//!   Preconditioning leaves a plane one block lower (`Ftl::needs_precondition_gc`), so the run's
//!   first victims are due at once.
//! - **Proportional to host writes.** Each host page placed in the plane earns the victim's copies
//!   in proportion: a victim with `v` of its `U` units valid frees `U - v` units for `v` copies, so a
//!   host page of `n` units earns `n * v / (U - v)` units of copying. Per victim, host pages and GC
//!   copies then consume exactly the one block the erase returns, so the free blocks hold level
//!   whatever the phase of the planes (the level is neutral: the plane's two open blocks and its
//!   victim move it by up to two blocks); more than two blocks below the stop level the earning
//!   is multiplied by `stop - free - 2`, so a plane that fell behind catches up.
//! - **Host writes wait for a lagging GC.** A plane that owes more than `HOLD` of a block of
//!   copying (earned, not yet done) takes no host page: striping moves on to the next target,
//!   so a die whose queue is full of host programs cannot starve its own GC.
//! - **Background.** While no host command is in the controller, a plane below the stop level
//!   copies one page at a time without earning it (idle-time GC).
//! - **Behind host reads.** A die serves its queued host reads before paced GC work (MQSim's
//!   preemptible GC: GC transactions wait behind user transactions unless GC is urgent); host
//!   programs and GC work keep their arrival order, so a write-bound die still copies at the pace.
//! - **Foreground.** Below the foreground level (`max(3, ftl.gc_urgent_threshold)` blocks: one more
//!   than the host's reserved block and the GC block), copying runs unpaced, `FOREGROUND_WINDOW`
//!   reads in flight, in arrival order with host work.
//!
//! Relocations (read reclaim, static wear leveling) free no space and are never paced.
//!
//! Sources: SimpleSSD's `GCThreshold` / `GCReclaimThreshold` band (reclaim until the free ratio is
//! back above the second); MQSim's preemptible GC (Lee et al., IEEE TCAD 32(2), 2013): GC yields
//! to host I/O until a plane falls below `GC_Hard_Threshold`; host-write to relocation-write ratio
//! balancing (US 12,449,996, 2025). The proportional rule is the steady-state balance of greedy GC.

use crate::ftl::params::{FtlConfig, GcPacingKind, PacedLevels};

use super::ops::GC_READ_WINDOW;

/// Copying a plane may owe (earned and not done) before its host writes wait, as a fraction of a
/// block's units [A]: small, so host pages and copies interleave finely. A quarter of a block let
/// the write-bound small test drive swing ±35% per 100 ms (host writes held and released in
/// bursts on every plane at once), a whole block ±80%; a twentieth keeps it within ±18%.
pub const HOLD: f64 = 0.05;
/// Victim page reads in flight on a plane in foreground GC (below the foreground level).
pub const FOREGROUND_WINDOW: u32 = 4 * GC_READ_WINDOW;

/// The pacing rule and its per-plane state.
#[derive(Clone, Debug)]
pub enum GcPacing {
    Threshold,
    Paced(Paced),
}

/// State of `paced`; see the module documentation.
#[derive(Clone, Debug)]
pub struct Paced {
    levels: PacedLevels,
    /// Units of copying earned and not yet issued, per plane.
    credit: Vec<f64>,
    /// Units of copying earned per host unit for the plane's victim (`INFINITY`: unpaced).
    ratio: Vec<f64>,
    /// Most credit banked: one block's units.
    cap: f64,
    /// Units of victim page reads issued and not yet done, per plane.
    in_flight: Vec<f64>,
    /// Changes that may release held host writes (victim claims, reads issued and done).
    epoch: u64,
}

impl GcPacing {
    /// The pacing of `config` for `planes` planes of `blocks_per_plane` blocks of `block_units`
    /// mapping units.
    pub fn new(config: &FtlConfig, planes: u32, blocks_per_plane: u32, block_units: u32) -> GcPacing {
        match config.gc_pacing {
            GcPacingKind::Threshold => GcPacing::Threshold,
            GcPacingKind::Paced => GcPacing::Paced(Paced {
                levels: config.paced_levels(blocks_per_plane),
                credit: vec![0.0; planes as usize],
                ratio: vec![f64::INFINITY; planes as usize],
                cap: f64::from(block_units),
                in_flight: vec![0.0; planes as usize],
                epoch: 0,
            }),
        }
    }

    /// Under `paced`, whether a plane with `free` blocks takes a victim (below the stop level);
    /// `None` under `threshold` (the FTL's start level decides).
    pub fn wants_victim(&self, free: usize) -> Option<bool> {
        match self {
            GcPacing::Threshold => None,
            GcPacing::Paced(paced) => Some(free < paced.levels.stop),
        }
    }

    /// A victim with `valid` of its `units` units valid was claimed on `plane` (`paced`: space
    /// reclamation, earned by host writes; otherwise a relocation, unpaced).
    pub fn claimed(&mut self, plane: u32, valid: u32, units: u32, paced: bool) {
        if let GcPacing::Paced(state) = self {
            state.epoch += 1;
            // Surplus earned for the last victim does not carry over; a debt does.
            state.credit[plane as usize] = state.credit[plane as usize].min(0.0);
            state.ratio[plane as usize] = if paced {
                f64::from(valid) / f64::from(units.saturating_sub(valid).max(1))
            } else {
                f64::INFINITY
            };
        }
    }

    /// A host page of `units` units was placed in `plane`, which has `free` blocks.
    pub fn host_units(&mut self, plane: u32, units: u32, free: usize) {
        if let GcPacing::Paced(state) = self {
            let index = plane as usize;
            let ratio = state.ratio[index];
            if ratio.is_finite() && free < state.levels.stop {
                // Ratio 1 down to three blocks below the stop level (the plane's two open blocks
                // and its victim move it by up to two), faster further below.
                let gain = 1.0 + state.levels.stop.saturating_sub(free + 3) as f64;
                // At most a block's copying banked: earning cannot run far ahead of the copying.
                let earned = f64::from(units) * ratio * gain;
                state.credit[index] = (state.credit[index] + earned).min(state.cap);
            }
        }
    }

    /// How many victim page reads `plane` (with `free` blocks) may have in flight now; `idle`: no
    /// host command is in the controller.
    pub fn read_window(&self, plane: u32, free: usize, idle: bool) -> u32 {
        match self {
            GcPacing::Threshold => GC_READ_WINDOW,
            GcPacing::Paced(state) => {
                let index = plane as usize;
                if !state.ratio[index].is_finite() {
                    GC_READ_WINDOW
                } else if free < state.levels.foreground {
                    FOREGROUND_WINDOW
                } else if state.credit[index] > 0.0 {
                    // As many reads as the credit covers (each spends its units when issued): a
                    // die whose queue is deep with host programs still copies at the pace.
                    u32::MAX
                } else if idle && free < state.levels.stop {
                    1
                } else {
                    0
                }
            }
        }
    }

    /// A victim page read of `units` valid units was issued on `plane`.
    pub fn spend(&mut self, plane: u32, units: u32) {
        if let GcPacing::Paced(state) = self {
            let index = plane as usize;
            state.epoch += 1;
            if state.ratio[index].is_finite() {
                state.credit[index] -= f64::from(units);
            }
            state.in_flight[index] += f64::from(units);
        }
    }

    /// A victim page read of `plane` issued with `units` valid units is done.
    pub fn read_done(&mut self, plane: u32, units: u32) {
        if let GcPacing::Paced(state) = self {
            let index = plane as usize;
            state.epoch += 1;
            state.in_flight[index] = (state.in_flight[index] - f64::from(units)).max(0.0);
        }
    }

    /// Whether host writes to `plane` wait for its GC (`collecting`: a victim is being copied):
    /// under `paced`, while the copying earned and not done exceeds `HOLD` of a block.
    pub fn holds_host_writes(&self, plane: u32, collecting: bool) -> bool {
        match self {
            GcPacing::Threshold => false,
            GcPacing::Paced(state) => {
                let index = plane as usize;
                collecting && state.credit[index].max(0.0) + state.in_flight[index] > HOLD * state.cap
            }
        }
    }

    /// Counts the changes that can end a hold of host writes (`holds_host_writes`): a victim
    /// claimed, a victim page read issued or done. Host pages placed only add to a hold. Always
    /// 0 under `threshold`, which holds nothing.
    #[inline]
    pub fn epoch(&self) -> u64 {
        match self {
            GcPacing::Threshold => 0,
            GcPacing::Paced(state) => state.epoch,
        }
    }

    /// Whether [`Self::epoch`] counts changes (`paced`).
    #[inline]
    pub fn counts_changes(&self) -> bool {
        matches!(self, GcPacing::Paced(_))
    }

    /// The levels of `paced`, in free blocks per plane.
    pub fn levels(&self) -> Option<PacedLevels> {
        match self {
            GcPacing::Threshold => None,
            GcPacing::Paced(state) => Some(state.levels),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `paced` on one plane of 64 blocks of 1024 units: start 7, stop 7 (no band by default), foreground 3.
    fn paced() -> GcPacing {
        let config = FtlConfig {
            gc_pacing: GcPacingKind::Paced,
            ..FtlConfig::default()
        };
        GcPacing::new(&config, 1, 64, 1024)
    }

    #[test]
    fn a_victim_is_copied_in_exactly_the_host_units_it_frees() {
        let mut pacing = paced();
        assert_eq!(
            pacing.levels(),
            Some(PacedLevels {
                start: 7,
                stop: 7,
                foreground: 3
            })
        );
        // 600 of 1024 units valid: the erase frees 424 units net of the copies, so the 424 host
        // units written meanwhile earn exactly the 600 copies.
        pacing.claimed(0, 600, 1024, true);
        for _ in 0..424 {
            pacing.host_units(0, 1, 6);
        }
        let GcPacing::Paced(state) = &pacing else {
            unreachable!()
        };
        assert!((state.credit[0] - 600.0).abs() < 1e-9, "credit {}", state.credit[0]);
    }

    #[test]
    fn the_stop_level_keeps_three_blocks_above_the_foreground_level() {
        // 5% of 64 blocks: G = 4, one above the foreground level 3. A plane wanders up to two
        // blocks below the stop level, so the stop rises to 6 (the iiot presets shrunk to 64
        // blocks per plane sat in foreground GC with S = 4: 35.7k IOPS against 120k).
        let config = FtlConfig {
            gc_pacing: GcPacingKind::Paced,
            gc_threshold: 0.05,
            ..FtlConfig::default()
        };
        assert_eq!(
            GcPacing::new(&config, 1, 64, 1024).levels(),
            Some(PacedLevels {
                start: 4,
                stop: 6,
                foreground: 3
            })
        );
        // 10% of 64 blocks: G = 7, already three above: unchanged.
        assert_eq!(
            paced().levels(),
            Some(PacedLevels {
                start: 7,
                stop: 7,
                foreground: 3
            })
        );
        // 16 blocks at 30% over-provisioning have 4 spare blocks: no floor (the plane cannot hold
        // 6 free blocks); S stays G = 2 and its GC runs mostly in the foreground.
        assert_eq!(
            GcPacing::new(&config, 1, 16, 1024).levels(),
            Some(PacedLevels {
                start: 2,
                stop: 2,
                foreground: 3
            })
        );
    }

    #[test]
    fn copying_waits_for_credit_unless_idle_or_short() {
        let mut pacing = paced();
        pacing.claimed(0, 600, 1024, true);
        assert_eq!(
            pacing.read_window(0, 6, false),
            0,
            "busy host, nothing earned: no copying"
        );
        assert_eq!(
            pacing.read_window(0, 6, true),
            1,
            "idle host: background copying, a page at a time"
        );
        assert_eq!(
            pacing.read_window(0, 7, true),
            0,
            "at the stop level: no GC even when idle"
        );
        assert_eq!(
            pacing.read_window(0, 2, false),
            FOREGROUND_WINDOW,
            "short: foreground, unpaced"
        );
        pacing.host_units(0, 4, 6);
        assert_eq!(
            pacing.read_window(0, 6, false),
            u32::MAX,
            "earned: copying while the credit lasts"
        );
        pacing.spend(0, 6);
        assert_eq!(pacing.read_window(0, 6, false), 0, "spent: waits again");
    }

    #[test]
    fn a_plane_that_fell_behind_earns_faster_and_relocations_are_unpaced() {
        let mut pacing = paced();
        pacing.claimed(0, 512, 1024, true);
        pacing.host_units(0, 4, 4);
        let GcPacing::Paced(state) = &pacing else {
            unreachable!()
        };
        assert!((state.credit[0] - 4.0).abs() < 1e-9, "three blocks below stop: ratio 1");
        pacing.host_units(0, 4, 2);
        let GcPacing::Paced(state) = &pacing else {
            unreachable!()
        };
        assert!((state.credit[0] - 16.0).abs() < 1e-9, "five below stop: 3x");
        pacing.claimed(0, 1024, 1024, false);
        assert_eq!(pacing.read_window(0, 6, false), GC_READ_WINDOW);
        assert_eq!(
            GcPacing::new(
                &FtlConfig {
                    gc_pacing: GcPacingKind::Threshold,
                    ..FtlConfig::default()
                },
                1,
                64,
                1024
            )
            .read_window(0, 12, false),
            GC_READ_WINDOW
        );
    }

    /// The program-target search (`scan.rs`) trusts this count to see every change that can end
    /// a hold: each claim, read issued and read done counts once, a host page not at all.
    #[test]
    fn epoch_counts_each_claim_and_victim_read_and_no_host_page() {
        let mut pacing = paced();
        assert_eq!(pacing.epoch(), 0);
        pacing.claimed(0, 600, 1024, true);
        pacing.host_units(0, 4, 0);
        assert_eq!(pacing.epoch(), 1, "a claim counts, a host page does not");
        pacing.spend(0, 4);
        pacing.read_done(0, 4);
        assert_eq!(pacing.epoch(), 3, "a read issued and a read done count once each");
        assert!(pacing.counts_changes());
        let mut threshold = GcPacing::Threshold;
        threshold.claimed(0, 600, 1024, true);
        threshold.spend(0, 4);
        assert_eq!(threshold.epoch(), 0, "threshold holds nothing and counts nothing");
        assert!(!threshold.counts_changes());
    }
}
