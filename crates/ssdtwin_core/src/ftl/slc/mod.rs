//! The FTL's SLC-mode blocks (docs/models/slc_cache.md, "Blocks in SLC mode"): the SLC write
//! cache's region as blocks taken out of each plane's free pool and run in SLC mode.
//!
//! A block is in native mode or in SLC mode ([`BlockState::Slc`]: owned by this pool, never a
//! GC candidate nor on a native free list). Each plane holds `static_blocks` SLC blocks from the
//! start (the static region) and borrows more from its native free blocks while the cache's
//! dynamic share wants them and the plane keeps more than its GC trigger free (the dynamic
//! region). Host programs that land in the cache take SLC pages in order; folds free them in the
//! same order (a die folds oldest first), and a block whose pages are all folded is erased in SLC
//! mode: it goes back to the SLC free blocks, or, if it is a dynamic block and the plane is short
//! of free blocks or the dynamic share shrank, to the native free blocks. SLC-mode P/E cycles are
//! counted per block apart from the native ones, against `slc_cache.endurance`.
//!
//! The data's native page is still chosen when the host writes it (the controller's model,
//! `controller/slc/`): the SLC blocks are the space the cache takes from the native pool, so the
//! native pool's spare space, hence GC's write amplification, feels the cache.

pub mod pool;

use super::blocks::BlockState;
use super::wear::dynamic::least_worn;
use super::Ftl;
use pool::{SlcPlane, SlcPool, SlcPoolCounts};

impl Ftl {
    /// Sets up the SLC region: `static_blocks` blocks of each plane's free pool turn to SLC mode
    /// (the least worn, as a plane opens them), holding `pages_per_block` pages each; `dynamic`:
    /// more may be borrowed (a dynamic share, or the `wait` policy). Called on the empty drive,
    /// before any preconditioning. An error when the static region leaves a plane too few native
    /// blocks for its share of the logical capacity, its GC reserve and its two open blocks.
    pub fn slc_init(&mut self, static_blocks: u64, pages_per_block: u32, dynamic: bool) -> Result<(), String> {
        let planes = u64::from(self.geometry.planes());
        let logical_blocks = u64::from(self.logical_units())
            .div_ceil(u64::from(self.geometry.units_per_block()))
            .div_ceil(planes);
        let most =
            u64::from(self.geometry.blocks_per_plane).saturating_sub(logical_blocks + self.gc_trigger as u64 + 2);
        if static_blocks > most {
            return Err(format!(
                "the static region needs {static_blocks} SLC-mode blocks per plane, but a plane has {} blocks, \
                 {logical_blocks} of them for its share of the logical capacity and {} for GC and its open blocks: \
                 at most {most} may run in SLC mode (shrink slc_cache.static_size or raise ftl.over_provisioning)",
                self.geometry.blocks_per_plane,
                self.gc_trigger + 2
            ));
        }
        let static_blocks = static_blocks as u32;
        let blocks = self.geometry.blocks() as usize;
        let mut pool = SlcPool {
            pages_per_block: pages_per_block.max(1),
            static_blocks,
            dynamic,
            planes: vec![SlcPlane::default(); self.geometry.planes() as usize],
            erase_count: vec![0; blocks],
            ever_slc: vec![false; blocks],
            counts: SlcPoolCounts::default(),
        };
        for plane in 0..self.geometry.planes() {
            for _ in 0..static_blocks {
                let block = self.borrow_slc(plane, &mut pool);
                pool.planes[plane as usize].free.push_back(block);
            }
        }
        pool.counts.borrowed = 0;
        pool.counts.peak_blocks = pool.blocks();
        self.slc = Some(Box::new(pool));
        Ok(())
    }

    /// A native free block of `plane` turns to SLC mode.
    fn borrow_slc(&mut self, plane: u32, pool: &mut SlcPool) -> u32 {
        let block = self
            .wear
            .take_free(
                &mut self.free[plane as usize],
                &mut self.free_floor[plane as usize],
                &self.blocks,
            )
            .expect("a free block to turn to SLC mode");
        self.blocks.state[block as usize] = BlockState::Slc;
        pool.ever_slc[block as usize] = true;
        pool.planes[plane as usize].blocks += 1;
        pool.counts.borrowed += 1;
        block
    }

