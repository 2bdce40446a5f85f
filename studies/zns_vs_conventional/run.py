"""The zns_vs_conventional study (issue 31): the same raw flash as a zoned namespace written by a
log-structured host, and as a conventional drive with its over-provisioning, after warm-up.

    python studies/zns_vs_conventional/run.py            # the README table, results.json, plots
    python studies/zns_vs_conventional/run.py --small    # the test's shorter runs

Drive (`base.toml`): 4 dies x 2 planes x 64 blocks of 4 MiB = 2 GiB raw on every case, the
thermal model of an uncooled M.2 board on (no throttling). Host: 64 KiB commands, 20% reads of
written data, 16 in flight.

Cases (`CASES`):
- `zns`: the zoned writer (`workload.kind = "zoned"`) on the zoned namespace, 4 zones written at
  once, the oldest full zone reset when fewer than 2 are empty. A zoned drive refuses
  `workload.precondition` other than `none` (it is filled by writing its zones), so it warms up by
  writing: `WARMUP` commands (about 2.5 passes of the namespace) before the measured part.
- `zns_die_group`: the same with each zone on one die (`zns.mapping = "die_group"`,
  `die_group = 1`) instead of striped over all 4: a reset erases one die's blocks, not a block on
  every plane of the drive.
- `conv_log_op7`, `conv_log_op28`: a conventional drive with 7% and 28% over-provisioning and the
  same host's logs as 4 sequential writers on 4 quarters of the logical space (flows with
  `offset`/`span`, 3 commands in flight each) beside a random reader (4 in flight), preconditioned
  `steady`, then the same warm-up.
- `conv_unequal_log_op7`, `conv_unequal_log_op28`: the same with the logs on 10%, 20%, 30% and
  40% of the space (equal rates, so unequal lifetimes).
- `conv_random_op7`, `conv_random_op28`: the same drives under uniform random 64 KiB overwrites:
  a log-structured host whose segments are cleaned in an order the drive does not see (the
  "block interface tax" of Bjørling et al., USENIX ATC 2021).
"""

from __future__ import annotations

import json
import re
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import ssdtwin

HERE = Path(__file__).resolve().parent
LOGS = 4
READ_FRACTION = 0.2
# The conventional logs cases: 4 writers of 3 commands in flight and a reader of 4 (16 in all).
LOG_DEPTH, READER_DEPTH = 3, 4
# case: (zoned, over-provisioning, the conventional drive's writers: the spans of its 4 logs
# (fractions of the logical space, consecutive), or "random")
CASES: dict[str, tuple[bool, float, str]] = {
    "zns": (True, 0.0, "striped"),
    "zns_die_group": (True, 0.0, "die_group"),
    "conv_log_op7": (False, 0.07, "0.25,0.25,0.25,0.25"),
    "conv_log_op28": (False, 0.28, "0.25,0.25,0.25,0.25"),
    "conv_unequal_log_op7": (False, 0.07, "0.1,0.2,0.3,0.4"),
    "conv_unequal_log_op28": (False, 0.28, "0.1,0.2,0.3,0.4"),
    "conv_random_op7": (False, 0.07, "random"),
    "conv_random_op28": (False, 0.28, "random"),
}
# Commands of 64 KiB, 80% writes: the warm-up writes 20 GiB, 2.5 passes of the 8 GiB namespace
# (and 3.8 thermal time constants on the zoned drive); the measured part 3.9 GiB.
WARMUP, MEASURED = 330000, 80000
# The test's runs: a 4 GiB drive (128 blocks a plane), 1.5 passes of warm-up.
SMALL_WARMUP, SMALL_MEASURED, SMALL_BLOCKS = 100000, 30000, 128
GIB = 1 << 30


