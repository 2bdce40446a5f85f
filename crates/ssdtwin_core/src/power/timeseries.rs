//! The time series of a run: power per component, IOPS and bandwidth per sample interval.
//!
//! Sampling is event-driven like the rest of the power model: nothing happens at a sample
//! boundary by itself. When the model next advances past one or more boundaries, each component's
//! energy at each boundary is computed from its accumulator (its power has been constant since its
//! last change) and the interval's row is the energy difference over the interval's length.

use serde::Serialize;

use crate::base::time::{Duration, Time};

/// Components of the drive's power, in column order.
pub const COMPONENTS: [&str; 6] = ["nand", "io_bus", "controller", "dram", "other", "total"];

/// The series as columns (one value per interval); kept out of the JSON report.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct TimeSeries {
    /// Start of each interval [s].
    pub time_s: Vec<f64>,
    /// Host commands completed per second in the interval.
    pub iops: Vec<f64>,
    /// Host data moved per second in the interval [MiB/s].
    pub bandwidth_mib_s: Vec<f64>,
    /// Average power of each component of [`COMPONENTS`] in the interval [W].
    pub power_w: [Vec<f64>; 6],
    /// Columns other observers add, one value per interval (the thermal model's `temp_c.<node>`
    /// and `throttle_state`).
    pub extra: Vec<(String, Vec<f64>)>,
}

impl TimeSeries {
    /// The columns by name: `time_s`, `iops`, `bandwidth_mib_s`, `power_w.nand`, ... `power_w.total`,
    /// then the extra columns.
    pub fn columns(&self) -> Vec<(String, &[f64])> {
        let mut columns = vec![
            ("time_s".to_string(), &self.time_s[..]),
            ("iops".to_string(), &self.iops[..]),
            ("bandwidth_mib_s".to_string(), &self.bandwidth_mib_s[..]),
        ];
        for (name, values) in COMPONENTS.iter().zip(&self.power_w) {
            columns.push((format!("power_w.{name}"), &values[..]));
        }
        for (name, values) in &self.extra {
            columns.push((name.clone(), &values[..]));
        }
        columns
    }

    /// The columns as one JSON object, name to list of numbers (the Python glue's format).
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::Value::Object(
            self.columns()
                .into_iter()
                .map(|(name, values)| (name, serde_json::json!(values)))
                .collect(),
        )
    }

    /// Adds a column, cut or padded (with its last value) to the series' length.
    pub fn add_column(&mut self, name: String, mut values: Vec<f64>) {
        let last = values.last().copied().unwrap_or(f64::NAN);
        values.resize(self.len(), last);
        self.extra.push((name, values));
    }

    pub fn len(&self) -> usize {
        self.time_s.len()
    }

    pub fn is_empty(&self) -> bool {
        self.time_s.is_empty()
    }
}

/// Builds the series interval by interval.
#[derive(Debug)]
pub struct Sampler {
    interval: Duration,
    /// End of the interval being filled (`Time::MAX` when sampling is off).
    pub next_boundary: Time,
    start: Time,
    /// Cumulative energies of the components at `start` [J].
    energy_at_start: [f64; 6],
    completions: u64,
    bytes: u64,
    pub series: TimeSeries,
}

impl Sampler {
    pub fn new(interval: Duration) -> Sampler {
        Sampler {
            interval,
            next_boundary: if interval > Duration::ZERO {
                Time::ZERO + interval
            } else {
                Time::MAX
            },
            start: Time::ZERO,
            energy_at_start: [0.0; 6],
            completions: 0,
            bytes: 0,
            series: TimeSeries::default(),
        }
    }

    /// A host command of `bytes` completed in the current interval.
    pub fn completion(&mut self, bytes: u64) {
        self.completions += 1;
        self.bytes += bytes;
    }

    /// Closes the current interval at `end` given the cumulative energies there.
    pub fn close(&mut self, end: Time, energies: [f64; 6]) {
        let length = end.since(self.start).as_secs_f64();
        if length <= 0.0 {
            return;
        }
        let series = &mut self.series;
        series.time_s.push(self.start.as_secs_f64());
        series.iops.push(self.completions as f64 / length);
        series
            .bandwidth_mib_s
            .push(self.bytes as f64 / (1024.0 * 1024.0) / length);
        for (index, column) in series.power_w.iter_mut().enumerate() {
            column.push((energies[index] - self.energy_at_start[index]) / length);
        }
        self.energy_at_start = energies;
        self.completions = 0;
        self.bytes = 0;
        self.start = end;
        self.next_boundary = if self.interval > Duration::ZERO {
            end + self.interval
        } else {
            Time::MAX
        };
    }
}
