//! The throttling policies as state machines over temperatures (docs/models/thermal.md,
//! "Throttling"): thresholds, hysteresis, the pre-throttling ladder, and the state accounting.

use super::params::{ThrottleConfig, ThrottlePolicy};
use super::{Baseline, Limits, Readings, Throttle, ThrottleState};
use crate::base::time::{Duration, Time};

const BASELINE: Baseline = Baseline {
    queue_depth: 8,
    frame_buffer: 1024,
    min_frame_buffer: 8,
};

fn config(policy: ThrottlePolicy) -> ThrottleConfig {
    ThrottleConfig {
        policy,
        ..ThrottleConfig::default()
    }
}

fn at(seconds: f64) -> Time {
    Time::ZERO + Duration::from_secs_f64(seconds)
}

/// Both sensors at `t`.
fn both(t: f64) -> Readings {
    Readings {
        composite_c: t,
        hottest_nand_c: t,
    }
}

/// Feeds (time, temperature) pairs; returns the limits in force after each.
fn run(throttle: &mut Throttle, steps: &[(f64, f64)]) -> Vec<Limits> {
    steps
        .iter()
        .map(|&(time, t)| {
            throttle.update(at(time), both(t));
            *throttle.limits()
        })
        .collect()
}

#[test]
fn nvme_enters_light_at_tmt1_heavy_at_tmt2_and_leaves_with_hysteresis() {
    // TMT1 75, TMT2 80, hysteresis 3 K (the defaults).
    let mut throttle = Throttle::new(&config(ThrottlePolicy::Nvme), BASELINE, Time::ZERO);
    let temps = [74.9, 75.0, 79.9, 80.0, 77.5, 76.9, 72.5, 71.9, 80.5];
    let steps: Vec<(f64, f64)> = temps.iter().enumerate().map(|(i, &t)| (i as f64, t)).collect();
    let states: Vec<ThrottleState> = run(&mut throttle, &steps).iter().map(|l| l.state).collect();
    use ThrottleState::*;
    assert_eq!(
        states,
        [Off, Light, Light, Heavy, Heavy, Light, Light, Off, Heavy],
        "heavy holds down to TMT2 - 3 = 77 K, light down to TMT1 - 3 = 72"
    );
    // Heavy: 12.5% of the dies per channel and the lower power state; light: 50%, full power.
    let light = Throttle::new(&config(ThrottlePolicy::Nvme), BASELINE, Time::ZERO);
    let mut light = light;
    light.update(at(0.0), both(76.0));
    assert_eq!(light.limits().array_fraction, 0.5);
    assert_eq!(light.limits().controller_power, 1.0);
    light.update(at(1.0), both(81.0));
    assert_eq!(light.limits().array_fraction, 0.125);
    assert_eq!(light.limits().controller_power, 0.7);
    assert_eq!(light.limits().queue_depth, 8, "nvme does not touch the host queue");
}

#[test]
fn cst_throttles_at_the_threshold_until_below_release() {
    let mut throttle = Throttle::new(&config(ThrottlePolicy::Cst), BASELINE, Time::ZERO);
    let steps = [
        (0.0, 79.0),
        (1.0, 80.0),
        (2.0, 76.0),
        (3.0, 75.0),
        (4.0, 74.9),
        (5.0, 79.9),
    ];
    let limits = run(&mut throttle, &steps);
    let cst: Vec<Duration> = limits.iter().map(|l| l.cst).collect();
    let ten = Duration::from_millis(10);
    assert_eq!(cst, [Duration::ZERO, ten, ten, ten, Duration::ZERO, Duration::ZERO]);
    assert!(limits
        .iter()
        .all(|l| l.queue_depth == 8 && l.frame_buffer == 1024 && l.array_fraction == 1.0));
    // The hottest NAND package decides, not the composite.
    let mut throttle = Throttle::new(&config(ThrottlePolicy::Cst), BASELINE, Time::ZERO);
    throttle.update(
        at(0.0),
        Readings {
            composite_c: 95.0,
            hottest_nand_c: 70.0,
        },
    );
    assert_eq!(throttle.limits().state, ThrottleState::Off);
}

#[test]
fn preopt_ladder_halves_queue_depth_then_frame_buffer() {
    let policy = super::cst_preopt::CstPreopt::new(&config(ThrottlePolicy::CstPreopt), BASELINE);
    assert_eq!(
        policy.ladder(),
        [(8, 1024), (4, 1024), (2, 1024), (1, 1024), (1, 512), (1, 256), (1, 128)]
    );
    // Never below one program's units.
    let small = Baseline {
        queue_depth: 3,
        frame_buffer: 20,
        min_frame_buffer: 8,
    };
    let policy = super::cst_preopt::CstPreopt::new(&config(ThrottlePolicy::CstPreopt), small);
    assert_eq!(policy.ladder(), [(3, 20), (1, 20), (1, 10), (1, 8)]);
}

