//! The assembled drive and its run loop.
//!
//! [`Simulation::new`] builds every component from one validated scenario, top to bottom;
//! [`Simulation::run`] preconditions the drive, then pops events in `(time, sequence)` order and
//! hands each to its handler until the workload is done. All state lives in this value: no
//! globals, so simulations on different threads never meet.

mod mapped;

use std::time::Instant;

use super::event::{Event, EventQueue};
use super::rng::Rng;
use super::time::{Duration, Time};
use super::{Progress, RunError};
use crate::config::{ConfigError, HostMode, Scenario};
use crate::controller::scheduler::{Choice, Scheduler};
use crate::controller::suspend::{ArrayKind, ArrayOp, ArrayState, SuspendLimits};
use crate::controller::ProbeAction;
use crate::controller::{
    Command, Die, FlashOp, OpKind, OpenProgram, PlaneGc, Slab, Transaction, GC_READ_WINDOW, MAX_PLANES,
};
use crate::flash::{Channel, Geometry, Timing};
use crate::ftl::mapping::NONE;
use crate::ftl::{Ftl, Stream};
use crate::host::{Host, PcieLink, Pending};
use crate::metrics::jobs::JobMetrics;
use crate::metrics::latency::LatencyRecorder;
use crate::metrics::report::{
    FlashCounters, LatencyReport, QueueReport, SimulatorReport, SuspendReport, WorkloadReport,
};
use crate::power::report::{EnergyReport, PowerReport};
use crate::power::{Direction, OpClass, PowerModel, TimeSeries};
use crate::sim::report::Report;
use crate::workload::{Pacing, Source};

/// Events between two looks at the wall clock for progress reports.
const PROGRESS_EVENT_STRIDE: u64 = 1 << 14;
/// Wall time between two progress reports.
const PROGRESS_WALL_INTERVAL: std::time::Duration = std::time::Duration::from_millis(50);

/// Refuses a drive whose mapping tables would not fit in the memory available now, instead of
/// letting the allocation abort the process.
fn check_memory(geometry: &Geometry, over_provisioning: f64) -> Result<(), ConfigError> {
    let physical = geometry.physical_units() as f64;
    let needed = 4.0 * (physical + physical * (1.0 - over_provisioning));
    let available = std::fs::read_to_string("/proc/meminfo").ok().and_then(|text| {
        let line = text.lines().find(|line| line.starts_with("MemAvailable:"))?;
        line.split_whitespace()
            .nth(1)?
            .parse::<f64>()
            .ok()
            .map(|kib| kib * 1024.0)
    });
    match available {
        Some(available) if needed > available => Err(ConfigError::new(
            "flash",
            format!(
                "the mapping tables of this drive need {:.1} GiB but {:.1} GiB of memory is available; \
                 use fewer flash.blocks_per_plane or a larger ftl.mapping_unit",
                needed / f64::from(1u32 << 30),
                available / f64::from(1u32 << 30)
            ),
        )),
        _ => Ok(()),
    }
}

/// One simulated drive under one workload.
#[derive(Debug)]
pub struct Simulation {
    scenario: Scenario,
    geometry: Geometry,
    timing: Timing,
    events: EventQueue,
    now: Time,
    host: Host,
    link: PcieLink,
    workload: Source,
    pacing: Pacing,
    /// The next timed arrival, drawn from the source when its `HostArrival` was scheduled.
    next_arrival: Option<Pending>,
    /// A workload input error (malformed trace line) that ends the run.
    workload_error: Option<String>,
    span_units: u32,
    ftl: Ftl,
    channels: Vec<Channel>,
    dies: Vec<Die>,
    scheduler: Scheduler,
    commands: Slab<Command>,
    transactions: Slab<Transaction>,
    ops: Slab<FlashOp>,
    op_sequence: u64,
    /// Transactions waiting, in order, to enter the frame buffer and their die queues.
    host_queue: std::collections::VecDeque<u32>,
    frame_buffer: u32,
    frame_used: u32,
    die_queue_depth: u32,
    head_blocked: bool,
    open_program: Option<OpenProgram>,
    /// A full program waiting for a slot in its die's queue (blocks further writes).
    pending_program: Option<(u32, u32)>,
    next_target: usize,
    gc: Vec<PlaneGc>,
    flash_rng: Rng,
    precondition_rng: Rng,
    // Measurements.
    job_metrics: Vec<JobMetrics>,
    completed: u64,
    bytes_moved: u64,
    last_completion: Time,
    counters: FlashCounters,
    hol_events: u64,
    events_handled: u64,
    suspend: SuspendTally,
    /// Operations of the die-level harness and when each completed.
    probes: Vec<Probe>,
    power: PowerModel,
}

/// An operation the die-level harness issues at a given time.
#[derive(Clone, Copy, Debug)]
pub struct Probe {
    pub at: Time,
    pub die: u32,
    pub action: ProbeAction,
    pub done: Option<Time>,
}

/// Suspension counts and suspended operation times, summed as operations complete.
#[derive(Debug, Default)]
struct SuspendTally {
    program: u64,
    erase: u64,
    per_program: Vec<u64>,
    per_erase: Vec<u64>,
    program_time: Duration,
    erase_time: Duration,
}

