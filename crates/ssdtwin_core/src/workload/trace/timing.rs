//! Trace timestamps: the arrival time of each request of a timed replay, and what the replay
//! made of the file's clock, for the report.
//!
//! - `replay = "timed"`: arrival = (timestamp − first timestamp) × `time_scale`. A timestamp
//!   earlier than the request before it is an error naming the file and line; with `lenient` the
//!   request arrives with the one before it and is counted. A long gap is replayed as idle time
//!   (that is what the trace says) and counted.
//! - `replay = "as_fast_as_possible"`: timestamps are ignored; the report says so, with the
//!   trace's span and largest gap, and counts timestamps going backwards.

use crate::base::time::{Duration, Time};
use crate::workload::params::{Replay, TraceConfig};

/// A gap between consecutive requests at least this long is counted as a long gap [ns of trace
/// time, before `time_scale`].
pub const LONG_GAP_NS: u64 = 10_000_000;

/// What the replay saw of the trace's timestamps (requests after filters and `limit`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TimestampStats {
    /// The replay honoured the timestamps (`replay = "timed"`).
    pub used: bool,
    /// Requests seen.
    pub requests: u64,
    /// Trace time from the first to the latest request [ns].
    pub span_ns: u64,
    /// Requests whose timestamp is earlier than the request's before them.
    pub backward: u64,
    /// File line of the first of those (0: none).
    pub first_backward_line: u64,
    /// Gaps of [`LONG_GAP_NS`] or more between consecutive requests.
    pub long_gaps: u64,
    /// The largest gap between consecutive requests [ns] and the line of the request after it.
    pub largest_gap_ns: u64,
    pub largest_gap_line: u64,
}

/// Turns trace timestamps into arrival times and keeps [`TimestampStats`].
#[derive(Debug)]
pub struct Clock {
    lenient: bool,
    time_scale: f64,
    first_ns: Option<u64>,
    latest_ns: u64,
    /// The previous request's timestamp and line.
    previous: Option<(u64, u64)>,
    last_arrival: Time,
    pub stats: TimestampStats,
}

impl Clock {
    /// The clock of a replay of `config`, boxed (its stats would make a trace the one large
    /// variant of `workload::Source`).
    pub fn boxed(config: &TraceConfig) -> Box<Clock> {
        Box::new(Clock::new(
            config.replay == Replay::Timed,
            config.lenient,
            config.time_scale,
        ))
    }

    pub fn new(timed: bool, lenient: bool, time_scale: f64) -> Clock {
        Clock {
            lenient,
            time_scale,
            first_ns: None,
            latest_ns: 0,
            previous: None,
            last_arrival: Time::ZERO,
            stats: TimestampStats {
                used: timed,
                ..TimestampStats::default()
            },
        }
    }

    /// The arrival time of the request stamped `time_ns` on `line` (arrivals never go back in
    /// time); the error of a timestamp going backwards in a strict timed replay.
    pub fn arrival(&mut self, time_ns: u64, line: u64) -> Result<Time, String> {
        let stats = &mut self.stats;
        if let Some((previous_ns, previous_line)) = self.previous {
            if time_ns < previous_ns {
                if stats.used && !self.lenient {
                    return Err(format!(
                        "timestamp {} earlier than the request's on line {previous_line}; a timed replay needs \
                         timestamps in order (sort the trace, set workload.trace.lenient = true to let such a \
                         request arrive with the one before it, or replay = \"as_fast_as_possible\")",
                        readable(previous_ns - time_ns)
                    ));
                }
                stats.backward += 1;
                if stats.first_backward_line == 0 {
                    stats.first_backward_line = line;
                }
            } else {
                let gap = time_ns - previous_ns;
                if gap >= LONG_GAP_NS {
                    stats.long_gaps += 1;
                }
                if gap > stats.largest_gap_ns {
                    stats.largest_gap_ns = gap;
                    stats.largest_gap_line = line;
                }
            }
        }
        self.previous = Some((time_ns, line));
        stats.requests += 1;
        let first = *self.first_ns.get_or_insert(time_ns);
        self.latest_ns = self.latest_ns.max(time_ns);
        stats.span_ns = self.latest_ns.saturating_sub(first);
        let gap = Duration::from_nanos(time_ns.saturating_sub(first));
        let gap = if self.time_scale == 1.0 {
            gap
        } else {
            gap.scaled(self.time_scale)
        };
        let arrival = (Time::ZERO + gap).max(self.last_arrival);
        self.last_arrival = arrival;
        Ok(arrival)
    }

