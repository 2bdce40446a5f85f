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

use arrhenius::{Arrhenius, Clock};
use ecc::Ecc;
use params::{ReadReclaim, ReliabilityConfig};
use rber::RberModel;
use report::{ReliabilityReport, ReliabilityTally};
use retry::{Ladder, ReadCost};

use crate::base::time::{Duration, Time};

/// Slots of `Reliability`'s read-disturb memo: a power of two, so the slot is the P/E count's
/// low bits; enough that a run's counts rarely share one.
const DISTURB_SLOTS: usize = 256;

/// What the model keeps of one block, together: a read looks at all of it.
#[derive(Clone, Copy, Debug, Default)]
struct BlockRecord {
    /// The package clock when its first page was programmed [effective s].
    program_clock: f64,
    /// Reads since its erase.
    reads: u32,
    /// Already queued for read reclaim.
    flagged: bool,
}

/// What the model keeps of one NAND package, together: its clock and its reads' RBER.
#[derive(Clone, Copy, Debug)]
struct Package {
    clock: Clock,
    /// Sum of the RBER of its reads.
    rber_sum: f64,
    reads: u64,
}

/// The sample interval the last read fell in: reads come in time order, so most find it with two
/// comparisons, not a division, and add to its sums here rather than in `series`.
#[derive(Clone, Copy, Debug)]
struct Interval {
    /// `[start, end)`.
    start: Time,
    end: Time,
    /// Its index in `series` (`usize::MAX` before the first read, and for good without a series).
    index: usize,
    /// Its (sum of RBER, reads): `series[index]`'s as it was entered, with this interval's reads
    /// added one by one, as they would have been there; `series[index]` is stale until it is left.
    sums: (f64, u64),
}

