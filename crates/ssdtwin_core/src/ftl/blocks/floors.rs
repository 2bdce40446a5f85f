//! While the bucket lists are deferred (`blocks.rs`), a victim choice finds the lowest valid count
//! of a plane's closed blocks. A scan of the plane costs O(blocks per plane) per choice, and the
//! choices grow with the blocks too: on the full-size 61.44 TB QLC drive (32,767 blocks per plane)
//! that scan, then a scan of one floor per 64 blocks, was most of `steady`'s time. So the table
//! keeps floors on two levels, per plane: per chunk of 64 consecutive blocks of the plane, and per
//! group of 64 chunks (4,096 blocks). A floor is at most the lowest valid count of a closed block
//! below it (`u32::MAX`: none closed), and a group's is at most its chunks'. Closing or
//! invalidating a block lowers its chunk's and its group's floor if needed (two stores); a block
//! leaving the closed blocks leaves them as they are, still floors. A choice reads the plane's
//! group floors (8 on that drive), recomputes the chunks at the lowest one in the groups at it
//! until one of them is exact, and scans only the blocks of the chunks at that floor.

use super::{BlockState, BlockTable};
use crate::base::arith::Divisor;

/// The two levels of floors of a table's planes.
#[derive(Clone, Debug, Default)]
pub(super) struct Floors {
    /// Blocks per plane.
    plane: Divisor,
    /// Blocks per chunk and chunks per group, as shifts.
    chunk_shift: u32,
    group_shift: u32,
    chunks_per_plane: u32,
    groups_per_plane: u32,
    /// Per chunk (plane-major), per group (plane-major).
    chunks: Vec<u32>,
    groups: Vec<u32>,
}

impl Floors {
    /// The chunk and the group of `block`.
    #[inline(always)]
    fn of(&self, block: u32) -> (usize, usize) {
        let (plane, offset) = self.plane.div_rem(block);
        let chunk = plane * self.chunks_per_plane + (offset >> self.chunk_shift);
        let group = plane * self.groups_per_plane + (offset >> (self.chunk_shift + self.group_shift));
        (chunk as usize, group as usize)
    }

    /// Lowers the floors above `block` to `valid` if that is lower.
    #[inline(always)]
    pub(super) fn lower(&mut self, block: u32, valid: u32) {
        let (chunk, group) = self.of(block);
        self.chunks[chunk] = self.chunks[chunk].min(valid);
        self.groups[group] = self.groups[group].min(valid);
    }

    /// The chunks of the plane's `group`, as indices into `chunks`.
    fn group_chunks(&self, plane: u32, group: u32) -> std::ops::Range<usize> {
        let first = plane * self.chunks_per_plane + (group << self.group_shift);
        let end = (plane + 1) * self.chunks_per_plane;
        first as usize..(first + (1 << self.group_shift)).min(end) as usize
    }

    /// The plane's groups, as indices into `groups`.
    fn plane_groups(&self, plane: u32) -> std::ops::Range<usize> {
        let first = (plane * self.groups_per_plane) as usize;
        first..first + self.groups_per_plane as usize
    }

    /// The lowest floor of the plane's groups (`u32::MAX`: no closed block).
    fn lowest(&self, plane: u32) -> u32 {
        self.groups[self.plane_groups(plane)]
            .iter()
            .copied()
            .min()
            .unwrap_or(u32::MAX)
    }
}