impl Simulation {
    /// Builds the drive and workload of `scenario`.
    pub fn new(scenario: &Scenario) -> Result<Simulation, ConfigError> {
        let geometry = Geometry::new(&scenario.flash, scenario.ftl.mapping_unit);
        check_memory(&geometry, scenario.ftl.over_provisioning)?;
        let timing = Timing::new(&scenario.flash, &geometry);
        let ftl = Ftl::new(
            &scenario.ftl,
            scenario.flash.multi_plane,
            geometry,
            Rng::stream(scenario.seed, "ftl"),
        );

        let units_per_program = geometry.units_per_page * ftl.targets()[0].plane_count;
        if scenario.controller.frame_buffer < units_per_program {
            return Err(ConfigError::new(
                "controller.frame_buffer",
                format!(
                    "{} is out of range; allowed: at least the mapping units of one program ({units_per_program} = page_size / mapping_unit x planes programmed together)",
                    scenario.controller.frame_buffer
                ),
            ));
        }
        if geometry.planes_per_die as usize > MAX_PLANES {
            return Err(ConfigError::new(
                "flash.planes_per_die",
                format!("at most {MAX_PLANES}"),
            ));
        }
        let span_units = (f64::from(ftl.logical_units()) * scenario.workload.span).floor() as u32;
        let workload_config = &scenario.workload;
        let largest_command = workload_config
            .bssplit
            .iter()
            .map(|(size, _)| size.bytes())
            .chain(std::iter::once(workload_config.block_size.bytes()))
            .max()
            .unwrap_or(0)
            / geometry.unit_bytes;
        if span_units == 0 || largest_command > u64::from(span_units) {
            return Err(ConfigError::new(
                "workload.span",
                format!(
                    "{} addresses {span_units} mapping units, fewer than one command needs",
                    workload_config.span
                ),
            ));
        }
        let workload = Source::new(&scenario.workload, scenario.seed, geometry.unit_bytes, span_units)?;
        let pacing = workload.pacing(&scenario.workload);
        let jobs = workload.jobs(scenario.host.queue_depth);
        let mut host = match workload {
            // Traces and job files end where their files say.
            Source::Trace(_) | Source::Fio(_) => Host::new(&scenario.host, u64::MAX, Duration::ZERO),
            _ => Host::new(&scenario.host, workload_config.io_count, workload_config.duration),
        };
        if let Source::Fio(_) = workload {
            host.queue_depth = jobs.iter().map(|job| job.queue_depth).sum();
        }
        host.set_jobs(&jobs);
        let job_metrics = jobs
            .iter()
            .map(|job| JobMetrics::new(&job.name, job.queue_depth))
            .collect();

        Ok(Simulation {
            scenario: scenario.clone(),
            geometry,
            timing,
            events: EventQueue::new(),
            now: Time::ZERO,
            link: PcieLink::new(&scenario.host),
            host,
            workload,
            pacing,
            next_arrival: None,
            workload_error: None,
            span_units,
            channels: vec![Channel::new(scenario.flash.channel_switch_time); geometry.channels as usize],
            dies: (0..geometry.dies).map(|_| Die::default()).collect(),
            scheduler: Scheduler::new(&scenario.controller),
            commands: Slab::default(),
            transactions: Slab::default(),
            ops: Slab::default(),
            op_sequence: 0,
            host_queue: std::collections::VecDeque::new(),
            frame_buffer: scenario.controller.frame_buffer,
            frame_used: 0,
            die_queue_depth: scenario.controller.die_queue_depth,
            head_blocked: false,
            open_program: None,
            pending_program: None,
            next_target: 0,
            gc: vec![
                PlaneGc {
                    victim: NONE,
                    next_page: 0,
                    reads_in_flight: 0
                };
                geometry.planes() as usize
            ],
            flash_rng: Rng::stream(scenario.seed, "flash"),
            precondition_rng: Rng::stream(scenario.seed, "precondition"),
            ftl,
            job_metrics,
            completed: 0,
            bytes_moved: 0,
            last_completion: Time::ZERO,
            counters: FlashCounters::default(),
            hol_events: 0,
            events_handled: 0,
            suspend: SuspendTally::default(),
            probes: Vec::new(),
            power: PowerModel::new(
                &scenario.power,
                geometry.channels,
                geometry.dies,
                geometry.page_types as usize,
            ),
        })
    }

    /// The FTL, for invariant checks in tests.
    pub fn ftl(&self) -> &Ftl {
        &self.ftl
    }

    /// Suspensions so far.
    pub fn suspend_report(&self) -> SuspendReport {
        self.suspend.report()
    }

    /// Bytes of simulator state that scale with the drive (mapping table and block table).
    pub fn state_bytes(&self) -> usize {
        self.ftl.mapping.state_bytes() + self.ftl.blocks.state_bytes() + self.ftl.scheme_state_bytes()
    }

