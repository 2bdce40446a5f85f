//! What a drive that stopped making progress is waiting for: the engine's stall message
//! (`sim/engine.rs`, `sim/live.rs`). Computed once, when the event queue has emptied with commands
//! still in flight, so it costs the run nothing.

use super::Controller;
use crate::ftl::blocks::BlockState;
use crate::ftl::mapping::NONE;

impl Controller {
    /// Why nothing is left to happen while commands wait: GC starved of victims (with the key to
    /// change), or, when every plane has free blocks or something to reclaim, the state of the
    /// queues (a stall the model should not reach: worth a bug report).
    pub fn stall_cause(&self) -> String {
        let planes = self.geometry.planes();
        let per_plane = self.geometry.blocks_per_plane;
        let units_per_block = self.geometry.units_per_block();
        let mut starved = 0u32;
        let mut short = 0u32;
        for plane in 0..planes {
            if !self.ftl.needs_gc(plane) {
                continue;
            }
            short += 1;
            let first = self.geometry.first_block_of_plane(plane) as usize;
            let reclaimable = (first..first + per_plane as usize).any(|block| {
                self.ftl.blocks.state[block] == BlockState::Closed && self.ftl.blocks.valid[block] < units_per_block
            });
            if self.gc[plane as usize].victim == NONE && !reclaimable {
                starved += 1;
            }
        }
        let waiting = format!(
            "{} transactions queued at admission, {} units in the open program, {} in parked programs",
            self.host_queue.len(),
            self.open_program.as_ref().map_or(0, |open| open.filled),
            self.parked_units()
        );
        if starved > 0 {
            format!(
                "GC found no block to reclaim on {starved} of {planes} planes (below the GC level of free blocks, \
                 every closed block fully valid; {waiting}); raise ftl.over_provisioning or lower workload.span"
            )
        } else {
            format!(
                "no plane is starved of blocks ({short} of {planes} planes below the GC level, each with a victim \
                 or a block to reclaim); {waiting}. This is a stall the model should not reach: please report it \
                 with the scenario"
            )
        }
    }
}
