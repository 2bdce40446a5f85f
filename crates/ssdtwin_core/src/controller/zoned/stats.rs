//! What the zoned drive counts (the report's `zns` block): commands by kind, refusals by status,
//! the open and active zones over time, zone-append latency.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::base::time::{Duration, Time};
use crate::ftl::zoned::{ZoneAction, ZoneError, Zones};

/// Counters the controller keeps for a zoned namespace.
#[derive(Clone, Debug, Default)]
pub struct ZoneStats {
    /// Writes and appends accepted.
    pub writes: u64,
    pub appends: u64,
    /// The LBA the last accepted append returned.
    pub last_append_lba: u64,
    /// Zone Management Send actions accepted, by action.
    pub opens: u64,
    pub closes: u64,
    pub finishes: u64,
    pub resets: u64,
    /// Blocks erased by resets (issued).
    pub reset_erases: u64,
    /// Pages programmed by zone writes (completed).
    pub programmed_pages: u64,
    /// Refused commands by status name; `rejected_writes` counts the writes and appends among them.
    pub rejected: BTreeMap<String, u64>,
    pub rejected_writes: u64,
    pub append_latencies_ns: Vec<u64>,
    open_max: u32,
    active_max: u32,
    /// Zone-seconds open and active so far, up to `last`.
    open_area: f64,
    active_area: f64,
    last: Time,
    open_now: u32,
    active_now: u32,
    /// Time-series rows every `series_interval` (0: none): the open and active zones at the end
    /// of each row's interval.
    pub series_interval: Duration,
    series: Vec<(u32, u32)>,
}

impl ZoneStats {
    /// Accounts the open and active zones up to `now`, then takes their current counts.
    pub fn sample(&mut self, zones: &Zones, now: Time) {
        let seconds = now.since(self.last).as_secs_f64();
        self.open_area += f64::from(self.open_now) * seconds;
        self.active_area += f64::from(self.active_now) * seconds;
        self.last = now;
        self.open_now = zones.open_zones();
        self.active_now = zones.active_zones();
        self.open_max = self.open_max.max(self.open_now);
        self.active_max = self.active_max.max(self.active_now);
        if self.series_interval > Duration::ZERO {
            let row = (now.as_nanos() / self.series_interval.as_nanos()) as usize;
            let last = self.series.last().copied().unwrap_or((0, 0));
            if self.series.len() <= row {
                self.series.resize(row + 1, last);
            }
            self.series[row] = (self.open_now, self.active_now);
        }
    }

    /// The time-series columns `zns.open_zones` and `zns.active_zones` over `rows` intervals.
    pub fn columns(&self, rows: usize) -> Vec<(String, Vec<f64>)> {
        let mut last = (0, 0);
        let (open, active): (Vec<f64>, Vec<f64>) = (0..rows)
            .map(|row| {
                if let Some(&value) = self.series.get(row) {
                    last = value;
                }
                (f64::from(last.0), f64::from(last.1))
            })
            .unzip();
        vec![
            ("zns.open_zones".to_string(), open),
            ("zns.active_zones".to_string(), active),
        ]
    }

    pub fn count_action(&mut self, action: ZoneAction) {
        match action {
            ZoneAction::Open => self.opens += 1,
            ZoneAction::Close => self.closes += 1,
            ZoneAction::Finish => self.finishes += 1,
            ZoneAction::Reset => self.resets += 1,
            ZoneAction::Offline => {}
        }
    }

    /// A refused command; `write` for a write or an append.
    pub fn reject(&mut self, error: ZoneError, write: bool) {
        *self.rejected.entry(error.to_string()).or_default() += 1;
        self.rejected_writes += u64::from(write);
    }

    /// The report at `now`, the end of the run.
    pub fn report(&self, zones: &Zones, now: Time) -> ZnsReport {
        let seconds = now.since(Time::ZERO).as_secs_f64();
        let tail = now.since(self.last).as_secs_f64();
        let mean = |area: f64, current: u32| {
            if seconds > 0.0 {
                (area + f64::from(current) * tail) / seconds
            } else {
                0.0
            }
        };
        let mut latencies = self.append_latencies_ns.clone();
        latencies.sort_unstable();
        let (mean_us, p99_us) = if latencies.is_empty() {
            (0.0, 0.0)
        } else {
            let sum: u64 = latencies.iter().sum();
            // Nearest rank: the smallest latency at or above 99% of the appends.
            let rank = ((0.99 * latencies.len() as f64).ceil() as usize).max(1);
            (
                sum as f64 / latencies.len() as f64 / 1e3,
                latencies[rank - 1] as f64 / 1e3,
            )
        };
        let counts = zones.counts;
        ZnsReport {
            zones: zones.len() as u64,
            writes: self.writes,
            appends: self.appends,
            lbas_written: counts.lbas_written,
            zone_resets: counts.resets,
            reset_commands: self.resets,
            reset_erases: self.reset_erases,
            opens: self.opens,
            closes: self.closes,
            finishes: self.finishes,
            zones_filled: counts.zones_filled,
            implicit_closes: counts.implicit_closes,
            rejected_writes: self.rejected_writes,
            invalid_writes: counts.invalid_writes,
            rejected_by_status: self.rejected.clone(),
            errored_commands: 0,
            open_zones_max: self.open_max,
            active_zones_max: self.active_max,
            open_zones_mean: mean(self.open_area, self.open_now),
            active_zones_mean: mean(self.active_area, self.active_now),
            append_latency_mean_us: mean_us,
            append_latency_p99_us: p99_us,
        }
    }
}

/// The report's `zns` block (docs/models/zns.md), when `zns.enabled`.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct ZnsReport {
    /// Zones of the namespace.
    pub zones: u64,
    /// Writes and Zone Appends accepted.
    pub writes: u64,
    pub appends: u64,
    /// LBAs (logical blocks, `ftl.mapping_unit`) they wrote.
    pub lbas_written: u64,
    /// Reset Zone actions on zones holding data (each erases the zone's written blocks).
    pub zone_resets: u64,
    /// Reset Zone commands accepted (of empty zones too).
    pub reset_commands: u64,
    /// Blocks the resets erased.
    pub reset_erases: u64,
    pub opens: u64,
    pub closes: u64,
    pub finishes: u64,
    /// Zones that became full, by writing or by Finish Zone.
    pub zones_filled: u64,
    /// Zones the controller closed to open another.
    pub implicit_closes: u64,
    /// Writes and appends refused (each completed with its status).
    pub rejected_writes: u64,
    /// Writes refused for not starting at the write pointer (Zone Invalid Write).
    pub invalid_writes: u64,
    /// Every refused zoned command (writes, appends, zone actions) by status, "Name (0xNN)".
    pub rejected_by_status: BTreeMap<String, u64>,
    /// Host commands of the measured run that completed with an error status (the host's count).
    pub errored_commands: u64,
    pub open_zones_max: u32,
    pub active_zones_max: u32,
    /// Open and active zones averaged over the run's simulated time (warm-up included).
    pub open_zones_mean: f64,
    pub active_zones_mean: f64,
    /// Zone Append latency from arrival to completion [us] (warm-up included); 0 without appends.
    pub append_latency_mean_us: f64,
    pub append_latency_p99_us: f64,
}
