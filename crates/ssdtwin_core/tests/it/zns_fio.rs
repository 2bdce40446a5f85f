//! fio job files with `zonemode=zbd` on the zoned drive (`workload/fio/zbd.rs`): a sequential
//! job that writes its region three times resets each zone once per pass after the first; the
//! zone reset threshold resets as fio's countdown implies; random writes keep at most
//! `max_open_zones` zones open; no write is refused and WAF is 1; bad options are named.
//!
//! The drive is [`zns`](crate::zns)'s: [`BASE`](crate::BASE) with 16 striped zones of one 768 KiB
//! block on each of the 8 planes (6 MiB); a program is a 32 KiB multi-plane page pair.

use ssdtwin_core::{Report, Scenario, Simulation};

use crate::{folder, run, scenario, Folder};

/// The zoned drive running the job file `job` (written into a folder named `name`).
fn zoned_fio(name: &str, job: &str, settings: &[&str]) -> (Scenario, Report) {
    let (_folder, scenario) = zoned_fio_scenario(name, job, settings);
    let report = run(&scenario);
    (scenario, report)
}

/// The scenario, and the folder holding its job file (removed when dropped).
fn zoned_fio_scenario(name: &str, job: &str, settings: &[&str]) -> (Folder, Scenario) {
    let dir = folder(name);
    let path = dir.join("job.fio");
    std::fs::write(&path, job).unwrap();
    let job_key = format!("workload.fio.job=\"{}\"", path.display());
    let mut all = vec![
        "zns.enabled=true",
        "flash.blocks_per_plane=16",
        "workload.kind=\"fio\"",
        "workload.precondition=\"none\"",
        job_key.as_str(),
    ];
    all.extend_from_slice(settings);
    (dir, scenario(&all))
}

/// Bytes of one zone: a block on every plane of every die.
fn zone_bytes(scenario: &Scenario) -> u64 {
    let flash = &scenario.flash;
    let dies = flash.channels * flash.chips_per_channel * flash.dies_per_chip;
    u64::from(flash.pages_per_block) * flash.page_size.bytes() * u64::from(dies * flash.planes_per_die)
}

fn assert_clean(scenario: &Scenario, report: &Report, host_bytes: u64) {
    let zns = report.zns.as_ref().expect("a zoned run reports zns");
    assert_eq!(zns.rejected_writes, 0, "{:?}", zns.rejected_by_status);
    assert_eq!(zns.errored_commands, 0);
    assert_eq!(zns.lbas_written * 4096, host_bytes);
    // Every write fills whole 32 KiB programs: the flash holds exactly what the host wrote.
    let page = scenario.flash.page_size.bytes();
    assert_eq!(report.flash.programs * page, host_bytes);
    assert_eq!(report.flash.gc_programs, 0);
    assert_eq!(report.waf, 1.0);
}

#[test]
fn a_sequential_job_over_its_region_three_times_resets_each_zone_once_per_later_pass() {
    let job = "[log]\nzonemode=zbd\nrw=write\nbs=64k\nsize=48m\nio_size=144m\niodepth=32\n";
    let (scenario, report) = zoned_fio("zbd-passes", job, &[]);
    let zones = (48 << 20) / zone_bytes(&scenario);
    assert_eq!(zones, 8);
    let passes = 144 / 48;
    let zns = report.zns.as_ref().unwrap();
    // A write to a full zone resets it first (fio's zbd_adjust_block): each zone once in each
    // pass after the first.
    assert_eq!(zns.zone_resets, zones * (passes - 1));
    assert_clean(&scenario, &report, 144 << 20);
}

