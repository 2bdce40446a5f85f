"""The power_breakdown study (the self-heating paper, papers/000, Figures 5 and 8).

    python studies/power_breakdown/run.py          # runs both sweeps, prints the README tables

Each sweep file (`breakdown.toml`, `queue_depth.toml`) has the shape the README's "Sweeps" section describes;
until `ssdtwin sweep` runs them, `run_sweep` here expands their `[grid]` (cartesian product) and
`[zip]` (varied together) over the base scenario and calls `ssdtwin.run` per point.
"""

from __future__ import annotations

import itertools
import tomllib
from pathlib import Path
from typing import Any

import ssdtwin

HERE = Path(__file__).resolve().parent

COMPONENTS = ("nand", "io_bus", "controller", "dram", "other")


def run_sweep(name: str) -> list[dict[str, Any]]:
    """Runs every point of sweep file `name` (in this folder): one row per point with the swept
    keys, the power averages and peaks, the NAND share and the IOPS."""
    sweep = tomllib.loads((HERE / name).read_text())
    base = HERE / sweep["base"]
    grid = sweep.get("grid", {})
    zipped = sweep.get("zip", {})
    zip_points = [dict(zip(zipped, values, strict=True)) for values in zip(*zipped.values(), strict=True)]
    rows = []
    for values in itertools.product(*grid.values()):
        for zip_point in zip_points or [{}]:
            point = {**dict(zip(grid, values, strict=True)), **zip_point}
            rows.append(_run_point(base, point))
    return rows


def _run_point(base: Path, point: dict[str, Any]) -> dict[str, Any]:
    """One point of a sweep: its keys and the power figures of its report."""
    report = ssdtwin.run(str(base), **point)
    power = report.power_w
    row: dict[str, Any] = dict(point)
    row["channels"] = report.config["flash"]["channels"]
    row["iops"] = report.iops
    row.update({f"{part}_avg_w": power[f"{part}_avg"] for part in COMPONENTS})
    row["total_avg_w"] = power["total_avg"]
    row["nand_peak_w"] = power["nand_peak"]
    row["nand_peak_window_w"] = power["nand_peak_window"]
    row["nand_share"] = power["nand_avg"] / power["total_avg"]
    row["die_utilization"] = report.queues["die_utilization"]
    return row


def breakdown() -> list[dict[str, Any]]:
    """Figure 5: the 1-channel drive at 8 outstanding commands, the 8-channel drive at 64 (eight
    per channel, one per target, so the load grows with the drive)."""
    return run_sweep("breakdown.toml")


def queue_depth() -> list[dict[str, Any]]:
    """Figure 8: the 64 GB drive at queue depths 1 to 64."""
    return run_sweep("queue_depth.toml")


def _markdown(rows: list[dict[str, Any]], columns: list[tuple[str, str, str]]) -> str:
    lines = ["| " + " | ".join(header for header, _, _ in columns) + " |"]
    lines.append("|" + "|".join("---:" for _ in columns) + "|")
    for row in rows:
        lines.append("| " + " | ".join(spec.format(row[key]) for _, key, spec in columns) + " |")
    return "\n".join(lines)


def main() -> None:
    print(
        _markdown(
            breakdown(),
            [
                ("drive", "drive", "{}"),
                ("channels", "channels", "{}"),
                ("QD", "host.queue_depth", "{}"),
                ("IOPS", "iops", "{:,.0f}"),
                ("NAND W", "nand_avg_w", "{:.3f}"),
                ("I/O bus W", "io_bus_avg_w", "{:.3f}"),
                ("controller W", "controller_avg_w", "{:.3f}"),
                ("DRAM W", "dram_avg_w", "{:.3f}"),
                ("other W", "other_avg_w", "{:.3f}"),
                ("total W", "total_avg_w", "{:.3f}"),
                ("NAND share", "nand_share", "{:.1%}"),
            ],
        )
        .replace("| iiot", "| `iiot")
        .replace("gb |", "gb` |")
    )
    print()
    rows = queue_depth()
    for row in rows:
        row["iops"] /= 1000
        row["nand_avg_mw"] = row["nand_avg_w"] * 1000
        row["nand_peak_mw"] = row["nand_peak_w"] * 1000
        row["nand_peak_window_mw"] = row["nand_peak_window_w"] * 1000
    print(
        _markdown(
            rows,
            [
                ("QD", "host.queue_depth", "{}"),
                ("kIOPS", "iops", "{:.1f}"),
                ("NAND average mW", "nand_avg_mw", "{:.0f}"),
                ("NAND peak mW", "nand_peak_mw", "{:.0f}"),
                ("NAND peak over 10 us mW", "nand_peak_window_mw", "{:.0f}"),
            ],
        )
    )


if __name__ == "__main__":
    main()
