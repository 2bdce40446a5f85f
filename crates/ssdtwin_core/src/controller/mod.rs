//! The SSD controller's queueing system (the self-heating paper, section 4.2 and its Figure 6).
//!
//! A host command is split into mapping-unit transactions that wait, in order, in the host
//! queue. The transaction at the head enters the frame buffer (which bounds transactions in flight
//! over all dies) and then its die's target command queue (TCQ, `die_queue_depth` host operations
//! waiting at or running on the die). When the head cannot enter either, it blocks everything
//! behind it: a Head-of-Line (HoL) event. Writes fill a flash page (or a multi-plane page group) in
//! the frame buffer; the full page becomes one program in the TCQ of its die. GC operations wait
//! in a separate internal queue per die. The scheduler picks what an idle die serves next.
//!
//! [`Controller`] owns all of it: the FTL it drives, the dies' queues and operations, the
//! channels. Its handlers are split by concern: `admission.rs` (host queue, frame buffer, write
//! aggregation), `scan.rs` (the program target host writes fill next), `mapped.rs` (block mapping and BAST writes), `dies.rs` (operations on dies:
//! queued, started, sensed, done), `bus.rs` (a die's use of its channel, ONFI timing), `array.rs`
//! (program/erase array phases and suspend), `gc.rs` (garbage collection as die operations),
//! `pacing.rs` (when GC work may run), `trim.rs` (host trims), `durability.rs` (Flush and FUA), `rmw.rs` (writes of part of a unit), `read_cache.rs` and `prefetch.rs` (the DRAM read cache and read-ahead), `drain.rs` (the end of a run),
//! `tally.rs` (the counters it reports), `limits.rs` (what thermal throttling caps), `zoned/` (a
//! zoned namespace's writes, appends and zone resets).

mod admission;
pub mod arbitration;
mod array;
mod balance;
pub mod buffer;
mod bus;
mod dies;
pub mod drain;
pub mod dram;
mod durability;
mod fdp;
pub mod flush;
mod gc;
mod limits;
mod lookahead;
mod mapped;
pub mod ops;
pub mod pacing;
pub mod params;
mod prefetch;
pub mod read_cache;
mod reliability;
mod rmw;
mod scan;
pub mod scheduler;
pub mod slc;
mod stall;
pub mod suspend;
pub mod tally;
mod trim;
pub mod waits;
pub mod zoned;

use std::collections::{HashSet, VecDeque};

use crate::base::arith::Divisor;
use crate::base::error::ConfigError;
use crate::base::rng::Rng;
use crate::base::slab::Slab;
use crate::base::time::{Duration, Time};
use crate::flash::params::{FlashConfig, SuspendConfig};
use crate::flash::{Channel, ChannelChange, Geometry, Timing};
use crate::ftl::mapping::NONE;
use crate::ftl::Ftl;
use crate::reliability::Reliability;
use ops::{Command, Die, FailedScan, FlashOp, OpenProgram, PlaneGc, Transaction, MAX_PLANES};
use params::ControllerConfig;
use scheduler::Scheduler;
use tally::Tally;

/// The controller, the FTL it drives and the flash it drives it on.
#[derive(Debug)]
pub struct Controller {
    pub geometry: Geometry,
    timing: Timing,
    /// Bus time of a read's data out by mapping units, up to a die's planes of pages (`bus.rs`):
    /// `Timing::read_transfer` computed once, not for every transfer.
    read_transfers: Vec<Duration>,
    /// Page types per word line (`Geometry::page_type`) as a divisor: a read's page type without
    /// a hardware division (3 for TLC), on the path of every read (`dies.rs` `start_op`).
    page_types: Divisor,
    pub ftl: Ftl,
    pub channels: Vec<Channel>,
    /// The controller's channel delay (`flash.channel_switch_time`) and its count.
    pub channel_change: ChannelChange,
    pub dies: Vec<Die>,
    scheduler: Scheduler,
    suspend_config: SuspendConfig,
    /// ONFI cache read (`flash.cache_read`).
    cache_read: bool,
    /// Host commands in flight; the host inserts and removes them.
    pub commands: Slab<Command>,
    transactions: Slab<Transaction>,
    ops: Slab<FlashOp>,
    op_sequence: u64,
    /// Transactions waiting, in order, to enter the frame buffer and their die queues.
    host_queue: VecDeque<u32>,
    /// The head read last blocked by its die's full queue (`admission.rs`).
    blocked_read: ops::BlockedRead,
    frame_buffer: u32,
    frame_used: u32,
    /// Operations allowed at once per channel (thermal throttling; `u32::MAX`: no cap).
    array_cap: u32,
    die_queue_depth: u32,
    buffer_read_time: Duration,
    head_blocked: bool,
    /// The last write admission failed because its targets' GC holds host writes.
    write_held_by_gc: bool,
    /// The last search for a program target, if it found none and nothing changed since.
    failed_scan: FailedScan,
    open_program: Option<OpenProgram>,
    /// FDP: the open programs of the handles not being written, by handle (`fdp.rs`); empty
    /// without FDP.
    parked: Vec<Option<OpenProgram>>,
    /// A full program waiting for a slot in its die's queue (blocks further writes).
    pending_program: Option<(u32, u32)>,
    next_target: usize,
    /// Valid units per plane, summed at the plane's last erase (`balance.rs`).
    plane_valid: Vec<u32>,
    gc: Vec<PlaneGc>,
    /// When GC work may run (`pacing.rs`).
    pacing: pacing::GcPacing,
    /// No host command is in the controller (the host is idle): background GC may run.
    host_idle: bool,
    flash_rng: Rng,
    /// Read commands whose data is complete, for the host to carry back (drained by the engine).
    pub to_host: Vec<u32>,
    /// Completion times of the die-level harness's operations, by probe id.
    pub probe_done: Vec<Option<Time>>,
    pub tally: Tally,
    /// Write buffer and translation-page tracking (`flush.rs`); `None` when all are off.
    dram: Option<Box<dram::Dram>>,
    /// Bit errors, ECC and retries (`reliability.enabled`); `None`: reads cost no more.
    pub reliability: Option<Box<Reliability>>,
    /// Blocks waiting to be relocated (read reclaim, static wear leveling) until their plane's
    /// GC is idle.
    relocations: Vec<(u32, ops::Relocation)>,
    /// Blocks relocated by static wear leveling.
    pub wear_relocations: u64,
    /// The host is done and the run drains (`drain.rs`).
    draining: bool,
    /// Flushes and FUA writes waiting for programs (`durability.rs`).
    pub durability: waits::Durability,
    /// Several flows: their submission queues and the arbitration among them (`admission.rs`);
    /// `None` with one flow, whose commands enter the host queue as they arrive.
    pub arbiter: Option<Box<arbitration::Arbiter>>,
    /// The SLC write cache (`slc_cache.enabled`; `slc/`); `None`: every program is native.
    pub slc: Option<Box<slc::SlcCache>>,
    /// The DRAM read cache and read-ahead (`read_cache.rs`, `prefetch.rs`); `None`: off.
    read_cache: Option<Box<read_cache::ReadCache>>,
    /// Units a sequential stream will read next, noted for read-ahead.
    read_ahead: Vec<u32>,
    /// Units being read ahead (their prefetch reads in flight).
    prefetching: HashSet<u32>,
    /// A zoned namespace (`zns.enabled`; `zoned/`); `None`: conventional.
    pub zoned: Option<Box<zoned::ZonedDrive>>,
}