    /// Whether `plane` can take an SLC page now: its open SLC block has room, it has a free SLC
    /// block, or it may borrow one (dynamic share, more than its GC trigger free).
    fn slc_can_take(&self, pool: &SlcPool, plane: u32) -> bool {
        let state = &pool.planes[plane as usize];
        (!state.written.is_empty() && state.open_pages < pool.pages_per_block)
            || !state.free.is_empty()
            || (pool.dynamic && self.free[plane as usize].len() > self.gc_trigger)
    }

    /// A host program into the planes `planes` (a mask over the planes from `first_plane`) lands
    /// in SLC: takes a page in each, or nothing and returns false when one of them has none.
    pub fn slc_take(&mut self, first_plane: u32, planes: u16) -> bool {
        let Some(mut pool) = self.slc.take() else {
            return false;
        };
        let chosen = || {
            (0..16u32)
                .filter(move |bit| planes & (1 << bit) != 0)
                .map(move |bit| first_plane + bit)
        };
        for plane in chosen() {
            self.slc_return_if_short(&mut pool, plane);
        }
        let fits = chosen().all(|plane| self.slc_can_take(&pool, plane));
        if fits {
            for plane in chosen() {
                let state = &pool.planes[plane as usize];
                if state.written.is_empty() || state.open_pages == pool.pages_per_block {
                    let block = if state.free.is_empty() {
                        self.borrow_slc(plane, &mut pool)
                    } else {
                        let state = &mut pool.planes[plane as usize];
                        let (index, _) = least_worn(&state.free, &pool.erase_count, 0).expect("a free SLC block");
                        state.free.remove(index).expect("a free SLC block")
                    };
                    let state = &mut pool.planes[plane as usize];
                    state.written.push_back(block);
                    state.open_pages = 0;
                }
                pool.planes[plane as usize].open_pages += 1;
            }
            pool.counts.peak_blocks = pool.counts.peak_blocks.max(pool.blocks());
        }
        self.slc = Some(pool);
        fits
    }

    /// Free blocks run low in `plane`: its empty dynamic SLC blocks go back to the native pool.
    fn slc_return_if_short(&mut self, pool: &mut SlcPool, plane: u32) {
        while self.free[plane as usize].len() < self.gc_trigger
            && pool.planes[plane as usize].blocks > pool.static_blocks
            && !pool.planes[plane as usize].free.is_empty()
        {
            let block = pool.planes[plane as usize].free.pop_back().expect("a free SLC block");
            self.slc_to_native(pool, plane, block);
        }
    }

    /// An erased SLC-mode block of `plane` turns back to native mode, a free block.
    fn slc_to_native(&mut self, pool: &mut SlcPool, plane: u32, block: u32) {
        self.blocks.state[block as usize] = BlockState::Free;
        self.free[plane as usize].push_back(block);
        super::wear::freed(&mut self.free_floor[plane as usize], block, &self.blocks);
        pool.planes[plane as usize].blocks -= 1;
        pool.counts.returned += 1;
    }

    /// A fold of one SLC page in each of `planes` (as in [`Self::slc_take`]) is done: the blocks
    /// whose pages are all folded now, to erase in SLC mode, are pushed to `emptied`.
    pub fn slc_folded(&mut self, first_plane: u32, planes: u16, emptied: &mut Vec<u32>) {
        let Some(pool) = self.slc.as_mut() else {
            return;
        };
        for bit in (0..16u32).filter(|bit| planes & (1 << bit) != 0) {
            let state = &mut pool.planes[(first_plane + bit) as usize];
            state.folded_pages += 1;
            let oldest_full = state.written.len() > 1 || state.open_pages == pool.pages_per_block;
            if state.folded_pages == pool.pages_per_block && oldest_full {
                emptied.push(state.written.pop_front().expect("a written SLC block"));
                state.folded_pages = 0;
                if state.written.is_empty() {
                    state.open_pages = 0;
                }
            }
        }
    }

