"""The power_breakdown study (the self-heating paper, papers/000, Figures 5 and 8).

    python studies/power_breakdown/run.py          # the three sweeps, the README tables, measured.json

Runs `breakdown.toml` (Figure 5: both presets at their 8 outstanding commands), `queue_depth.toml`
(Figure 8: the 64 GB drive at QD 1 to 64) and `mechanism.toml` (the isolating runs of the README)
with `ssdtwin.sweep` (results in results/ here, not committed), prints the README's tables and
writes `measured.json`, the figures `claims.toml` compares with the paper.
"""

from __future__ import annotations

import json
import shutil
import tomllib
from pathlib import Path
from typing import Any

import ssdtwin

HERE = Path(__file__).resolve().parent

COMPONENTS = ("nand", "io_bus", "controller", "dram", "other")


def _row(report: ssdtwin.Report) -> dict[str, Any]:
    """One point: its drive, queue depth and workload, and the power figures of its report."""
    power = report.power_w
    row: dict[str, Any] = {
        "drive": report.config["drive"],
        "channels": report.config["flash"]["channels"],
        "queue_depth": report.config["host"]["queue_depth"],
        "workload": report.config["workload"]["kind"],
        "iops": report.iops,
        "waf": report.waf,
    }
    row.update({f"{part}_avg_w": power[f"{part}_avg"] for part in COMPONENTS})
    row["total_avg_w"] = power["total_avg"]
    row["nand_peak_w"] = power["nand_peak"]
    row["nand_avg_mw"] = 1000 * power["nand_avg"]
    row["nand_peak_mw"] = 1000 * power["nand_peak"]
    row["nand_share"] = power["nand_avg"] / power["total_avg"]
    row["die_utilization"] = report.queues["die_utilization"]
    return row


def run_sweep(name: str, out: Path | None = None, **changes: Any) -> list[dict[str, Any]]:
    """Runs sweep file `name` (in this folder) afresh into `out` (default: the file's own), with
    `changes` (dotted keys) set on every point (the tests shorten the runs), and returns one row
    per point, in the file's order."""
    definition = tomllib.loads((HERE / name).read_text())
    definition["base"] = str(HERE / definition["base"])
    out = out or HERE / definition["out"]
    del definition["out"]
    grid = definition.setdefault("grid", {})
    for key, value in changes.items():
        grid[key] = [value]
    shutil.rmtree(out, ignore_errors=True)
    results = ssdtwin.sweep(definition, out=out, workers=2, progress=False)
    return [
        _row(ssdtwin.Report.from_json((out / "reports" / f"{point_id}.json").read_text()))
        for point_id in results["point_id"]
    ]


def breakdown(out: Path | None = None, **changes: Any) -> list[dict[str, Any]]:
    """Figure 5: the 1-channel and the 8-channel drive, each at its preset's 8 outstanding
    commands."""
    return run_sweep("breakdown.toml", out, **changes)


def queue_depth(out: Path | None = None, **changes: Any) -> list[dict[str, Any]]:
    """Figure 8: the 64 GB drive at queue depths 1 to 64."""
    return run_sweep("queue_depth.toml", out, **changes)


def mechanism(out: Path | None = None, **changes: Any) -> list[dict[str, Any]]:
    """The isolating runs: the 512 GB drive at QD 64; both drives under the 4 KiB 50/50 mix."""
    return run_sweep("mechanism.toml", out, **changes)


def measured(breakdown_rows: list[dict[str, Any]], qd_rows: list[dict[str, Any]]) -> dict[str, float]:
    """The figures claims.toml compares with the paper."""
    one, eight = breakdown_rows
    by_qd = {row["queue_depth"]: row for row in qd_rows}
    return {
        "nand_share_pct_64gb_qd8": 100 * one["nand_share"],
        "nand_share_pct_512gb_qd8": 100 * eight["nand_share"],
        "nand_avg_ratio_512gb_to_64gb_qd8": eight["nand_avg_w"] / one["nand_avg_w"],
        "nand_avg_mw_64gb_qd1": 1000 * by_qd[1]["nand_avg_w"],
        "nand_avg_mw_64gb_qd64": 1000 * by_qd[64]["nand_avg_w"],
        "nand_peak_mw_64gb_qd64": 1000 * by_qd[64]["nand_peak_w"],
        "nand_avg_rise_qd1_to_qd64": by_qd[64]["nand_avg_w"] / by_qd[1]["nand_avg_w"] - 1,
    }


def _markdown(rows: list[dict[str, Any]], columns: list[tuple[str, str, str]]) -> str:
    lines = ["| " + " | ".join(header for header, _, _ in columns) + " |"]
    lines.append("|" + "|".join("---:" for _ in columns) + "|")
    for row in rows:
        lines.append("| " + " | ".join(spec.format(row[key]) for _, key, spec in columns) + " |")
    return "\n".join(lines)


BREAKDOWN_COLUMNS = [
    ("drive", "drive", "`{}`"),
    ("workload", "workload", "{}"),
    ("channels", "channels", "{}"),
    ("QD", "queue_depth", "{}"),
    ("IOPS", "iops", "{:,.0f}"),
    ("WAF", "waf", "{:.2f}"),
    ("dies busy", "die_utilization", "{:.0%}"),
    ("NAND W", "nand_avg_w", "{:.3f}"),
    ("I/O bus W", "io_bus_avg_w", "{:.3f}"),
    ("controller W", "controller_avg_w", "{:.3f}"),
    ("DRAM W", "dram_avg_w", "{:.3f}"),
    ("other W", "other_avg_w", "{:.3f}"),
    ("total W", "total_avg_w", "{:.3f}"),
    ("NAND share", "nand_share", "{:.1%}"),
]


def main() -> None:
    rows = breakdown()
    print(_markdown(rows, BREAKDOWN_COLUMNS))
    print()
    qd_rows = queue_depth()
    print(
        _markdown(
            qd_rows,
            [
                ("QD", "queue_depth", "{}"),
                ("IOPS", "iops", "{:,.0f}"),
                ("dies busy", "die_utilization", "{:.0%}"),
                ("NAND average mW", "nand_avg_mw", "{:.0f}"),
                ("NAND peak mW", "nand_peak_mw", "{:.0f}"),
            ],
        )
    )
    print()
    print(_markdown(mechanism(), BREAKDOWN_COLUMNS))
    values = measured(rows, qd_rows)
    (HERE / "measured.json").write_text(json.dumps(values, indent=2, sort_keys=True) + "\n")
    print(json.dumps(values, indent=2, sort_keys=True))


if __name__ == "__main__":
    main()