/// The reliability model of a run.
#[derive(Clone, Debug)]
pub struct Reliability {
    model: RberModel,
    disturb: f64,
    disturb_exponent: f64,
    /// `disturb_term`'s memo: per slot (`pe % DISTURB_SLOTS`), the P/E count it holds and that
    /// count's `disturb · (1 + pe/1000)^exponent`. The power is most of the model's arithmetic
    /// per read, yet depends on the P/E count alone, which takes few values in a run.
    disturb_memo: Box<[(u32, f64); DISTURB_SLOTS]>,
    /// Per page type (a `u8`, so every one has an entry): its RBER factor, 1 where the
    /// configuration gives none.
    page_factor: Box<[f64; 256]>,
    pub ecc: Ecc,
    ladder: Ladder,
    arrhenius: Arrhenius,
    die_package: Vec<u32>,
    blocks: Vec<BlockRecord>,
    packages: Vec<Package>,
    reclaim: ReadReclaim,
    reclaim_rber: f64,
    reclaim_reads: u32,
    pub hard_decode: Duration,
    pub soft_decode: Duration,
    soft_senses: u32,
    soft_transfers: u32,
    pub tally: ReliabilityTally,
    sample_interval: Duration,
    /// Per sample interval: (sum of RBER, reads); the current one's are in `interval`.
    series: Vec<(f64, u64)>,
    interval: Interval,
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
        let mut page_factor = Box::new([1.0; 256]);
        for (slot, &factor) in page_factor.iter_mut().zip(&config.page_type_factor) {
            *slot = factor;
        }
        let package = Package {
            clock: Clock::new(arrhenius.factor(config.temp_c)),
            rber_sum: 0.0,
            reads: 0,
        };
        let mut reliability = Reliability {
            model: RberModel::new(config),
            disturb: config.read_disturb,
            disturb_exponent: config.read_disturb_exponent,
            disturb_memo: Box::new([(0, 0.0); DISTURB_SLOTS]),
            page_factor,
            ladder: Ladder::new(config.retry_step_gain, config.retry_max_steps),
            arrhenius,
            die_package,
            blocks: vec![BlockRecord::default(); blocks],
            packages: vec![package; packages],
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
            // Without a series every time is in the one interval, whose sums go nowhere: a read
            // needs no test for it. With one, the first read enters its interval.
            interval: Interval {
                start: if sample_interval == Duration::ZERO {
                    Time::ZERO
                } else {
                    Time::MAX
                },
                end: Time::MAX,
                index: usize::MAX,
                sums: (0.0, 0),
            },
        };
        // Each slot starts with the P/E count of its own index, so none holds a stale value.
        for pe in 0..DISTURB_SLOTS as u32 {
            reliability.disturb_memo[pe as usize] = (pe, reliability.disturb_at(pe));
        }
        reliability
    }

    /// Aged start: the data on the drive was programmed `age` ago and sat at `temp_c` since.
    pub fn age_data(&mut self, age: Duration, temp_c: f64) {
        let effective = age.as_secs_f64() * self.arrhenius.factor(temp_c);
        for record in &mut self.blocks {
            record.program_clock = -effective;
        }
    }

    /// The packages' temperatures from `now` on [°C] (the thermal model's step).
    pub fn set_temperatures(&mut self, now: Time, temperatures_c: &[f64]) {
        for (package, &temp_c) in temperatures_c.iter().enumerate() {
            let factor = self.arrhenius.factor(temp_c);
            self.packages[package].clock.set_factor(now, factor);
        }
    }

    /// Retention time of `block` on `die` at `now` [s at 25 °C].
    pub fn retention_s(&self, block: u32, die: u32, now: Time) -> f64 {
        self.retention_in(block, self.die_package[die as usize] as usize, now)
    }

    /// `retention_s` of `block` in NAND package `package`.
    #[inline]
    fn retention_in(&self, block: u32, package: usize, now: Time) -> f64 {
        retention(&self.packages[package].clock, &self.blocks[block as usize], now)
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
        let disturb = self.disturb_at(pe) * f64::from(self.blocks[block as usize].reads);
        let retention_s = self.retention_in(block, package, now);
        page_rber(
            &self.model,
            self.page_factor[page_type as usize],
            pe,
            retention_s,
            disturb,
        )
    }

    /// What a read of `block` will look at in its record, read and discarded: loaded ahead by the
    /// controller when the host draws a batch of commands (`controller/lookahead.rs`).
    #[inline]
    pub fn touch(&self, block: u32) -> u32 {
        self.blocks.get(block as usize).map_or(0, |record| record.reads)
    }

    /// A flash read of `block`: its RBER, counted, and what it costs; `true` when the block
    /// should now be reclaimed (once per erase). The block's record and its package are each
    /// looked up once (its reads as of before this one set the disturb term); a read within the
    /// hard-decision limit, most of them, skips the ladder and the tally's cost counts.
    #[inline]
    pub fn read(&mut self, block: u32, die: u32, pe: u32, page_type: u8, now: Time) -> (ReadCost, bool) {
        let package = self.die_package[die as usize] as usize;
        let disturb = self.disturb_term(pe);
        let factor = self.page_factor[page_type as usize];
        // Borrowed once each, across the model's calls into libm.
        let record = &mut self.blocks[block as usize];
        let sums = &mut self.packages[package];
        let retention_s = retention(&sums.clock, record, now);
        let rber = page_rber(&self.model, factor, pe, retention_s, disturb * f64::from(record.reads));
        record.reads = record.reads.saturating_add(1);
        let reclaim = self.reclaim == ReadReclaim::Threshold
            && !record.flagged
            && (rber >= self.reclaim_rber || record.reads >= self.reclaim_reads);
        record.flagged |= reclaim;
        sums.rber_sum += rber;
        sums.reads += 1;
        let cost = if rber <= self.ecc.hard_limit {
            self.tally.count_plain(rber);
            ReadCost::default()
        } else {
            let cost = self.ladder.cost(rber, &self.ecc);
            self.tally.count(rber, cost);
            cost
        };
        if now < self.interval.start || now >= self.interval.end {
            self.enter_interval(now);
        }
        let sums = &mut self.interval.sums;
        sums.0 += rber;
        sums.1 += 1;
        (cost, reclaim)
    }

    /// Leaves the current sample interval (its sums back in `series`) for the one `now` falls in,
    /// with room for it in `series`.
    #[inline(never)]
    fn enter_interval(&mut self, now: Time) {
        if let Some(slot) = self.series.get_mut(self.interval.index) {
            *slot = self.interval.sums;
        }
        let length = self.sample_interval.as_nanos();
        let index = now.as_nanos() / length;
        let start = Time::from_nanos(index * length);
        let end = Time::from_nanos(index.saturating_add(1).saturating_mul(length));
        let interval = index as usize;
        if self.series.len() <= interval {
            self.series.resize(interval + 1, (0.0, 0));
        }
        self.interval = Interval {
            start,
            end,
            index: interval,
            sums: self.series[interval],
        };
    }

    /// (Sum of RBER, reads) of sample interval `row`, if a read reached it.
    fn interval_sums(&self, row: usize) -> Option<(f64, u64)> {
        if row == self.interval.index {
            return Some(self.interval.sums);
        }
        self.series.get(row).copied()
    }

    /// The first page of `block` on `die` was programmed at `now`.
    pub fn programmed(&mut self, block: u32, die: u32, now: Time) {
        let package = self.die_package[die as usize] as usize;
        self.blocks[block as usize].program_clock = self.packages[package].clock.now(now);
    }

    /// `block` was erased: its reads start over.
    pub fn erased(&mut self, block: u32) {
        let record = &mut self.blocks[block as usize];
        record.reads = 0;
        record.flagged = false;
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
    /// A plain read (most) takes the one hard decode without the arithmetic.
    #[inline]
    pub fn decode_time(&self, cost: ReadCost) -> Duration {
        if cost == ReadCost::default() {
            return self.hard_decode;
        }
        let soft = if cost.soft { self.soft_decode } else { Duration::ZERO };
        self.hard_decode * (1 + u64::from(cost.retries)) + soft
    }

    /// The report's `reliability` block.
    pub fn report(&self) -> ReliabilityReport {
        let mut report = self.tally.report();
        report.rber_mean_per_package = self
            .packages
            .iter()
            .map(|package| {
                if package.reads > 0 {
                    package.rber_sum / package.reads as f64
                } else {
                    0.0
                }
            })
            .collect();
        report
    }

    /// The series column `reliability.rber_mean`: mean RBER of the reads of each of `rows`
    /// intervals (an interval without reads repeats the previous value).
    pub fn rber_column(&self, rows: usize) -> Vec<f64> {
        let mut last = 0.0;
        (0..rows)
            .map(|row| {
                if let Some((sum, count)) = self.interval_sums(row) {
                    if count > 0 {
                        last = sum / count as f64;
                    }
                }
                last
            })
            .collect()
    }
}

