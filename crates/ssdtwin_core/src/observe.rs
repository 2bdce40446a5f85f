//! The one stream of typed state changes that components report and observers receive.
//!
//! Components (flash, ftl, controller, host) push a [`StateChange`] at the instant something an
//! observer may account for happens: a die takes, suspends, resumes or ends an operation, a
//! channel transfer is granted, a command reaches the controller, bytes move through DRAM, a host
//! command completes. Observers (power, metrics; thermal and reliability statistics next) read the
//! stream through the [`Observer`] trait, at the instant and in the order the changes happen;
//! they never reach into a component and no component imports one. Die-level changes are built
//! only when an observer asked for them ([`Observer::die_level`]), so a run with power off pays
//! one branch.

use crate::base::event::EventQueue;
use crate::base::time::{Duration, Time};

/// What a die does with its array (ICC1 read, ICC2 program, ICC3 erase; docs/models/power.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpClass {
    Read,
    Program,
    Erase,
}

/// Direction of a channel transfer as seen from the die.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// Program data (and command cycles) into the die: ICC4W.
    In,
    /// Read data out of the die: ICC4R.
    Out,
}

/// A change of state, stamped by the instant it is pushed at ([`Context::now`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum StateChange {
    /// `die` takes an operation; its array runs `class` on a page of `page_type` from `start`
    /// (≥ now, after the command cycles or the data load) for `duration`; until then bus idle.
    DieOpStart {
        die: u32,
        start: Time,
        class: OpClass,
        page_type: u8,
        duration: Duration,
    },
    /// `die` takes a program: its channel loads the command and data during the `load` that ends
    /// at `start` (a [`StateChange::Transfer`] in), then its array programs a page of `page_type`
    /// for `duration`. One change for the two, so the power model updates the die once.
    ProgramStart {
        die: u32,
        start: Time,
        page_type: u8,
        duration: Duration,
        load: Duration,
    },
    /// `die`'s array finished sensing; the data waits in the page register for the channel.
    DieSensed { die: u32 },
    /// `die` moves data on its channel during the `length` that ends at `end`.
    Transfer {
        die: u32,
        end: Time,
        length: Duration,
        direction: Direction,
    },
    /// `die` finished its operation: standby.
    DieOpEnd { die: u32 },
    /// `die` suspended its program or erase; the array stopped at `stopped` (≤ now).
    DieOpInterrupt { die: u32, stopped: Time },
    /// `die` resumes its suspended operation at `start`, first repeating the last `rewind` of its
    /// array time (the extra ISPP time of a resume; zero unless configured).
    DieOpResume { die: u32, start: Time, rewind: Duration },
    /// A host command reached the controller.
    Command,
    /// `bytes` moved through controller DRAM.
    DramAccess { bytes: u64 },
    /// The controller entered a power state drawing `scale` of its normal power (thermal
    /// throttling).
    ControllerPowerState { scale: f64 },
    /// A host command completed: `latency` from arrival, `service` from submission; `error`: with
    /// an error status (an uncorrectable read); `trim`: a deallocate, whose `bytes` (the range
    /// trimmed) moved no data; `flush`: a Flush (no data, `bytes` 0); `zone_action`: a Zone
    /// Management Send action (no data, `bytes` 0; not an I/O). A refused zoned write reports
    /// `error` and `bytes` 0.
    HostCompletion {
        job: u32,
        is_read: bool,
        trim: bool,
        flush: bool,
        latency: Duration,
        service: Duration,
        bytes: u64,
        error: bool,
        zone_action: bool,
    },
}

/// What receives the stream: the engine's set of observers. Components are generic over it, so
/// every change is a direct, inlined call (no buffer, no boxed observer).
pub trait Observer {
    /// Some observer wants die-level changes (die operations, transfers, DRAM, commands); when
    /// none does, components do not even build them.
    fn die_level(&self) -> bool;
    /// Receives `change`, which happened at `now`.
    fn change(&mut self, now: Time, change: StateChange);
}

/// What a component's event handler gets from the engine: the instant, the queue to schedule its
/// own events on, and the observers to report state changes to.
#[derive(Debug)]
pub struct Context<'a, O> {
    pub now: Time,
    pub events: &'a mut EventQueue,
    pub observers: &'a mut O,
}

impl<O: Observer> Context<'_, O> {
    /// Reports a die-level change, if an observer wants those.
    #[inline(always)]
    pub fn die(&mut self, change: StateChange) {
        if self.observers.die_level() {
            self.observers.change(self.now, change);
        }
    }

    /// Reports a change every run observes (host completions).
    #[inline(always)]
    pub fn push(&mut self, change: StateChange) {
        self.observers.change(self.now, change);
    }
}

/// Energy of each heat source of the drive, what the power observer hands the thermal one
/// (through the engine): cumulative energies since the start [J], or powers [W] where a caller
/// says so. Sorted the way the thermal network's nodes are: packages, controller, DRAM, board.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NodeEnergy {
    /// Each NAND package's dies (NAND core and I/O supplies).
    pub packages: Vec<f64>,
    /// The controller, its channel I/O (PHY) included.
    pub controller: f64,
    /// The DRAM.
    pub dram: f64,
    /// Everything else on the board: the other ICs and the regulator's loss.
    pub board: f64,
}
