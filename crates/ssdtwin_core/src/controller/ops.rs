//! The controller's records: host commands, their mapping-unit transactions, flash operations
//! and the queues and state of each die. Plain data shared by the controller's files and its
//! schedulers.

use std::collections::VecDeque;

use super::suspend::ArrayOp;
use crate::base::time::{Duration, Time};
use crate::flash::channel::Need;
use crate::ftl::{ProgramTarget, Stream};
use crate::reliability::retry::ReadCost;

/// Most planes one program can write (bounds the inline page list of an operation).
pub const MAX_PLANES: usize = 16;

/// A host command in flight.
#[derive(Clone, Copy, Debug, Default)]
pub struct Command {
    /// When the command arrived at the host (open loop) or was submitted (closed loop).
    pub arrival: Time,
    /// When the host submitted it to the drive.
    pub submitted: Time,
    /// Workload job (stream) it belongs to.
    pub job: u32,
    pub is_read: bool,
    /// A host trim (deallocate): its units are unmapped on arrival.
    pub trim: bool,
    /// A Flush (no units): completes once the writes acknowledged before it are on flash.
    pub flush: bool,
    /// A Force Unit Access write: completes once its units are programmed.
    pub fua: bool,
    pub first_unit: u32,
    pub units: u32,
    /// Bytes of the first (last) unit the command leaves out [bytes] (`CommandSpec`).
    pub head_gap: u32,
    pub tail_gap: u32,
    /// The FDP placement identifier (`CommandSpec::placement`).
    pub placement: u16,
    /// Transactions not yet done (reads) or not yet in the frame buffer (writes).
    pub remaining: u32,
    /// Completes with an error status: a read of it was uncorrectable (`reliability`), or a
    /// zoned command was refused (`zoned/`).
    pub error: bool,
    /// A zone append or zone action (`CommandSpec::zone`).
    pub zone: crate::ftl::zoned::ZoneOp,
}

impl Command {
    /// The bytes the host moves [bytes]: its units less the gaps at its ends.
    pub fn bytes(&self, unit_bytes: u64) -> u64 {
        command_bytes(self.units, self.head_gap, self.tail_gap, unit_bytes)
    }
}

/// The bytes moved by a command of `units` units with gaps `head_gap` and `tail_gap` [bytes].
pub fn command_bytes(units: u32, head_gap: u32, tail_gap: u32, unit_bytes: u64) -> u64 {
    (u64::from(units) * unit_bytes).saturating_sub(u64::from(head_gap) + u64::from(tail_gap))
}

/// Whether unit `index` (0-based within a write of `units` units with these gaps) is written only
/// in part: a read-modify-write.
pub fn partial_unit(index: u32, units: u32, head_gap: u32, tail_gap: u32) -> bool {
    (index == 0 && head_gap > 0) || (index + 1 == units && tail_gap > 0)
}

/// One mapping unit of a command.
#[derive(Clone, Copy, Debug, Default)]
pub struct Transaction {
    pub command: u32,
    pub logical: u32,
    pub physical: u32,
    /// A write of part of its unit whose old data is still to be merged (a read-modify-write,
    /// `rmw.rs`); false once merged and for every other transaction.
    pub partial: bool,
    /// A read already looked up in the read cache (and missed): a retry of its admission is not
    /// another lookup (`prefetch.rs`).
    pub looked_up: bool,
}

/// The read at the head of the host queue that last found its die's queue full (`admission.rs`):
/// its unit, the unit's die and the block table's erases then (`BlockTable::erased`, every kind:
/// GC, zone resets). `transaction` is `NONE` when none.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockedRead {
    pub transaction: u32,
    pub physical: u32,
    pub die: u32,
    pub erases: u64,
    /// The mapping's change count then (`Mapping::changes`): unchanged, the unit has not moved.
    pub changes: u64,
}

impl Default for BlockedRead {
    fn default() -> Self {
        BlockedRead {
            transaction: crate::ftl::mapping::NONE,
            physical: crate::ftl::mapping::NONE,
            die: 0,
            erases: 0,
            changes: 0,
        }
    }
}

/// The last search for a program target that found none, and the changes GC noted since
/// (`scan.rs`).
#[derive(Debug, Default)]
pub struct FailedScan {
    pub valid: bool,
    /// The FTL's erase count, the pacing's change count and the FDP host handle at the search.
    pub erases: u64,
    pub pacing: u64,
    pub handle: u16,
    /// Per target: its GC held host writes (else a plane had no page for them).
    pub held: Vec<bool>,
    pub held_count: usize,
    /// The target of each plane.
    pub plane_target: Vec<u32>,
    /// Targets with a noted change since the search, each once (`listed`).
    pub dirty: Vec<u32>,
    pub listed: Vec<bool>,
    /// Erases and pacing changes noted since the search.
    pub erases_noted: u64,
    pub pacing_noted: u64,
}