    /// Preconditions the drive and runs the workload to completion.
    pub fn run(&mut self, progress: &mut dyn FnMut(&Progress) -> bool) -> Result<Report, RunError> {
        let started = Instant::now();
        let workload = self.scenario.workload.clone();
        let finished = self
            .ftl
            .precondition(
                workload.precondition,
                self.span_units,
                workload.steady_overwrites,
                &mut self.precondition_rng,
                &mut |fraction| {
                    progress(&Progress {
                        phase: "precondition",
                        fraction,
                        host_ios: 0,
                        simulated_time_s: 0.0,
                    })
                },
            )
            .map_err(|message| RunError::Config(ConfigError::new("workload.precondition", message)))?;
        if !finished {
            return Err(RunError::Interrupted);
        }
        let precondition_wall = started.elapsed();
        if self.pacing == Pacing::Timed {
            self.schedule_next_arrival();
        } else if self.host.mode == HostMode::Open {
            self.host.arrival_pending = true;
            self.events.schedule(Time::ZERO, Event::HostArrival);
        }
        self.host_try_submit();
        let mut last_report = Instant::now();
        while let Some((time, event)) = self.events.pop() {
            self.now = time;
            self.events_handled += 1;
            self.dispatch(event);
            self.check_workload()?;
            if self.host.outstanding == 0
                && self.host.backlog.is_empty()
                && !self.host.arrival_pending
                && !self.host.wakeup_pending
            {
                break;
            }
            if self.events_handled.is_multiple_of(PROGRESS_EVENT_STRIDE)
                && last_report.elapsed() >= PROGRESS_WALL_INTERVAL
            {
                last_report = Instant::now();
                if !progress(&self.progress()) {
                    return Err(RunError::Interrupted);
                }
            }
        }
        self.check_workload()?;
        if self.host.outstanding > 0 {
            return Err(RunError::Stalled(format!(
                "the drive stopped making progress at {} with {} commands in flight: GC found no block to reclaim; \
                 raise ftl.over_provisioning or lower workload.span",
                self.now, self.host.outstanding
            )));
        }
        progress(&self.progress());
        let power = self.power.finish(self.last_completion);
        Ok(self.report(started.elapsed(), precondition_wall, power))
    }

    /// Ends the run with the workload's input error (a malformed trace line), if there was one.
    fn check_workload(&mut self) -> Result<(), RunError> {
        match self.workload_error.take() {
            None => Ok(()),
            Some(message) => {
                let key = match self.workload {
                    Source::Trace(_) => "workload.trace.path",
                    _ => "workload",
                };
                Err(RunError::Config(ConfigError::new(key, message)))
            }
        }
    }

    fn dispatch(&mut self, event: Event) {
        match event {
            Event::HostSubmit => {
                self.host.wakeup_pending = false;
                self.host_try_submit();
            }
            Event::HostArrival => self.on_host_arrival(),
            Event::CommandArrived { command } => self.on_command_arrived(command),
            Event::ReadSensed { die } => self.on_read_sensed(die),
            Event::DieDone { die } => self.on_die_done(die),
            Event::ArrayDone { die, generation } => self.on_array_done(die, generation),
            Event::SuspendEntered { die, generation } => self.on_suspend_entered(die, generation),
            Event::ProbeIssue { index } => self.on_probe_issue(index),
            Event::BufferReadDone { transaction } => {
                self.finish_read_transaction(transaction);
                self.admit();
            }
            Event::CommandCompleted { command } => self.on_command_completed(command),
        }
    }

    /// Runs harness operations (issued with `probe`) on an idle, empty drive until all complete;
    /// returns every probe with its completion time. The host submits nothing.
    pub fn run_probes(&mut self, probes: &[Probe]) -> Vec<Probe> {
        self.probes = probes.to_vec();
        for (index, probe) in probes.iter().enumerate() {
            self.events
                .schedule(probe.at, Event::ProbeIssue { index: index as u32 });
        }
        while let Some((time, event)) = self.events.pop() {
            self.now = time;
            self.dispatch(event);
        }
        std::mem::take(&mut self.probes)
    }

    fn on_probe_issue(&mut self, index: u32) {
        let probe = self.probes[index as usize];
        self.enqueue_op(
            probe.die,
            OpKind::Probe {
                id: index,
                action: probe.action,
            },
            false,
        );
    }

    fn progress(&self) -> Progress {
        let fraction = if let Some(fraction) = self.workload.progress(self.now) {
            fraction
        } else if self.host.io_count > 0 {
            self.completed as f64 / self.host.io_count as f64
        } else {
            self.now.as_secs_f64() / self.host.stop_at.as_secs_f64().max(1e-12)
        };
        Progress {
            phase: "run",
            fraction: fraction.min(1.0),
            host_ios: self.completed,
            simulated_time_s: self.now.as_secs_f64(),
        }
    }

    // ---------------------------------------------------------------- host

    /// Submits what the host may submit now; schedules a wake-up for what it may submit later.
    fn host_try_submit(&mut self) {
        loop {
            if self.host.outstanding >= self.host.queue_depth || self.workload_error.is_some() {
                return;
            }
            // Open loop and timed sources submit what has arrived; closed-loop jobs make their
            // next command when they have room.
            let job = if self.host.mode == HostMode::Open || self.pacing == Pacing::Timed {
                if self.host.backlog.is_empty() {
                    return;
                }
                None
            } else {
                if !self.host.more_to_issue(self.now) {
                    return;
                }
                match self.host.ready_job() {
                    Some(job) => Some(job),
                    None => return,
                }
            };
            let allowed = self.host.next_allowed();
            if allowed > self.now {
                if !self.host.wakeup_pending {
                    self.host.wakeup_pending = true;
                    self.events.schedule(allowed, Event::HostSubmit);
                }
                return;
            }
            match job {
                None => {
                    let pending = self.host.backlog.pop_front().expect("checked above");
                    self.submit_command(pending);
                }
                Some(job) => match self.workload.next(job, self.now) {
                    Ok(Some((command, _, _))) => {
                        self.host.issued += 1;
                        let arrival = self.now;
                        self.submit_command(Pending { arrival, command, job });
                    }
                    Ok(None) => self.host.jobs[job as usize].done = true,
                    Err(message) => self.workload_error = Some(message),
                },
            }
        }
    }

