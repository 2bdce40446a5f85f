//! While the bucket lists are deferred (`blocks.rs`), a victim choice finds the closed block of a
//! plane with the lowest valid count, the last linked first. A scan of the plane costs O(blocks
//! per plane) per choice, and the choices grow with the blocks too: on the full-size 61.44 TB QLC
//! drive (32,767 blocks per plane, 83 M choices in `steady`) such scans were most of the time.
//!
//! So the table keeps floors on two levels, per plane: per chunk of 64 consecutive blocks of the
//! plane, and per group of 64 chunks (4,096 blocks). A floor is a valid count at most the lowest of
//! a closed block below it (`u32::MAX`: none closed), and a group's is at most its chunks', with
//! the block that set it. Closing or invalidating a block stamps it as the last linked and lowers
//! its chunk's and group's floors to its count if that is not higher, naming it (four stores). A
//! block leaving the closed blocks leaves them as they are. A floor *holds* while its block is
//! still closed at that count; then it is exact: the lowest count below it, and its block the last
//! linked at that count (a block linked later at that count would have taken the floor, and only
//! an exact recount raises one). A choice reads the plane's group floors (8 on that drive),
//! recounts a group at the lowest whose floor does not hold from its chunks (recounting those at
//! the lowest whose floors do not hold from their blocks), until a group at the lowest holds.

use super::{BlockState, BlockTable, Floor, Floors, NO_FLOOR};
use crate::base::arith::Divisor;

impl Floor {
    #[inline(always)]
    fn lower(&mut self, block: u32, valid: u32) {
        if valid <= self.valid {
            *self = Floor { valid, block };
        }
    }
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

    /// `block`, just linked at `valid`, lowers its floors if that is not higher.
    #[inline(always)]
    pub(super) fn lower(&mut self, block: u32, valid: u32) {
        let (chunk, group) = self.of(block);
        self.chunks[chunk].lower(block, valid);
        self.groups[group].lower(block, valid);
    }

    /// The chunks of the plane's `group` (an index into `groups`), as indices into `chunks`.
    fn group_chunks(&self, group: usize) -> std::ops::Range<usize> {
        let group = group as u32;
        let (plane, within) = (group / self.groups_per_plane, group % self.groups_per_plane);
        let first = plane * self.chunks_per_plane + (within << self.group_shift);
        let end = (plane + 1) * self.chunks_per_plane;
        first as usize..(first + (1 << self.group_shift)).min(end) as usize
    }

    /// The plane's groups, as indices into `groups`.
    fn plane_groups(&self, plane: u32) -> std::ops::Range<usize> {
        let first = (plane * self.groups_per_plane) as usize;
        first..first + self.groups_per_plane as usize
    }

    /// The lowest of `floors` (`u32::MAX`: none closed).
    fn lowest(floors: &[Floor]) -> u32 {
        floors.iter().map(|floor| floor.valid).min().unwrap_or(u32::MAX)
    }
}

impl BlockTable {
    /// Every floor exact, chunks of `1 << chunk_shift` blocks, groups of `1 << group_shift`
    /// chunks.
    pub(super) fn build_floors(&mut self, chunk_shift: u32, group_shift: u32) {
        let planes = self.closed_count.len() as u32;
        let chunks_per_plane = self.blocks_per_plane.div_ceil(1 << chunk_shift);
        let groups_per_plane = chunks_per_plane.div_ceil(1 << group_shift);
        self.floors = Floors {
            plane: Divisor::new(self.blocks_per_plane),
            chunk_shift,
            group_shift,
            chunks_per_plane,
            groups_per_plane,
            chunks: vec![NO_FLOOR; (planes * chunks_per_plane) as usize],
            groups: vec![NO_FLOOR; (planes * groups_per_plane) as usize],
        };
        for chunk in 0..self.floors.chunks.len() {
            self.recount_chunk(chunk);
        }
        for group in 0..self.floors.groups.len() {
            self.recount_group(group);
        }
    }

    /// Whether `floor` holds: its block still closed at its count (then it is exact).
    #[inline]
    fn holds(&self, floor: Floor) -> bool {
        floor.valid != u32::MAX
            && self.state[floor.block as usize] == BlockState::Closed
            && self.valid[floor.block as usize] == floor.valid
    }

    /// Of two floors at the same count, the one whose block was linked last.
    fn later(&self, a: Floor, b: Floor) -> Floor {
        if self.stamps[a.block as usize] >= self.stamps[b.block as usize] {
            a
        } else {
            b
        }
    }

