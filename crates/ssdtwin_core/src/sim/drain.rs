//! The drain at the end of a run (`report.drain`, docs/guide/report.md): after the host's last
//! completion the engine goes on handling events until the controller has done the flash work of
//! the acknowledged commands (`controller/drain.rs` says what that is), then the report counts it.
//!
//! Host-visible figures keep their meaning: `simulated_time_s` is the last completion, IOPS,
//! bandwidth and latency come from the host's completions only. The flash counters, the suspend
//! figures, the energy (and the average powers, over the measured run plus the drain), die
//! utilisation, the power time series and the thermal model run to the drain's end; the `drain`
//! block gives its time, energy and work. Off, or in a live session, the run ends at the last
//! completion as before.
//!
//! During the drain the engine hands on every event but two: a power cut (`power_loss.at`) or a
//! timed warm-up end falling after the last completion is not applied, as without a drain (the
//! host's run is over; the cut is not simulated and the warm-up never ended).

use serde::Serialize;

use super::baseline::tally_since;
use super::Simulation;
use crate::base::event::Event;
use crate::base::time::Time;
use crate::controller::drain::DrainStart;
use crate::controller::tally::Tally;
use crate::metrics::report::FlashCounters;
use crate::observe::Context;

/// The report's `drain` block (present when `report.drain` is on).
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct DrainReport {
    /// Simulated time from the last host completion to the end of the drain [s].
    pub time_s: f64,
    /// Energy the drive drew during the drain, at its input (part of `energy_j.total`) [J].
    pub energy_j: f64,
    /// NAND energy during the drain (part of `energy_j.nand`) [J].
    pub nand_energy_j: f64,
    /// Flash operations the dies held (running or suspended) or had queued at the last host
    /// completion, and programs waiting for a die queue.
    pub pending_operations: u64,
    /// Acknowledged host units not yet in a program at the last host completion (waiting in the
    /// write buffer, or in the open page) [mapping units].
    pub unplaced_units: u64,
    /// Program operations (any stream; a multi-plane program once) whose array phase ended during
    /// the drain, the suspended ones among them, and erases likewise.
    pub programs_completed: u64,
    pub suspended_programs_completed: u64,
    pub erases_completed: u64,
    /// What the report's `flash` counters gained during the drain (they count an operation when it
    /// starts, so a program running or suspended at the last completion is not in here).
    pub flash: FlashCounters,
    /// The drain did all its work (false only if the drive stopped making progress first).
    pub complete: bool,
}

/// What the report needs from a drain.
#[derive(Debug)]
pub struct Drained {
    /// The last host completion (the drain's start) and the drain's end.
    pub start: Time,
    pub end: Time,
    pub report: DrainReport,
    /// `buffer.held_units` and `mapping_cache.dirty_pages` at the last host completion, which
    /// the report keeps as its figures "at the end" of the host's run.
    pub held_units: Option<u32>,
    pub dirty_pages: Option<u32>,
}

impl Simulation {
    /// Runs the drain if `report.drain` is on; its end, and what it did.
    pub(super) fn drain(&mut self) -> Option<Drained> {
        if !self.scenario.report.drain {
            return None;
        }
        let start = self.now;
        let energies = self.observers.power.energies_now(start);
        let tally: Tally = self.controller.tally.clone();
        let (held_units, dirty_pages) = {
            let dram = self.controller.dram();
            (
                dram.and_then(|dram| dram.buffer.as_ref()).map(|buffer| buffer.used),
                dram.and_then(|dram| dram.mapping.as_ref())
                    .map(|mapping| mapping.dirty_pages()),
            )
        };
        let cx = &mut Context {
            now: self.now,
            events: &mut self.events,
            observers: &mut self.observers,
        };
        let DrainStart {
            operations,
            unplaced_units,
        } = self.controller.start_drain(cx);
        let mut end = start;
        while !self.controller.drained() {
            let Some((time, event)) = self.events.pop() else {
                break;
            };
            self.now = time;
            if matches!(event, Event::PowerLoss | Event::WarmupEnd) {
                continue;
            }
            self.events_handled += 1;
            self.dispatch(event);
            if event != Event::ThermalStep {
                end = time;
            }
        }
        let complete = self.controller.drained();
        let after = self.observers.power.energies_now(end);
        let since = tally_since(&self.controller.tally, &tally);
        let completed = |histogram: &[u64]| -> u64 { histogram.iter().sum() };
        Some(Drained {
            start,
            end,
            report: DrainReport {
                time_s: end.since(start).as_secs_f64(),
                energy_j: after[5] - energies[5],
                nand_energy_j: after[0] - energies[0],
                pending_operations: operations,
                unplaced_units,
                programs_completed: completed(&since.suspend.per_program),
                suspended_programs_completed: completed(since.suspend.per_program.get(1..).unwrap_or(&[])),
                erases_completed: completed(&since.suspend.per_erase),
                flash: FlashCounters {
                    reads: since.reads,
                    programs: since.programs,
                    erases: since.erases,
                    gc_reads: since.gc_reads,
                    gc_programs: since.gc_programs,
                    mapping_reads: since.mapping_reads,
                    mapping_programs: since.mapping_programs,
                },
                complete,
            },
            held_units,
            dirty_pages,
        })
    }
}
