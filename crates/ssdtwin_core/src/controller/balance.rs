//! Which plane of a multi-plane program takes the program's first host units
//! (docs/models/ftl.md, "Plane balance").
//!
//! A multi-plane program gathers `units_per_page` units per plane, one page after the other. The
//! units arrive in an order the host sets: with several flows, the commands that complete
//! together (a program's) come back together and the arbitration takes them in a fixed pattern
//! (round robin: a, b, a, b, then the deeper flow alone), so a slow flow's writes land, program
//! after program, in the page filled first. GC copies stay in their plane, so that plane gathers
//! the slow (long-lived) data until its victims are nearly all valid: with a 20% span written at
//! queue depth 8 and an 80% span at 2, WAF climbs from 4 to 62 over 160 s and the drive stops.
//!
//! The fill starts at the plane of the die holding the least valid data, when it holds at least
//! two blocks' units less than the target's first plane (a plane's open host and GC blocks and its
//! victim move its valid units by up to two blocks as GC runs, so a smaller difference is not an
//! imbalance). Firmware allocates a host page by the planes' state rather than a fixed order for
//! the same reason (dynamic plane allocation: Tavakkol et al., "Performance evaluation of dynamic
//! page allocation strategies in SSDs", ACM TOMPECS 1(2), 2016). The valid units of a die's planes
//! are summed at each erase in the die (a slow signal: between erases the sums are stale).

use super::Controller;
use crate::ftl::ProgramTarget;

impl Controller {
    /// The page of `target`'s program to fill first (an index into its planes).
    pub(super) fn first_page(&self, target: ProgramTarget) -> u32 {
        if target.plane_count == 1 {
            return 0;
        }
        let first = target.first_plane as usize;
        let planes = &self.plane_valid[first..first + target.plane_count as usize];
        let (emptiest, &least) = planes
            .iter()
            .enumerate()
            .min_by_key(|&(_, valid)| *valid)
            .expect("a target has planes");
        let margin = 2 * self.geometry.units_per_block();
        if least.saturating_add(margin) < planes[0] {
            emptiest as u32
        } else {
            0
        }
    }

    /// Sums the valid units of every plane of `plane`'s die (after an erase in `plane`), so the
    /// planes a program spans are compared at the same moment.
    pub(super) fn count_plane_valid(&mut self, plane: u32) {
        let planes = self.geometry.planes_per_die;
        let die_first = plane - plane % planes;
        for plane in die_first..die_first + planes {
            let first = self.geometry.first_block_of_plane(plane) as usize;
            let blocks = &self.ftl.blocks.valid[first..first + self.geometry.blocks_per_plane as usize];
            self.plane_valid[plane as usize] = blocks.iter().sum();
        }
    }
}
