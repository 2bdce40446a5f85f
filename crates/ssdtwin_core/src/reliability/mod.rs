//! Reliability (docs/models/reliability.md): raw bit errors from wear, retention, temperature and
//! read disturb; LDPC hard and soft decoding, the read-retry ladder and what they cost; read
//! reclaim; an aged start. Sources: MODELS.md §3 (Luo et al. for the 3D retention form, JESD218B
//! for Arrhenius, the self-heating paper's Table 3 for the LDPC code).
//!
//! [`Reliability`] holds the per-block state the models need beside the FTL's P/E counts (the
//! effective-time clock when each block was programmed, its reads since erase), one
//! effective-time clock per NAND package (`arrhenius.rs`) and the run's tallies. The controller
//! asks it for each flash read's cost (`controller/reliability.rs`) and turns the cost into die,
//! channel and controller time; the engine sets the package temperatures at each thermal step.
//! Off (`reliability.enabled = false`) none of it exists and the read path pays one branch.

pub mod arrhenius;
pub mod ecc;
pub mod params;
pub mod rber;
pub mod report;
pub mod retry;

use arrhenius::{Arrhenius, Clocks};
use ecc::Ecc;
use params::{ReadReclaim, ReliabilityConfig};
use rber::RberModel;
use report::{ReliabilityReport, ReliabilityTally};
use retry::{Ladder, ReadCost};

use crate::base::time::{Duration, Time};

/// Slots of `Reliability`'s read-disturb memo: a power of two, so the slot is the P/E count's
/// low bits; enough that a run's counts rarely share one.
const DISTURB_SLOTS: usize = 256;

/// The reliability model of a run.
#[derive(Clone, Debug)]
pub struct Reliability {
    model: RberModel,
    disturb: f64,
    disturb_exponent: f64,
    /// `disturb_term`'s memo: per slot (`pe % DISTURB_SLOTS`), the P/E count it holds and that
    /// count's `disturb · (1 + pe/1000)^exponent`. The power is most of the model's arithmetic
    /// per read, yet depends on the P/E count alone, which takes few values in a run.
    disturb_memo: Vec<(u32, f64)>,
    page_factor: Vec<f64>,
    pub ecc: Ecc,
    ladder: Ladder,
    arrhenius: Arrhenius,
    clocks: Clocks,
    die_package: Vec<u32>,
    /// Per block: the package clock when its first page was programmed [effective s].
    program_clock: Vec<f64>,
    /// Per block: reads since its erase.
    reads: Vec<u32>,
    /// Per block: already queued for read reclaim.
    flagged: Vec<bool>,
    reclaim: ReadReclaim,
    reclaim_rber: f64,
    reclaim_reads: u32,
    pub hard_decode: Duration,
    pub soft_decode: Duration,
    soft_senses: u32,
    soft_transfers: u32,
    pub tally: ReliabilityTally,
    sample_interval: Duration,
    /// Per sample interval: (sum of RBER, reads).
    series: Vec<(f64, u64)>,
    /// The sample interval the last read fell in, as `[start, end)` and its index in `series`:
    /// reads come in time order, so most find their interval with two comparisons, not a division.
    interval: (Time, Time, usize),
    /// Per NAND package: (sum of RBER, reads).
    per_package: Vec<(f64, u64)>,
}

impl Reliability {
    /// The model of `config` for a drive of `blocks` blocks whose die `d` sits in NAND package
    /// `die_package[d]`; packages start at `reliability.temp_c`.
    pub fn new(
        config: &ReliabilityConfig,
        blocks: usize,
        die_package: Vec<u32>,
        sample_interval: Duration,
    ) -> Reliability {
        let arrhenius = Arrhenius::new(config.activation_energy_ev, config.acceleration);
        let packages = die_package.iter().copied().max().map_or(1, |last| last as usize + 1);
        let ecc = Ecc::new(config);
        let mut reliability = Reliability {
            model: RberModel::new(config),
            disturb: config.read_disturb,
            disturb_exponent: config.read_disturb_exponent,
            disturb_memo: Vec::new(),
            page_factor: config.page_type_factor.clone(),
            ladder: Ladder::new(config.retry_step_gain, config.retry_max_steps),
            clocks: Clocks::new(packages, arrhenius.factor(config.temp_c)),
            arrhenius,
            die_package,
            program_clock: vec![0.0; blocks],
            reads: vec![0; blocks],
            flagged: vec![false; blocks],
            reclaim: config.read_reclaim,
            reclaim_rber: config.reclaim_fraction * ecc.hard_limit,
            reclaim_reads: config.reclaim_reads,
            ecc,
            hard_decode: config.hard_decode_time,
            soft_decode: config.soft_decode_time,
            soft_senses: config.soft_senses,
            soft_transfers: config.soft_transfers,
            tally: ReliabilityTally::new(config.retry_max_steps as usize),
            sample_interval,
            series: Vec::new(),
            interval: (Time::MAX, Time::MAX, 0),
            per_package: vec![(0.0, 0); packages],
        };
        // Each slot starts with the P/E count of its own index, so none holds a stale value.
        reliability.disturb_memo = (0..DISTURB_SLOTS as u32)
            .map(|pe| (pe, reliability.disturb_at(pe)))
            .collect();
        reliability
    }