#[test]
fn preopt_steps_down_above_pre_throttle_throttles_and_resumes_one_level_lower() {
    // pre-throttle 72, throttle 80, release 75, hysteresis 3, one step per second.
    let mut throttle = Throttle::new(&config(ThrottlePolicy::CstPreopt), BASELINE, Time::ZERO);
    let steps = [
        (0.0, 70.0), // level 0
        (1.0, 72.0), // level 1 (QD 4)
        (1.5, 73.0), // too soon for another step
        (2.0, 74.0), // level 2 (QD 2)
        (2.5, 80.0), // throttled at level 2: CST on
        (3.0, 76.0), // still throttled (release below 75)
        (3.5, 74.0), // released: one level below the one before throttling, level 3 (QD 1)
        (4.0, 70.0), // between 69 and 72: hold
        (4.6, 68.9), // below 72 - 3: climb one level (QD 2)
    ];
    let limits = run(&mut throttle, &steps);
    let qd: Vec<u32> = limits.iter().map(|l| l.queue_depth).collect();
    assert_eq!(qd, [8, 4, 4, 2, 2, 2, 1, 1, 2]);
    let throttled: Vec<bool> = limits.iter().map(|l| l.cst > Duration::ZERO).collect();
    assert_eq!(throttled, [false, false, false, false, true, true, false, false, false]);
    use ThrottleState::*;
    let states: Vec<ThrottleState> = limits.iter().map(|l| l.state).collect();
    assert_eq!(states, [Off, Light, Light, Light, Heavy, Heavy, Light, Light, Light]);
}

#[test]
fn throttle_counts_events_entries_and_time_per_state() {
    let mut throttle = Throttle::new(&config(ThrottlePolicy::Nvme), BASELINE, Time::ZERO);
    run(
        &mut throttle,
        &[(1.0, 76.0), (3.0, 81.0), (4.0, 76.0), (6.0, 70.0), (10.0, 76.0)],
    );
    let report = throttle.report(at(12.0));
    assert_eq!(report.policy, "nvme");
    // off→light, light→heavy, off→light: three upward transitions.
    assert_eq!(report.events, 3);
    assert_eq!(
        report.entries["light"], 3,
        "entered at 1 s, back from heavy at 4 s, at 10 s"
    );
    assert_eq!(report.entries["heavy"], 1);
    let time = |state: &str| report.state_time_s[state];
    assert!((time("off") - 5.0).abs() < 1e-9, "0-1 s and 6-10 s");
    assert!((time("light") - 6.0).abs() < 1e-9, "1-3, 4-6, 10-12 s");
    assert!((time("heavy") - 1.0).abs() < 1e-9);
    assert!((report.time_s - 7.0).abs() < 1e-9);
    assert_eq!(report.transitions.len(), 5);
}

#[test]
fn none_never_throttles() {
    let mut throttle = Throttle::new(&config(ThrottlePolicy::None), BASELINE, Time::ZERO);
    assert!(!throttle.active());
    assert_eq!(throttle.update(at(1.0), both(150.0)), None);
    assert_eq!(*throttle.limits(), Limits::full(&BASELINE));
}

#[test]
fn bad_thresholds_name_their_key() {
    let mut bad = config(ThrottlePolicy::Nvme);
    bad.tmt1_c = 80.0;
    assert_eq!(bad.validate().unwrap_err().key, "throttle.tmt1_c");
    let mut bad = config(ThrottlePolicy::Cst);
    bad.release_c = 85.0;
    assert_eq!(bad.validate().unwrap_err().key, "throttle.release_c");
    let mut bad = config(ThrottlePolicy::CstPreopt);
    bad.pre_throttle_c = 80.0;
    assert_eq!(bad.validate().unwrap_err().key, "throttle.pre_throttle_c");
    let mut bad = config(ThrottlePolicy::Nvme);
    bad.heavy_array_fraction = 0.0;
    assert_eq!(bad.validate().unwrap_err().key, "throttle.heavy_array_fraction");
}

#[test]
fn a_zero_cst_is_no_throttling() {
    let mut zero = config(ThrottlePolicy::Cst);
    zero.cst = Duration::ZERO;
    let mut throttle = Throttle::new(&zero, BASELINE, Time::ZERO);
    assert_eq!(throttle.update(at(1.0), both(95.0)), None);
    let report = throttle.report(at(2.0));
    assert_eq!(report.events, 0);
    assert_eq!(report.time_s, 0.0);
}