    /// An open-loop or timed arrival: it joins the host's backlog; the next one is scheduled.
    fn on_host_arrival(&mut self) {
        self.host.arrival_pending = false;
        if self.pacing == Pacing::Timed {
            if let Some(pending) = self.next_arrival.take() {
                self.host.backlog.push_back(pending);
                self.host.issued += 1;
            }
            self.schedule_next_arrival();
        } else if self.host.more_to_issue(self.now) {
            match self.workload.next(0, self.now) {
                Ok(Some((command, job, _))) => self.host.backlog.push_back(Pending {
                    arrival: self.now,
                    command,
                    job,
                }),
                Ok(None) => {}
                Err(message) => self.workload_error = Some(message),
            }
            self.host.issued += 1;
            if self.host.more_to_issue(self.now + self.host.arrival_gap) {
                self.host.arrival_pending = true;
                self.events
                    .schedule(self.now + self.host.arrival_gap, Event::HostArrival);
            }
        }
        self.host_try_submit();
    }

    /// Draws the next timed request and schedules its arrival (never before now).
    fn schedule_next_arrival(&mut self) {
        match self.workload.next(0, self.now) {
            Ok(Some((command, job, arrival))) => {
                let arrival = arrival.unwrap_or(self.now).max(self.now);
                if self.host.more_to_issue(arrival) {
                    self.next_arrival = Some(Pending { arrival, command, job });
                    self.host.arrival_pending = true;
                    self.events.schedule(arrival, Event::HostArrival);
                }
            }
            Ok(None) => {}
            Err(message) => self.workload_error = Some(message),
        }
    }

    fn submit_command(&mut self, pending: Pending) {
        let Pending {
            arrival,
            command: spec,
            job,
        } = pending;
        self.host.outstanding += 1;
        self.host.jobs[job as usize].outstanding += 1;
        self.host.last_submission = Some(self.now);
        let command = self.commands.insert(Command {
            arrival,
            submitted: self.now,
            job,
            is_read: spec.is_read,
            first_unit: spec.first_unit,
            units: spec.units,
            remaining: spec.units,
        });
        let fetched = self.now + self.host.command_overhead;
        let arrived = if spec.is_read {
            fetched
        } else {
            self.link
                .to_device(fetched, u64::from(spec.units) * self.geometry.unit_bytes)
        };
        self.events.schedule(arrived, Event::CommandArrived { command });
    }

    fn on_command_arrived(&mut self, command: u32) {
        let Command {
            first_unit,
            units,
            is_read,
            ..
        } = self.commands[command];
        self.power.command(self.now);
        if !is_read {
            self.power
                .dram_access(self.now, u64::from(units) * self.geometry.unit_bytes);
        }
        for logical in first_unit..first_unit + units {
            let transaction = self.transactions.insert(Transaction {
                command,
                logical,
                physical: NONE,
            });
            self.host_queue.push_back(transaction);
        }
        self.admit();
    }

    fn on_command_completed(&mut self, command: u32) {
        let done = self.commands.remove(command);
        let latency = self.now.since(done.arrival);
        let bytes = u64::from(done.units) * self.geometry.unit_bytes;
        self.job_metrics[done.job as usize].record(
            done.is_read,
            latency,
            self.now.since(done.submitted),
            bytes,
            self.now,
        );
        self.host.jobs[done.job as usize].outstanding -= 1;
        self.completed += 1;
        self.bytes_moved += bytes;
        self.power.host_completion(self.now, bytes);
        self.last_completion = self.now;
        self.host.outstanding -= 1;
        self.host_try_submit();
    }

    // ---------------------------------------------------------- controller

    /// Moves transactions from the head of the host queue into the frame buffer and die queues
    /// until the head cannot move (a Head-of-Line event) or the queue is empty.
    fn admit(&mut self) {
        while let Some(&transaction) = self.host_queue.front() {
            if self.frame_used >= self.frame_buffer {
                self.head_of_line_blocked();
                return;
            }
            let command = self.transactions[transaction].command;
            let admitted = if self.commands[command].is_read {
                self.admit_read(transaction)
            } else {
                self.admit_write(transaction)
            };
            if !admitted {
                self.head_of_line_blocked();
                return;
            }
            self.host_queue.pop_front();
            self.head_blocked = false;
        }
    }

    fn head_of_line_blocked(&mut self) {
        if !self.head_blocked {
            self.head_blocked = true;
            self.hol_events += 1;
        }
    }

    fn admit_read(&mut self, transaction: u32) -> bool {
        let logical = self.transactions[transaction].logical;
        let physical = self.ftl.mapping.physical(logical);
        if physical == NONE || !self.ftl.is_programmed(physical) {
            // Never written (reads zeros) or still in controller DRAM: no flash access.
            self.frame_used += 1;
            self.events.schedule(
                self.now + self.scenario.controller.buffer_read_time,
                Event::BufferReadDone { transaction },
            );
            return true;
        }
        let die = self.geometry.die_of_block(self.geometry.block_of_unit(physical));
        if self.dies[die as usize].host_slots >= self.die_queue_depth {
            return false;
        }
        self.frame_used += 1;
        self.transactions[transaction].physical = physical;
        self.enqueue_host_op(die, OpKind::HostRead { transaction });
        true
    }

