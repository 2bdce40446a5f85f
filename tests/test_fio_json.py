"""`ssdtwin run --output-format fio-json`: fio's JSON layout, read back by a parser that knows only
fio's documented schema (fio HOWTO, "JSON output"; fio's `stat.c` `show_thread_status_json` and
`add_ddir_status_json`)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import ssdtwin
from conftest import cli
from ssdtwin.report.fio import to_fio_json

PERCENTILE_KEY = re.compile(r"^\d{1,3}\.\d{6}$")


def parse_fio_json(document: dict[str, Any]) -> dict[tuple[str, str], dict[str, float]]:
    """What a fio-output consumer reads: per (jobname, direction) the bandwidth [KiB/s], IOPS,
    runtime [ms], I/Os and the 99.99th completion-latency percentile [ns]. Fails on anything that
    does not follow fio's schema."""
    assert isinstance(document["fio version"], str)
    assert document["fio version"].startswith("fio-")
    assert isinstance(document["timestamp"], int)
    results = {}
    for job in document["jobs"]:
        assert isinstance(job["jobname"], str)
        assert isinstance(job["groupid"], int)
        assert job["error"] == 0
        for direction in ("read", "write", "trim"):
            stats = job[direction]
            for key in ("io_bytes", "io_kbytes", "bw_bytes", "bw", "runtime", "total_ios"):
                assert isinstance(stats[key], int), (direction, key)
            assert isinstance(stats["iops"], float)
            for latency in ("lat_ns", "clat_ns"):
                block = stats[latency]
                assert {"min", "max", "mean", "stddev", "N"} <= set(block)
                assert all(PERCENTILE_KEY.match(key) for key in block.get("percentile", {}))
            if stats["total_ios"] == 0:
                continue
            seconds = stats["runtime"] / 1000
            # fio's units: bw in KiB/s, io_kbytes = io_bytes / 1024, runtime in ms.
            assert stats["io_kbytes"] == stats["io_bytes"] // 1024
            assert abs(stats["bw"] - stats["io_bytes"] / 1024 / seconds) <= 0.01 * stats["bw"] + 1
            assert abs(stats["iops"] * seconds - stats["total_ios"]) <= 0.01 * stats["total_ios"] + 1
            clat = stats["clat_ns"]
            assert clat["min"] <= clat["percentile"]["50.000000"] <= clat["percentile"]["99.990000"]
            assert clat["percentile"]["99.990000"] <= clat["max"] * 1.001
            assert stats["lat_ns"]["mean"] >= clat["mean"]
            results[(job["jobname"], direction)] = {
                "bw": stats["bw"],
                "iops": stats["iops"],
                "runtime": stats["runtime"],
                "ios": stats["total_ios"],
                "p99_99": clat["percentile"]["99.990000"],
            }
    return results


SCENARIO = """
seed = 1
drive = "enterprise_tlc"
[flash]
blocks_per_plane = 16
[workload]
kind = "fio"
precondition = "fill"
[workload.fio]
job = "two.fio"
"""

JOB_FILE = """
[global]
bs=4k
number_ios=3000
[reader]
rw=randread
iodepth=16
[writer]
rw=randwrite
iodepth=4
"""


def test_fio_json_round_trips_through_a_fio_schema_parser(tmp_path):
    (tmp_path / "two.fio").write_text(JOB_FILE)
    scenario = tmp_path / "scenario.toml"
    scenario.write_text(SCENARIO)
    process = cli("run", str(scenario), "--output-format", "fio-json", "--quiet")
    assert process.returncode == 0, process.stderr
    parsed = parse_fio_json(json.loads(process.stdout))
    assert set(parsed) == {("reader", "read"), ("writer", "write")}
    assert parsed["reader", "read"]["ios"] == 3000
    assert parsed["writer", "write"]["ios"] == 3000
    # The same numbers as the native report of the same (deterministic) run.
    report = ssdtwin.run(str(scenario))
    reader = report.workload["jobs"][0]
    assert reader["name"] == "reader"
    assert parsed["reader", "read"]["iops"] == reader["read"]["iops"]
    assert parsed["reader", "read"]["p99_99"] == reader["read"]["clat_ns"]["percentile"]["99.990000"]


def test_fio_json_of_a_synthetic_run_has_one_job():
    report = ssdtwin.run(None, **{"flash.blocks_per_plane": 16, "workload.io_count": 2000})
    document = to_fio_json(report.to_dict(), now=0.0)
    assert document["timestamp"] == 0
    parsed = parse_fio_json(document)
    assert {name for name, _ in parsed} == {"synthetic"}
    total = sum(entry["ios"] for entry in parsed.values())
    assert total == report.host_ios == 2000


def test_the_shipped_jesd219_example_runs():
    scenario = Path(__file__).resolve().parent.parent / "examples" / "jesd219.scenario.toml"
    report = ssdtwin.run(str(scenario), **{"workload.precondition": "fill"})
    (job,) = report.workload["jobs"]
    assert job["name"] == "jesd219"
    assert job["queue_depth"] == 32
    assert report.host_ios == 200_000
    reads = job["read"]["total_ios"] / report.host_ios
    assert abs(reads - 0.40) < 0.01


def test_cli_warns_about_ignored_fio_options(tmp_path):
    (tmp_path / "v.fio").write_text("[j]\nrw=randwrite\nverify=md5\nnumber_ios=50\n")
    scenario = tmp_path / "scenario.toml"
    scenario.write_text(
        '[flash]\nblocks_per_plane = 16\n[workload]\nkind = "fio"\nprecondition = "none"\n'
        '[workload.fio]\njob = "v.fio"\nignore_unsupported = true\n'
    )
    process = cli("run", str(scenario), "--json", "-", "--quiet")
    assert process.returncode == 0, process.stderr
    assert "warning:" in process.stderr
    assert "verify" in process.stderr
    assert json.loads(process.stdout)["host_ios"] == 50