impl Controller {
    /// A controller for `geometry` with `config`, driving `ftl`; checks the frame buffer and plane
    /// count against what one program needs.
    pub fn new(
        config: &ControllerConfig,
        flash: &FlashConfig,
        geometry: Geometry,
        timing: Timing,
        ftl: Ftl,
        flash_rng: Rng,
    ) -> Result<Controller, ConfigError> {
        let units_per_program = geometry.units_per_page * ftl.targets()[0].plane_count;
        if config.frame_buffer < units_per_program {
            return Err(ConfigError::new(
                "controller.frame_buffer",
                format!(
                    "{} is out of range; allowed: at least the mapping units of one program ({units_per_program} = page_size / mapping_unit x planes programmed together)",
                    config.frame_buffer
                ),
            ));
        }
        if geometry.planes_per_die as usize > MAX_PLANES {
            return Err(ConfigError::new(
                "flash.planes_per_die",
                format!("at most {MAX_PLANES}"),
            ));
        }
        let gc_idle = PlaneGc {
            victim: NONE,
            next_page: 0,
            reads_in_flight: 0,
        };
        Ok(Controller {
            channels: vec![Channel::new(flash.way_switch_time); geometry.channels as usize],
            channel_change: ChannelChange::new(flash.channel_switch_time),
            dies: (0..geometry.dies).map(|_| Die::default()).collect(),
            scheduler: Scheduler::new(config),
            suspend_config: flash.suspend.clone(),
            cache_read: flash.cache_read,
            commands: Slab::default(),
            transactions: Slab::default(),
            ops: Slab::default(),
            op_sequence: 0,
            host_queue: VecDeque::new(),
            blocked_read: ops::BlockedRead::default(),
            frame_buffer: config.frame_buffer,
            frame_used: 0,
            array_cap: u32::MAX,
            die_queue_depth: config.die_queue_depth,
            buffer_read_time: config.buffer_read_time,
            head_blocked: false,
            write_held_by_gc: false,
            failed_scan: FailedScan::default(),
            open_program: None,
            parked: Controller::parked_programs(ftl.fdp.as_deref().map(|fdp| fdp.handles)),
            pending_program: None,
            next_target: 0,
            plane_valid: vec![0; geometry.planes() as usize],
            gc: vec![gc_idle; geometry.planes() as usize],
            pacing: pacing::GcPacing::Threshold,
            host_idle: false,
            flash_rng,
            to_host: Vec::new(),
            probe_done: Vec::new(),
            tally: Tally::default(),
            dram: None,
            reliability: None,
            relocations: Vec::new(),
            wear_relocations: 0,
            draining: false,
            durability: waits::Durability::default(),
            arbiter: None,
            slc: None,
            read_cache: None,
            read_ahead: Vec::new(),
            prefetching: HashSet::new(),
            zoned: None,
            geometry,
            page_types: Divisor::new(geometry.page_types),
            read_transfers: (0..=geometry.units_per_page * geometry.planes_per_die)
                .map(|units| timing.read_transfer(units))
                .collect(),
            timing,
            ftl,
        })
    }
}
