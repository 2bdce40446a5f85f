//! Industrial-IoT gateway workload in the spirit of TPCx-IoT, as the self-heating paper uses it
//! (Zambelli et al., Electronics 2020, section 3: sensor records of "1 Kbytes per record" ingested
//! by the gateway while "a real-time data analytics platform can run queries in the background";
//! section 5: small data transfers, more IOPS than a 4 KiB synthetic workload).
//!
//! Records arrive as one Poisson process of rate `sensors × record_rate`; each comes from a random
//! sensor, and sensor `s` is ingested by writer `s mod writers`. A writer appends its buffered
//! records as one write when it holds `batch_records` of them, or when its oldest one has waited
//! `commit_interval`; each writer appends to its own equal share of the span, wrapping at its end,
//! so writes are sequential per writer and interleaved between writers. Queries arrive as a
//! Poisson process of rate `query_rate`; each reads `query_size` bytes at a random place among the
//! data one random writer wrote during the last `query_window`. Job 0 is the ingest, job 1 the
//! queries. Default values not given by the paper are assumptions [A], documented in
//! `workload/params.rs`.

use std::collections::VecDeque;

use super::params::IiotConfig;
use crate::base::rng::Rng;
use crate::base::time::{Duration, Time};
use crate::host::command::CommandSpec;

/// Job index of the ingest writes.
pub const INGEST_JOB: u32 = 0;
/// Job index of the analytic reads.
pub const QUERY_JOB: u32 = 1;

#[derive(Debug)]
struct Writer {
    /// First byte of the writer's share of the span.
    region_start: u64,
    region_bytes: u64,
    /// Bytes appended so far (the position is `cursor mod region_bytes`).
    cursor: u64,
    buffered: u32,
    /// Arrival of the oldest buffered record.
    oldest: Option<Time>,
    /// (commit time, cursor before the commit) of the commits within the query window.
    commits: VecDeque<(Time, u64)>,
}

/// The generator.
#[derive(Debug)]
pub struct Iiot {
    config: IiotConfig,
    unit_bytes: u64,
    writers: Vec<Writer>,
    next_record: Time,
    next_query: Time,
    rng: Rng,
}

impl Iiot {
    /// Replayed closed loop (`replay = "as_fast_as_possible"`): one job, arrival times ignored.
    pub fn closed_loop(&self) -> bool {
        self.config.replay == super::params::Replay::AsFastAsPossible
    }

    pub fn new(config: &IiotConfig, unit_bytes: u64, span_units: u64, rng: Rng) -> Iiot {
        let share_units = (span_units / u64::from(config.writers)).max(1);
        let writers = (0..u64::from(config.writers))
            .map(|index| Writer {
                region_start: index * share_units * unit_bytes,
                region_bytes: share_units * unit_bytes,
                cursor: 0,
                buffered: 0,
                oldest: None,
                commits: VecDeque::new(),
            })
            .collect();
        let mut iiot = Iiot {
            config: config.clone(),
            unit_bytes,
            writers,
            next_record: Time::ZERO,
            next_query: Time::ZERO,
            rng,
        };
        iiot.next_record = Time::ZERO + iiot.exponential(f64::from(config.sensors) * config.record_rate);
        iiot.next_query = if config.query_rate > 0.0 {
            Time::ZERO + iiot.exponential(config.query_rate)
        } else {
            Time::MAX
        };
        iiot
    }

    /// An exponential gap of a Poisson process with `rate` per second.
    fn exponential(&mut self, rate: f64) -> Duration {
        Duration::from_secs_f64(-(1.0 - self.rng.unit()).ln() / rate)
    }

    /// The next request in time order: (arrival, command, job).
    pub fn next_request(&mut self) -> (Time, CommandSpec, u32) {
        loop {
            let commit_interval = self.config.commit_interval;
            let deadline = self
                .writers
                .iter()
                .enumerate()
                .filter_map(|(index, writer)| writer.oldest.map(|oldest| (oldest + commit_interval, index)))
                .min();
            if let Some((due, writer)) = deadline {
                if due <= self.next_record && due <= self.next_query {
                    return (due, self.commit(writer, due), INGEST_JOB);
                }
            }
            if self.next_query <= self.next_record {
                let now = self.next_query;
                self.next_query = now + self.exponential(self.config.query_rate);
                if let Some(command) = self.query(now) {
                    return (now, command, QUERY_JOB);
                }
                continue;
            }
            let now = self.next_record;
            self.next_record = now + self.exponential(f64::from(self.config.sensors) * self.config.record_rate);
            let sensor = self.rng.below(u64::from(self.config.sensors));
            let writer = (sensor % self.writers.len() as u64) as usize;
            let state = &mut self.writers[writer];
            state.buffered += 1;
            state.oldest.get_or_insert(now);
            if state.buffered >= self.config.batch_records {
                return (now, self.commit(writer, now), INGEST_JOB);
            }
        }
    }

    /// Appends a writer's buffered records.
    fn commit(&mut self, index: usize, now: Time) -> CommandSpec {
        let bytes = u64::from(self.writers[index].buffered) * self.config.record_size.bytes();
        let window = self.config.query_window;
        let writer = &mut self.writers[index];
        let bytes = bytes.min(writer.region_bytes);
        let mut position = writer.cursor % writer.region_bytes;
        if position + bytes > writer.region_bytes {
            writer.cursor += writer.region_bytes - position;
            position = 0;
        }
        while writer.commits.front().is_some_and(|&(time, _)| time + window < now) {
            writer.commits.pop_front();
        }
        writer.commits.push_back((now, writer.cursor));
        writer.cursor += bytes;
        writer.buffered = 0;
        writer.oldest = None;
        let start = writer.region_start + position;
        self.command(false, start, bytes)
    }

