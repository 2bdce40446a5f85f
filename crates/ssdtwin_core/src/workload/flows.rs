//! Flows (`[[workload.flows]]`): several workloads at once, each with its own submission queue,
//! queue depth and priority class (docs/guide/workloads.md, "Flows"). A flow is synthetic (it
//! gives the synthetic keys it changes; the others are those of `[workload]`), a trace replayed
//! or the IIoT generator, each closed loop at the flow's queue depth. The run ends as `[workload]`
//! says (`io_count` counts the commands of every flow, `duration` the run's time), or, for flows
//! with an `io_count` of their own, when each has issued its count. The keys are declared in
//! `params.rs` (`FlowConfig`).

use super::params::{FlowConfig, Replay, WorkloadConfig, WorkloadKind};
use crate::base::error::ConfigError;
use crate::host::command::CommandSpec;

/// The keys a flow may set, as they are named under `[workload]`.
const FLOW_WORKLOAD_KEYS: [&str; 14] = [
    "kind",
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
    "trace",
    "iiot",
];

impl FlowConfig {
    /// The flow's name: its own or `flow<index>`.
    pub fn name(&self, index: usize) -> String {
        self.name.clone().unwrap_or_else(|| format!("flow{index}"))
    }

    /// The workload of the flow: `[workload]` with the keys the flow sets (a flow is synthetic
    /// unless it says otherwise).
    pub fn workload(&self, base: &WorkloadConfig) -> WorkloadConfig {
        let mut config = base.clone();
        config.flows = Vec::new();
        config.kind = self.kind.unwrap_or(WorkloadKind::Synthetic);
        config.io_count = self.io_count.unwrap_or(base.io_count);
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
            span,
            trace,
            iiot
        );
        config
    }

    /// Whether the flow sets `key` (a key of `[workload]`).
    pub fn sets(&self, key: &str) -> bool {
        let json = serde_json::to_value(self).expect("a flow serializes");
        FLOW_WORKLOAD_KEYS.contains(&key) && !json[key].is_null()
    }
}

/// What one flow draws its commands from.
#[derive(Debug)]
pub enum FlowKind {
    Synthetic(super::synthetic::Synthetic),
    Trace(super::trace::TraceSource),
    Iiot(super::iiot::Iiot),
}

/// One flow's command source, with the count it may still issue.
#[derive(Debug)]
pub struct FlowSource {
    kind: FlowKind,
    /// Commands left of the flow's own `io_count` (`u64::MAX`: none of its own).
    left: u64,
    /// The placement identifier its commands carry (`workload.flows[].placement`; 0: none).
    placement: u16,
    /// First logical unit of its span (`workload.flows[].offset`).
    offset_units: u32,
}

impl FlowSource {
    /// The flow's next command; `None` once it has issued its count or its trace has ended.
    #[inline]
    pub fn next_command(&mut self) -> Result<Option<CommandSpec>, String> {
        if self.left == 0 {
            return Ok(None);
        }
        let mut command = match &mut self.kind {
            FlowKind::Synthetic(synthetic) => Some(synthetic.next_command()),
            FlowKind::Trace(trace) => trace.next_request()?.map(|(_, command)| command),
            FlowKind::Iiot(iiot) => Some(iiot.next_request().1),
        };
        if let Some(command) = command.as_mut() {
            command.placement = self.placement;
            if !command.flush {
                command.first_unit += self.offset_units;
            }
        }
        if command.is_some() && self.left != u64::MAX {
            self.left -= 1;
        }
        Ok(command)
    }
}

/// Whether every flow has a command count of its own (the run then ends when all are done, not
/// at `workload.io_count`).
pub fn counted(config: &WorkloadConfig) -> bool {
    !config.flows.is_empty() && config.flows.iter().all(|flow| flow.io_count.is_some())
}

/// Whether every flow ends by itself (an `io_count` of its own, or a trace, which ends with its
/// file), so the run needs no `workload.io_count` or `duration` to end.
pub fn end_by_themselves(config: &WorkloadConfig) -> bool {
    !config.flows.is_empty()
        && config
            .flows
            .iter()
            .all(|flow| flow.io_count.is_some() || flow.kind == Some(WorkloadKind::Trace))
}

