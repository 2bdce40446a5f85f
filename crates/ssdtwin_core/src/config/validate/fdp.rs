//! `[fdp]` (`ftl/fdp.rs`, docs/models/fdp.md): the keys' ranges (`FdpConfig::resolve`), what FDP
//! needs of the rest of the drive, and the flows' placement identifiers.

use crate::base::error::ConfigError;
use crate::ftl::fdp::HandleType;
use crate::ftl::params::MappingKind;
use crate::sim::scenario::Scenario;

/// `[fdp]`, checked only when enabled: the keys' ranges, page mapping, and the flows' placement
/// identifiers within the handles.
pub(super) fn fdp(scenario: &Scenario) -> Result<(), ConfigError> {
    trace_placement(scenario)?;
    for (index, flow) in scenario.workload.flows.iter().enumerate() {
        let Some(placement) = flow.placement else {
            continue;
        };
        let key = format!("workload.flows[{index}].placement");
        if !scenario.fdp.enabled {
            return Err(ConfigError::new(
                key,
                format!("{placement} with fdp.enabled = false; allowed: leave it out, or set fdp.enabled = true"),
            ));
        }
        if placement >= scenario.fdp.handles {
            return Err(ConfigError::new(
                key,
                format!(
                    "{placement} is out of range; allowed: 0 to {} (fdp.handles = {})",
                    scenario.fdp.handles.saturating_sub(1),
                    scenario.fdp.handles
                ),
            ));
        }
    }
    if !scenario.fdp.enabled {
        return Ok(());
    }
    scenario.fdp.resolve(&scenario.flash)?;
    if scenario.ftl.mapping != MappingKind::Page {
        return Err(ConfigError::new(
            "fdp.enabled",
            format!(
                "true with ftl.mapping = {}; allowed: false, or ftl.mapping = \"page\" (reclaim unit handles are write frontiers of the page-mapped FTL)",
                scenario.ftl.mapping.name()
            ),
        ));
    }
    // Every frontier may hold a nearly empty open block per plane: the spare blocks must cover
    // them, the free blocks GC keeps and a victim, or GC could find no block to reclaim.
    let config = &scenario.fdp;
    let persistent = config.handle_type == HandleType::PersistentlyIsolated;
    let frontiers = u64::from(config.handles) * if persistent { 2 } else { 1 } + u64::from(!persistent);
    let blocks = f64::from(scenario.flash.blocks_per_plane);
    let spare = (scenario.ftl.over_provisioning * blocks).floor() as u64;
    let trigger = ((scenario.ftl.gc_threshold * blocks).ceil() as u64).max(2);
    if spare < frontiers + trigger + 1 {
        return Err(ConfigError::new(
            "fdp.handles",
            format!(
                "{} ({frontiers} open blocks per plane with {}) leaves too few spare blocks: ftl.over_provisioning gives {spare} per plane, GC keeps {trigger} free; allowed: open blocks + {} <= {spare} (fewer handles, more over-provisioning or more flash.blocks_per_plane)",
                config.handles,
                if persistent { "persistently_isolated" } else { "initially_isolated" },
                trigger + 1
            ),
        ));
    }
    if scenario.buffer.capacity.0 > 0 {
        return Err(ConfigError::new(
            "fdp.enabled",
            "true with a write buffer (buffer.capacity > 0) is not simulated yet; allowed: buffer.capacity = \"0B\"",
        ));
    }
    if scenario.zns.enabled {
        return Err(ConfigError::new(
            "fdp.enabled",
            "true with zns.enabled; allowed: one of the two",
        ));
    }
    if scenario.slc_cache.enabled {
        // The SLC pool takes blocks from the free pool that the handles' frontiers count on.
        return Err(ConfigError::new(
            "fdp.enabled",
            "true with slc_cache.enabled is not simulated yet; allowed: slc_cache.enabled = false",
        ));
    }
    Ok(())
}

/// `workload.trace.placement = "device"`: only on a trace replay (not a flow's trace: a flow has
/// its own `placement`), a format with a device column, and FDP on.
fn trace_placement(scenario: &Scenario) -> Result<(), ConfigError> {
    use crate::workload::params::{TraceFormat, TracePlacement, WorkloadKind};
    let workload = &scenario.workload;
    for (index, flow) in workload.flows.iter().enumerate() {
        if flow
            .trace
            .as_ref()
            .is_some_and(|trace| trace.placement != TracePlacement::None)
        {
            return Err(ConfigError::new(
                format!("workload.flows[{index}].trace.placement"),
                "\"device\" in a flow's trace; allowed: \"none\" (a flow's writes take the flow's own placement key)",
            ));
        }
    }
    let trace = &workload.trace;
    if trace.placement == TracePlacement::None || workload.kind != WorkloadKind::Trace {
        return Ok(());
    }
    let no_column = match trace.format {
        TraceFormat::Blkparse => Some("blkparse"),
        TraceFormat::FioIolog => Some("fio_iolog"),
        _ => None,
    };
    if let Some(format) = no_column {
        return Err(ConfigError::new(
            "workload.trace.placement",
            format!(
                "\"device\" with workload.trace.format = \"{format}\", which has no device column to map; allowed: \"none\", or a format with one: spc (ASU), msr (DiskNumber), disksim (device)"
            ),
        ));
    }
    if !scenario.fdp.enabled {
        return Err(ConfigError::new(
            "workload.trace.placement",
            "\"device\" with fdp.enabled = false; allowed: \"none\", or set fdp.enabled = true",
        ));
    }
    Ok(())
}