#[test]
fn zone_resets_follow_the_threshold_and_frequency_countdown() {
    // 32 KiB writes over 8 zones (48 MiB); threshold 0.5: from the write that finds 24 MiB
    // written, every ⌊1/0.25⌋ = 4th write resets its zone first. The sequential job then stays
    // in zone 4 (each reset rewinds it), so every reset finds data. At iodepth 32 writes are
    // still crossing the link when a reset is due: the reset waits until none is in flight
    // (fio's io_u_quiesce; without it this run stalls).
    let job = "[gc]\nzonemode=zbd\nrw=write\nbs=32k\nsize=48m\nzone_reset_threshold=0.5\nzone_reset_frequency=0.25\niodepth=32\n";
    let (scenario, report) = zoned_fio("zbd-threshold", job, &[]);
    let (size, bs): (u64, u64) = (48 << 20, 32 << 10);
    let writes = size / bs;
    let before = (size / 2).div_ceil(bs);
    let every = (1.0_f64 / 0.25) as u64;
    let zns = report.zns.as_ref().unwrap();
    assert_eq!(zns.zone_resets, (writes - before) / every);
    assert_eq!(zns.zone_resets, 192);
    assert_clean(&scenario, &report, size);
}

#[test]
fn random_writes_keep_at_most_max_open_zones_open() {
    let job = "[rand]\nzonemode=zbd\nrw=randwrite\nbs=64k\nmax_open_zones=3\nio_size=192m\niodepth=8\n";
    let (scenario, report) = zoned_fio(
        "zbd-open",
        job,
        &["power.enabled=true", "power.sample_interval=\"1ms\""],
    );
    let zns = report.zns.as_ref().unwrap();
    let open = report
        .timeseries
        .extra
        .iter()
        .find(|(column, _)| column == "zns.open_zones")
        .map(|(_, values)| values.clone())
        .expect("a zns.open_zones column");
    let peak = open.iter().copied().fold(0.0, f64::max);
    assert_eq!(peak, 3.0, "three zones written at once, never more");
    assert_eq!(zns.open_zones_max, 3);
    // 192 MiB over a 96 MiB namespace: writes reach full zones, which are reset first.
    assert!(zns.zone_resets > 0);
    assert_clean(&scenario, &report, 192 << 20);
}

#[test]
fn a_mixed_job_reads_only_written_data_and_nothing_is_refused() {
    let job = "[mixed]\nzonemode=zbd\nrw=randrw\nrwmixread=30\nbs=32k\nmax_open_zones=2\nnumber_ios=3000\niodepth=4\n";
    let (_, report) = zoned_fio("zbd-mixed", job, &[]);
    let zns = report.zns.as_ref().unwrap();
    assert_eq!(zns.rejected_writes, 0);
    assert_eq!(zns.errored_commands, 0);
    assert!(zns.writes > 0);
    assert!(report.latency_us.read.count > 0, "reads of written data");
}

#[test]
fn bad_zbd_options_are_refused_naming_option_and_drive_key() {
    let cases: [(&str, &[&str], &[&str]); 4] = [
        (
            "[a]\nzonemode=zbd\nrw=write\n",
            &["zns.enabled=false"],
            &["zonemode=zbd", "zns.enabled = false", "job.fio:2"],
        ),
        (
            "[a]\nzonemode=strided\nrw=write\n",
            &[],
            &["zonemode=strided", "allowed: none or zbd"],
        ),
        (
            "[a]\nzonemode=zbd\nzonesize=4m\nrw=write\n",
            &[],
            &["zonesize=4194304", "zns.zone_size (6291456 bytes)", "job.fio:3"],
        ),
        (
            "[a]\nzonemode=zbd\nmax_open_zones=20\nrw=write\n",
            &[],
            &["max_open_zones=20", "zns.max_open (14)"],
        ),
    ];
    for (index, (job, settings, wanted)) in cases.iter().enumerate() {
        let (_folder, scenario) = zoned_fio_scenario(&format!("zbd-bad-{index}"), job, settings);
        let error = Simulation::new(&scenario).map(|_| ()).unwrap_err().to_string();
        assert!(error.contains("workload.fio.job"), "{error}");
        for part in wanted.iter() {
            assert!(error.contains(part), "{job}: `{part}` not in: {error}");
        }
    }
}
