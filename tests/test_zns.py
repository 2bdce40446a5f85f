"""The zoned drive from a TOML scenario (issue 31; docs/models/zns.md): `ssdtwin.run` and the
`ssdtwin run` command give the report's `zns` block, the text summary shows it, and a conventional
run has none of it."""

from __future__ import annotations

import io
import json

import pytest
from rich.console import Console

import ssdtwin
from conftest import cli
from ssdtwin.report.text import print_summary

# 2 dies x 2 planes of 16 blocks of 4 MiB: a striped zone is 16 MiB, 16 zones (256 MiB). 20000
# appends of 64 KiB write 1.22 GiB: about five times the namespace, so zones are reset.
SCENARIO = """
[flash]
channels = 2
chips_per_channel = 1
dies_per_chip = 1
blocks_per_plane = 16

[zns]
enabled = true
max_open = 8
max_active = 8

[workload]
kind = "zoned"
precondition = "none"
read_fraction = 0.0
block_size = "64KiB"
io_count = 20000

[workload.zoned]
open_zones = 4
append = true
free_zones = 2
"""


@pytest.fixture(scope="module")
def scenario_file(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("zns") / "zoned.toml"
    path.write_text(SCENARIO)
    return str(path)


@pytest.fixture(scope="module")
def report(scenario_file) -> ssdtwin.Report:
    return ssdtwin.run(scenario_file)


def test_a_zoned_toml_scenario_runs_through_ssdtwin_run_with_waf_one(report):
    data = report.to_dict()
    zns = data["zns"]
    assert zns["zones"] == 16
    assert zns["appends"] + zns["reset_commands"] == 20000
    assert zns["lbas_written"] == zns["appends"] * 16  # 64 KiB of 4 KiB logical blocks
    assert zns["zone_resets"] > 0
    # A full striped zone has one block on each of the 4 planes.
    assert zns["reset_erases"] == 4 * zns["zone_resets"]
    assert zns["rejected_writes"] == 0
    assert data["waf"] == 1.0
    assert data["flash"]["gc_programs"] == 0


def test_the_cli_runs_the_same_scenario_to_the_same_zns_block(scenario_file, report):
    process = cli("run", scenario_file, "--json", "-", "--quiet")
    assert process.returncode == 0, process.stderr
    assert json.loads(process.stdout)["zns"] == report.to_dict()["zns"]


def test_the_summary_shows_the_zone_counters(report):
    out = io.StringIO()
    print_summary(report, Console(file=out, width=300))
    text = out.getvalue()
    zns = report.to_dict()["zns"]
    assert f"{zns['zone_resets']:,} zone resets ({zns['reset_erases']:,} blocks erased)" in text
    assert f"Zones open: max {zns['open_zones_max']}" in text


def test_a_zoned_writer_without_a_zoned_namespace_is_an_error_naming_workload_kind(scenario_file):
    process = cli("run", scenario_file, "--set", "zns.enabled=false", "--quiet")
    assert process.returncode != 0
    assert "workload.kind" in process.stderr
    assert "Traceback" not in process.stderr


def test_a_conventional_run_has_no_zns_block():
    plain = ssdtwin.run(None, **{"flash.blocks_per_plane": 16, "workload.io_count": 1000})
    assert "zns" not in plain.to_dict()


def test_the_html_page_has_a_zoned_namespace_section_with_the_zone_counters(report):
    import ssdtwin.html

    page = ssdtwin.html.run_page(report.to_dict(), interactive=False)
    zns = report.to_dict()["zns"]
    section = page[page.index('id="zns-counters"') :]
    assert "Zoned namespace" in page
    assert f'data-value="{zns["zone_resets"]!r}"' in section
    assert f'data-value="{zns["open_zones_max"]!r}"' in section
    # Not shown again among the report fields the page does not know.
    assert "zns.zone_resets" not in page


# An fio job file with zonemode=zbd on the drive above: sequential 64 KiB writes over a region of
# 4 zones (64 MiB), three times over (io_size). fio resets a full zone before writing it again:
# each of the 4 zones once in each of the 2 later passes.
ZBD_JOB = """[log]
zonemode=zbd
rw=write
bs=64k
size=64m
io_size=192m
iodepth=8
"""


@pytest.fixture(scope="module")
def zbd_scenario_file(tmp_path_factory) -> str:
    folder = tmp_path_factory.mktemp("zbd")
    (folder / "log.fio").write_text(ZBD_JOB)
    head = SCENARIO[: SCENARIO.index("[workload]")]
    path = folder / "zbd.toml"
    workload = '[workload]\nkind = "fio"\nprecondition = "none"\n\n[workload.fio]\njob = "log.fio"\n'
    path.write_text(head + workload)
    return str(path)


def test_an_fio_zbd_job_file_resets_each_zone_once_per_later_pass_with_waf_one(zbd_scenario_file):
    data = ssdtwin.run(zbd_scenario_file).to_dict()
    zns = data["zns"]
    zone_mib, region_mib, passes = 16, 64, 3
    assert zns["zone_resets"] == region_mib // zone_mib * (passes - 1)
    assert zns["lbas_written"] * 4096 == passes * region_mib << 20
    assert zns["rejected_writes"] == 0
    assert data["waf"] == 1.0
    process = cli("run", zbd_scenario_file, "--json", "-", "--quiet")
    assert process.returncode == 0, process.stderr
    assert json.loads(process.stdout)["zns"] == zns


def test_an_fio_zbd_job_file_on_a_conventional_drive_is_an_error_naming_both(zbd_scenario_file):
    process = cli("run", zbd_scenario_file, "--set", "zns.enabled=false", "--quiet")
    assert process.returncode != 0
    assert "zonemode=zbd" in process.stderr
    assert "zns.enabled = false" in process.stderr
    assert "Traceback" not in process.stderr


def test_the_zns_log_example_runs_without_refused_writes():
    from conftest import ROOT

    data = ssdtwin.run(str(ROOT / "examples" / "zns_log.scenario.toml")).to_dict()
    zns = data["zns"]
    assert zns["rejected_writes"] == 0
    assert zns["errored_commands"] == 0
    assert zns["zone_resets"] > 0
    assert zns["open_zones_max"] <= 4