    fn admit_write(&mut self, transaction: u32) -> bool {
        if !self.ftl.is_page_mapped() {
            return self.admit_mapped_write(transaction);
        }
        if self.pending_program.is_some() {
            return false;
        }
        if self.open_program.is_none() && !self.open_user_program() {
            return false;
        }
        let Transaction { command, logical, .. } = self.transactions.remove(transaction);
        let units_per_page = self.geometry.units_per_page;
        let open = self.open_program.as_mut().expect("opened above");
        let (block, page) = open.pages[(open.filled / units_per_page) as usize];
        let physical = self.geometry.unit_address(block, page, open.filled % units_per_page);
        open.filled += 1;
        let full = open.filled == open.capacity;
        self.ftl.place(logical, physical, Stream::User);
        self.frame_used += 1;
        let record = &mut self.commands[command];
        record.remaining -= 1;
        if record.remaining == 0 {
            // The payload is in the frame buffer: the write is acknowledged.
            self.events.schedule(self.now, Event::CommandCompleted { command });
        }
        if full {
            self.close_user_program();
        }
        true
    }

    /// Opens the next program target in striping order that has room.
    fn open_user_program(&mut self) -> bool {
        let targets = self.ftl.targets().len();
        for _ in 0..targets {
            let target = self.ftl.targets()[self.next_target];
            self.next_target = (self.next_target + 1) % targets;
            let planes = target.first_plane..target.first_plane + target.plane_count;
            if !planes.clone().all(|plane| self.ftl.can_allocate(plane, Stream::User)) {
                continue;
            }
            let mut pages = [(0, 0); MAX_PLANES];
            for (index, plane) in planes.clone().enumerate() {
                pages[index] = self.ftl.allocate_page(plane, Stream::User);
            }
            for plane in planes {
                if self.ftl.needs_gc(plane) {
                    self.start_gc(plane);
                }
            }
            self.open_program = Some(OpenProgram {
                target,
                pages,
                filled: 0,
                capacity: target.plane_count * self.geometry.units_per_page,
            });
            return true;
        }
        false
    }

    fn close_user_program(&mut self) {
        let open = self.open_program.take().expect("a program is open");
        let kind = OpKind::Program {
            stream: Stream::User,
            pages: open.pages,
            page_count: open.target.plane_count as u8,
            units: open.filled,
        };
        let die = open.target.die;
        if self.dies[die as usize].host_slots < self.die_queue_depth {
            self.enqueue_host_op(die, kind);
        } else {
            let op = self.new_op(kind);
            self.pending_program = Some((die, op));
        }
    }

    fn new_op(&mut self, kind: OpKind) -> u32 {
        self.op_sequence += 1;
        self.ops.insert(FlashOp {
            kind,
            sequence: self.op_sequence,
            queued_at: self.now,
        })
    }

    fn enqueue_host_op(&mut self, die: u32, kind: OpKind) {
        self.enqueue_op(die, kind, true);
    }

    /// Queues an operation in the die's target command queue; a read may suspend a program there.
    fn enqueue_op(&mut self, die: u32, kind: OpKind, takes_slot: bool) {
        let op = self.new_op(kind);
        let state = &mut self.dies[die as usize];
        state.queues.host.push_back(op);
        if takes_slot {
            state.host_slots += 1;
        }
        if kind.is_host_read() {
            self.request_suspend(die);
        }
        self.try_start(die);
    }

    fn enqueue_internal_op(&mut self, die: u32, kind: OpKind) {
        let op = self.new_op(kind);
        self.dies[die as usize].queues.internal.push_back(op);
        self.try_start(die);
    }

    // ---------------------------------------------------------- flash dies

    /// Starts the next operation on `die` if it is idle.
    fn try_start(&mut self, die: u32) {
        let state = &mut self.dies[die as usize];
        if state.running.is_some() {
            return;
        }
        let op = if let Some(array) = state.array.as_mut() {
            // A suspended die serves waiting host reads only, then resumes.
            let ArrayState::Suspended { reads_served } = array.state else {
                unreachable!("a running array operation occupies the die")
            };
            let ops = &self.ops;
            let read = (reads_served < self.scenario.flash.suspend.reads_per_suspend)
                .then(|| state.queues.host.iter().position(|&op| ops[op].kind.is_host_read()))
                .flatten();
            let Some(index) = read else {
                self.resume(die);
                return;
            };
            array.state = ArrayState::Suspended {
                reads_served: reads_served + 1,
            };
            state.queues.host.remove(index).expect("a queued read")
        } else {
            // Urgent GC is not overtaken: the die serves its queues in arrival order.
            let urgent = !state.queues.internal.is_empty() && self.ftl.gc_urgent(die);
            let scheduler = if urgent { Scheduler::Fifo } else { self.scheduler };
            let choice = scheduler.choose(&state.queues, &self.ops.items, self.now);
            let Some(choice) = choice else {
                return;
            };
            match choice {
                Choice::Host(index) => state.queues.host.remove(index).expect("scheduler chose a queued op"),
                Choice::Internal => state.queues.internal.pop_front().expect("scheduler chose a queued op"),
            }
        };
        self.start_op(die, op);
    }