    /// A range read of data one writer appended during the last query window.
    fn query(&mut self, now: Time) -> Option<CommandSpec> {
        let index = self.rng.below(self.writers.len() as u64) as usize;
        let window = self.config.query_window;
        let writer = &mut self.writers[index];
        while writer.commits.front().is_some_and(|&(time, _)| time + window < now) {
            writer.commits.pop_front();
        }
        if writer.cursor == 0 {
            return None;
        }
        let length = self
            .config
            .query_size
            .bytes()
            .min(writer.cursor)
            .min(writer.region_bytes);
        let recent_start = writer
            .commits
            .front()
            .map_or(writer.cursor.saturating_sub(length), |&(_, cursor)| cursor);
        let latest_start = writer.cursor - length;
        let earliest = recent_start.min(latest_start);
        let start = earliest + self.rng.below(latest_start - earliest + 1);
        let writer = &self.writers[index];
        let mut position = start % writer.region_bytes;
        if position + length > writer.region_bytes {
            position = writer.region_bytes - length;
        }
        Some(self.command(true, writer.region_start + position, length))
    }

    /// The whole mapping units a record range touches. The generator models the application's
    /// byte-granular appends and queries; between it and the drive the host's page cache turns
    /// them into whole-page I/O (a partial page at the log's end is rewritten from memory), so the
    /// drive sees whole units and no read-modify-write (the self-heating studies rest on this).
    fn command(&self, is_read: bool, offset: u64, bytes: u64) -> CommandSpec {
        let first = offset / self.unit_bytes;
        let end = (offset + bytes.max(1)).div_ceil(self.unit_bytes);
        CommandSpec::io(is_read, false, first as u32, (end - first) as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::units::ByteSize;

    fn generate(config: &IiotConfig, seconds: u64) -> Vec<(Time, CommandSpec, u32)> {
        let mut iiot = Iiot::new(config, 1024, 1 << 24, Rng::stream(1, "workload"));
        let end = Time::ZERO + Duration::from_secs(seconds);
        std::iter::from_fn(|| Some(iiot.next_request()))
            .take_while(|(time, _, _)| *time < end)
            .collect()
    }

    #[test]
    fn ingest_and_query_rates_match_the_configuration() {
        // 1 KiB mapping units here, so a write's units are exactly its records.
        let config = IiotConfig::default();
        let seconds = 20;
        let requests = generate(&config, seconds);
        let records: u64 = requests
            .iter()
            .filter(|(_, command, _)| !command.is_read)
            .map(|(_, command, _)| u64::from(command.units))
            .sum();
        let expected_records = f64::from(config.sensors) * config.record_rate * seconds as f64;
        assert!(
            (records as f64 / expected_records - 1.0).abs() < 0.02,
            "{records} records vs {expected_records}"
        );
        let queries = requests.iter().filter(|(_, _, job)| *job == QUERY_JOB).count() as f64;
        let expected_queries = config.query_rate * seconds as f64;
        assert!(
            (queries / expected_queries - 1.0).abs() < 0.05,
            "{queries} vs {expected_queries}"
        );
        assert!(requests
            .iter()
            .filter(|(_, _, job)| *job == INGEST_JOB)
            .all(|(_, command, _)| !command.is_read && command.units <= config.batch_records));
        assert!(requests.windows(2).all(|pair| pair[0].0 <= pair[1].0), "time order");
    }

    #[test]
    fn a_slow_writer_commits_after_the_commit_interval() {
        let config = IiotConfig {
            sensors: 1,
            writers: 1,
            record_rate: 10.0,
            batch_records: 1000,
            commit_interval: Duration::from_millis(50),
            query_rate: 0.0,
            record_size: ByteSize(1024),
            ..IiotConfig::default()
        };
        let requests = generate(&config, 1000);
        // A commit holds its first record plus the Poisson(10/s x 50 ms = 0.5) records that
        // arrive before the commit interval ends: 1.5 records on average.
        let mean_units = requests
            .iter()
            .map(|(_, command, _)| f64::from(command.units))
            .sum::<f64>()
            / requests.len() as f64;
        assert!((mean_units - 1.5).abs() < 0.06, "{mean_units}");
        assert!(
            requests
                .windows(2)
                .all(|pair| pair[1].1.first_unit == pair[0].1.first_unit + pair[0].1.units),
            "appends are sequential"
        );
    }

    #[test]
    fn queries_read_recent_data() {
        let config = IiotConfig {
            writers: 1,
            query_window: Duration::from_millis(100),
            query_size: ByteSize(4096),
            ..IiotConfig::default()
        };
        let mut iiot = Iiot::new(&config, 1024, 1 << 24, Rng::stream(3, "workload"));
        let mut written_end = 0u32;
        for _ in 0..20_000 {
            let (_, command, job) = iiot.next_request();
            if job == INGEST_JOB {
                written_end = command.first_unit + command.units;
            } else {
                // 10,000 records/s: a 100 ms window is about 1,000 units behind the head.
                assert!(
                    command.first_unit + 1_500 >= written_end,
                    "{} vs {written_end}",
                    command.first_unit
                );
                assert!(command.first_unit + command.units <= written_end);
            }
        }
    }
}