    /// `block`, emptied by folding, was erased in SLC mode: one SLC-mode P/E cycle; it stays in
    /// SLC mode, unless it is a dynamic block and its plane is short of free blocks or holds more
    /// than `target` SLC blocks (the dynamic share shrank): then it is native and free again.
    pub fn slc_erased(&mut self, block: u32, target: u32) {
        let Some(mut pool) = self.slc.take() else {
            return;
        };
        pool.erase_count[block as usize] += 1;
        let plane = self.geometry.plane_of_block(block);
        let state = &pool.planes[plane as usize];
        let dynamic = state.blocks > pool.static_blocks;
        if dynamic
            && (self.free[plane as usize].len() < self.gc_trigger || state.blocks > target.max(pool.static_blocks))
        {
            self.slc_to_native(&mut pool, plane, block);
        } else {
            pool.planes[plane as usize].free.push_back(block);
        }
        self.slc = Some(pool);
    }

    /// Whether `plane` is short of free blocks while dynamic SLC blocks of it hold data: folding
    /// them gives blocks back to the native pool (the controller folds in the foreground).
    pub fn slc_short(&self, plane: u32) -> bool {
        self.slc.as_ref().is_some_and(|pool| {
            let state = &pool.planes[plane as usize];
            self.free[plane as usize].len() < self.gc_trigger
                && state.blocks > pool.static_blocks
                && !state.written.is_empty()
        })
    }

    /// SLC-mode blocks of `plane`, and its native blocks.
    pub fn slc_blocks(&self, plane: u32) -> (u32, u32) {
        let slc = self.slc.as_ref().map_or(0, |pool| pool.planes[plane as usize].blocks);
        (slc, self.geometry.blocks_per_plane - slc)
    }