/// RBER of a page with `pe` P/E cycles after `retention_s` [s at 25 °C], given its page type's
/// factor and its read-disturb term: the model's, times the factor, plus the disturb, at most 0.5
/// (so never NaN).
#[inline]
fn page_rber(model: &RberModel, factor: f64, pe: u32, retention_s: f64, disturb: f64) -> f64 {
    let retention = model.rber(f64::from(pe), retention_s) * factor;
    (retention + disturb).min(0.5)
}

/// Retention time at `now` [s at 25 °C] of the block of `record` in the package of `clock`.
#[inline]
fn retention(clock: &Clock, record: &BlockRecord, now: Time) -> f64 {
    (clock.now(now) - record.program_clock).max(0.0)
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
        // Its sum is the same additions in the same order as straight into a vector, bit for bit,
        // whether the interval is the current one or was left.
        let times = [5, 9, 10, 15, 3, 25, 19, 20, 0, 100, 99, 100, 1_000];
        let mut expected = vec![(0.0f64, 0u64); 101];
        for &time in &times {
            let rber = reliability.rber(1, 0, 0, 0, Time::from_nanos(time));
            reliability.read(1, 0, 0, 0, Time::from_nanos(time));
            let slot = &mut expected[(time / length) as usize];
            slot.0 += rber;
            slot.1 += 1;
        }
        let sums: Vec<(u64, u64)> = (0..reliability.series.len())
            .map(|row| {
                reliability
                    .interval_sums(row)
                    .map_or((0, 0), |(sum, reads)| (sum.to_bits(), reads))
            })
            .collect();
        // The column's means come from those sums, an interval without reads repeating the last.
        let mut last = 0.0;
        let means: Vec<u64> = expected
            .iter()
            .map(|&(sum, reads)| {
                if reads > 0 {
                    last = sum / reads as f64;
                }
                last.to_bits()
            })
            .collect();
        let column: Vec<u64> = reliability.rber_column(101).iter().map(|mean| mean.to_bits()).collect();
        assert_eq!(column, means);
        let expected: Vec<(u64, u64)> = expected.iter().map(|&(sum, reads)| (sum.to_bits(), reads)).collect();
        assert_eq!(sums, expected);
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
