"""Flows from a scenario file (`[[workload.flows]]`) and from an fio job file (one flow per job,
`prio`/`prioclass` mapped to NVMe priority classes), their per-flow results and CLI table, and the
errors that name a flow's key."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import ssdtwin
import ssdtwin.html
from conftest import cli

SMALL = "[flash]\nblocks_per_plane = 16\n"

FLOWS_SCENARIO = (
    SMALL
    + """
[host]
arbitration = "weighted_round_robin"
weight_high = 4
weight_medium = 1

[workload]
read_fraction = 1.0
io_count = 3000
precondition = "fill"

[[workload.flows]]
name = "hot"
queue_depth = 64
priority = "high"

[[workload.flows]]
name = "cold"
queue_depth = 64
read_fraction = 0.5
block_size = "8KiB"
"""
)


def test_toml_flows_run_as_jobs_with_their_own_keys_and_classes(tmp_path: Path):
    path = tmp_path / "flows.toml"
    path.write_text(FLOWS_SCENARIO)
    report = ssdtwin.run(str(path))
    hot, cold = report.workload["jobs"]
    assert (hot["name"], hot["priority"], hot["queue_depth"]) == ("hot", "high", 64)
    assert (cold["name"], cold["priority"], cold["queue_depth"]) == ("cold", "medium", 64)
    # The hot flow takes [workload]'s keys (reads only); the cold flow its own (half writes, 8 KiB).
    assert hot["write"]["total_ios"] == 0
    assert 0.4 < cold["write"]["total_ios"] / (cold["read"]["total_ios"] + cold["write"]["total_ios"]) < 0.6
    assert cold["read"]["io_bytes"] == cold["read"]["total_ios"] * 8192
    assert hot["read"]["total_ios"] + cold["read"]["total_ios"] + cold["write"]["total_ios"] == 3000


def test_cli_prints_a_per_flow_table(tmp_path: Path):
    path = tmp_path / "flows.toml"
    path.write_text(FLOWS_SCENARIO)
    process = cli("run", str(path))
    assert process.returncode == 0, process.stderr
    assert "Flows (latency in us)" in process.stdout
    lines = [line.split() for line in process.stdout.splitlines()]
    assert any(words[:4] == ["hot", "read", "high", "64"] for words in lines), process.stdout
    assert any(words[:4] == ["cold", "read", "medium", "64"] for words in lines), process.stdout


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        ("prioclass=1", "urgent"),
        ("prioclass=3", "low"),
        ("prio=0", "high"),
        ("prio=3", "high"),
        ("prioclass=2\nprio=4", "medium"),
        ("", "medium"),
        ("prio=6", "low"),
    ],
)
def test_fio_prio_and_prioclass_map_to_classes(tmp_path: Path, options: str, expected: str):
    (tmp_path / "two.fio").write_text(
        f"[global]\nrw=randread\nnumber_ios=100\niodepth=4\n[first]\n{options}\n[second]\n"
    )
    scenario = tmp_path / "scenario.toml"
    scenario.write_text(
        SMALL
        + '[host]\narbitration = "weighted_round_robin"\n'
        + '[workload]\nkind = "fio"\nprecondition = "fill"\n[workload.fio]\njob = "two.fio"\n'
    )
    report = ssdtwin.run(str(scenario))
    first, second = report.workload["jobs"]
    assert (first["priority"], second["priority"]) == (expected, "medium")


def test_fio_priority_under_round_robin_warns(tmp_path: Path):
    (tmp_path / "two.fio").write_text("[global]\nrw=randread\nnumber_ios=50\n[a]\nprioclass=1\n[b]\n")
    scenario = tmp_path / "scenario.toml"
    scenario.write_text(
        SMALL + '[workload]\nkind = "fio"\nprecondition = "none"\n[workload.fio]\njob = "two.fio"\n'
    )
    process = cli("run", str(scenario), "--json", "-", "--quiet")
    assert process.returncode == 0, process.stderr
    assert "prio/prioclass" in process.stderr
    assert "round_robin" in process.stderr
    assert json.loads(process.stdout)["host_ios"] == 100


def test_bad_fio_prio_names_file_line_and_option(tmp_path: Path):
    (tmp_path / "bad.fio").write_text("[a]\nrw=randread\nprio=9\n")
    with pytest.raises(ssdtwin.ConfigError) as caught:
        ssdtwin.run(
            None,
            **{
                "flash.blocks_per_plane": 16,
                "workload.kind": "fio",
                "workload.fio.job": str(tmp_path / "bad.fio"),
            },
        )
    assert caught.value.key == "workload.fio.job"
    assert "bad.fio:3" in caught.value.message
    assert "prio=9" in caught.value.message


@pytest.mark.parametrize(
    ("flows", "extra", "key", "words"),
    [
        ('{priority = "high"}', {}, "workload.flows[1].priority", "weighted_round_robin"),
        ("{read_fraction = 2.0}", {}, "workload.flows[1].read_fraction", "fraction"),
        ('{block_size = "3KiB"}', {}, "workload.flows[1].block_size", "mapping_unit"),
        ("{queue_depth = 0}", {}, "workload.flows[1].queue_depth", "1 to 65535"),
        ("{}", {"host.weight_medium": 0}, "host.weight_medium", "1 to 256"),
        ("{}", {"host.arbitration": "fair"}, "host.arbitration", "weighted_round_robin"),
    ],
)
def test_flow_errors_name_the_key(tmp_path: Path, flows: str, extra: dict, key: str, words: str):
    path = tmp_path / "bad.toml"
    path.write_text(SMALL + f"[workload]\nflows = [{{}}, {flows}]\n")
    with pytest.raises(ssdtwin.ConfigError) as caught:
        ssdtwin.resolve(path, **extra)
    assert caught.value.key == key, caught.value
    assert words in caught.value.message, caught.value


def test_slowdown_and_fairness_reach_the_report_and_the_html_page(tmp_path: Path):
    path = tmp_path / "flows.toml"
    path.write_text(FLOWS_SCENARIO + "\n[report]\nflow_slowdown = true\n")
    report = ssdtwin.run(str(path))
    hot, cold = report.workload["jobs"]
    slowdowns = [hot["slowdown"], cold["slowdown"]]
    assert all(value > 0 for value in slowdowns)
    assert report.workload["fairness"] == pytest.approx(min(slowdowns) / max(slowdowns), rel=1e-12)
    page = ssdtwin.html.run_page(report.to_dict())
    assert "Jobs (flows)" in page
    assert "<td class='text'>high</td>" in page
    assert "Fairness (min slowdown / max slowdown" in page


TRACE_LINES = "0,h,0,Write,0,4096,0\n1000,h,0,Read,0,4096,0\n2000,h,0,Write,8192,8192,0\n"


def test_a_trace_and_an_iiot_flow_run_beside_a_synthetic_one_each_to_its_end(tmp_path: Path):
    # The trace's path is relative to the scenario file's folder, as [workload.trace]'s is.
    (tmp_path / "traces").mkdir()
    (tmp_path / "traces" / "small.csv").write_text(TRACE_LINES * 50)
    path = tmp_path / "mixed.toml"
    path.write_text(
        SMALL
        + """
