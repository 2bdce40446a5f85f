//! The report's `reliability` block and the tallies it comes from.

use serde::Serialize;

use super::retry::ReadCost;

/// Most uncorrectable host reads whose LBA the report lists.
pub const LISTED_LBAS: usize = 100;

/// Reliability figures of a run.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct ReliabilityReport {
    /// Flash reads (host, GC and copy) given an RBER.
    pub reads: u64,
    /// Mean RBER of those reads [fraction].
    pub rber_mean: f64,
    /// Highest RBER of a read [fraction].
    pub rber_max: f64,
    /// Mean RBER of the reads of each NAND package (one package unless the thermal model is on,
    /// `thermal.nand_packages`) [fraction].
    pub rber_mean_per_package: Vec<f64>,
    /// Read-retry steps taken, over all reads.
    pub retries: u64,
    /// Reads decoded by soft decision.
    pub soft_decodes: u64,
    /// Reads neither decoder corrected (host, GC and copy reads).
    pub uncorrectable: u64,
    /// Host commands completed with an error status (an uncorrectable read in them).
    pub errored_commands: u64,
    /// LBAs (512 B sectors) of the first uncorrectable host reads, in order.
    pub uncorrectable_lbas: Vec<u64>,
    /// Blocks relocated by read reclaim.
    pub reclaims: u64,
    /// Reads by number of retry steps: entry k counts reads that took k steps.
    pub retries_histogram: Vec<u64>,
}

/// What the run counts as it goes.
#[derive(Clone, Debug, Default)]
pub struct ReliabilityTally {
    pub reads: u64,
    pub rber_sum: f64,
    pub rber_max: f64,
    pub retries: u64,
    pub soft_decodes: u64,
    pub uncorrectable: u64,
    pub errored_commands: u64,
    pub uncorrectable_lbas: Vec<u64>,
    pub reclaims: u64,
    pub histogram: Vec<u64>,
}

impl ReliabilityTally {
    pub fn new(max_steps: usize) -> ReliabilityTally {
        ReliabilityTally {
            histogram: vec![0; max_steps + 1],
            ..ReliabilityTally::default()
        }
    }

    pub fn count(&mut self, rber: f64, cost: ReadCost) {
        self.reads += 1;
        self.rber_sum += rber;
        self.rber_max = self.rber_max.max(rber);
        self.retries += u64::from(cost.retries);
        self.histogram[cost.retries as usize] += 1;
        self.soft_decodes += u64::from(cost.soft);
        self.uncorrectable += u64::from(cost.uncorrectable);
    }

    /// An uncorrectable host read at `lba`.
    pub fn lost(&mut self, lba: u64) {
        if self.uncorrectable_lbas.len() < LISTED_LBAS {
            self.uncorrectable_lbas.push(lba);
        }
    }

    pub fn report(&self) -> ReliabilityReport {
        ReliabilityReport {
            reads: self.reads,
            rber_mean: if self.reads > 0 {
                self.rber_sum / self.reads as f64
            } else {
                0.0
            },
            rber_max: self.rber_max,
            rber_mean_per_package: Vec::new(),
            retries: self.retries,
            soft_decodes: self.soft_decodes,
            uncorrectable: self.uncorrectable,
            errored_commands: self.errored_commands,
            uncorrectable_lbas: self.uncorrectable_lbas.clone(),
            reclaims: self.reclaims,
            retries_histogram: self.histogram.clone(),
        }
    }
}
