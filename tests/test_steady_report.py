"""Steadiness in the summary, the HTML page and the CLI: IOPS per window, the SNIA PTS check, the
warm-up, and the warnings `ssdtwin run` prints about a run that missed steady state or never ran GC."""

from __future__ import annotations

import io
import json

from rich.console import Console

import ssdtwin
from conftest import cli
from ssdtwin.report.steady import run_warnings
from ssdtwin.report.text import print_summary

VARIABILITY = {
    "window_s": 0.7648,
    "windows": 10,
    "iops": {"min": 8914.7, "max": 190555.7, "mean": 130752.9, "cv": 0.5729},
    "bandwidth_mib_s": {"min": 34.8, "max": 744.4, "mean": 510.8, "cv": 0.5729},
}
FAILED = {
    "criterion": "SNIA SSS PTS v2.0.2 steady state",
    "window_s": 0.7648,
    "rounds": 5,
    "round_iops": [63602.2, 188502.9, 189431.2, 188751.3, 190555.7],
    "mean_iops": 164168.7,
    "excursion_fraction": 0.7733,
    "slope_fraction": 0.6193,
    "passed": False,
}
PASSED = {**FAILED, "excursion_fraction": 0.012, "slope_fraction": 0.004, "passed": True}

# The default drive cut to 4 channels x 4 dies x 32 blocks per plane: after `steady`
# preconditioning every plane reaches the GC threshold at once and IOPS collapse from about 80k
# to under 10k and back (the default scenario's behaviour before GC pacing), in a second.
COLLAPSING = [
    *("--set", "flash.channels=4", "--set", "flash.dies_per_chip=4", "--set", "flash.blocks_per_plane=32"),
    *("--set", "workload.io_count=60000", "--set", "workload.precondition=steady"),
]


def summary(data: dict) -> str:
    console = Console(file=io.StringIO(), width=160)
    print_summary(ssdtwin.Report({"config": {}, **data}), console)
    return console.file.getvalue()


def test_summary_prints_iops_per_window_and_the_snia_verdict_with_its_figures():
    text = summary({"variability": VARIABILITY, "steady_state": FAILED})
    assert "IOPS per window (10 x 0.765 s): min 8,915, max 190,556, CV 57.3%" in text
    assert "Steady state (SNIA PTS, last 5 windows): FAILED (excursion 77.3%, slope 61.9%)" in text
    passed = summary({"variability": VARIABILITY, "steady_state": PASSED})
    assert "Steady state (SNIA PTS, last 5 windows): passed (excursion 1.2%, slope 0.4%)" in passed


def test_summary_says_an_undecided_check_and_the_warmup():
    undecided = {**FAILED, "passed": None, "round_iops": []}
    text = summary({"steady_state": undecided, "warmup": {"commands": 50000, "time_s": 0.42}})
    assert "not decided (fewer than 5 windows" in text
    assert "Warm-up: 50,000 commands to 0.42 s, not measured" in text


def test_warning_only_when_steady_was_asked_and_failed():
    steady = {"config": {"workload": {"precondition": "steady"}}, "variability": VARIABILITY}
    [warning] = run_warnings({**steady, "steady_state": FAILED})
    assert 'precondition = "steady" but did not reach steady state' in warning
    assert "excursion 77.3%" in warning
    assert "CV 57.3%" in warning
    assert run_warnings({**steady, "steady_state": PASSED}) == []
    fill = {"config": {"workload": {"precondition": "fill"}}, "steady_state": FAILED}
    assert run_warnings(fill) == [], "a run that did not ask for steady state is not warned"


def test_warning_when_a_run_wrote_and_erased_no_block():
    wrote = {"latency_us": {"write": {"count": 6000}}, "ftl": {"erases": {"total": 0}}}
    [warning] = run_warnings(wrote)
    assert "wrote 6,000 commands but GC never ran" in warning
    assert run_warnings({**wrote, "ftl": {"erases": {"total": 3}}}) == []
    read_only = {"latency_us": {"write": {"count": 0}}, "ftl": {"erases": {"total": 0}}}
    assert run_warnings(read_only) == []


def test_html_page_shows_the_same_lines_and_the_bandwidth_spread(tmp_path):
    data = {"config": {}, "variability": VARIABILITY, "steady_state": FAILED}
    page = tmp_path / "run.html"
    ssdtwin.Report(data).to_html(str(page))
    html = page.read_text()
    assert "Steady state (SNIA PTS, last 5 windows): FAILED (excursion 77.3%, slope 61.9%)" in html
    assert "IOPS per window (10 x 0.765 s)" in html
    assert "744.4" in html, "the most MiB/s of a window"
    assert "Other report fields" not in html, "every new block has its place"


def test_cli_warns_when_a_steady_run_collapses_under_gc():
    process = cli("run", *COLLAPSING, "--quiet")
    assert process.returncode == 0, process.stderr
    assert "Steady state (SNIA PTS, last 5 windows): FAILED" in process.stdout
    expected = 'warning: the run asked for precondition = "steady" but did not reach steady state'
    assert expected in process.stderr


def test_cli_warns_when_a_run_wrote_without_gc_and_not_when_it_only_read():
    base = ["--set", "flash.blocks_per_plane=16", "--set", "workload.io_count=5000"]
    base += ["--set", "workload.precondition=none"]
    process = cli("run", *base, "--json", "-")
    assert process.returncode == 0, process.stderr
    report = json.loads(process.stdout)
    assert report["ftl"]["erases"]["total"] == 0
    assert report["latency_us"]["write"]["count"] > 0
    assert "warning: the run wrote" in process.stderr
    assert "GC never ran" in process.stderr
    reads = cli("run", *base, "--set", "workload.read_fraction=1.0", "--json", "-")
    assert reads.returncode == 0, reads.stderr
    assert "warning" not in reads.stderr


def test_warmup_is_reported_and_measured_commands_equal_io_count():
    settings = {"flash.blocks_per_plane": 16, "workload.io_count": 5000, "workload.warmup": 2000}
    report = ssdtwin.run(**settings).to_dict()
    assert report["host_ios"] == 5000
    assert report["latency_us"]["all"]["count"] == 5000
    assert report["warmup"]["commands"] == 2000
