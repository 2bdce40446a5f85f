//! Unit tests of the fio job-file parser and command streams.

use super::parse::parse;
use super::stream::*;
use super::values::*;
use crate::base::rng::Rng;
use crate::base::time::Time;
use crate::host::command::CommandSpec;

const GIB: u64 = 1 << 30;

#[test]
fn sizes_follow_kb_base() {
    assert_eq!(parse_size("4k", 1024), Some(4096));
    assert_eq!(parse_size("4K", 1024), Some(4096));
    assert_eq!(parse_size("4kb", 1024), Some(4096));
    assert_eq!(
        parse_size("4KiB", 1024),
        Some(4000),
        "IEC means 10^3 in compatibility mode"
    );
    assert_eq!(parse_size("4k", 1000), Some(4000));
    assert_eq!(parse_size("4KiB", 1000), Some(4096));
    assert_eq!(parse_size("1m", 1024), Some(1 << 20));
    assert_eq!(parse_size("1.5k", 1024), Some(1536));
    assert_eq!(parse_size("0x200", 1024), Some(512));
    assert_eq!(parse_size("4q", 1024), None);
    assert_eq!(parse_size("", 1024), None);
}

#[test]
fn bssplit_shares_the_rest_among_unweighted_entries() {
    let sizes = parse_bssplit("4k/50:8k:16k", 1024).unwrap();
    assert_eq!(sizes.iter().map(|(s, _)| *s).collect::<Vec<_>>(), [4096, 8192, 16384]);
    assert!((sizes[0].1 - 0.5).abs() < 1e-12 && (sizes[1].1 - 0.75).abs() < 1e-12);
    assert!(parse_bssplit("4k/80:8k/30", 1024).is_none());
}

#[test]
fn global_options_are_inherited_and_overridden() {
    let text = "; comment\n[global]\nbs=8k\niodepth=4\nrw=randrw\nrwmixread=70\nsize=1g\n\n\
                [a]\n[b]\nrwmixwrite=10\niodepth=16\nbs=4k,16k\nnumjobs=2\n";
    let file = parse(text, "x.fio", 4 * GIB, false).unwrap();
    assert_eq!(file.jobs.len(), 3);
    let a = &file.jobs[0];
    assert_eq!((a.iodepth, a.read_sizes[0].0, a.size), (4, 8192, GIB));
    assert!((a.read_fraction - 0.7).abs() < 1e-12 && a.random);
    let b = &file.jobs[1];
    assert_eq!((b.iodepth, b.read_sizes[0].0, b.write_sizes[0].0), (16, 4096, 16384));
    assert!((b.read_fraction - 0.9).abs() < 1e-12);
    assert_eq!(file.jobs[2], *b);
}

#[test]
fn unsupported_options_are_listed_or_warned() {
    let text = "[j]\nrw=read\nverify=crc32\nrate=10m\nioengine=libaio\n";
    let error = parse(text, "x.fio", GIB, false).unwrap_err();
    assert!(
        error.contains("`verify` (line 3)") && error.contains("`rate` (line 4)"),
        "{error}"
    );
    let listed = error.split("; the supported").next().unwrap();
    assert!(!listed.contains("ioengine"), "{error}");
    let file = parse(text, "x.fio", GIB, true).unwrap();
    assert_eq!(file.warnings.len(), 1);
    assert!(file.warnings[0].contains("verify"));
}

#[test]
fn bad_values_name_file_line_and_option() {
    for (text, needle) in [
        ("[j]\nrw=erase\n", "x.fio:2: `rw=erase`"),
        ("[j]\nbs=4q\n", "x.fio:2: `bs=4q`"),
        ("[j]\nrandom_distribution=zoned:50/5:30/15\n", "random_distribution"),
        ("[j]\ntime_based\n", "no runtime"),
        ("[j]\nsize=2g\n", "does not fit"),
        ("rw=read\n", "outside a section"),
        ("[global]\nrw=read\n", "no job section"),
        ("[j]\niodepth=0\n", "iodepth=0"),
    ] {
        let error = parse(text, "x.fio", GIB, false).unwrap_err();
        assert!(error.contains(needle), "{text:?}: {error}");
    }
}

