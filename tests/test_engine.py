"""Checks that need the real simulation engine: they fail against the zeroed placeholder report
of the binding branch, and pass once the engine is merged."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time

import pytest

import ssdtwin
from conftest import SMALL, SMALL_SET, cli
from ssdtwin.report import WALL_CLOCK_FIELDS, without_wall_clock


def outputs(report: ssdtwin.Report) -> dict[str, object]:
    """What a run computed: the report without its inputs (seed, config) and wall time."""
    data = report.to_dict()
    for field in ("seed", "config", "ssdtwin_version"):
        data.pop(field, None)
    assert all(field in report.flat() for field in WALL_CLOCK_FIELDS)
    return without_wall_clock(data)


def test_small_run_simulates_every_io():
    report = ssdtwin.run(**SMALL)
    io_count = SMALL["workload.io_count"]
    assert report.host_ios == io_count
    assert report.iops > 0
    assert report.simulated_time_s > 0
    assert report.latency_us["read"]["count"] + report.latency_us["write"]["count"] == io_count
    assert report.latency_us["all"]["count"] == io_count
    assert report.flash["reads"] > 0
    assert report.flash["programs"] > 0


def test_same_seed_same_report_different_seed_different_report():
    first = ssdtwin.run(**SMALL, seed=11)
    second = ssdtwin.run(**SMALL, seed=11)
    other = ssdtwin.run(**SMALL, seed=12)
    assert first.wall_time_s >= 0
    assert outputs(first) == outputs(second)
    assert first.config == second.config
    assert outputs(first) != outputs(other)


def test_simulation_does_not_hold_the_gil():
    result: dict[str, object] = {}

    def simulate() -> None:
        result["report"] = ssdtwin.run(**{**SMALL, "workload.io_count": 3_000_000})

    thread = threading.Thread(target=simulate)
    start = time.perf_counter()
    thread.start()
    counted = 0
    while thread.is_alive():
        counted += 1
    elapsed = time.perf_counter() - start
    thread.join()
    assert "report" in result
    if elapsed < 0.2:
        pytest.skip(f"the run took {elapsed:.3f} s, too short to tell")
    # Holding the GIL, the run thread would let this loop turn only at switch intervals (5 ms);
    # released, the loop turns millions of times a second.
    assert counted / elapsed > 100_000, f"{counted} turns in {elapsed:.2f} s: the run held the GIL"


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_ctrl_c_stops_a_long_run_with_exit_130():
    process = subprocess.Popen(
        [sys.executable, "-m", "ssdtwin", "run", "--quiet", "--set", "workload.io_count=50000000"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    time.sleep(2.0)
    if process.poll() is not None:
        pytest.skip("the run finished before it could be interrupted")
    started = time.perf_counter()
    os.kill(process.pid, signal.SIGINT)
    _, stderr = process.communicate(timeout=30)
    assert process.returncode == 130, stderr
    assert "Traceback" not in stderr
    assert time.perf_counter() - started < 5.0, "the run did not stop promptly"


def test_cli_run_is_deterministic():
    reports = [cli("run", *SMALL_SET, "--json", "-").stdout for _ in range(2)]
    first, second = (ssdtwin.Report.from_json(text) for text in reports)
    assert outputs(first) == outputs(second)
    assert first.host_ios == SMALL["workload.io_count"]