/// What a flash operation does.
#[derive(Clone, Copy, Debug)]
pub enum OpKind {
    /// A host read of one transaction (reads of the same page are served together).
    HostRead {
        transaction: u32,
    },
    /// GC reads the valid units of one page of its victim.
    GcRead {
        block: u32,
        page: u32,
        units: u32,
    },
    /// A program of one page in each of `page_count` planes.
    Program {
        stream: Stream,
        pages: [(u32, u32); MAX_PLANES],
        page_count: u8,
        units: u32,
    },
    Erase {
        block: u32,
    },
    /// Block mapping or BAST reads a valid page to copy it (its program is queued behind it).
    CopyRead {
        block: u32,
        page: u32,
    },
    /// A translation page read into the mapping cache (`ftl.mapping_cache = "cached"`: a miss).
    MappingRead {
        tpage: u32,
        /// The page is waited for (a host read missed); otherwise the read only costs its time
        /// (a mapping update that missed: the update is kept in DRAM meanwhile).
        load: bool,
    },
    /// A translation page written back (dirty beyond the protected count, or evicted dirty).
    MappingProgram,
    /// The SLC cache folds: reads a host program's data back from SLC (`controller/slc/`).
    FoldRead(super::slc::Fold),
    /// ... and programs it into its native page.
    FoldProgram(super::slc::Fold),
    /// An SLC-mode block freed by folding is erased.
    SlcErase {
        block: u32,
    },
    /// An operation issued by the die-level test harness (`sim::harness`), outside the FTL.
    Probe {
        id: u32,
        action: ProbeAction,
    },
}

/// What a harness operation does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProbeAction {
    /// Read one mapping unit of a page of this type.
    Read {
        page_type: u8,
    },
    /// Program one page of this type.
    Program {
        page_type: u8,
    },
    Erase,
}

impl OpKind {
    /// An operation that senses a page and moves its data out (host, GC, copy or harness read).
    pub fn is_array_read(&self) -> bool {
        matches!(
            self,
            OpKind::HostRead { .. }
                | OpKind::GcRead { .. }
                | OpKind::CopyRead { .. }
                | OpKind::MappingRead { .. }
                | OpKind::FoldRead(_)
                | OpKind::Probe {
                    action: ProbeAction::Read { .. },
                    ..
                }
        )
    }

    /// A host read (or a harness read): what may overtake programs and suspend them.
    pub fn is_host_read(&self) -> bool {
        matches!(
            self,
            OpKind::HostRead { .. }
                | OpKind::Probe {
                    action: ProbeAction::Read { .. },
                    ..
                }
        )
    }
}

/// An operation queued at or running on a die.
#[derive(Clone, Copy, Debug)]
pub struct FlashOp {
    pub kind: OpKind,
    /// Arrival order at the die (FIFO ties).
    pub sequence: u64,
    /// When it joined the die's queue.
    pub queued_at: Time,
    /// A read's retries and decoding (`reliability`; none when it is off).
    pub cost: ReadCost,
}

/// The queues in front of one die.
#[derive(Debug, Default)]
pub struct DieQueues {
    /// Target command queue: host reads and programs, in arrival order.
    pub host: VecDeque<u32>,
    /// GC reads, programs and erases.
    pub internal: VecDeque<u32>,
}

/// One die's queues and state.
#[derive(Debug, Default)]
pub struct Die {
    pub queues: DieQueues,
    pub running: Option<u32>,
    /// Host operations queued or running (the TCQ occupancy).
    pub host_slots: u32,
    /// Transactions served by the running host read.
    pub batch: Vec<u32>,
    pub busy_since: Time,
    pub busy: Duration,
    /// The program or erase in its array phase (running or suspended).
    pub array: Option<ArrayOp>,
    /// Bumped whenever a scheduled array completion or suspension becomes void.
    pub generation: u32,
    /// What the running operation waits for on the channel, if it waits.
    pub waiting: Option<Need>,
    /// Cache read: a read whose data sits in the cache register, waiting for or in its data out,
    /// while the array may sense the next read.
    pub output: Option<u32>,
    /// Transactions served by the `output` read.
    pub output_batch: Vec<u32>,
    /// The `output` read waits for the channel.
    pub output_waiting: bool,
    /// Cache read: the running read has sensed, but the cache register is still busy, so its data
    /// waits in the page register and the array can take nothing new.
    pub held: bool,
    /// Page type of the running read (its sense time).
    pub page_type: u8,
    /// Host reads in `queues.host` per bucket of their page (`dies.rs`, `page_bucket`): a read
    /// that starts looks for same-page reads to serve with its sense only when its bucket holds
    /// another read.
    pub read_pages: [u32; 32],
}

impl Die {
    /// The die holds an operation: running, suspended, or with read data in its cache register.
    pub fn holds_operation(&self) -> bool {
        self.running.is_some() || self.array.is_some() || self.output.is_some()
    }
}

/// Host data being gathered into one program.
#[derive(Clone, Copy, Debug)]
pub struct OpenProgram {
    pub target: ProgramTarget,
    pub pages: [(u32, u32); MAX_PLANES],
    pub filled: u32,
    pub capacity: u32,
    /// The page (index into `pages`) the program fills first; then the next ones in turn
    /// (`balance.rs`: the plane of the die holding the least valid data).
    pub first: u32,
}

impl OpenProgram {
    /// The page that the program's `index`-th unit goes to.
    #[inline]
    pub fn page_of_unit(&self, index: u32, units_per_page: u32) -> (u32, u32) {
        let mut page = index / units_per_page + self.first;
        if page >= self.target.plane_count {
            page -= self.target.plane_count;
        }
        self.pages[page as usize]
    }
}

/// Garbage collection in progress on one plane.
#[derive(Clone, Copy, Debug)]
pub struct PlaneGc {
    /// The victim block, or `ftl::mapping::NONE`.
    pub victim: u32,
    /// Next victim page to read.
    pub next_page: u32,
    pub reads_in_flight: u32,
}

/// GC page reads in flight per plane: copying proceeds page by page, never flooding a die.
pub const GC_READ_WINDOW: u32 = 2;

/// Why a block is relocated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Relocation {
    /// Read reclaim: its reads approach the ECC limit.
    Reclaim,
    /// Static wear leveling: it holds cold data on a little-worn block.
    WearLeveling,
}