    /// Starts `op` on the idle `die`.
    fn start_op(&mut self, die: u32, op: u32) {
        let state = &mut self.dies[die as usize];
        state.running = Some(op);
        state.busy_since = self.now;
        let channel = &mut self.channels[self.geometry.channel_of_die(die) as usize];
        channel.select(self.geometry.chip_of_die(die));
        match self.ops[op].kind {
            OpKind::HostRead { transaction } => {
                // Serve every queued host read of the same page with this one sense.
                let physical = self.transactions[transaction].physical;
                let units_per_page = self.geometry.units_per_page;
                let page_start = physical - physical % units_per_page;
                state.batch.clear();
                state.batch.push(transaction);
                let mut index = 0;
                while index < state.queues.host.len() {
                    let other = state.queues.host[index];
                    if let OpKind::HostRead { transaction: merged } = self.ops[other].kind {
                        let merged_physical = self.transactions[merged].physical;
                        if merged_physical - merged_physical % units_per_page == page_start {
                            state.batch.push(merged);
                            state.queues.host.remove(index);
                            self.ops.remove(other);
                            continue;
                        }
                    }
                    index += 1;
                }
                let page_type = self.geometry.page_type(self.geometry.page_of_unit(physical));
                self.counters.reads += 1;
                self.begin_sense(die, page_type);
            }
            OpKind::GcRead { page, .. } | OpKind::CopyRead { page, .. } => {
                self.counters.gc_reads += 1;
                self.begin_sense(die, self.geometry.page_type(page));
            }
            OpKind::Program {
                stream,
                pages,
                page_count,
                units,
            } => {
                let transfer = self.timing.program_transfer(units);
                let loaded = channel.reserve(self.now, transfer);
                let page_type = self.geometry.page_type(pages[0].1);
                let length = self.timing.program_time(page_type, &mut self.flash_rng);
                self.power
                    .die_op_start(self.now, die, loaded, OpClass::Program, page_type, length);
                self.power.transfer(self.now, die, loaded, transfer, Direction::In);
                self.power
                    .dram_access(self.now, u64::from(units) * self.geometry.unit_bytes);
                match stream {
                    Stream::User => self.counters.programs += u64::from(page_count),
                    Stream::Gc => self.counters.gc_programs += u64::from(page_count),
                }
                self.begin_array(die, op, ArrayKind::Program, loaded, length);
            }
            OpKind::Erase { .. } => {
                let start = channel.reserve(self.now, self.timing.command);
                self.power
                    .die_op_start(self.now, die, start, OpClass::Erase, 0, self.timing.erase);
                self.counters.erases += 1;
                self.begin_array(die, op, ArrayKind::Erase, start, self.timing.erase);
            }
            OpKind::Probe { action, .. } => match action {
                ProbeAction::Read { page_type } => self.begin_sense(die, page_type as usize),
                ProbeAction::Program { page_type } => {
                    let loaded = channel.reserve(self.now, self.timing.program_transfer(self.geometry.units_per_page));
                    let length = self.timing.program_time(page_type as usize, &mut self.flash_rng);
                    self.begin_array(die, op, ArrayKind::Program, loaded, length);
                }
                ProbeAction::Erase => {
                    let start = channel.reserve(self.now, self.timing.command);
                    self.begin_array(die, op, ArrayKind::Erase, start, self.timing.erase);
                }
            },
        }
    }

    /// Command cycles on `die`'s channel, then the array read of a page of `page_type`; its data
    /// waits for the channel at `ReadSensed`.
    fn begin_sense(&mut self, die: u32, page_type: usize) {
        let channel = &mut self.channels[self.geometry.channel_of_die(die) as usize];
        let sensing = channel.reserve(self.now, self.timing.command);
        let t_read = self.timing.read[page_type];
        self.power
            .die_op_start(self.now, die, sensing, OpClass::Read, page_type, t_read);
        self.events.schedule(sensing + t_read, Event::ReadSensed { die });
    }

    // ------------------------------------------------------------- suspend

    /// A program or erase enters its array phase at `start` for `length` (without suspensions).
    fn begin_array(&mut self, die: u32, op: u32, kind: ArrayKind, start: Time, length: Duration) {
        let limits = SuspendLimits::for_operation(&self.scenario.flash.suspend, kind, length);
        let array = ArrayOp::new(kind, op, start, length, limits);
        let state = &mut self.dies[die as usize];
        state.array = Some(array);
        state.generation = state.generation.wrapping_add(1);
        let generation = state.generation;
        self.events.schedule(array.end, Event::ArrayDone { die, generation });
        if limits.max_suspensions > 0 {
            let ops = &self.ops;
            if state.queues.host.iter().any(|&queued| ops[queued].kind.is_host_read()) {
                self.request_suspend(die);
            }
        }
    }

    /// A host read waits at `die`: suspend its program or erase at the end of the current step,
    /// if allowed.
    fn request_suspend(&mut self, die: u32) {
        let state = &mut self.dies[die as usize];
        let Some(array) = state.array.as_mut() else {
            return;
        };
        if !array.may_suspend() {
            return;
        }
        let gc_work = match self.ops[array.op].kind {
            OpKind::Program { stream, .. } => stream == Stream::Gc,
            OpKind::Erase { .. } => true,
            _ => false,
        };
        if gc_work && self.ftl.gc_urgent(die) {
            return;
        }
        let Some(at) = array.next_safe_point(self.now) else {
            return;
        };
        let free = array.stop_at(at);
        match array.kind {
            ArrayKind::Program => self.suspend.program += 1,
            ArrayKind::Erase => self.suspend.erase += 1,
        }
        state.generation = state.generation.wrapping_add(1);
        let generation = state.generation;
        self.events.schedule(free, Event::SuspendEntered { die, generation });
    }

    /// The die stopped its program or erase and may serve reads.
    fn on_suspend_entered(&mut self, die: u32, generation: u32) {
        let state = &mut self.dies[die as usize];
        if state.generation != generation {
            return;
        }
        let array = state.array.as_mut().expect("a suspended operation");
        array.state = ArrayState::Suspended { reads_served: 0 };
        let stopped = Time::from_nanos(self.now.as_nanos().saturating_sub(array.limits.enter.as_nanos()));
        self.power.die_op_interrupt(self.now, die, stopped);
        state.running = None;
        state.busy += self.now.since(state.busy_since);
        self.try_start(die);
    }

