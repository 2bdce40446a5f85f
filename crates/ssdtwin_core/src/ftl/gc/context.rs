//! What a GC victim policy sees when it chooses: the plane's blocks, its block range, the close
//! order for ages and a random stream. Shared by the policies in this folder; it imports none of
//! them.

use crate::base::rng::Rng;
use crate::ftl::blocks::BlockTable;

/// What a policy needs to know to choose.
#[derive(Debug)]
pub struct VictimContext<'a> {
    pub blocks: &'a mut BlockTable,
    pub plane: u32,
    pub first_block: u32,
    pub blocks_per_plane: u32,
    pub units_per_block: u32,
    /// Close-order counter now, for ages.
    pub now_order: u64,
    pub rng: &'a mut Rng,
}