def overrides(case: str, small: bool) -> dict[str, Any]:
    zoned, op, pattern = CASES[case]
    warmup, measured = (SMALL_WARMUP, SMALL_MEASURED) if small else (WARMUP, MEASURED)
    out: dict[str, Any] = {"workload.warmup": warmup, "workload.io_count": measured}
    if small:
        out["flash.blocks_per_plane"] = SMALL_BLOCKS
    if zoned:
        out.update(
            {
                "zns.enabled": True,
                "zns.max_open": 8,
                "zns.max_active": 8,
                "workload.kind": "zoned",
                "workload.precondition": "none",
                "workload.read_fraction": READ_FRACTION,
                "workload.zoned.open_zones": LOGS,
                "workload.zoned.free_zones": 2,
            }
        )
        if pattern == "die_group":
            # Each zone on one die (8 MiB, 1024 zones): a reset erases one die's blocks.
            out.update({"zns.mapping": "die_group", "zns.die_group": 1})
        return out
    out.update({"ftl.over_provisioning": op, "workload.precondition": "steady"})
    if pattern != "random":
        # A sequential flow's reads would take the write cursor's next slot (skipping its
        # overwrite for a pass), so the logs only write and one flow reads at random.
        spans = [float(span) for span in pattern.split(",")]
        out["workload.flows"] = [
            {
                "name": f"log{index}",
                "offset": sum(spans[:index]),
                "span": span,
                "queue_depth": LOG_DEPTH,
                "pattern": "sequential",
                "read_fraction": 0.0,
            }
            for index, span in enumerate(spans)
        ] + [{"name": "reader", "queue_depth": READER_DEPTH, "pattern": "random", "read_fraction": 1.0}]
    else:
        out.update({"workload.pattern": "random", "workload.read_fraction": READ_FRACTION})
    return out


def run_point(args: tuple[str, bool]) -> dict[str, Any]:
    case, small = args
    report = ssdtwin.run(str(HERE / "base.toml"), **overrides(case, small))
    data = report.to_dict()
    frame = report.timeseries
    start = data["warmup"]["time_s"]
    measured = frame[frame["time_s"] > start]
    series = {column: [float(value) for value in measured[column]] for column in measured.columns}
    return summarise(case, data, series)


def seconds(text: str) -> float:
    """A resolved duration of the config ("5ms", "80us") in seconds."""
    match = re.fullmatch(r"([0-9.]+)(ns|us|ms|s)", text)
    if match is None:
        raise ValueError(f"unexpected duration {text!r}: expected a number and ns, us, ms or s")
    return float(match[1]) * {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[match[2]]


def erase_energy_j(config: dict[str, Any]) -> float:
    """One block erase's array energy above standby, tBERS x VCC x (ICC3 - ISB) (docs/models/power.md;
    the command cycles, a few bus cycles, left out)."""
    power = config["power"]
    current_a = power["icc_erase_ma"] * 1e-3 - power["isb_ua"] * 1e-6
    return seconds(config["flash"]["t_erase"]) * power["vcc_v"] * current_a


def mean_nand_temperature(series: dict[str, list[float]], nodes: list[str]) -> float:
    """Mean over the measured run's samples of the hottest NAND package's temperature."""
    columns = [series[f"temp_c.{node}"] for node in nodes]
    hottest = [max(values) for values in zip(*columns, strict=True)]
    return sum(hottest) / len(hottest)


def summarise(case: str, data: dict[str, Any], series: dict[str, list[float]]) -> dict[str, Any]:
    """The case's figures from its report (measured run) and time series (the whole run)."""
    host_gib = data["ftl"]["host_write_bytes"] / GIB
    read = data["latency_us"]["read"]
    thermal = data["thermal"]
    nand_nodes = [name for name in thermal["max_c"] if name.startswith("nand_")]
    erases = data["flash"]["erases"]
    return {
        "case": case,
        "zoned": CASES[case][0],
        "over_provisioning": CASES[case][1],
        "host_write_gib": host_gib,
        "bandwidth_mib_s": data["bandwidth_mib_s"],
        "write_mib_s": host_gib * 1024 / (data["simulated_time_s"] - data["warmup"]["time_s"]),
        "read_share": read["count"] / data["latency_us"]["all"]["count"],
        "read_p99_us": read["p99"],
        "read_p99_9_us": read["p99_9"],
        "write_p99_us": data["latency_us"]["write"]["p99"],
        "waf": data["waf"],
        "erases": erases,
        "gc_programs": data["flash"]["gc_programs"],
        "nand_j_per_gib": data["energy_j"]["nand"] / host_gib,
        "total_j_per_gib": data["energy_j"]["total"] / host_gib,
        "erase_j_per_gib": erases * erase_energy_j(data["config"]) / host_gib,
        "nand_w": data["power_w"]["nand_avg"],
        "nand_max_c": max(thermal["max_c"][name] for name in nand_nodes),
        "nand_mean_c": mean_nand_temperature(series, nand_nodes),
        "composite_max_c": thermal["composite_max_c"],
    }


def run_all(small: bool = False, cases: list[str] | None = None, workers: int = 2) -> list[dict[str, Any]]:
    points = [(case, small) for case in cases or list(CASES)]
    # ssdtwin.run releases the GIL while it simulates: threads run the points in parallel.
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(run_point, points))


