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

/// Every figure of a finished model, as bits (so equal means byte-identical reports).
fn fingerprint(model: &mut PowerModel, end: Time) -> Vec<u64> {
    let (power, energy, series) = model.finish(end);
    let mut bits: Vec<u64> = [
        power.nand_avg,
        power.nand_peak,
        power.nand_peak_window,
        power.io_bus_avg,
        power.total_avg,
        power.total_peak,
        energy.nand,
        energy.io_bus,
        energy.controller,
        energy.total,
    ]
    .iter()
    .map(|value| value.to_bits())
    .collect();
    for column in &series.power_w {
        bits.extend(column.iter().map(|value| value.to_bits()));
    }
    bits
}

#[test]
fn program_start_accounts_bit_for_bit_like_op_start_then_transfer() {
    // Two dies on one channel; die 0 programs three times: its load starting later than the
    // grant (behind the channel's delay), then at once, then at the instant its read's data-out
    // ends; die 1 reads meanwhile. With and without a data-in current (without, the die's power
    // before and after the start can be equal). The same sequence through `program_start` and
    // through the two hooks it stands for gives the same bits.
    for io_write_ma in [config().icc_io_write_ma, 0.0] {
        let config = PowerConfig {
            icc_io_write_ma: io_write_ma,
            ..config()
        };
        let program = Duration::from_micros(300);
        let run = |single: bool| {
            let mut model = PowerModel::new(&config, 1, 2, 3);
            let start = |model: &mut PowerModel, now: u64, begin: u64, load: u64| {
                if single {
                    model.program_start(us(now), 0, us(begin), 1, program, Duration::from_micros(load));
                } else {
                    model.die_op_start(us(now), 0, us(begin), OpClass::Program, 1, program);
                    model.transfer(us(now), 0, us(begin), Duration::from_micros(load), Direction::In);
                }
            };
            start(&mut model, 10, 30, 20);
            model.die_op_start(us(15), 1, us(20), OpClass::Read, 0, Duration::from_micros(50));
            model.transfer(us(70), 1, us(90), Duration::from_micros(20), Direction::Out);
            model.die_op_end(us(90), 1);
            model.die_op_end(us(330), 0);
            start(&mut model, 400, 420, 20);
            model.die_op_end(us(750), 0);
            model.die_op_start(us(760), 0, us(765), OpClass::Read, 2, Duration::from_micros(40));
            model.transfer(us(805), 0, us(825), Duration::from_micros(20), Direction::Out);
            model.die_op_end(us(825), 0);
            start(&mut model, 825, 845, 20);
            model.die_op_end(us(1145), 0);
            fingerprint(&mut model, us(1300))
        };
        assert_eq!(run(true), run(false), "icc_io_write_ma = {io_write_ma}");
    }
}

#[test]
fn a_start_at_the_instant_of_the_end_accounts_bit_for_bit_like_two_updates() {
    // Die 0 chains operations, each starting at the instant the one before ends: a program whose
    // load waits, a read, a program whose load starts at once (right after the read's data-out:
    // the bus meter's power leaves and comes back), an erase; die 1 works meanwhile. Once as is
    // (the end's update waits and the start absorbs it where that is exact), once with a query
    // between end and start (which updates the ended die first): the same bits. ICC4R equals
    // ICC4W (the rail's power after the read comes back at the program's start), then not (the
    // bus meter's does).
    for (io_write_ma, skew) in [10.0, 0.0].iter().flat_map(|&ma| (0..40).map(move |skew| (ma, skew))) {
        let config = PowerConfig {
            icc_io_read_ma: 10.0,
            icc_io_write_ma: io_write_ma,
            io_bus_w: 0.012_345_678_9,
            ..config()
        };
        let program = Duration::from_micros(300);
        let run = |query: bool| {
            let mut model = PowerModel::new(&config, 1, 2, 3);
            let end = |model: &mut PowerModel, now: u64, die: u32| {
                model.die_op_end(us(now), die);
                if query {
                    model.energies_now(us(now));
                }
            };
            let ns = Time::from_nanos;
            model.program_start(us(10), 0, us(30), 1, program, Duration::from_micros(15));
            model.die_op_start(us(15), 1, us(20), OpClass::Read, 0, Duration::from_micros(50));
            model.transfer(us(70), 1, ns(77_777), Duration::from_nanos(7_777), Direction::Out);
            model.die_op_end(ns(77_777), 1);
            model.die_op_start(
                ns(77_777),
                1,
                ns(78_001),
                OpClass::Read,
                0,
                Duration::from_nanos(11_113),
            );
            // The data-out's length varies with `skew` (the float sums' rounding with it).
            let out_end = 90_013 + 97 * skew;
            model.transfer(
                ns(89_114),
                1,
                ns(out_end),
                Duration::from_nanos(out_end - 89_114),
                Direction::Out,
            );
            model.die_op_end(ns(out_end), 1);
            if query {
                model.energies_now(ns(out_end));
            }
            model.program_start(
                ns(out_end),
                1,
                us(110),
                0,
                program,
                Duration::from_nanos(110_000 - out_end),
            );
            end(&mut model, 330, 0);
            model.die_op_start(us(330), 0, us(335), OpClass::Read, 2, Duration::from_micros(40));
            model.transfer(us(375), 0, us(395), Duration::from_micros(20), Direction::Out);
            end(&mut model, 395, 0);
            model.program_start(us(395), 0, us(415), 2, program, Duration::from_micros(20));
            end(&mut model, 410, 1);
            model.die_op_start(us(410), 1, us(412), OpClass::Erase, 0, Duration::from_micros(200));
            end(&mut model, 715, 0);
            model.command(us(715));
            model.die_op_start(us(715), 0, us(716), OpClass::Erase, 0, Duration::from_micros(100));
            end(&mut model, 816, 0);
            end(&mut model, 900, 1);
            fingerprint(&mut model, us(1000))
        };
        assert_eq!(run(false), run(true), "icc_io_write_ma = {io_write_ma}, skew {skew}");
    }
}