fn stream(text: &str, capacity: u64) -> FioWorkload {
    FioWorkload::new(parse(text, "t.fio", capacity, false).unwrap(), 4096, 1)
}

#[test]
fn trim_jobs_trim_their_region_sequentially_or_at_random() {
    let mut workload = stream("[j]\nrw=trim\nbs=4k,4k,64k\nsize=1m\n", GIB);
    let ios: Vec<FioIo> = std::iter::from_fn(|| workload.next_io(0, Time::ZERO)).collect();
    assert_eq!(ios.len(), 16, "1 MiB in 64 KiB trims (the third bs value)");
    assert!(ios
        .iter()
        .enumerate()
        .all(|(i, io)| io.trim && !io.is_read && io.offset == i as u64 * 65536 && io.length == 65536));
    let mut workload = stream("[j]\nrw=randtrim\nsize=1m\nnumber_ios=200\n", GIB);
    let ios: Vec<FioIo> = std::iter::from_fn(|| workload.next_io(0, Time::ZERO)).collect();
    assert_eq!(ios.len(), 200);
    assert!(ios
        .iter()
        .all(|io| io.trim && io.offset % 4096 == 0 && io.offset < 1 << 20));
    let sequential = ios
        .windows(2)
        .filter(|pair| pair[1].offset == pair[0].offset + 4096)
        .count();
    assert!(
        sequential < 20,
        "random offsets: {sequential} of 199 steps were sequential"
    );
}

#[test]
fn trimwrite_trims_a_block_then_writes_the_same_block() {
    // fio HOWTO: "trims alternating with writes, with trims preceding writes to the same
    // locations at their respective block sizes". A 16 KiB trim is followed by four 4 KiB writes.
    let mut workload = stream("[j]\nrw=trimwrite\nbs=4k,4k,16k\nsize=64k\n", GIB);
    let ios: Vec<(bool, u64, u64)> = std::iter::from_fn(|| workload.next_io(0, Time::ZERO))
        .map(|io| (io.trim, io.offset, io.length))
        .collect();
    let mut expected = Vec::new();
    for block in 0..2u64 {
        expected.push((true, block * 16384, 16384));
        for write in 0..4u64 {
            expected.push((false, block * 16384 + write * 4096, 4096));
        }
    }
    assert_eq!(&ios[..10], &expected[..], "{ios:?}");
    let file = parse("[j]\nrw=randtrimwrite\nnumber_ios=100\n", "t.fio", GIB, false).unwrap();
    let mut workload = FioWorkload::new(file, 4096, 1);
    let ios: Vec<FioIo> = std::iter::from_fn(|| workload.next_io(0, Time::ZERO)).collect();
    for pair in ios.chunks(2) {
        assert!(
            pair[0].trim && !pair[1].trim && pair[1].offset == pair[0].offset,
            "{pair:?}"
        );
    }
}

#[test]
fn size_bound_sequential_job_covers_its_region_once() {
    let mut workload = stream("[j]\nrw=write\nbs=16k\noffset=1m\nsize=1m\n", GIB);
    let ios: Vec<FioIo> = std::iter::from_fn(|| workload.next_io(0, Time::ZERO)).collect();
    assert_eq!(ios.len(), 64);
    assert!(ios
        .iter()
        .enumerate()
        .all(|(i, io)| io.offset == (1 << 20) + i as u64 * 16384 && !io.is_read));
}

#[test]
fn number_ios_and_runtime_stop_a_job() {
    let mut workload = stream("[j]\nrw=randread\nnumber_ios=10\n", GIB);
    assert_eq!(std::iter::from_fn(|| workload.next_io(0, Time::ZERO)).count(), 10);
    let mut workload = stream("[j]\nrw=randread\nruntime=2ms\ntime_based\n", GIB);
    assert!(workload.next_io(0, Time::from_nanos(1_999_999)).is_some());
    assert!(workload.next_io(0, Time::from_nanos(2_000_000)).is_none());
}

