//! While the bucket lists are deferred (`blocks.rs`), a victim choice finds the lowest valid count
//! of a plane's closed blocks. A scan of the plane costs O(blocks per plane) per choice, and the
//! choices grow with the blocks too: on the full-size 61.44 TB QLC drive (32,767 blocks per plane)
//! that scan was most of `steady`'s time. So the table keeps, per chunk of 64 consecutive blocks
//! (`block >> FLOOR_SHIFT`), a floor: at most the lowest valid count of a closed block in the
//! chunk (`u32::MAX`: none closed). Closing or invalidating a block lowers its chunk's floor if
//! needed (one store); a block leaving the closed blocks leaves it as it is, still a floor. A
//! choice reads the plane's floors (512 on that drive), recomputes the chunks at the lowest one
//! until one of them is exact, and scans only the chunks at that floor. A chunk that straddles two
//! planes (blocks per plane not a multiple of 64) is recomputed for the plane at each choice.

use super::{BlockState, BlockTable};

impl BlockTable {
    /// Every chunk's floor exact, chunks of `1 << shift` blocks.
    pub(super) fn build_floors(&mut self, shift: u32) {
        self.floor_shift = shift;
        let chunks = self.state.len().div_ceil(1 << shift);
        self.floors = (0..chunks)
            .map(|chunk| self.closed_minimum(self.chunk_blocks(chunk)))
            .collect();
    }

    /// Lowers the floor of `block`'s chunk to its valid count if that is lower.
    #[inline(always)]
    pub(super) fn lower_floor(&mut self, block: u32) {
        let floor = &mut self.floors[(block >> self.floor_shift) as usize];
        *floor = (*floor).min(self.valid[block as usize]);
    }

    /// The blocks of `chunk` (of the whole table).
    fn chunk_blocks(&self, chunk: usize) -> std::ops::Range<usize> {
        let first = chunk << self.floor_shift;
        first..(first + (1 << self.floor_shift)).min(self.state.len())
    }

    /// The lowest valid count of a closed block among `blocks`, `u32::MAX` if none is closed.
    fn closed_minimum(&self, blocks: std::ops::Range<usize>) -> u32 {
        self.state[blocks.clone()]
            .iter()
            .zip(&self.valid[blocks])
            .map(|(&state, &valid)| if state == BlockState::Closed { valid } else { u32::MAX })
            .min()
            .unwrap_or(u32::MAX)
    }

    /// The plane's blocks, its chunks, and which of those are shared with another plane.
    fn plane_chunks(&self, plane: u32) -> PlaneChunks {
        let first = (plane * self.blocks_per_plane) as usize;
        let end = first + self.blocks_per_plane as usize;
        let (first_chunk, last_chunk) = (first >> self.floor_shift, (end - 1) >> self.floor_shift);
        let first_shared = first_chunk << self.floor_shift != first;
        let last_shared = (last_chunk + 1) << self.floor_shift != end && end != self.state.len();
        PlaneChunks {
            blocks: first..end,
            chunks: first_chunk..last_chunk + 1,
            first_shared,
            last_shared,
        }
    }

    /// The plane's blocks of `chunk`.
    fn plane_part(&self, chunks: &PlaneChunks, chunk: usize) -> std::ops::Range<usize> {
        let blocks = self.chunk_blocks(chunk);
        blocks.start.max(chunks.blocks.start)..blocks.end.min(chunks.blocks.end)
    }

    /// The floor of `chunk` for the plane: recomputed if the chunk is shared, else as kept.
    fn plane_floor(&self, chunks: &PlaneChunks, chunk: usize) -> u32 {
        let shared = (chunk == chunks.chunks.start && chunks.first_shared)
            || (chunk + 1 == chunks.chunks.end && chunks.last_shared);
        if shared {
            self.closed_minimum(self.plane_part(chunks, chunk))
        } else {
            self.floors[chunk]
        }
    }

    /// The lowest floor of the plane's chunks (`u32::MAX`: no closed block).
    fn lowest_floor(&self, chunks: &PlaneChunks) -> u32 {
        chunks
            .chunks
            .clone()
            .map(|chunk| self.plane_floor(chunks, chunk))
            .min()
            .unwrap_or(u32::MAX)
    }

    /// Recomputes the plane's chunks at its lowest floor until one of them is exact: then the
    /// lowest floor is the plane's lowest valid count of a closed block.
    pub(super) fn settle_floors(&mut self, plane: u32) {
        let chunks = self.plane_chunks(plane);
        loop {
            let lowest = self.lowest_floor(&chunks);
            if lowest == u32::MAX {
                return;
            }
            let mut exact = false;
            for chunk in chunks.chunks.clone() {
                if self.plane_floor(&chunks, chunk) == lowest {
                    let minimum = self.closed_minimum(self.plane_part(&chunks, chunk));
                    exact |= minimum == lowest;
                    let shared = (chunk == chunks.chunks.start && chunks.first_shared)
                        || (chunk + 1 == chunks.chunks.end && chunks.last_shared);
                    if !shared {
                        self.floors[chunk] = minimum;
                    }
                }
            }
            if exact {
                return;
            }
        }
    }

    /// The plane's closed blocks with the lowest valid count, as `(stamp, block)`, and that count;
    /// `None` if the floors are not settled ([`Self::settle_floors`]) or no block is closed.
    pub(super) fn lowest_by_floors(&self, plane: u32, bucket: &mut Vec<(u32, u32)>) -> Option<u32> {
        let chunks = self.plane_chunks(plane);
        let lowest = self.lowest_floor(&chunks);
        if lowest == u32::MAX {
            return None;
        }
        bucket.clear();
        for chunk in chunks.chunks.clone() {
            if self.plane_floor(&chunks, chunk) != lowest {
                continue;
            }
            for block in self.plane_part(&chunks, chunk) {
                if self.valid[block] == lowest && self.state[block] == BlockState::Closed {
                    bucket.push((self.stamps[block], block as u32));
                }
            }
        }
        (!bucket.is_empty()).then_some(lowest)
    }
}

/// A plane's blocks and the chunks that hold them ([`BlockTable::plane_chunks`]).
struct PlaneChunks {
    blocks: std::ops::Range<usize>,
    chunks: std::ops::Range<usize>,
    /// Whether the first (last) chunk also holds blocks of the plane before (after).
    first_shared: bool,
    last_shared: bool,
}
