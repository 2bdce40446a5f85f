//! Theory check of trims (issue 29): under uniform random writes over a logical space of which a
//! fixed share was trimmed once and never written again, steady-state write amplification is that
//! of a drive whose spare space includes the trimmed share.
//!
//! The models are `theory.rs`'s (the FIFO / cyclic-log model of Desnoyers and Hu et al., and
//! Agarwal and Marrow's greedy lower bound) with the log `T` accounted as there. Trimmed units hold
//! no valid data and are never written, so the data GC works on is `U' = (1 − s) · U` for a
//! trimmed share `s` of the `U` logical units: the FIFO model with `alpha = T / U'` and the greedy
//! bound with spare factor `rho = (T − U') / U'`. The trim goes through the host path (one
//! command through the live API), after `steady` preconditioning of the whole space; the writes
//! arrive open loop at a moderate rate (GC keeps up, as the models assume) and WAF is measured
//! over the writes after a warm-up, from the FTL's own counters.

use ssdtwin_core::base::rng::Rng;
use ssdtwin_core::base::time::{Duration, Time};
use ssdtwin_core::host::command::CommandSpec;
use ssdtwin_core::sim::live::{LiveCompletion, LiveSimulation};
use ssdtwin_core::Scenario;

use crate::theory::{fifo_waf, greedy_waf_lower};
use crate::{dies, relative_error, scenario, units_per_page};

/// The drive and preconditioning of `theory.rs`'s steady-state test, GC pacing spelt out
/// (`threshold`, what that test runs on), with victim policy `policy`.
fn drive(policy: &str) -> Scenario {
    let policy = format!("ftl.gc_policy={policy}");
    scenario(&[
        "flash.channels=1",
        "flash.blocks_per_plane=256",
        "ftl.gc_pacing=threshold",
        "workload.read_fraction=0.0",
        "workload.precondition=steady",
        "workload.steady_overwrites=3.0",
        "host.mode=open",
        "host.queue_depth=32",
        &policy,
    ])
}

/// The steady-state WAF of uniform random 4 KiB writes over the first `1 − share` of the logical
/// space after the rest was trimmed once: warm-up writes of 1.5x the written space, then 2x
/// measured, 1,000 writes per second. Also the logical units.
fn trimmed_waf(scenario: &Scenario, share: f64) -> (f64, u32) {
    let mut live = LiveSimulation::new(scenario, &mut |_| true).expect("valid scenario");
    let logical = live.ftl().logical_units();
    let written = ((1.0 - share) * f64::from(logical)).round() as u32;
    let trim = CommandSpec {
        is_read: false,
        trim: true,
        flush: false,
        fua: false,
        first_unit: written,
        units: logical - written,
        head_gap: 0,
        tail_gap: 0,
        placement: 0,
    };
    if trim.units > 0 {
        live.submit(Time::ZERO, trim, 0);
    }
    let mut rng = Rng::stream(scenario.seed, "theory_trim");
    let gap = Duration::from_micros(1000);
    let warmup = u64::from(written) * 3 / 2;
    let measured = u64::from(written) * 2;
    let mut done: Vec<LiveCompletion> = Vec::new();
    let mut at = Time::ZERO + gap;
    let mut base = None;
    for tag in 1..=warmup + measured {
        if tag == warmup + 1 {
            base = Some(live.ftl().counts);
        }
        let write = CommandSpec {
            is_read: false,
            trim: false,
            flush: false,
            fua: false,
            first_unit: rng.below(u64::from(written)) as u32,
            units: 1,
            head_gap: 0,
            tail_gap: 0,
            placement: 0,
        };
        live.submit(at, write, tag);
        at += gap;
        live.take_completions(&mut done);
        done.clear();
    }
    while live.step().expect("the drive keeps up") {}
    let (base, end) = (base.expect("warm-up done"), live.ftl().counts);
    assert_eq!(
        end.trimmed_units,
        u64::from(logical - written),
        "the trim reached the FTL"
    );
    assert_eq!(
        live.ftl().mapped_units(),
        written,
        "the trimmed units stay unmapped, the others mapped"
    );
    let user = (end.user_units - base.user_units) as f64;
    let gc = (end.gc_units - base.gc_units) as f64;
    (1.0 + gc / user, logical)
}

#[test]
fn steady_state_waf_with_a_trimmed_share_is_that_of_a_drive_with_the_share_as_spare() {
    let share = 0.25;
    let scenario = drive("fifo");
    let (fifo, logical) = trimmed_waf(&scenario, share);
    let (greedy, _) = trimmed_waf(&drive("greedy"), share);
    // The log T, as in `theory.rs`: per plane the blocks less the G - 1/2 free ones GC holds on
    // average, the two open blocks half written.
    let flash = &scenario.flash;
    let planes = f64::from(dies(&scenario) * flash.planes_per_die);
    let blocks = f64::from(flash.blocks_per_plane);
    let trigger = (scenario.ftl.gc_threshold * blocks).ceil().max(2.0);
    let units_per_block = (units_per_page(&scenario) * u64::from(flash.pages_per_block)) as f64;
    let log_units = planes * (blocks - trigger - 0.5) * units_per_block;
    let data = (1.0 - share) * f64::from(logical);
    let rho = (log_units - data) / data;
    let (lower, upper) = (greedy_waf_lower(rho), fifo_waf(1.0 + rho));
    let untrimmed = fifo_waf(log_units / f64::from(logical));
    eprintln!(
        "trimmed share {share}: WAF fifo {fifo:.4}, greedy {greedy:.4}; spare factor with the share {rho:.4}: \
         FIFO model {upper:.4}, greedy bound {lower:.4}; FIFO model without the share as spare {untrimmed:.4}"
    );
    assert!(
        relative_error(fifo, upper) < 0.02,
        "FIFO policy WAF {fifo} vs the FIFO model with the trimmed share as spare {upper}"
    );
    assert!(
        greedy >= lower && greedy <= upper,
        "greedy WAF {greedy} outside [{lower}, {upper}]"
    );
    assert!(
        fifo < 0.8 * untrimmed,
        "the trimmed share must count as spare: {fifo} vs {untrimmed} without it"
    );
}