    /// No more reads to serve while suspended: continue the program or erase.
    fn resume(&mut self, die: u32) {
        let state = &mut self.dies[die as usize];
        let array = state.array.as_mut().expect("a suspended operation");
        let end = array.resume(self.now);
        self.power.die_op_resume(self.now, die, array.stretch_start);
        state.running = Some(array.op);
        state.busy_since = self.now;
        state.generation = state.generation.wrapping_add(1);
        let generation = state.generation;
        self.events.schedule(end, Event::ArrayDone { die, generation });
        let ops = &self.ops;
        if state.queues.host.iter().any(|&queued| ops[queued].kind.is_host_read()) {
            self.request_suspend(die);
        }
    }

    fn on_array_done(&mut self, die: u32, generation: u32) {
        let state = &mut self.dies[die as usize];
        if state.generation != generation {
            return;
        }
        let array = state.array.take().expect("an array operation is running");
        let (histogram, total) = match array.kind {
            ArrayKind::Program => (&mut self.suspend.per_program, &mut self.suspend.program_time),
            ArrayKind::Erase => (&mut self.suspend.per_erase, &mut self.suspend.erase_time),
        };
        let suspensions = array.suspensions as usize;
        if histogram.len() <= suspensions {
            histogram.resize(suspensions + 1, 0);
        }
        histogram[suspensions] += 1;
        *total += array.total_time(self.now);
        self.on_die_done(die);
    }

    /// Sensed data leaves the die over the channel.
    fn on_read_sensed(&mut self, die: u32) {
        let state = &self.dies[die as usize];
        let op = state.running.expect("a read is running");
        let units = match self.ops[op].kind {
            OpKind::HostRead { .. } => state.batch.len() as u32,
            OpKind::GcRead { units, .. } => units,
            OpKind::CopyRead { .. } => 1,
            OpKind::Probe { .. } => 1,
            _ => unreachable!("only reads sense"),
        };
        let channel = &mut self.channels[self.geometry.channel_of_die(die) as usize];
        channel.select(self.geometry.chip_of_die(die));
        let transfer = self.timing.read_transfer(units);
        let done = channel.reserve(self.now, transfer);
        self.power.transfer(self.now, die, done, transfer, Direction::Out);
        self.power
            .dram_access(self.now, u64::from(units) * self.geometry.unit_bytes);
        self.events.schedule(done, Event::DieDone { die });
    }

    fn on_die_done(&mut self, die: u32) {
        let state = &mut self.dies[die as usize];
        let op = state.running.take().expect("an operation is running");
        state.busy += self.now.since(state.busy_since);
        self.power.die_op_end(self.now, die);
        let kind = self.ops.remove(op).kind;
        match kind {
            OpKind::HostRead { .. } => {
                let served = std::mem::take(&mut self.dies[die as usize].batch);
                self.dies[die as usize].host_slots -= served.len() as u32;
                for &transaction in &served {
                    self.finish_read_transaction(transaction);
                }
                self.dies[die as usize].batch = served;
            }
            OpKind::GcRead { block, page, .. } => self.on_gc_read_done(block, page),
            OpKind::CopyRead { .. } => {}
            OpKind::Program {
                stream,
                pages,
                page_count,
                units,
            } => {
                for &(block, page) in &pages[..page_count as usize] {
                    self.ftl.program_done(block, page);
                }
                self.issue_ready_erases();
                if stream == Stream::User {
                    self.dies[die as usize].host_slots -= 1;
                    self.frame_used -= units;
                }
            }
            OpKind::Erase { block } => self.on_erase_done(block),
            OpKind::Probe { id, .. } => self.probes[id as usize].done = Some(self.now),
        }
        self.try_start(die);
        if let Some((pending_die, pending_op)) = self.pending_program {
            let state = &mut self.dies[pending_die as usize];
            if state.host_slots < self.die_queue_depth {
                state.queues.host.push_back(pending_op);
                state.host_slots += 1;
                self.pending_program = None;
                self.try_start(pending_die);
            }
        }
        self.admit();
    }

    /// A read transaction has its data; the frame-buffer slot frees (the caller admits more).
    fn finish_read_transaction(&mut self, transaction: u32) {
        let command = self.transactions.remove(transaction).command;
        self.frame_used -= 1;
        let record = &mut self.commands[command];
        record.remaining -= 1;
        if record.remaining == 0 {
            let bytes = u64::from(record.units) * self.geometry.unit_bytes;
            self.power.dram_access(self.now, bytes);
            let delivered = self.link.to_host(self.now, bytes);
            self.events.schedule(delivered, Event::CommandCompleted { command });
        }
    }

    // ------------------------------------------------------------------ GC

    fn start_gc(&mut self, plane: u32) {
        if self.gc[plane as usize].victim != NONE {
            return;
        }
        if let Some(victim) = self.ftl.take_victim(plane) {
            self.gc[plane as usize] = PlaneGc {
                victim,
                next_page: 0,
                reads_in_flight: 0,
            };
            self.issue_gc_reads(plane);
        }
    }

