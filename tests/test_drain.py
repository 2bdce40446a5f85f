"""The drain at the end of a run (`report.drain`, issue 28) as Python sees it: the report's `drain`
block, the host-visible figures it leaves alone, and its line in the `ssdtwin run` summary."""

from __future__ import annotations

import io

from rich.console import Console

import ssdtwin
from conftest import SMALL
from ssdtwin.report.text import print_summary

# Writes only: programs are still running when the last write is acknowledged.
WRITES = {**SMALL, "workload.read_fraction": 0.0, "workload.io_count": 2_000}


def summary(data: dict) -> str:
    console = Console(file=io.StringIO(), width=200)
    print_summary(ssdtwin.Report({"config": {}, **data}), console)
    return console.file.getvalue()


def test_summary_line_gives_the_drains_time_energy_and_work():
    drain = {"time_s": 0.00207, "energy_j": 0.01234, "programs_completed": 24, "erases_completed": 1}
    text = summary({"drain": {**drain, "complete": True}})
    assert "Drain: 2.07 ms after the last completion, 0.0123 J, 24 programs and 1 erases completed" in text
    assert "stopped before its end" not in text
    assert "stopped before its end" in summary({"drain": {**drain, "complete": False}})
    assert "Drain:" not in summary({})


def test_a_write_run_drains_and_keeps_its_iops():
    drained = ssdtwin.run(**WRITES).to_dict()
    cut = ssdtwin.run(**{**WRITES, "report.drain": False}).to_dict()
    drain = drained["drain"]
    assert drain["complete"]
    assert drain["time_s"] > 0
    assert drain["programs_completed"] > 0
    assert "drain" not in cut
    for field in ("host_ios", "iops", "bandwidth_mib_s", "simulated_time_s", "latency_us"):
        assert drained[field] == cut[field], field
    assert drained["flash"]["programs"] == cut["flash"]["programs"] + drain["flash"]["programs"]
    assert abs(drained["energy_j"]["total"] - cut["energy_j"]["total"] - drain["energy_j"]) < 1e-9
