//! What the session's summary tells of each connection (its requests by kind, its submission
//! queue and class, the simulated latency of its requests) and, in real pace, of the server's own
//! transport time per request (`Transport`).

use ssdtwin_core::base::time::Duration;
use ssdtwin_core::metrics::latency::LatencyRecorder;

/// Requests a connection sent, by kind, and what it saw of them.
#[derive(Clone, Debug, Default)]
pub(super) struct Counts {
    pub(super) reads: u64,
    pub(super) writes: u64,
    pub(super) trims: u64,
    pub(super) flushes: u64,
    /// Refused with an error.
    pub(super) refused: u64,
    /// Most requests it had in flight at once.
    pub(super) most_in_flight: u32,
    /// Its submission queue (`sq<queue>` in the report's jobs) and the queue's class.
    pub(super) queue: Option<u32>,
    pub(super) class: &'static str,
    /// Simulated latency of its requests the model served, from arrival to the completion of
    /// the request's last command (a request split in several commands is one latency).
    pub(super) latency: LatencyRecorder,
}

impl Counts {
    /// Requests it sent (but `NBD_CMD_DISC`).
    pub(super) fn total(&self) -> u64 {
        self.reads + self.writes + self.trims + self.flushes + self.refused
    }

    /// Its queue and class, for the log.
    pub(super) fn queue_text(&self) -> String {
        match self.queue {
            Some(queue) => format!("queue sq{queue} ({})", self.class),
            None => format!("no queue ({})", self.class),
        }
    }

    /// `p50 / p99 / mean` of its requests' simulated latency [us], for the log.
    pub(super) fn latency_text(&self) -> String {
        let summary = self.latency.summary();
        if summary.count == 0 {
            return "no request served by the model".to_string();
        }
        format!(
            "{} requests served, simulated latency p50 {:.1} us, p99 {:.1} us, mean {:.1} us",
            summary.count, summary.p50, summary.p99, summary.mean
        )
    }
}

/// Real pace: the server's own time per request, beyond the simulated latency (docs/guide/
/// host.md, "Real pace"): from the request read off its socket to its reply written, less the
/// simulated latency from its arrival to its completion. It is the reading thread's hand-over,
/// the stamping, and mostly how late the timekeeping thread wakes for a completion. An estimate
/// of it (the median so far) is subtracted: the model runs that far ahead of the wall clock, so
/// replies are written that much before their simulated completion time, and never before
/// their request's simulated arrival.
#[derive(Debug, Default)]
pub(super) struct Transport {
    /// Per request, as it would be without the subtraction: the measured time beyond the
    /// simulated latency plus the estimate in force when its reply was written [ns].
    pub(super) unsubtracted: LatencyRecorder,
    /// Per request, what is left with the subtraction (negative: written before its simulated
    /// completion); sum [ns] and count for the mean.
    left_sum_ns: i128,
    left_count: u64,
    /// The estimate subtracted now.
    pub(super) estimate: Duration,
    /// Replies held because their request's simulated arrival had not come on the wall clock.
    pub(super) held: u64,
    /// Replies written before their request's simulated arrival on the wall clock (the hold
    /// prevents it: a nonzero count is a bug).
    pub(super) early: u64,
}

/// Replies between two updates of the estimate.
const ESTIMATE_EVERY: u64 = 32;
/// Largest estimate subtracted (a machine so loaded that its wake-ups lag more does not make the
/// model run further ahead).
const MAX_ESTIMATE: Duration = Duration::from_micros(500);

impl Transport {
    /// A reply written `beyond_ns` after its request was read, over and above its simulated
    /// latency, with `subtracted` in force.
    pub(super) fn record(&mut self, beyond_ns: i64, subtracted: Duration) {
        let unsubtracted = beyond_ns + subtracted.as_nanos() as i64;
        self.unsubtracted
            .record(Duration::from_nanos(unsubtracted.max(0) as u64));
        self.left_sum_ns += i128::from(beyond_ns);
        self.left_count += 1;
        if self.left_count.is_multiple_of(ESTIMATE_EVERY) {
            let median = Duration::from_nanos(self.unsubtracted.value_at_quantile(0.5));
            self.estimate = median.min(MAX_ESTIMATE);
        }
    }

    /// The summary line: the transport measured, the estimate subtracted and what is left.
    pub(super) fn text(&self) -> String {
        let summary = self.unsubtracted.summary();
        if summary.count == 0 {
            return "real pace: no request measured".to_string();
        }
        format!(
            "real pace: server transport per request (read to reply written, beyond the simulated latency): \
             mean {:.1} us, p50 {:.1} us over {} requests; {:.1} us subtracted (replies written that much \
             before their simulated completion), {:.1} us left on average; {} replies held until their \
             request's simulated arrival, {} written before it",
            summary.mean,
            summary.p50,
            summary.count,
            self.estimate.as_nanos() as f64 / 1000.0,
            self.left_sum_ns as f64 / self.left_count as f64 / 1000.0,
            self.held,
            self.early
        )
    }
}
