//! Invariants that catch loss (issue 5): the checks every FTL property case and invariant run
//! ends with, beyond the maps agreeing (`Ftl::check_invariants`).
//!
//! * Every logical unit ever written and not trimmed since maps to a slot holding its latest
//!   version, no unit never written is mapped and no unit trimmed since its latest write is mapped
//!   (`Ftl::check_versions`: the FTL keeps a payload-free version per logical unit and per
//!   physical slot, in test builds only, through the crate's `verify` feature).
//! * After a fill, with power cuts that only lose buffered writes (a lost write leaves the unit's
//!   previous data mapped), the mapped units and the units a trim left unmapped add up to the
//!   logical units.
//! * Every acknowledged unit write reached the FTL: without a write buffer, host placements equal
//!   the acknowledged units (a unit is placed before it is acknowledged); with one, the buffer took
//!   every acknowledged unit, the placements equal the units it flushed, and each unit it took was
//!   flushed, replaced by a later write of its unit (coalesced), is still held, was dropped by a
//!   later trim of its unit, or was reported lost by a power cut.
//!
//! The negative tests below break a finished run on purpose (a unit dropped from both maps, an
//! acknowledged write that never reached the FTL) and show the checks fail where
//! `check_invariants` alone passes.

use ssdtwin_core::{Report, Simulation};

use crate::scenario;

/// Unit writes the host had acknowledged by the end of the run [mapping units].
pub fn acknowledged_write_units(report: &Report, unit_bytes: u64) -> u64 {
    let bytes: u64 = report.workload.jobs.iter().map(|job| job.write.io_bytes).sum();
    assert_eq!(bytes % unit_bytes, 0, "writes are whole mapping units");
    bytes / unit_bytes
}

/// The loss checks of the module documentation on a finished run; `filled`: the run started
/// from a fill (or any preconditioning that maps every logical unit).
pub fn check_no_loss(simulation: &Simulation, report: &Report, filled: bool) -> Result<(), String> {
    let ftl = simulation.ftl();
    ftl.check_versions()?;
    let trimmed = ftl.mapping.versions.trimmed_units();
    if filled && ftl.mapped_units() + trimmed != ftl.logical_units() {
        return Err(format!(
            "after a fill {} of {} logical units are mapped and {trimmed} unmapped by trims",
            ftl.mapped_units(),
            ftl.logical_units()
        ));
    }
    let acknowledged = acknowledged_write_units(report, ftl.geometry.unit_bytes);
    let placed = ftl.counts.user_units;
    let lost: u64 = report
        .power_loss
        .as_ref()
        .map_or(0, |cuts| cuts.events.iter().map(|event| event.lost_writes).sum());
    match &report.buffer {
        None if placed != acknowledged => Err(format!(
            "{acknowledged} unit writes acknowledged but {placed} placed by the FTL"
        )),
        None => Ok(()),
        Some(buffer) => {
            if buffer.writes != acknowledged {
                return Err(format!(
                    "{acknowledged} unit writes acknowledged but the buffer took {}",
                    buffer.writes
                ));
            }
            if placed != buffer.flushed_units {
                return Err(format!(
                    "the buffer flushed {} units but the FTL placed {placed}",
                    buffer.flushed_units
                ));
            }
            let accounted =
                buffer.flushed_units + buffer.coalesced + u64::from(buffer.held_units) + buffer.trimmed_units + lost;
            if accounted < buffer.writes {
                return Err(format!(
                    "the buffer took {} unit writes; flushed {} + coalesced {} + held {} + trimmed {} + lost {lost} \
                     account for only {accounted}",
                    buffer.writes, buffer.flushed_units, buffer.coalesced, buffer.held_units, buffer.trimmed_units
                ));
            }
            if buffer.flushed_units + buffer.coalesced > buffer.writes {
                return Err(format!(
                    "the buffer flushed {} and coalesced {} of only {} unit writes taken",
                    buffer.flushed_units, buffer.coalesced, buffer.writes
                ));
            }
            Ok(())
        }
    }
}

/// A filled drive after random writes of twice its logical capacity (GC running), with or
/// without a write buffer: the simulation and its report.
fn finished_run(buffered: bool) -> (Simulation, Report) {
    let mut settings = vec![
        "flash.channels=2",
        "flash.dies_per_chip=1",
        "flash.blocks_per_plane=32",
        "flash.pages_per_block=16",
        "workload.read_fraction=0.2",
        "workload.precondition=fill",
        "host.queue_depth=16",
    ];
    if buffered {
        settings.extend(["buffer.capacity=256KiB", "buffer.flush_order=lidf"]);
    }
    let mut scenario = scenario(&settings);
    let logical = u64::from(
        Simulation::new(&scenario)
            .expect("valid scenario")
            .ftl()
            .logical_units(),
    );
    scenario.workload.io_count = 3 * logical;
    let mut simulation = Simulation::new(&scenario).expect("valid scenario");
    let report = simulation.run(&mut |_| true).expect("the run completes");
    (simulation, report)
}

#[test]
fn a_clean_run_passes_every_loss_check_with_and_without_a_write_buffer() {
    for buffered in [false, true] {
        let (simulation, report) = finished_run(buffered);
        assert!(report.flash.gc_programs > 0, "GC ran");
        assert_eq!(report.buffer.is_some(), buffered);
        check_no_loss(&simulation, &report, true).unwrap_or_else(|error| panic!("buffered {buffered}: {error}"));
    }
}

#[test]
fn a_unit_lost_from_both_maps_consistently_fails_the_loss_checks_but_not_the_map_invariants() {
    let (mut simulation, report) = finished_run(false);
    let lost = simulation.ftl().logical_units() / 2;
    simulation.ftl_mut().lose_unit(lost);
    assert_eq!(
        simulation.ftl().check_invariants(),
        Ok(()),
        "the maps alone cannot see the loss"
    );
    let error = check_no_loss(&simulation, &report, true).expect_err("a lost unit fails the checks");
    assert!(
        error.contains(&format!("logical unit {lost} ")) && error.contains("lost"),
        "{error}"
    );
}

#[test]
fn a_lost_unit_leaves_fewer_mapped_units_than_logical_after_a_fill() {
    let (mut simulation, _) = finished_run(false);
    let logical = simulation.ftl().logical_units();
    simulation.ftl_mut().lose_unit(7);
    assert_eq!(simulation.ftl().mapped_units(), logical - 1);
}

#[test]
fn an_acknowledged_write_that_never_reached_the_ftl_fails_the_accounting() {
    for buffered in [false, true] {
        let (simulation, mut report) = finished_run(buffered);
        // One more acknowledged unit than the drive took: as if a write were acknowledged and dropped.
        report.workload.jobs[0].write.io_bytes += simulation.ftl().geometry.unit_bytes;
        let error = check_no_loss(&simulation, &report, true).expect_err("a dropped write fails the accounting");
        assert!(error.contains("acknowledged"), "buffered {buffered}: {error}");
    }
}