#[test]
fn pareto_sends_h_of_accesses_to_one_minus_h_of_the_region() {
    let mut workload = stream(
        "[j]\nrw=randread\nrandom_distribution=pareto:0.9\nnumber_ios=100000\n",
        GIB,
    );
    let hot = std::iter::from_fn(|| workload.next_io(0, Time::ZERO))
        .filter(|io| io.offset < GIB / 10)
        .count() as f64
        / 100_000.0;
    assert!((hot - 0.9).abs() < 0.01, "{hot}");
}

#[test]
fn zipf_favours_the_first_blocks() {
    let mut workload = stream(
        "[j]\nrw=randread\nrandom_distribution=zipf:1.2\nnumber_ios=50000\n",
        GIB,
    );
    let first_block = std::iter::from_fn(|| workload.next_io(0, Time::ZERO))
        .filter(|io| io.offset == 0)
        .count() as f64
        / 50_000.0;
    // P(rank 1) = 1 / H(N, 1.2) with N = 2^18 blocks: about 0.19.
    let normaliser: f64 = (1..=(GIB / 4096)).map(|k| (k as f64).powf(-1.2)).sum();
    assert!((first_block - 1.0 / normaliser).abs() < 0.01, "{first_block}");
}

/// Random job files and mutated valid ones: errors or jobs, never a panic, and every job
/// that parses generates I/Os inside its region.
#[test]
fn parser_and_generator_never_panic_on_garbage() {
    let mut rng = Rng::stream(5, "fuzz");
    let keys = [
        "rw",
        "bs",
        "bssplit",
        "blockalign",
        "iodepth",
        "size",
        "offset",
        "io_size",
        "number_ios",
        "runtime",
        "time_based",
        "random_distribution",
        "rwmixread",
        "numjobs",
        "kb_base",
        "name",
        "bogus",
    ];
    let values = [
        "randrw",
        "read",
        "4k",
        "0",
        "1.5k/30:4k",
        "zipf:1.2",
        "pareto:0.5",
        "zoned:50/5:50/95",
        "zoned:",
        "99999999999999999999",
        "50%",
        "0x10",
        "4k,",
        ",8k",
        "1ms",
        "-1",
        "",
        "4k/101",
        "pareto:1",
    ];
    let mut parsed = 0;
    for _ in 0..3_000 {
        let mut text = String::from("[global]\nnumber_ios=20\n[j]\n");
        for _ in 0..rng.below(6) {
            let key = keys[rng.below(keys.len() as u64) as usize];
            let value = values[rng.below(values.len() as u64) as usize];
            match rng.below(4) {
                0 => text.push_str(&format!("{key}\n")),
                1 => text.push_str(&format!("[{value}]\n")),
                _ => text.push_str(&format!("{key}={value}\n")),
            }
        }
        if let Ok(file) = parse(&text, "f.fio", GIB, rng.below(2) == 0) {
            parsed += 1;
            let jobs = file.jobs.clone();
            let mut workload = FioWorkload::new(file, 4096, 1);
            for (index, job) in jobs.iter().enumerate() {
                for _ in 0..50 {
                    let Some(io) = workload.next_io(index, Time::ZERO) else {
                        break;
                    };
                    assert!(
                        io.offset >= job.offset && io.offset + io.length <= job.offset + job.size,
                        "{text}"
                    );
                }
            }
        }
    }
    assert!(parsed > 100, "the fuzz reaches the generator: {parsed}");
    // Arbitrary bytes.
    let alphabet = b"[]=;#,:/%.0123456789kKmMgGiIbB \t\nrwandomzipfpareto\x00\xff";
    for _ in 0..3_000 {
        let bytes: Vec<u8> = (0..rng.below(120))
            .map(|_| alphabet[rng.below(alphabet.len() as u64) as usize])
            .collect();
        let _ = parse(&String::from_utf8_lossy(&bytes), "f.fio", GIB, true);
    }
}

