"""The public_drives study: three presets of public data-center drives against their published
figures (issue 30, point 4b).

    python studies/public_drives/run.py      # every drive, the README tables, measured.json

Each preset (`samsung_pm9a3`, `kioxia_cd6r`, `micron_9100max`) runs as it is, in the conditions
its specification states: 4 KiB random reads at QD 256 on a filled drive, 4 KiB random writes at
QD 256 in GC steady state (SNIA PTS), 128 KiB sequential reads and writes, 4 KiB reads and writes
at QD 1, and the power of the drive idle, reading and writing. The one change to a preset is its
capacity: `flash.blocks_per_plane` is cut to `BLOCKS_PER_PLANE` so a run takes seconds; the dies,
planes, pages, timing and the over-provisioning ratio stay, and none of the figures depends on
the number of blocks (README, "Scale"). `drives.toml` holds the published figures with their
sources; `measured.json` is written from the runs here, and `scripts/validation.py` puts both on
the validation page.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import ssdtwin

HERE = Path(__file__).resolve().parent
DRIVES = ["samsung_pm9a3", "kioxia_cd6r", "micron_9100max"]
BLOCKS_PER_PLANE = 128
MIB_TO_MB = 1.048576

# io_count of each workload at scale 1 (the study); the tests run a fraction of it.
WORKLOADS: dict[str, dict[str, Any]] = {
    "random_read": {
        "read_fraction": 1.0,
        "block_size": "4KiB",
        "pattern": "random",
        "precondition": "fill",
        "queue_depth": 256,
        "io_count": 200_000,
    },
    "random_write": {
        "read_fraction": 0.0,
        "block_size": "4KiB",
        "pattern": "random",
        "precondition": "steady",
        "queue_depth": 256,
        "io_count": 300_000,
    },
    "sequential_read": {
        "read_fraction": 1.0,
        "block_size": "128KiB",
        "pattern": "sequential",
        "precondition": "fill",
        "queue_depth": 32,
        "io_count": 40_000,
    },
    "sequential_write": {
        "read_fraction": 0.0,
        "block_size": "128KiB",
        "pattern": "sequential",
        "precondition": "fill",
        "queue_depth": 32,
        "io_count": 40_000,
    },
    "read_qd1": {
        "read_fraction": 1.0,
        "block_size": "4KiB",
        "pattern": "random",
        "precondition": "fill",
        "queue_depth": 1,
        "io_count": 20_000,
    },
    "write_qd1": {
        "read_fraction": 0.0,
        "block_size": "4KiB",
        "pattern": "random",
        "precondition": "fill",
        "queue_depth": 1,
        "io_count": 20_000,
    },
    # Idle: one 4 KiB read every 20 ms, so the drive is idle more than 99.9% of the time.
    "idle": {
        "read_fraction": 1.0,
        "block_size": "4KiB",
        "pattern": "random",
        "precondition": "fill",
        "queue_depth": 1,
        "io_count": 200,
        "submission_interval": "20ms",
    },
}


def scenario(
    drive: str, workload: str, scale: float = 1.0, blocks_per_plane: int = BLOCKS_PER_PLANE
) -> dict[str, Any]:
    """The scenario of `workload` on preset `drive`, its command count times `scale` (the tests
    also shrink the drive further: reads and latencies do not depend on its block count)."""
    spec = dict(WORKLOADS[workload])
    host: dict[str, Any] = {"queue_depth": spec.pop("queue_depth")}
    if "submission_interval" in spec:
        host["submission_interval"] = spec.pop("submission_interval")
    count = max(int(spec.pop("io_count") * scale), 100)
    return {
        "seed": 1,
        "drive": drive,
        "host": host,
        "flash": {"blocks_per_plane": blocks_per_plane},
        "workload": {"kind": "synthetic", "distribution": "uniform", "io_count": count, **spec},
    }


def run_drive(
    drive: str,
    scale: float = 1.0,
    workloads: list[str] | None = None,
    blocks_per_plane: int = BLOCKS_PER_PLANE,
) -> dict[str, Any]:
    """The reports of every workload (or those named) on `drive`, by workload name."""
    return {
        name: ssdtwin.run(scenario(drive, name, scale, blocks_per_plane)).to_dict()
        for name in workloads or WORKLOADS
    }


def figures(reports: dict[str, Any]) -> dict[str, float]:
    """The simulated figure of each published figure key (drives.toml), from one drive's reports."""
    out: dict[str, float] = {}
    if "random_read" in reports:
        out["random_read_kiops"] = reports["random_read"]["iops"] / 1000
        out["active_read_power_w"] = reports["random_read"]["power_w"]["total_avg"]
    if "random_write" in reports:
        out["random_write_kiops"] = reports["random_write"]["iops"] / 1000
    if "sequential_read" in reports:
        out["sequential_read_mb_s"] = reports["sequential_read"]["bandwidth_mib_s"] * MIB_TO_MB
    if "sequential_write" in reports:
        report = reports["sequential_write"]
        out["sequential_write_mb_s"] = report["bandwidth_mib_s"] * MIB_TO_MB
        out["write_power_w"] = report["power_w"]["total_avg"]
    if "read_qd1" in reports:
        out["read_latency_qd1_us"] = reports["read_qd1"]["latency_us"]["read"]["mean"]
    if "write_qd1" in reports:
        out["write_latency_qd1_us"] = reports["write_qd1"]["latency_us"]["write"]["mean"]
    if "idle" in reports:
        out["idle_power_w"] = reports["idle"]["power_w"]["total_avg"]
    return out


def published() -> dict[str, Any]:
    """drives.toml: per drive, its published figures (value, unit, source)."""
    return tomllib.loads((HERE / "drives.toml").read_text())["drive"]


def measured(all_figures: dict[str, dict[str, float]]) -> dict[str, float]:
    """The flat measured.json: `<drive>.<figure>` for every published figure of every drive."""
    out: dict[str, float] = {}
    for drive, entry in published().items():
        for figure in entry["figure"]:
            out[f"{drive}.{figure['key']}"] = round(all_figures[drive][figure["key"]], 4)
    return out


def table(drive: str, sims: dict[str, float]) -> str:
    """The README's published-against-simulated table of `drive`."""
    lines = ["| figure | published | simulated | error |", "|---|---:|---:|---:|"]
    for figure in published()[drive]["figure"]:
        value = sims[figure["key"]]
        error = value / figure["value"] - 1
        lines.append(
            f"| {figure['name']} | {figure['value']:,} {figure['unit']} | {value:,.1f} {figure['unit']} "
            f"| {error:+.0%} |"
        )
    return "\n".join(lines)


def extras(reports: dict[str, Any]) -> str:
    """What explains the figures: WAF in steady state, die utilisation under random reads."""
    write = reports["random_write"]
    read = reports["random_read"]
    return (
        f"random write WAF {write['waf']:.2f}, steady state passed: {write['steady_state']['passed']}; "
        f"random read die utilisation {read['queues']['die_utilization']:.2f}"
    )


def main() -> None:
    all_figures: dict[str, dict[str, float]] = {}
    for drive in DRIVES:
        reports = run_drive(drive)
        all_figures[drive] = figures(reports)
        print(f"## {drive}\n\n{table(drive, all_figures[drive])}\n\n{extras(reports)}\n")
    values = measured(all_figures)
    (HERE / "measured.json").write_text(json.dumps(values, indent=2, sort_keys=True) + "\n")
    print(json.dumps(values, indent=2, sort_keys=True))


if __name__ == "__main__":
    main()