[workload]
io_count = 0

[[workload.flows]]
name = "replay"
kind = "trace"
queue_depth = 4
trace = { format = "msr", path = "traces/small.csv", replay = "as_fast_as_possible" }

[[workload.flows]]
name = "sensors"
kind = "iiot"
io_count = 250
iiot = { replay = "as_fast_as_possible" }

[[workload.flows]]
name = "reader"
io_count = 100
read_fraction = 1.0
"""
    )
    report = ssdtwin.run(str(path))
    replay, sensors, reader = report.workload["jobs"]
    # Every request of the trace (150: 100 writes, 50 reads), each flow's own count.
    assert (replay["write"]["total_ios"], replay["read"]["total_ios"]) == (100, 50)
    assert sum(sensors[d]["total_ios"] for d in ("read", "write", "trim", "flush")) == 250
    assert (reader["read"]["total_ios"], reader["write"]["total_ios"]) == (100, 0)


def test_an_fio_job_files_jobs_get_slowdowns(tmp_path: Path):
    (tmp_path / "two.fio").write_text(
        "[global]\nbs=4k\nnumber_ios=400\n[reader]\nrw=randread\niodepth=2\n[writer]\nrw=randwrite\niodepth=16\n"
    )
    path = tmp_path / "fio.toml"
    path.write_text(
        SMALL
        + '[workload]\nkind = "fio"\nprecondition = "fill"\nfio = { job = "two.fio" }\n'
        + "[report]\nflow_slowdown = true\n"
    )
    report = ssdtwin.run(str(path))
    reader, writer = report.workload["jobs"]
    assert reader["slowdown"] > 1.0
    slowdowns = [reader["slowdown"], writer["slowdown"]]
    assert report.workload["fairness"] == pytest.approx(min(slowdowns) / max(slowdowns), rel=1e-12)
