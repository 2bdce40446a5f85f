//! Unit tests of the power model: profile energy across suspend and resume, time series against
//! the energy totals.

use super::*;

fn us(micros: u64) -> Time {
    Time::from_nanos(micros * 1000)
}

fn config() -> PowerConfig {
    PowerConfig {
        program_profile: vec![(0.2, 2.0), (0.3, 0.5), (0.2, 2.0), (0.3, 0.5)],
        sample_interval: Duration::from_micros(100),
        ..PowerConfig::default()
    }
}

#[test]
fn a_resumed_program_completes_its_profile_energy() {
    let config = PowerConfig {
        icc_suspended_ma: 2.0,
        ..config()
    };
    let program = Duration::from_micros(1000);
    let mut whole = PowerModel::new(&config, 1, 1, 3);
    whole.die_op_start(us(0), 0, us(0), OpClass::Program, 1, program);
    whole.die_op_end(us(1000), 0);
    let (_, whole_energy, _) = whole.finish(us(1300));

    // Suspended at 250 us (inside the second segment), resume requested at 400 us, the array
    // restarts at 550 us and runs the remaining 750 us of the profile.
    let mut split = PowerModel::new(&config, 1, 1, 3);
    split.die_op_start(us(0), 0, us(0), OpClass::Program, 1, program);
    split.die_op_interrupt(us(250), 0, us(250));
    split.die_op_resume(us(400), 0, us(550), Duration::ZERO);
    split.die_op_end(us(1300), 0);
    let (_, split_energy, _) = split.finish(us(1300));

    let milliwatts = |milliamperes: f64| config.vcc_v * milliamperes * 1e-3;
    let standby = config.vcc_v * config.isb_ua * 1e-6;
    let expected = whole_energy.nand - standby * 300e-6
        + milliwatts(config.icc_suspended_ma) * 150e-6
        + milliwatts(config.icc_bus_idle_ma) * 150e-6;
    assert!(
        (split_energy.nand - expected).abs() < 1e-12,
        "{} vs {expected}",
        split_energy.nand
    );
    let profile = whole.profiles().energy(OpClass::Program, 1, program);
    assert!((whole_energy.nand - profile - standby * 300e-6).abs() < 1e-12);
}

#[test]
fn extra_ispp_time_on_resume_repeats_the_profile_before_the_stop() {
    // As above, but the resume repeats the 100 us before the stop at 250 us (150-250 us of the
    // profile: 50 us at 2.0x and 50 us at 0.5x the program current) and the array ends 100 us
    // later, at 1,400 us.
    let config = config();
    let program = Duration::from_micros(1000);
    let run = |rewind: u64, end: u64| {
        let mut model = PowerModel::new(&config, 1, 1, 3);
        model.die_op_start(us(0), 0, us(0), OpClass::Program, 1, program);
        model.die_op_interrupt(us(250), 0, us(250));
        model.die_op_resume(us(400), 0, us(550), Duration::from_micros(rewind));
        model.die_op_end(us(end), 0);
        model.finish(us(1400)).1.nand
    };
    let plain = run(0, 1300);
    let rewound = run(100, 1400);
    let milliwatts = |milliamperes: f64| config.vcc_v * milliamperes * 1e-3;
    let standby = config.vcc_v * config.isb_ua * 1e-6;
    let expected = milliwatts(config.icc_program_ma.for_type(1)) * (2.0 * 50e-6 + 0.5 * 50e-6) - standby * 100e-6;
    assert!(
        (rewound - plain - expected).abs() < 1e-12,
        "{} vs {expected}",
        rewound - plain
    );
}

#[test]
fn time_series_integrates_to_the_energy() {
    let config = config();
    let mut model = PowerModel::new(&config, 2, 4, 3);
    model.die_op_start(us(10), 0, us(20), OpClass::Program, 0, Duration::from_micros(700));
    model.transfer(us(10), 0, us(20), Duration::from_micros(10), Direction::In);
    model.die_op_start(us(30), 3, us(35), OpClass::Read, 2, Duration::from_micros(80));
    model.command(us(30));
    model.dram_access(us(40), 4096);
    model.transfer(us(115), 3, us(140), Duration::from_micros(12), Direction::Out);
    model.die_op_end(us(140), 3);
    model.host_completion(us(141), 4096);
    model.die_op_end(us(720), 0);
    let (power, energy, series) = model.finish(us(1050));
    assert_eq!(series.len(), 11, "10 whole intervals of 100 us and a last one of 50 us");
    let lengths: Vec<f64> = (0..series.len())
        .map(|index| if index == 10 { 50e-6 } else { 100e-6 })
        .collect();
    let integral = |column: &[f64]| column.iter().zip(&lengths).map(|(p, t)| p * t).sum::<f64>();
    let totals = [
        energy.nand,
        energy.io_bus,
        energy.controller,
        energy.dram,
        energy.other,
        energy.total,
    ];
    for (index, expected) in totals.iter().enumerate() {
        let got = integral(&series.power_w[index]);
        assert!((got - expected).abs() < 1e-12, "component {index}: {got} vs {expected}");
    }
    assert_eq!(series.iops[1], 1.0 / 100e-6, "one completion in the second interval");
    assert!(
        power.nand_peak >= power.nand_peak_window && power.nand_peak_window >= power.nand_avg,
        "{power:?}"
    );
}