    /// Keeps up to `GC_READ_WINDOW` page reads of the victim in flight; erases it when copied.
    fn issue_gc_reads(&mut self, plane: u32) {
        let die = plane / self.geometry.planes_per_die;
        let units_per_page = self.geometry.units_per_page;
        loop {
            let gc = self.gc[plane as usize];
            if gc.reads_in_flight >= GC_READ_WINDOW {
                return;
            }
            if gc.next_page == self.geometry.pages_per_block {
                if gc.reads_in_flight == 0 {
                    self.gc[plane as usize].next_page += 1; // erase issued once
                    self.enqueue_internal_op(die, OpKind::Erase { block: gc.victim });
                }
                return;
            }
            if gc.next_page > self.geometry.pages_per_block {
                return;
            }
            let page = gc.next_page;
            self.gc[plane as usize].next_page += 1;
            let first = self.geometry.unit_address(gc.victim, page, 0);
            let units = (first..first + units_per_page)
                .filter(|&unit| self.ftl.mapping.logical(unit) != NONE)
                .count() as u32;
            if units > 0 {
                self.gc[plane as usize].reads_in_flight += 1;
                self.enqueue_internal_op(
                    die,
                    OpKind::GcRead {
                        block: gc.victim,
                        page,
                        units,
                    },
                );
            }
        }
    }

    /// Copies the still-valid units of a victim page into the plane's GC page.
    fn on_gc_read_done(&mut self, block: u32, page: u32) {
        let plane = self.geometry.plane_of_block(block);
        let die = self.geometry.die_of_block(block);
        let first = self.geometry.unit_address(block, page, 0);
        for unit in first..first + self.geometry.units_per_page {
            let logical = self.ftl.mapping.logical(unit);
            if logical == NONE {
                continue;
            }
            let (_, full_page) = self.ftl.place_gc_copy(plane, logical);
            if let Some(target) = full_page {
                let mut pages = [(0, 0); MAX_PLANES];
                pages[0] = target;
                let units = self.geometry.units_per_page;
                self.enqueue_internal_op(
                    die,
                    OpKind::Program {
                        stream: Stream::Gc,
                        pages,
                        page_count: 1,
                        units,
                    },
                );
            }
        }
        self.gc[plane as usize].reads_in_flight -= 1;
        self.issue_gc_reads(plane);
    }

    fn on_erase_done(&mut self, block: u32) {
        let plane = self.geometry.plane_of_block(block);
        self.ftl.erase(block);
        self.gc[plane as usize].victim = NONE;
        if self.ftl.needs_gc(plane) {
            self.start_gc(plane);
        }
    }

    // -------------------------------------------------------------- report

    fn report(
        &self,
        wall: std::time::Duration,
        precondition_wall: std::time::Duration,
        (power_w, energy_j, timeseries): (PowerReport, EnergyReport, TimeSeries),
    ) -> Report {
        let simulated = self.last_completion.as_secs_f64();
        let per_second = |value: f64| if simulated > 0.0 { value / simulated } else { 0.0 };
        // Each command's latency is recorded once, in its job; the drive's are their union.
        let merge = |is_read: bool| {
            self.job_metrics
                .iter()
                .fold(LatencyRecorder::default(), |sum, job| sum.merged(&job.latency(is_read)))
        };
        let (read_latency, write_latency) = (merge(true), merge(false));
        let all = read_latency.merged(&write_latency);
        let placed = self.ftl.counts;
        let waf = if placed.user_units > 0 {
            (placed.user_units + placed.gc_units) as f64 / placed.user_units as f64
        } else {
            0.0
        };
        let busy: Duration = self.dies.iter().fold(Duration::ZERO, |sum, die| sum + die.busy);
        let die_utilization = if simulated > 0.0 {
            busy.as_secs_f64() / (simulated * f64::from(self.geometry.dies))
        } else {
            0.0
        };
        let logical_units = self.ftl.logical_units() as f64;
        Report {
            ssdtwin_version: crate::VERSION.to_string(),
            seed: self.scenario.seed,
            config: self.scenario.clone(),
            host_ios: self.completed,
            simulated_time_s: simulated,
            wall_time_s: wall.as_secs_f64(),
            iops: per_second(self.completed as f64),
            bandwidth_mib_s: per_second(self.bytes_moved as f64 / (1024.0 * 1024.0)),
            latency_us: LatencyReport {
                read: read_latency.summary(),
                write: write_latency.summary(),
                all: all.summary(),
            },
            latency_cdf: crate::metrics::report::LatencyCdfReport::new(&read_latency, &write_latency, &all),
            flash: self.counters.clone(),
            ftl: self.ftl_report(),
            waf,
            queues: QueueReport {
                hol_events: self.hol_events,
                die_utilization: die_utilization.min(1.0),
            },
            suspend: self.suspend.report(),
            power_w,
            energy_j,
            simulator: SimulatorReport {
                events: self.events_handled,
                precondition_wall_time_s: precondition_wall.as_secs_f64(),
                logical_units: self.ftl.logical_units() as u64,
                state_bytes_per_mapping_unit: self.state_bytes() as f64 / logical_units,
            },
            workload: WorkloadReport {
                skipped_lines: self.workload.skipped_lines(),
                warnings: self.workload.warnings(),
                jobs: self.job_metrics.iter().map(JobMetrics::report).collect(),
            },
            timeseries,
        }
    }
}

impl SuspendTally {
    fn report(&self) -> SuspendReport {
        let mean = |total: Duration, histogram: &[u64]| {
            let count: u64 = histogram.iter().sum();
            if count > 0 {
                total.as_micros_f64() / count as f64
            } else {
                0.0
            }
        };
        SuspendReport {
            program: self.program,
            erase: self.erase,
            per_program: self.per_program.clone(),
            per_erase: self.per_erase.clone(),
            mean_program_time_us: mean(self.program_time, &self.per_program),
            mean_erase_time_us: mean(self.erase_time, &self.per_erase),
        }
    }
}