    /// Warnings for the report about the timestamps of trace `path`.
    pub fn warnings(&self, path: &str) -> Vec<String> {
        let stats = &self.stats;
        let mut warnings = Vec::new();
        let largest = format!(
            "largest gap {} before line {}",
            readable(stats.largest_gap_ns),
            stats.largest_gap_line
        );
        if !stats.used && stats.span_ns > 0 {
            warnings.push(format!(
                "trace {path}: timestamps ignored (replay = \"as_fast_as_possible\": closed loop at the queue \
                 depth); its {} requests span {} of trace time, {largest}; replay = \"timed\" replays them at \
                 their times",
                stats.requests,
                readable(stats.span_ns)
            ));
        }
        if stats.used && stats.long_gaps > 0 {
            warnings.push(format!(
                "trace {path}: {} of {} or more between requests ({largest}); the timed replay idles \
                 through them (times time_scale)",
                counted(stats.long_gaps, "gap", "gaps"),
                readable(LONG_GAP_NS)
            ));
        }
        if stats.backward > 0 {
            let effect = if stats.used {
                "each arrived with the request before it (lenient)"
            } else {
                "no effect on a closed-loop replay"
            };
            warnings.push(format!(
                "trace {path}: {} earlier than the request's before {} (first on line {}); {effect}",
                counted(stats.backward, "timestamp", "timestamps"),
                if stats.backward == 1 { "it" } else { "them" },
                stats.first_backward_line
            ));
        }
        warnings
    }
}

/// `1 gap`, `3 gaps`.
fn counted(count: u64, one: &str, many: &str) -> String {
    format!("{count} {}", if count == 1 { one } else { many })
}

/// `50000000` ns as `50 ms`, to three significant decimals at most.
pub fn readable(ns: u64) -> String {
    let (value, unit) = match ns {
        0..=999 => return format!("{ns} ns"),
        1_000..=999_999 => (ns as f64 / 1e3, "us"),
        1_000_000..=999_999_999 => (ns as f64 / 1e6, "ms"),
        _ => (ns as f64 / 1e9, "s"),
    };
    let text = format!("{value:.3}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    format!("{text} {unit}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timed_clock_counts_gaps_and_refuses_a_step_back() {
        let mut clock = Clock::new(true, false, 1.0);
        assert_eq!(clock.arrival(1_000, 1), Ok(Time::ZERO));
        assert_eq!(clock.arrival(51_001_000, 2), Ok(Time::ZERO + Duration::from_millis(51)));
        assert_eq!(
            clock.arrival(51_002_000, 3),
            Ok(Time::ZERO + Duration::from_micros(51_001))
        );
        assert_eq!(
            (
                clock.stats.long_gaps,
                clock.stats.largest_gap_ns,
                clock.stats.largest_gap_line
            ),
            (1, 51_000_000, 2)
        );
        let error = clock.arrival(2_000, 4).unwrap_err();
        assert!(error.contains("51 ms earlier than the request's on line 3"), "{error}");
    }

    #[test]
    fn lenient_and_closed_loop_clocks_count_steps_back() {
        let mut lenient = Clock::new(true, true, 1.0);
        lenient.arrival(5_000, 1).unwrap();
        assert_eq!(lenient.arrival(1_000, 2), Ok(Time::ZERO + Duration::ZERO));
        assert_eq!((lenient.stats.backward, lenient.stats.first_backward_line), (1, 2));
        let mut closed = Clock::new(false, false, 1.0);
        closed.arrival(5_000, 1).unwrap();
        closed.arrival(1_000, 2).unwrap();
        closed.arrival(20_000_000, 3).unwrap();
        let warnings = closed.warnings("t.trace").join("\n");
        assert!(warnings.contains("timestamps ignored"), "{warnings}");
        assert!(
            warnings.contains("1 timestamp earlier than the request's before it"),
            "{warnings}"
        );
    }

    #[test]
    fn readable_picks_a_unit() {
        assert_eq!(readable(50_000_000), "50 ms");
        assert_eq!(readable(1_500), "1.5 us");
        assert_eq!(readable(2_000_000_000), "2 s");
        assert_eq!(readable(12), "12 ns");
    }
}
