"""Checks that need the real simulation engine: they fail against the zeroed placeholder report
of the binding branch, and pass once the engine is merged."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

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
    """While a run computes in one thread, this one spins in Python: with the GIL released it
    gets its share of the CPU, with the GIL held it would wait for it, using next to none. CPU
    time of each thread, which other jobs on the machine cannot shift between the two."""
    result: dict[str, object] = {}

    def simulate() -> None:
        started = time.thread_time()
        result["report"] = ssdtwin.run(**{**SMALL, "workload.io_count": 2_000_000})  # about 0.9 s of CPU
        result["cpu"] = time.thread_time() - started

    started = time.thread_time()
    thread = threading.Thread(target=simulate)
    thread.start()
    while thread.is_alive():
        pass
    spinning = time.thread_time() - started
    thread.join()
    assert "report" in result
    simulating = result["cpu"]
    assert isinstance(simulating, float)
    assert simulating > 0.2, f"the run used {simulating:.3f} s of CPU: too little to tell"
    assert spinning > 0.3 * simulating, f"{spinning:.2f} s spinning beside {simulating:.2f} s simulating"


def cpu_seconds(pid: int) -> float:
    """User and system CPU time of process `pid` so far (/proc/PID/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text(encoding="ascii").rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_ctrl_c_stops_a_long_run_with_exit_130():
    """A run of 500 million I/Os (minutes of CPU), interrupted once it is simulating: it exits
    with 130 and no traceback, having used little CPU after the signal (the core checks for it
    every 0.1 s)."""
    process = subprocess.Popen(
        [sys.executable, "-m", "ssdtwin", "run", "--quiet", "--set", "workload.io_count=500000000"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        while cpu_seconds(process.pid) < 2.0:  # imports done, the drive built, simulating
            assert process.poll() is None, process.communicate()
            time.sleep(0.05)
        at_signal = cpu_seconds(process.pid)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        os.kill(process.pid, signal.SIGINT)
        _, stderr = process.communicate(timeout=120)  # a hang guard, not a measure
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    assert process.returncode == 130, stderr
    assert "Traceback" not in stderr
    total = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    assert total - at_signal < 1.0, f"{total - at_signal:.2f} s of CPU after the signal"


def test_cli_run_is_deterministic():
    reports = [cli("run", *SMALL_SET, "--json", "-").stdout for _ in range(2)]
    first, second = (ssdtwin.Report.from_json(text) for text in reports)
    assert outputs(first) == outputs(second)
    assert first.host_ios == SMALL["workload.io_count"]