    /// Aged start: the data on the drive was programmed `age` ago and sat at `temp_c` since.
    pub fn age_data(&mut self, age: Duration, temp_c: f64) {
        let effective = age.as_secs_f64() * self.arrhenius.factor(temp_c);
        self.program_clock.fill(-effective);
    }

    /// The packages' temperatures from `now` on [°C] (the thermal model's step).
    pub fn set_temperatures(&mut self, now: Time, temperatures_c: &[f64]) {
        for (package, &temp_c) in temperatures_c.iter().enumerate() {
            let factor = self.arrhenius.factor(temp_c);
            self.clocks.set_factor(package, now, factor);
        }
    }

    /// Retention time of `block` on `die` at `now` [s at 25 °C].
    pub fn retention_s(&self, block: u32, die: u32, now: Time) -> f64 {
        self.retention_in(block, self.die_package[die as usize] as usize, now)
    }

    /// `retention_s` of `block` in NAND package `package`.
    #[inline]
    fn retention_in(&self, block: u32, package: usize, now: Time) -> f64 {
        (self.clocks.now(package, now) - self.program_clock[block as usize]).max(0.0)
    }

    /// Read disturb's coefficient at `pe` P/E cycles: `disturb · (1 + pe/1000)^exponent`, per
    /// read since erase.
    fn disturb_at(&self, pe: u32) -> f64 {
        self.disturb * (1.0 + f64::from(pe) / 1000.0).powf(self.disturb_exponent)
    }

    /// `disturb_at(pe)` through the memo: the same value, computed once per P/E count held.
    #[inline]
    fn disturb_term(&mut self, pe: u32) -> f64 {
        let slot = &self.disturb_memo[pe as usize % DISTURB_SLOTS];
        if slot.0 == pe {
            return slot.1;
        }
        let value = self.disturb_at(pe);
        self.disturb_memo[pe as usize % DISTURB_SLOTS] = (pe, value);
        value
    }

    /// RBER of a page of type `page_type` in `block` on `die` with `pe` P/E cycles at `now`.
    pub fn rber(&self, block: u32, die: u32, pe: u32, page_type: u8, now: Time) -> f64 {
        let package = self.die_package[die as usize] as usize;
        let disturb = self.disturb_at(pe) * f64::from(self.reads[block as usize]);
        self.rber_with(block, package, pe, page_type, now, disturb)
    }

    /// `rber` of `block` in NAND package `package`, given its read-disturb term.
    #[inline]
    fn rber_with(&self, block: u32, package: usize, pe: u32, page_type: u8, now: Time, disturb: f64) -> f64 {
        let factor = self.page_factor.get(page_type as usize).copied().unwrap_or(1.0);
        let retention = self.model.rber(f64::from(pe), self.retention_in(block, package, now)) * factor;
        (retention + disturb).min(0.5)
    }

    /// A flash read of `block`: its RBER, counted, and what it costs; `true` when the block
    /// should now be reclaimed (once per erase). The block's package and reads are looked up
    /// once (its reads as of before this one set the disturb term).
    pub fn read(&mut self, block: u32, die: u32, pe: u32, page_type: u8, now: Time) -> (ReadCost, bool) {
        let index = block as usize;
        let package = self.die_package[die as usize] as usize;
        let reads = self.reads[index];
        let disturb = self.disturb_term(pe) * f64::from(reads);
        let rber = self.rber_with(block, package, pe, page_type, now, disturb);
        let reads = reads.saturating_add(1);
        self.reads[index] = reads;
        let cost = self.ladder.cost(rber, &self.ecc);
        self.tally.count(rber, cost);
        let sums = &mut self.per_package[package];
        sums.0 += rber;
        sums.1 += 1;
        if self.sample_interval != Duration::ZERO {
            let (start, end, mut interval) = self.interval;
            if now < start || now >= end {
                interval = self.enter_interval(now);
            }
            self.series[interval].0 += rber;
            self.series[interval].1 += 1;
        }
        let reclaim = self.reclaim == ReadReclaim::Threshold
            && !self.flagged[index]
            && (rber >= self.reclaim_rber || reads >= self.reclaim_reads);
        if reclaim {
            self.flagged[index] = true;
        }
        (cost, reclaim)
    }

