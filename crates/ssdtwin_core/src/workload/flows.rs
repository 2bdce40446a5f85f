//! Flows (`[[workload.flows]]`): several synthetic workloads at once, each with its own submission
//! queue, queue depth and priority class (docs/guide/workloads.md, "Flows"). A flow gives the
//! synthetic keys it changes; the others are those of `[workload]`. The run ends as `[workload]`
//! says (`io_count` counts the commands of every flow, `duration` the run's time). The keys are
//! declared in `params.rs` (`FlowConfig`).

use super::params::{FlowConfig, WorkloadConfig};

/// The keys a flow may set, as they are named under `[workload]`.
const FLOW_WORKLOAD_KEYS: [&str; 11] = [
    "read_fraction",
    "trim_fraction",
    "flush_every",
    "fua_fraction",
    "block_size",
    "bssplit",
    "pattern",
    "sequential_fraction",
    "distribution",
    "zipf_theta",
    "span",
];

impl FlowConfig {
    /// The flow's name: its own or `flow<index>`.
    pub fn name(&self, index: usize) -> String {
        self.name.clone().unwrap_or_else(|| format!("flow{index}"))
    }

    /// The synthetic workload of the flow: `[workload]` with the keys the flow sets.
    pub fn workload(&self, base: &WorkloadConfig) -> WorkloadConfig {
        let mut config = base.clone();
        config.flows = Vec::new();
        macro_rules! take {
            ($($key:ident),*) => {$(
                if let Some(value) = &self.$key {
                    config.$key = value.clone();
                }
            )*};
        }
        take!(
            read_fraction,
            trim_fraction,
            flush_every,
            fua_fraction,
            block_size,
            bssplit,
            pattern,
            sequential_fraction,
            distribution,
            zipf_theta,
            span
        );
        config
    }

    /// Whether the flow sets `key` (a key of `[workload]`).
    pub fn sets(&self, key: &str) -> bool {
        let json = serde_json::to_value(self).expect("a flow serializes");
        FLOW_WORKLOAD_KEYS.contains(&key) && !json[key].is_null()
    }
}

/// The flows' generators, each on its own random stream (the first on the single workload's); `logical_units` is the drive's logical
/// space. A flow whose span holds fewer units than its largest command is an error naming it.
pub fn sources(
    config: &WorkloadConfig,
    seed: u64,
    unit_bytes: u64,
    logical_units: u32,
) -> Result<Vec<super::synthetic::Synthetic>, crate::base::error::ConfigError> {
    config
        .flows
        .iter()
        .enumerate()
        .map(|(index, flow)| {
            let workload = flow.workload(config);
            let span_units =
                workload.span_units(logical_units, unit_bytes, &format!("workload.flows[{index}].span"))?;
            // The first flow draws from the stream of the single workload, so one flow whose keys
            // are those of `[workload]` runs exactly as `[workload]` alone.
            let stream = match index {
                0 => "workload".to_string(),
                _ => format!("workload.flows[{index}]"),
            };
            let rng = crate::base::rng::Rng::stream(seed, &stream);
            Ok(super::synthetic::Synthetic::new(&workload, unit_bytes, span_units, rng))
        })
        .collect()
}
