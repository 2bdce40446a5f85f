//! The counters of a measured run: those at the end of the warm-up (`warmup.rs` notes them) and
//! what the controller and the FTL counted since. Plain data, so `mod.rs` may hold it.

use crate::base::time::{Duration, Time};
use crate::controller::tally::{SuspendTally, Tally};
use crate::ftl::types::{PlacementCounts, SchemeCounts};

/// Counters at the start of the measured run.
#[derive(Clone, Debug, Default)]
pub struct Baseline {
    pub at: Time,
    pub tally: Tally,
    pub placed: PlacementCounts,
    pub scheme: SchemeCounts,
    pub channel_switches: u64,
    pub way_switches: u64,
    pub wear_relocations: u64,
    pub die_busy: Duration,
    pub events: u64,
    /// Cumulative energy per power component (`power::timeseries::COMPONENTS`) [J].
    pub energies: [f64; 6],
}

/// The counters of a measured run: the controller's and the FTL's since its start.
#[derive(Clone, Debug, Default)]
pub struct Measured {
    pub tally: Tally,
    pub placed: PlacementCounts,
    pub scheme: SchemeCounts,
    pub channel_switches: u64,
    pub way_switches: u64,
    pub wear_relocations: u64,
    pub die_busy: Duration,
    pub events: u64,
}

/// `now` − `base`, counter by counter.
pub fn tally_since(now: &Tally, base: &Tally) -> Tally {
    let histogram = |now: &[u64], base: &[u64]| -> Vec<u64> {
        now.iter()
            .enumerate()
            .map(|(index, &count)| count - base.get(index).copied().unwrap_or(0))
            .collect()
    };
    Tally {
        reads: now.reads - base.reads,
        programs: now.programs - base.programs,
        erases: now.erases - base.erases,
        gc_reads: now.gc_reads - base.gc_reads,
        gc_programs: now.gc_programs - base.gc_programs,
        mapping_reads: now.mapping_reads - base.mapping_reads,
        mapping_programs: now.mapping_programs - base.mapping_programs,
        hol_events: now.hol_events - base.hol_events,
        gc_write_holds: now.gc_write_holds - base.gc_write_holds,
        host_write_bytes: now.host_write_bytes - base.host_write_bytes,
        host_write_units: now.host_write_units - base.host_write_units,
        partial_writes: now.partial_writes - base.partial_writes,
        rmw_reads: now.rmw_reads - base.rmw_reads,
        rmw_in_dram: now.rmw_in_dram - base.rmw_in_dram,
        suspend: SuspendTally {
            program: now.suspend.program - base.suspend.program,
            erase: now.suspend.erase - base.suspend.erase,
            per_program: histogram(&now.suspend.per_program, &base.suspend.per_program),
            per_erase: histogram(&now.suspend.per_erase, &base.suspend.per_erase),
            program_time: now.suspend.program_time - base.suspend.program_time,
            erase_time: now.suspend.erase_time - base.suspend.erase_time,
        },
    }
}
