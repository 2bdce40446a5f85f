"""The per-flow table of the run summary: with several jobs (flows of `[[workload.flows]]`, fio
jobs, IIoT ingest and query), each job's IOPS, bandwidth and latency percentiles per direction, its
priority class and, with `report.flow_slowdown`, its slowdown and the run's fairness. The figures
are the core's `workload.jobs` report (fio's units: ns, KiB/s), only converted here."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich import box
from rich.console import Console
from rich.table import Table

from ssdtwin.report.fields import format_value

DIRECTIONS = ("read", "write", "trim", "flush")
PERCENTILES = (("p50", "50.000000"), ("p99", "99.000000"), ("p99.99", "99.990000"))


def _us(value: Any) -> float | None:
    return value / 1000.0 if isinstance(value, (int, float)) else None


def _k(value: Any) -> float | None:
    return value / 1000.0 if isinstance(value, (int, float)) else None


def flow_rows(jobs: list[Mapping[str, Any]]) -> list[list[str]]:
    """One row per job and direction with commands: name, direction, class, queue depth, IOPS,
    MiB/s, mean, p50, p99 and p99.99 latency [us] and slowdown (on the job's first row; the
    column is left out when no job has one)."""
    rows = []
    for job in jobs:
        first = True
        for direction in DIRECTIONS:
            part = job.get(direction)
            if not isinstance(part, Mapping) or not part.get("total_ios"):
                continue
            lat = part.get("lat_ns") if isinstance(part.get("lat_ns"), Mapping) else {}
            percentiles = lat.get("percentile") if isinstance(lat.get("percentile"), Mapping) else {}
            bandwidth = part.get("bw")
            mib_s = bandwidth / 1024.0 if isinstance(bandwidth, (int, float)) else None
            rows.append(
                [
                    str(job.get("name", "?")) if first else "",
                    direction,
                    str(job.get("priority") or "-") if first else "",
                    format_value(job.get("queue_depth"), "{:,}") if first else "",
                    format_value(_k(part.get("iops")), "{:,.1f}k"),
                    format_value(mib_s, "{:,.0f}"),
                    format_value(_us(lat.get("mean")), "{:,.0f}"),
                    *[format_value(_us(percentiles.get(key)), "{:,.0f}") for _, key in PERCENTILES],
                    format_value(job.get("slowdown"), "{:.3g}") if first else "",
                ]
            )
            first = False
    return rows


def print_flows(data: Mapping[str, Any], console: Console) -> None:
    """The per-flow table, when the report has several jobs; the fairness line when computed."""
    workload = data.get("workload") if isinstance(data.get("workload"), Mapping) else {}
    jobs = [job for job in workload.get("jobs", []) if isinstance(job, Mapping)]
    if len(jobs) < 2:
        return
    slowdowns = any(isinstance(job.get("slowdown"), (int, float)) for job in jobs)
    table = Table(
        title="Flows (latency in us)",
        title_justify="left",
        box=box.SIMPLE,
        pad_edge=False,
        collapse_padding=True,
    )
    for header in ("flow", "", "class", "QD", "IOPS", "MiB/s", "mean"):
        table.add_column(header, justify="left" if header in ("flow", "", "class") else "right")
    for header, _ in PERCENTILES:
        table.add_column(header, justify="right")
    if slowdowns:
        table.add_column("slowdown", justify="right")
    for row in flow_rows(jobs):
        table.add_row(*(row if slowdowns else row[:-1]))
    console.print(table)
    fairness = workload.get("fairness")
    if isinstance(fairness, (int, float)):
        console.print(
            f"Fairness (min slowdown / max slowdown, 1 = fair): {fairness:.3g}",
            markup=False,
        )