#[test]
fn fdp_placement_identifiers_go_to_writes_in_turn_or_at_random() {
    let job = "[j]\nrw=randrw\nrwmixread=50\nnumber_ios=400\n";
    let commands = |extra: &str| {
        let file = parse(&format!("{job}{extra}"), "f.fio", GIB, false).unwrap();
        let mut workload = FioWorkload::new(file, 4096, 1);
        std::iter::from_fn(|| workload.next(0, Time::ZERO)).collect::<Vec<_>>()
    };
    let plain = commands("");
    let in_turn = commands("fdp=1\nfdp_pli=0,2-3\n");
    let random = commands("fdp=1\nfdp_pli=0,2-3\nfdp_pli_select=random\n");
    // The same I/Os: only the identifiers differ.
    let place_free = |list: &[CommandSpec]| {
        list.iter()
            .map(|command| CommandSpec {
                placement: 0,
                ..*command
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(place_free(&in_turn), plain);
    assert_eq!(place_free(&random), plain);
    assert!(plain.iter().all(|command| command.placement == 0));
    let writes =
        |list: &[CommandSpec]| -> Vec<u16> { list.iter().filter(|c| !c.is_read).map(|c| c.placement).collect() };
    let turns = writes(&in_turn);
    assert!(turns.len() > 100);
    assert!(turns
        .iter()
        .enumerate()
        .all(|(index, &placement)| placement == [0, 2, 3][index % 3]));
    assert!(in_turn.iter().filter(|c| c.is_read).all(|c| c.placement == 0));
    let drawn = writes(&random);
    for placement in [0, 2, 3] {
        let share = drawn.iter().filter(|&&p| p == placement).count() as f64 / drawn.len() as f64;
        assert!((share - 1.0 / 3.0).abs() < 0.1, "{placement}: {share}");
    }
    assert_ne!(drawn, turns);
    for (extra, named) in [
        ("fdp=1\n", "`fdp=1` needs `fdp_pli`"),
        ("fdp=1\nfdp_pli=a\n", "`fdp_pli=a` is not valid"),
        (
            "fdp=1\nfdp_pli=1\nfdp_pli_select=scatter\n",
            "`fdp_pli_select=scatter` is not valid",
        ),
        ("fdp=2\n", "`fdp=2` is not valid"),
    ] {
        let error = parse(&format!("{job}{extra}"), "f.fio", GIB, false).unwrap_err();
        assert!(error.contains(named), "{error}");
    }
}

/// A zoned namespace of `zones` zones of 64 logical blocks (256 KiB), capacity 48 (192 KiB),
/// at most 4 open.
fn zbd_stream(job: &str, zones: usize) -> FioWorkload {
    use crate::ftl::zoned::ZoneLimits;
    let limits = ZoneLimits {
        zone_size: 64,
        zone_capacity: 48,
        max_open: 4,
        max_active: 4,
    };
    let capacity = zones as u64 * 64 * 4096;
    let mut workload = FioWorkload::new(parse(job, "z.fio", capacity, false).unwrap(), 4096, 7);
    workload.zoned("z.fio", Some((limits, zones))).unwrap();
    workload
}

#[test]
fn zbd_writes_land_at_write_pointers_reads_within_written_data_and_few_zones_are_open() {
    use crate::ftl::zoned::{ZoneAction, ZoneOp};
    let job = "[j]\nzonemode=zbd\nrw=randrw\nrwmixread=40\nbssplit=4k/50:16k/50\nmax_open_zones=3\nnumber_ios=4000\n";
    let mut workload = zbd_stream(job, 8);
    // The zones as a drive would see the commands in order (units of 4 KiB).
    let mut wp = [0u32; 8];
    let (mut writes, mut reads, mut resets) = (0, 0, 0);
    while let Some(command) = workload.next(0, Time::ZERO) {
        let zone = (command.first_unit / 64) as usize;
        let offset = command.first_unit % 64;
        match command.zone {
            ZoneOp::Send(ZoneAction::Reset) => {
                assert_eq!(offset, 0);
                assert!(wp[zone] > 0, "a reset of an empty zone is not sent");
                wp[zone] = 0;
                resets += 1;
            }
            ZoneOp::None if command.is_read => {
                assert!(offset + command.units <= wp[zone], "a read beyond the write pointer");
                reads += 1;
            }
            ZoneOp::None => {
                assert_eq!(offset, wp[zone], "a write off the write pointer");
                assert!(offset + command.units <= 48, "a write beyond the zone capacity");
                wp[zone] += command.units;
                writes += 1;
            }
            other => panic!("unexpected {other:?}"),
        }
        let open = wp.iter().filter(|&&w| w > 0 && w < 48).count();
        assert!(open <= 3, "{open} zones open, max_open_zones=3");
    }
    // 4000 I/Os (resets are not I/Os): 60% writes of 10 KiB on average over 1.5 MiB of capacity.
    assert_eq!(writes + reads, 4000);
    assert!(resets > 10 && reads > 1000, "{resets} resets, {reads} reads");
    assert_eq!(workload.zone_resets(), resets);
}

#[test]
fn zbd_option_errors_name_the_option_and_what_is_allowed() {
    for (job, named) in [
        (
            "[j]\nzonemode=strided\n",
            "`zonemode=strided` is not supported; allowed: none or zbd",
        ),
        (
            "[j]\nzonemode=zbd\nzone_reset_threshold=1.5\n",
            "z.fio:3: `zone_reset_threshold=1.5` is not valid; allowed: a number from 0 to 1",
        ),
        (
            "[j]\nmax_open_zones=2\n",
            "z.fio:2: `max_open_zones` needs zonemode=zbd",
        ),
        (
            "[j]\nzonemode=zbd\nread_beyond_wp=2\n",
            "`read_beyond_wp=2` is not valid",
        ),
    ] {
        let error = parse(job, "z.fio", GIB, false).unwrap_err();
        assert!(error.contains(named), "{job}: {error}");
    }
    let two_writers = "[global]\nzonemode=zbd\nrw=write\n[a]\n[b]\n";
    let file = parse(two_writers, "z.fio", 8 * 64 * 4096, false).unwrap();
    let mut workload = FioWorkload::new(file, 4096, 1);
    let limits = crate::ftl::zoned::ZoneLimits {
        zone_size: 64,
        zone_capacity: 64,
        max_open: 4,
        max_active: 4,
    };
    let error = workload.zoned("z.fio", Some((limits, 8))).unwrap_err();
    assert!(error.contains("jobs `a` and `b` both write"), "{error}");
    let trims = parse("[t]\nzonemode=zbd\nrw=trim\n", "z.fio", 8 * 64 * 4096, false).unwrap();
    let error = FioWorkload::new(trims, 4096, 1)
        .zoned("z.fio", Some((limits, 8)))
        .unwrap_err();
    assert!(error.contains("trims with zonemode=zbd"), "{error}");
}

#[test]
fn a_zbd_read_job_with_nothing_written_ends_and_a_mixed_job_writes_first() {
    let mut reader = zbd_stream("[r]\nzonemode=zbd\nrw=randread\n", 4);
    assert_eq!(reader.next(0, Time::ZERO), None, "fio: no zone holds data to read");
    let mut mixed = zbd_stream("[m]\nzonemode=zbd\nrw=randrw\nrwmixread=90\nnumber_ios=10\n", 4);
    let first = mixed.next(0, Time::ZERO).unwrap();
    assert!(!first.is_read, "fio's zbd_adjust_ddir: the first I/O writes");
}

#[test]
fn zbd_ignores_zonecapacity_and_aligns_a_writer_s_region_to_zones_with_notes() {
    // Zones of 256 KiB with 192 KiB capacity (zbd_stream): fio takes the device's capacity, and
    // rounds a writer's offset up and its end down to zone boundaries.
    let job = "[j]\nzonemode=zbd\nrw=write\nzonecapacity=128k\noffset=100k\nsize=600k\n";
    let workload = zbd_stream(job, 8);
    let notes = workload.warnings.join("\n");
    assert!(notes.contains("z.fio:4: zonecapacity=131072 ignored"), "{notes}");
    assert!(
        notes.contains("offset 102400 -> 262144, size 614400 -> 262144"),
        "{notes}"
    );
    let job = workload.jobs().next().unwrap();
    assert_eq!((job.offset, job.size), (256 << 10, 256 << 10));
}
