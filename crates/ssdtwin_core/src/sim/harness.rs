//! A die-level test harness (docs/style.md): issue operations at given times on an idle drive
//! and read back when each completed.
//!
//! Harness operations go through the same die queues, scheduler, channel and suspend logic as host
//! and GC operations, but bypass the host interface and the FTL: a read senses a page of the given
//! type and moves one mapping unit over the channel, a program loads and programs one page, an
//! erase erases. Completion times therefore follow from the flash timing alone, which is what the
//! suspend tests pin to the nanosecond.

use super::scenario::Scenario;
use super::Simulation;
use crate::base::error::ConfigError;
use crate::base::time::Time;
use crate::controller::ops::ProbeAction;
use crate::metrics::report::SuspendReport;

/// A drive with nothing running, to which tests issue operations.
#[derive(Debug)]
pub struct DieHarness {
    simulation: Simulation,
    probes: Vec<(Time, u32, ProbeAction)>,
    dies: u32,
    page_types: u8,
}

/// When each harness operation completed, in the order they were issued.
#[derive(Debug)]
pub struct HarnessResult {
    pub completions: Vec<Time>,
    pub suspend: SuspendReport,
}

impl DieHarness {
    /// The drive of `scenario`, idle and empty (its workload is not run).
    pub fn new(scenario: &Scenario) -> Result<DieHarness, ConfigError> {
        let flash = &scenario.flash;
        Ok(DieHarness {
            simulation: Simulation::new(scenario)?,
            probes: Vec::new(),
            dies: flash.channels * flash.chips_per_channel * flash.dies_per_chip,
            page_types: flash.cell.page_types() as u8,
        })
    }

    fn issue(&mut self, at: Time, die: u32, action: ProbeAction) -> usize {
        assert!(
            die < self.dies,
            "die {die} does not exist (the drive has {})",
            self.dies
        );
        if let ProbeAction::Read { page_type } | ProbeAction::Program { page_type } = action {
            assert!(page_type < self.page_types, "page type {page_type} does not exist");
        }
        self.probes.push((at, die, action));
        self.probes.len() - 1
    }

    /// Reads one mapping unit of a page of `page_type` (0 = lower) on `die` at `at`; returns its id.
    pub fn read(&mut self, at: Time, die: u32, page_type: u8) -> usize {
        self.issue(at, die, ProbeAction::Read { page_type })
    }

    /// Programs one page of `page_type` on `die` at `at`; returns its id.
    pub fn program(&mut self, at: Time, die: u32, page_type: u8) -> usize {
        self.issue(at, die, ProbeAction::Program { page_type })
    }

    /// Erases a block on `die` at `at`; returns its id.
    pub fn erase(&mut self, at: Time, die: u32) -> usize {
        self.issue(at, die, ProbeAction::Erase)
    }

    /// Runs until every operation has completed.
    pub fn run(mut self) -> HarnessResult {
        let done = self.simulation.run_probes(&self.probes);
        HarnessResult {
            completions: done
                .iter()
                .map(|done| done.expect("every harness operation completes"))
                .collect(),
            suspend: self.simulation.suspend_report(),
        }
    }
}