    /// The index of the sample interval `now` falls in, remembered with its bounds, with room for
    /// it in `series`.
    #[inline(never)]
    fn enter_interval(&mut self, now: Time) -> usize {
        let length = self.sample_interval.as_nanos();
        let index = now.as_nanos() / length;
        let start = Time::from_nanos(index * length);
        let end = Time::from_nanos(index.saturating_add(1).saturating_mul(length));
        let interval = index as usize;
        if self.series.len() <= interval {
            self.series.resize(interval + 1, (0.0, 0));
        }
        self.interval = (start, end, interval);
        interval
    }

    /// The first page of `block` on `die` was programmed at `now`.
    pub fn programmed(&mut self, block: u32, die: u32, now: Time) {
        let package = self.die_package[die as usize] as usize;
        self.program_clock[block as usize] = self.clocks.now(package, now);
    }

    /// `block` was erased: its reads start over.
    pub fn erased(&mut self, block: u32) {
        self.reads[block as usize] = 0;
        self.flagged[block as usize] = false;
    }

    /// Senses beyond the first that a read of `cost` takes.
    #[inline]
    pub fn extra_senses(&self, cost: ReadCost) -> u32 {
        u32::from(cost.retries) + if cost.soft { self.soft_senses } else { 0 }
    }

    /// Data transfers beyond the first that a read of `cost` takes.
    #[inline]
    pub fn extra_transfers(&self, cost: ReadCost) -> u32 {
        u32::from(cost.retries) + if cost.soft { self.soft_transfers } else { 0 }
    }

    /// Controller decode time of a read of `cost`: a hard decode per sense read out, and a soft one.
    pub fn decode_time(&self, cost: ReadCost) -> Duration {
        let soft = if cost.soft { self.soft_decode } else { Duration::ZERO };
        self.hard_decode * (1 + u64::from(cost.retries)) + soft
    }

    /// The report's `reliability` block.
    pub fn report(&self) -> ReliabilityReport {
        let mut report = self.tally.report();
        report.rber_mean_per_package = self
            .per_package
            .iter()
            .map(|&(sum, count)| if count > 0 { sum / count as f64 } else { 0.0 })
            .collect();
        report
    }

    /// The series column `reliability.rber_mean`: mean RBER of the reads of each of `rows`
    /// intervals (an interval without reads repeats the previous value).
    pub fn rber_column(&self, rows: usize) -> Vec<f64> {
        let mut last = 0.0;
        (0..rows)
            .map(|row| {
                if let Some(&(sum, count)) = self.series.get(row) {
                    if count > 0 {
                        last = sum / count as f64;
                    }
                }
                last
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_count_in_the_sample_interval_of_their_time() {
        // Reads mostly in time order, some back in time and on interval edges: each counts in
        // interval `time / length`, as a division would put it.
        let length = 10;
        let mut reliability = Reliability::new(&ReliabilityConfig::default(), 4, vec![0], Duration::from_nanos(length));
        let times = [5, 9, 10, 15, 3, 25, 19, 20, 0, 100, 99, 100, 1_000];
        let mut expected = vec![0u64; 101];
        for &time in &times {
            reliability.read(1, 0, 0, 0, Time::from_nanos(time));
            expected[(time / length) as usize] += 1;
        }
        let counts: Vec<u64> = reliability.series.iter().map(|&(_, reads)| reads).collect();
        assert_eq!(counts, expected);
    }

    #[test]
    fn the_disturb_memo_gives_the_power_it_stands_for() {
        let config = ReliabilityConfig {
            read_disturb_exponent: 1.7,
            ..ReliabilityConfig::default()
        };
        let mut reliability = Reliability::new(&config, 4, vec![0], Duration::ZERO);
        // Counts that share slots (k, k + 256, ...), visited back and forth so slots are
        // replaced and refilled: every answer is the power itself, bit for bit.
        let counts: Vec<u32> = (0..3000).chain((0..3000).rev()).map(|i| (i * 37) % 2000).collect();
        for pe in counts.into_iter().chain([u32::MAX, 0, u32::MAX - 255]) {
            let expected = config.read_disturb * (1.0 + f64::from(pe) / 1000.0).powf(1.7);
            assert_eq!(reliability.disturb_term(pe).to_bits(), expected.to_bits(), "pe {pe}");
        }
    }
}