impl BlockTable {
    /// Every floor exact, chunks of `1 << chunk_shift` blocks, groups of `1 << group_shift`
    /// chunks.
    pub(super) fn build_floors(&mut self, chunk_shift: u32, group_shift: u32) {
        let planes = self.closed_count.len() as u32;
        let chunks_per_plane = self.blocks_per_plane.div_ceil(1 << chunk_shift);
        let mut floors = Floors {
            plane: Divisor::new(self.blocks_per_plane),
            chunk_shift,
            group_shift,
            chunks_per_plane,
            groups_per_plane: chunks_per_plane.div_ceil(1 << group_shift),
            chunks: Vec::new(),
            groups: Vec::new(),
        };
        floors.chunks = (0..planes * chunks_per_plane)
            .map(|chunk| self.closed_minimum(&floors, chunk as usize))
            .collect();
        floors.groups = (0..planes * floors.groups_per_plane)
            .map(|group| {
                let (plane, group) = (group / floors.groups_per_plane, group % floors.groups_per_plane);
                floors.chunks[floors.group_chunks(plane, group)]
                    .iter()
                    .copied()
                    .min()
                    .unwrap_or(u32::MAX)
            })
            .collect();
        self.floors = floors;
    }

    /// The blocks of `chunk` (an index into the chunk floors).
    fn chunk_blocks(&self, floors: &Floors, chunk: usize) -> std::ops::Range<usize> {
        let chunk = chunk as u32;
        let (plane, within) = (chunk / floors.chunks_per_plane, chunk % floors.chunks_per_plane);
        let plane_start = plane * self.blocks_per_plane;
        let first = plane_start + (within << floors.chunk_shift);
        let end = (first + (1 << floors.chunk_shift)).min(plane_start + self.blocks_per_plane);
        first as usize..end as usize
    }

    /// The lowest valid count of a closed block of `chunk`, `u32::MAX` if none is closed.
    fn closed_minimum(&self, floors: &Floors, chunk: usize) -> u32 {
        let blocks = self.chunk_blocks(floors, chunk);
        self.state[blocks.clone()]
            .iter()
            .zip(&self.valid[blocks])
            .map(|(&state, &valid)| if state == BlockState::Closed { valid } else { u32::MAX })
            .min()
            .unwrap_or(u32::MAX)
    }

    /// Recomputes the plane's chunks at its lowest floor (in the groups at it) until one of them
    /// is exact: then the lowest floor is the plane's lowest valid count of a closed block.
    pub(super) fn settle_floors(&mut self, plane: u32) {
        let mut floors = std::mem::take(&mut self.floors);
        loop {
            let lowest = floors.lowest(plane);
            if lowest == u32::MAX {
                break;
            }
            let mut exact = false;
            for group in floors.plane_groups(plane) {
                if floors.groups[group] != lowest {
                    continue;
                }
                let chunks = floors.group_chunks(plane, group as u32 - plane * floors.groups_per_plane);
                let mut group_floor = u32::MAX;
                for chunk in chunks {
                    if floors.chunks[chunk] == lowest {
                        let minimum = self.closed_minimum(&floors, chunk);
                        exact |= minimum == lowest;
                        floors.chunks[chunk] = minimum;
                    }
                    group_floor = group_floor.min(floors.chunks[chunk]);
                }
                floors.groups[group] = group_floor;
            }
            if exact {
                break;
            }
        }
        self.floors = floors;
    }

    /// The plane's closed blocks with the lowest valid count, as `(stamp, block)`, and that count;
    /// `None` if the floors are not settled ([`Self::settle_floors`]) or no block is closed.
    pub(super) fn lowest_by_floors(&self, plane: u32, bucket: &mut Vec<(u32, u32)>) -> Option<u32> {
        let floors = &self.floors;
        let lowest = floors.lowest(plane);
        if lowest == u32::MAX {
            return None;
        }
        bucket.clear();
        for group in floors.plane_groups(plane) {
            if floors.groups[group] != lowest {
                continue;
            }
            for chunk in floors.group_chunks(plane, group as u32 - plane * floors.groups_per_plane) {
                if floors.chunks[chunk] != lowest {
                    continue;
                }
                for block in self.chunk_blocks(floors, chunk) {
                    if self.valid[block] == lowest && self.state[block] == BlockState::Closed {
                        bucket.push((self.stamps[block], block as u32));
                    }
                }
            }
        }
        (!bucket.is_empty()).then_some(lowest)
    }
}