/// The flows' sources, each on its own random stream (the first on the single workload's);
/// `logical_units` is the drive's logical space. A flow whose span holds fewer units than its
/// largest command, a trace that cannot be opened, or a timed replay is an error naming it.
pub fn sources(
    config: &WorkloadConfig,
    seed: u64,
    unit_bytes: u64,
    logical_units: u32,
) -> Result<Vec<FlowSource>, ConfigError> {
    config
        .flows
        .iter()
        .enumerate()
        .map(|(index, flow)| {
            let key = |leaf: &str| format!("workload.flows[{index}].{leaf}");
            let workload = flow.workload(config);
            let span_units = workload.span_units(logical_units, unit_bytes, &key("span"))?;
            let offset = flow.offset.unwrap_or(0.0);
            if !(0.0..1.0).contains(&offset) || offset + workload.span > 1.0 + 1e-9 {
                return Err(ConfigError::new(
                    key("offset"),
                    format!(
                        "{offset} with span {}; allowed: 0 <= offset < 1 and offset + span <= 1 (the flow's span must fit the logical space)",
                        workload.span
                    ),
                ));
            }
            // The first flow draws from the stream of the single workload, so one flow whose keys
            // are those of `[workload]` runs exactly as `[workload]` alone.
            let stream = match index {
                0 => "workload".to_string(),
                _ => format!("workload.flows[{index}]"),
            };
            let rng = crate::base::rng::Rng::stream(seed, &stream);
            let kind = match workload.kind {
                WorkloadKind::Synthetic => {
                    FlowKind::Synthetic(super::synthetic::Synthetic::new(&workload, unit_bytes, span_units, rng))
                }
                WorkloadKind::Trace => FlowKind::Trace(
                    super::trace::TraceSource::new(&workload.trace, unit_bytes, u64::from(span_units))
                        .map_err(|message| ConfigError::new(key("trace.path"), message))?,
                ),
                WorkloadKind::Iiot => FlowKind::Iiot(super::iiot::Iiot::new(
                    &workload.iiot,
                    unit_bytes,
                    u64::from(span_units),
                    rng,
                )),
                WorkloadKind::Fio | WorkloadKind::Zoned => {
                    return Err(ConfigError::new(
                        key("kind"),
                        "\"fio\" and \"zoned\" are not flows (set workload.kind itself); allowed: \"synthetic\", \"trace\", \"iiot\"",
                    ))
                }
            };
            Ok(FlowSource {
                kind,
                left: flow.io_count.unwrap_or(u64::MAX),
                placement: flow.placement.unwrap_or(0),
                offset_units: (f64::from(logical_units) * flow.offset.unwrap_or(0.0)).floor() as u32,
            })
        })
        .collect()
}

/// Checks what only a flow's own keys can get wrong: a trace or IIoT flow replays as fast as
/// possible (a flow is a closed loop at its queue depth), and has its table.
pub fn check(flow: &FlowConfig, index: usize) -> Result<(), ConfigError> {
    let key = |leaf: &str| format!("workload.flows[{index}].{leaf}");
    let replay = match flow.kind {
        Some(WorkloadKind::Trace) => match &flow.trace {
            Some(trace) => Some(("trace", trace.replay)),
            None => {
                return Err(ConfigError::new(
                    key("trace"),
                    "a flow of kind \"trace\" needs its trace table ([workload.flows.trace] with path and format)",
                ))
            }
        },
        Some(WorkloadKind::Iiot) => Some(("iiot", flow.iiot.as_ref().map_or(Replay::Timed, |iiot| iiot.replay))),
        Some(WorkloadKind::Fio) => {
            return Err(ConfigError::new(
                key("kind"),
                "\"fio\" is not a flow: an fio job file's jobs are the flows (workload.kind = \"fio\")",
            ))
        }
        Some(WorkloadKind::Zoned) => {
            return Err(ConfigError::new(
                key("kind"),
                "\"zoned\" is not a flow (set workload.kind = \"zoned\" itself); allowed: \"synthetic\", \"trace\", \"iiot\"",
            ))
        }
        _ => None,
    };
    if let Some((table, Replay::Timed)) = replay {
        return Err(ConfigError::new(
            key(&format!("{table}.replay")),
            "\"timed\": a flow is a closed loop at its queue_depth; set replay = \"as_fast_as_possible\" (timed replay is for the single workload)",
        ));
    }
    if flow.io_count == Some(0) {
        return Err(ConfigError::new(
            key("io_count"),
            "0: at least 1 command (leave it out for no count of its own)",
        ));
    }
    Ok(())
}