    /// The blocks of `chunk` (an index into the chunk floors).
    fn chunk_blocks(&self, chunk: usize) -> std::ops::Range<usize> {
        let floors = &self.floors;
        let chunk = chunk as u32;
        let (plane, within) = (chunk / floors.chunks_per_plane, chunk % floors.chunks_per_plane);
        let plane_start = plane * self.blocks_per_plane;
        let first = plane_start + (within << floors.chunk_shift);
        let end = (first + (1 << floors.chunk_shift)).min(plane_start + self.blocks_per_plane);
        first as usize..end as usize
    }

    /// `chunk`'s exact floor, counted from its blocks.
    fn recount_chunk(&mut self, chunk: usize) {
        let mut exact = NO_FLOOR;
        for block in self.chunk_blocks(chunk) {
            let valid = self.valid[block];
            if self.state[block] != BlockState::Closed || valid > exact.valid {
                continue;
            }
            let floor = Floor {
                valid,
                block: block as u32,
            };
            exact = if valid < exact.valid {
                floor
            } else {
                self.later(floor, exact)
            };
        }
        self.floors.chunks[chunk] = exact;
    }

    /// `group`'s exact floor, from its chunks at their lowest (recounted where they do not hold).
    fn recount_group(&mut self, group: usize) {
        let chunks = self.floors.group_chunks(group);
        loop {
            let lowest = Floors::lowest(&self.floors.chunks[chunks.clone()]);
            if lowest == u32::MAX {
                self.floors.groups[group] = NO_FLOOR;
                return;
            }
            let mut found: Option<Floor> = None;
            for chunk in chunks.clone() {
                if self.floors.chunks[chunk].valid != lowest {
                    continue;
                }
                if !self.holds(self.floors.chunks[chunk]) {
                    self.recount_chunk(chunk);
                }
                let floor = self.floors.chunks[chunk];
                if floor.valid == lowest {
                    found = Some(found.map_or(floor, |other| self.later(floor, other)));
                }
            }
            if let Some(floor) = found {
                self.floors.groups[group] = floor;
                return;
            }
        }
    }

    /// Recounts the plane's groups at its lowest floor that do not hold until one at the lowest
    /// does: then the lowest floor is the plane's lowest valid count of a closed block, and every
    /// group at it holds.
    pub(super) fn settle_floors(&mut self, plane: u32) {
        let groups = self.floors.plane_groups(plane);
        loop {
            let lowest = Floors::lowest(&self.floors.groups[groups.clone()]);
            if lowest == u32::MAX {
                return;
            }
            let mut held = false;
            for group in groups.clone() {
                if self.floors.groups[group].valid == lowest {
                    if !self.holds(self.floors.groups[group]) {
                        self.recount_group(group);
                    }
                    held |= self.floors.groups[group].valid == lowest;
                }
            }
            if held {
                return;
            }
        }
    }

    /// The plane's lowest valid count of a closed block and its block linked last; `None` if the
    /// floors are not settled ([`Self::settle_floors`]) or no block is closed.
    pub(super) fn lowest_by_floors(&self, plane: u32) -> Option<(u32, u32)> {
        let groups = &self.floors.groups[self.floors.plane_groups(plane)];
        let lowest = Floors::lowest(groups);
        let mut found: Option<Floor> = None;
        for &floor in groups.iter().filter(|floor| floor.valid == lowest) {
            if !self.holds(floor) {
                return None;
            }
            found = Some(found.map_or(floor, |other| self.later(floor, other)));
        }
        found.map(|floor| (floor.valid, floor.block))
    }

    /// The plane's closed blocks at `valid` but `first`, as `(stamp, block)`: those of the
    /// chunks at that floor ([`Self::lowest_by_floors`]'s count).
    pub(super) fn rest_of_lowest(&self, plane: u32, valid: u32, first: u32, bucket: &mut Vec<(u32, u32)>) {
        bucket.clear();
        for group in self.floors.plane_groups(plane) {
            if self.floors.groups[group].valid != valid {
                continue;
            }
            for chunk in self.floors.group_chunks(group) {
                if self.floors.chunks[chunk].valid != valid {
                    continue;
                }
                for block in self.chunk_blocks(chunk) {
                    if block as u32 != first && self.valid[block] == valid && self.state[block] == BlockState::Closed {
                        bucket.push((self.stamps[block], block as u32));
                    }
                }
            }
        }
    }
}
