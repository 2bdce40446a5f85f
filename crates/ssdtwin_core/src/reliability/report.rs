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
    /// Reads by retry steps, of the reads `count` took: those of `count_plain` are the rest of
    /// `reads`, all at 0 steps (`report` adds them).
    pub histogram: Vec<u64>,
}

impl ReliabilityTally {
    pub fn new(max_steps: usize) -> ReliabilityTally {
        ReliabilityTally {
            histogram: vec![0; max_steps + 1],
            ..ReliabilityTally::default()
        }
    }

    /// A read at `rber` that costs `cost`.
    pub fn count(&mut self, rber: f64, cost: ReadCost) {
        self.count_plain(rber);
        self.retries += u64::from(cost.retries);
        self.histogram[cost.retries as usize] += 1;
        self.soft_decodes += u64::from(cost.soft);
        self.uncorrectable += u64::from(cost.uncorrectable);
    }

    /// A read at `rber` that costs nothing beyond a plain sense (`ReadCost::default()`), the
    /// common case: the cost counts would each add zero, and the histogram's first entry is
    /// left for `report` to complete. `rber` is never NaN (the model caps it with `min`), so the
    /// comparison keeps the maximum `f64::max` would.
    #[inline]
    pub fn count_plain(&mut self, rber: f64) {
        self.reads += 1;
        self.rber_sum += rber;
        if rber > self.rber_max {
            self.rber_max = rber;
        }
    }

    /// An uncorrectable host read at `lba`.
    pub fn lost(&mut self, lba: u64) {
        if self.uncorrectable_lbas.len() < LISTED_LBAS {
            self.uncorrectable_lbas.push(lba);
        }
    }

    pub fn report(&self) -> ReliabilityReport {
        let mut histogram = self.histogram.clone();
        if let Some(none) = histogram.first_mut() {
            *none += self.reads - self.histogram.iter().sum::<u64>();
        }
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
            retries_histogram: histogram,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_reads_report_as_counting_them_in_full_would() {
        // The same reads, costly ones among plain ones (a soft read at 0 steps too, a ladder of
        // none), counted in full by `count` and the short way by `count_plain`.
        let costs = [
            ReadCost::default(),
            ReadCost {
                retries: 2,
                soft: false,
                uncorrectable: false,
            },
            ReadCost {
                retries: 0,
                soft: true,
                uncorrectable: true,
            },
        ];
        let (mut full, mut short) = (ReliabilityTally::new(3), ReliabilityTally::new(3));
        for index in 0..1000u32 {
            let rber = f64::from((index * 7919) % 1013) * 1e-5;
            let cost = costs[(index % 7 % 3) as usize];
            full.count(rber, cost);
            if cost == ReadCost::default() {
                short.count_plain(rber);
            } else {
                short.count(rber, cost);
            }
        }
        assert_eq!(short.report(), full.report());
        assert_eq!(full.report().retries_histogram.iter().sum::<u64>(), 1000);
    }
}