    /// The pool's invariants: the blocks in SLC mode are exactly those it holds (free, written
    /// or being erased), hold no native data, and no more pages are folded than written.
    pub(super) fn check_slc(&self) -> Result<(), String> {
        let slc_state = |block: u32| self.blocks.state[block as usize] == BlockState::Slc;
        let Some(pool) = self.slc.as_ref() else {
            return match (0..self.geometry.blocks()).find(|&block| slc_state(block)) {
                Some(block) => Err(format!("block {block} is in SLC mode without an SLC cache")),
                None => Ok(()),
            };
        };
        for (plane, state) in pool.planes.iter().enumerate() {
            let first = self.geometry.first_block_of_plane(plane as u32);
            let in_mode = (first..first + self.geometry.blocks_per_plane)
                .filter(|&block| slc_state(block))
                .count() as u32;
            let held = state.free.iter().chain(&state.written);
            if let Some(block) = held.clone().find(|&&block| !slc_state(block)) {
                return Err(format!(
                    "plane {plane}: SLC block {block} is in state {:?} (a GC victim or a native block?)",
                    self.blocks.state[*block as usize]
                ));
            }
            let held = held.count() as u32;
            if held > state.blocks || in_mode != state.blocks {
                return Err(format!(
                    "plane {plane}: {in_mode} blocks in SLC mode, the pool counts {} and holds {held}",
                    state.blocks
                ));
            }
            if let Some(block) = (first..first + self.geometry.blocks_per_plane).find(|&block| {
                slc_state(block) && self.blocks.valid[block as usize] + self.blocks.allocated_pages[block as usize] > 0
            }) {
                return Err(format!("SLC block {block} holds native data"));
            }
            if state.written.len() == 1 && state.folded_pages > state.open_pages {
                return Err(format!("plane {plane}: more SLC pages folded than written"));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::rng::Rng;
    use crate::flash::geometry::Geometry;
    use crate::flash::params::FlashConfig;
    use crate::ftl::params::FtlConfig;

    /// One plane of 32 blocks of 6 pages (2 SLC pages a TLC block), half of it spare.
    fn plane_of_32() -> Ftl {
        let flash = FlashConfig {
            channels: 1,
            dies_per_chip: 1,
            planes_per_die: 1,
            blocks_per_plane: 32,
            pages_per_block: 6,
            ..FlashConfig::default()
        };
        let config = FtlConfig {
            over_provisioning: 0.5,
            ..FtlConfig::default()
        };
        let geometry = Geometry::new(&flash, config.mapping_unit);
        Ftl::new(&config, flash.multi_plane, geometry, Rng::stream(1, "ftl"))
    }

    #[test]
    fn the_static_region_leaves_the_free_pool_in_slc_mode() {
        let mut ftl = plane_of_32();
        ftl.slc_init(4, 2, false).unwrap();
        assert_eq!(ftl.free_blocks(0), 28);
        assert_eq!(ftl.slc_blocks(0), (4, 28));
        let slc = (0..32)
            .filter(|&block| ftl.blocks.state[block] == BlockState::Slc)
            .count();
        assert_eq!(slc, 4);
        assert_eq!(ftl.check_invariants(), Ok(()));
        // 16 logical blocks, the GC trigger's blocks and 2 open blocks stay native.
        let trigger = (FtlConfig::default().gc_threshold * 32.0).ceil().max(2.0) as u64;
        let most = 32 - 16 - trigger - 2;
        assert_eq!(plane_of_32().slc_init(most, 2, false), Ok(()));
        let error = plane_of_32().slc_init(most + 1, 2, false).unwrap_err();
        assert!(error.contains(&format!("at most {most} may run")), "{error}");
    }

    #[test]
    fn a_folded_block_is_erased_in_slc_mode_and_counted_on_that_block() {
        let mut ftl = plane_of_32();
        ftl.slc_init(1, 2, false).unwrap();
        // Two pages fill the one static block; no dynamic share: a third has no page.
        assert!(ftl.slc_take(0, 1) && ftl.slc_take(0, 1));
        assert!(!ftl.slc_take(0, 1));
        let mut emptied = Vec::new();
        ftl.slc_folded(0, 1, &mut emptied);
        assert!(emptied.is_empty(), "half the block folded");
        ftl.slc_folded(0, 1, &mut emptied);
        assert_eq!(emptied.len(), 1);
        let block = emptied[0];
        ftl.slc_erased(block, 0);
        let pool = ftl.slc.as_ref().unwrap();
        assert_eq!(pool.erase_count[block as usize], 1);
        assert_eq!(ftl.blocks.erase_count[block as usize], 0, "no native cycle");
        assert_eq!(
            ftl.blocks.state[block as usize],
            BlockState::Slc,
            "static: it stays in SLC mode"
        );
        assert_eq!(ftl.check_invariants(), Ok(()));
        assert!(ftl.slc_take(0, 1), "the erased block takes pages again");
    }

    #[test]
    fn a_dynamic_block_is_borrowed_and_returned_when_the_share_shrinks() {
        let mut ftl = plane_of_32();
        ftl.slc_init(1, 2, true).unwrap();
        for _ in 0..4 {
            assert!(ftl.slc_take(0, 1));
        }
        assert_eq!(ftl.slc_blocks(0), (2, 30));
        assert_eq!(ftl.slc.as_ref().unwrap().counts.borrowed, 1);
        let mut emptied = Vec::new();
        for _ in 0..4 {
            ftl.slc_folded(0, 1, &mut emptied);
        }
        assert_eq!(emptied.len(), 2);
        // A target of 1 block: the first erased goes back to the native pool, the second stays.
        ftl.slc_erased(emptied[0], 1);
        ftl.slc_erased(emptied[1], 1);
        assert_eq!(ftl.slc_blocks(0), (1, 31));
        assert_eq!(ftl.free_blocks(0), 31);
        assert_eq!(ftl.slc.as_ref().unwrap().counts.returned, 1);
        assert_eq!(ftl.check_invariants(), Ok(()));
    }

    #[test]
    fn an_slc_block_taken_as_a_gc_victim_breaks_the_invariants() {
        let mut ftl = plane_of_32();
        ftl.slc_init(2, 2, false).unwrap();
        let block = (0..32u32)
            .find(|&block| ftl.blocks.state[block as usize] == BlockState::Slc)
            .unwrap();
        assert!(!ftl.take_block(block), "not a closed block: no victim");
        ftl.blocks.state[block as usize] = BlockState::Victim;
        let error = ftl.check_invariants().unwrap_err();
        assert!(error.contains("SLC block"), "{error}");
    }
}
