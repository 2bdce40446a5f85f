//! Tests of the synthetic workload (`synthetic.rs`): read, trim and size shares, alignment, the
//! plain path against the general one, batches drawn ahead, sequential streams, popularity.

use super::*;
use crate::base::units::ByteSize;

fn generator(config: &WorkloadConfig, span: u32) -> Synthetic {
    Synthetic::new(config, 4096, span, Rng::stream(1, "workload"))
}

#[test]
fn read_fraction_and_alignment_hold() {
    let config = WorkloadConfig {
        read_fraction: 0.3,
        block_size: ByteSize(16384),
        ..WorkloadConfig::default()
    };
    let mut synthetic = generator(&config, 1000);
    let commands: Vec<_> = (0..50_000).map(|_| synthetic.next_command()).collect();
    let reads = commands.iter().filter(|c| c.is_read).count() as f64 / commands.len() as f64;
    assert!((reads - 0.3).abs() < 0.01, "{reads}");
    assert!(commands
        .iter()
        .all(|c| c.units == 4 && c.first_unit % 4 == 0 && c.first_unit + 4 <= 1000));
}

#[test]
fn trim_fraction_takes_its_share_from_the_writes() {
    let config = WorkloadConfig {
        read_fraction: 0.5,
        trim_fraction: 0.2,
        ..WorkloadConfig::default()
    };
    let mut synthetic = generator(&config, 1000);
    let commands: Vec<_> = (0..50_000).map(|_| synthetic.next_command()).collect();
    let share =
        |keep: fn(&CommandSpec) -> bool| commands.iter().filter(|c| keep(c)).count() as f64 / commands.len() as f64;
    let (reads, trims) = (share(|c| c.is_read), share(|c| c.trim));
    assert!(
        (reads - 0.5).abs() < 0.01 && (trims - 0.2).abs() < 0.01,
        "{reads} {trims}"
    );
    assert!(commands.iter().all(|c| !(c.is_read && c.trim)));
    // A trim fraction of 0 leaves the commands of the same seed as they were.
    let plain = WorkloadConfig {
        read_fraction: 0.5,
        ..WorkloadConfig::default()
    };
    let mut plain = generator(&plain, 1000);
    for command in &commands[..1000] {
        let other = plain.next_command();
        assert!(!other.trim);
        assert_eq!((command.first_unit, command.is_read), (other.first_unit, other.is_read));
    }
}

#[test]
fn a_plain_stream_shows_each_batch_once_at_its_first_command() {
    // `drawn_ahead` shows the next AHEAD commands, handed out since in that order (that they
    // are the one-at-a-time stream is the next test's: the general path draws one at a time).
    let config = WorkloadConfig {
        read_fraction: 0.5,
        ..WorkloadConfig::default()
    };
    let mut stream = generator(&config, 1000);
    assert!(stream.draw_ahead());
    let (mut handed, mut shown) = (Vec::new(), Vec::new());
    for index in 0..5 * AHEAD + 3 {
        handed.push(stream.next_command());
        assert_eq!(stream.drawn_ahead().is_empty(), index % AHEAD != 0, "command {index}");
        shown.extend_from_slice(stream.drawn_ahead());
    }
    assert_eq!((shown.len(), &shown[..handed.len()]), (6 * AHEAD, &handed[..]));
}

#[test]
fn plain_streams_draw_what_the_general_path_draws() {
    let config = WorkloadConfig {
        read_fraction: 0.6,
        trim_fraction: 0.1,
        block_size: ByteSize(8192),
        ..WorkloadConfig::default()
    };
    let mut plain = generator(&config, 1001);
    assert_eq!(plain.plain, Some((2, 500)));
    let mut general = plain.clone();
    general.plain = None;
    assert!(plain.draw_ahead() && !general.draw_ahead());
    for _ in 0..20_000 {
        assert_eq!(plain.next_command(), general.next_command());
    }
    // Any feature on takes the general path.
    let features = [
        WorkloadConfig {
            bssplit: vec![(ByteSize(4096), 1.0), (ByteSize(8192), 1.0)],
            ..config.clone()
        },
        WorkloadConfig {
            block_size: ByteSize(2048),
            ..config.clone()
        },
        WorkloadConfig {
            pattern: Pattern::Sequential,
            ..config.clone()
        },
        WorkloadConfig {
            sequential_fraction: 0.1,
            ..config.clone()
        },
        WorkloadConfig {
            distribution: Distribution::Zipf,
            ..config.clone()
        },
        WorkloadConfig {
            flush_every: 4,
            ..config.clone()
        },
        WorkloadConfig {
            fua_fraction: 0.5,
            ..config.clone()
        },
    ];
    for config in &features {
        assert_eq!(generator(config, 1001).plain, None, "{config:?}");
    }
}

#[test]
fn sequential_wraps_in_span() {
    let config = WorkloadConfig {
        pattern: Pattern::Sequential,
        ..WorkloadConfig::default()
    };
    let mut synthetic = generator(&config, 3);
    let starts: Vec<u32> = (0..5).map(|_| synthetic.next_command().first_unit).collect();
    assert_eq!(starts, [0, 1, 2, 0, 1]);
}

#[test]
fn sequential_fraction_continues_the_previous_command() {
    let config = WorkloadConfig {
        sequential_fraction: 0.25,
        ..WorkloadConfig::default()
    };
    let mut synthetic = generator(&config, 1 << 20);
    let commands: Vec<_> = (0..40_000).map(|_| synthetic.next_command()).collect();
    let continued = commands
        .windows(2)
        .filter(|pair| pair[1].first_unit == pair[0].first_unit + pair[0].units)
        .count() as f64
        / 39_999.0;
    // Random offsets land on the next unit by chance once in 2^20 draws.
    assert!((continued - 0.25).abs() < 0.01, "{continued}");
}

#[test]
fn zero_sequential_fraction_leaves_the_random_stream_unchanged() {
    let mut plain = generator(&WorkloadConfig::default(), 1 << 20);
    let config = WorkloadConfig {
        sequential_fraction: 0.0,
        ..WorkloadConfig::default()
    };
    let mut zero = generator(&config, 1 << 20);
    for _ in 0..1000 {
        let (a, b) = (plain.next_command(), zero.next_command());
        assert_eq!((a.is_read, a.first_unit, a.units), (b.is_read, b.first_unit, b.units));
    }
}

#[test]
fn bssplit_follows_weights() {
    let config = WorkloadConfig {
        bssplit: vec![(ByteSize(4096), 3.0), (ByteSize(8192), 1.0)],
        ..WorkloadConfig::default()
    };
    let mut synthetic = generator(&config, 1 << 20);
    let small = (0..40_000).filter(|_| synthetic.next_command().units == 1).count() as f64 / 40_000.0;
    assert!((small - 0.75).abs() < 0.01, "{small}");
}

#[test]
fn jesd219_on_a_tiny_span_stays_in_the_span() {
    let config = WorkloadConfig {
        distribution: Distribution::Jesd219,
        ..WorkloadConfig::default()
    };
    let mut synthetic = generator(&config, 2);
    assert!((0..1000).all(|_| synthetic.next_command().first_unit < 2));
}

#[test]
fn jesd219_sends_half_the_accesses_to_five_percent() {
    let config = WorkloadConfig {
        distribution: Distribution::Jesd219,
        ..WorkloadConfig::default()
    };
    let mut synthetic = generator(&config, 100_000);
    let hot = (0..100_000)
        .filter(|_| synthetic.next_command().first_unit < 5_000)
        .count() as f64
        / 100_000.0;
    assert!((hot - 0.5).abs() < 0.01, "{hot}");
}