LABELS = {
    "zns": "ZNS",
    "zns_die_group": "ZNS, zone per die",
    "conv_log_op7": "conv. logs 7%",
    "conv_log_op28": "conv. logs 28%",
    "conv_unequal_log_op7": "conv. unequal logs 7%",
    "conv_unequal_log_op28": "conv. unequal logs 28%",
    "conv_random_op7": "conv. random 7%",
    "conv_random_op28": "conv. random 28%",
}


def table(rows: list[dict[str, Any]]) -> str:
    """The README's table, one row per case."""
    lines = [
        "| case | OP | host MiB/s (writes) | read p99 / p99.9 ms | WAF | erases / host GiB"
        " | reads | NAND / total J per GiB written | erase J / GiB | NAND W | NAND °C mean / max |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        cells = [
            LABELS[row["case"]],
            "—" if row["zoned"] else f"{row['over_provisioning']:.0%}",
            f"{row['bandwidth_mib_s']:.1f} ({row['write_mib_s']:.1f})",
            f"{row['read_p99_us'] / 1e3:.1f} / {row['read_p99_9_us'] / 1e3:.1f}",
            f"{row['waf']:.2f}",
            f"{row['erases'] / row['host_write_gib']:.0f}",
            f"{row['read_share']:.0%}",
            f"{row['nand_j_per_gib']:.1f} / {row['total_j_per_gib']:.0f}",
            f"{row['erase_j_per_gib']:.2f}",
            f"{row['nand_w']:.3f}",
            f"{row['nand_mean_c']:.1f} / {row['nand_max_c']:.1f}",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def plot(rows: list[dict[str, Any]]) -> None:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(8.0, 5.6), layout="constrained")
    FigureCanvasAgg(figure)
    panels = figure.subplots(2, 2)
    names = [LABELS[row["case"]] for row in rows]
    colours = ["tab:green" if row["zoned"] else "tab:blue" for row in rows]
    positions = list(range(len(rows)))
    for axes, key, label in [
        (panels[0][0], "bandwidth_mib_s", "host MiB/s (reads + writes)"),
        (panels[0][1], "read_p99_9_us", "read p99.9 latency [ms]"),
        (panels[1][0], "waf", "write amplification"),
        (panels[1][1], "nand_j_per_gib", "NAND energy per GiB written [J]"),
    ]:
        scale = 1e-3 if key.endswith("_us") else 1.0
        axes.bar(positions, [row[key] * scale for row in rows], color=colours)
        axes.set_xticks(positions, names, rotation=25, ha="right", fontsize="small")
        axes.set_ylabel(label)
        if key in ("waf", "nand_j_per_gib", "read_p99_9_us"):
            axes.set_yscale("log")
    figure.suptitle("Same 8 GiB of raw flash: zoned namespace vs conventional FTL", fontsize="medium")
    figure.savefig(HERE / "comparison.png", dpi=110)


def main() -> None:
    small = "--small" in sys.argv
    rows = run_all(small=small)
    (HERE / ("results_small.json" if small else "results.json")).write_text(json.dumps(rows, indent=1))
    print(table(rows))
    if not small:
        plot(rows)


if __name__ == "__main__":
    main()
