"""The program-suspend study's figures (the program-suspend paper, papers/001): reads the results of
`ssdtwin sweep studies/program_suspend/sweep.toml` and of `delays.py` (the chip experiment of
Figure 6), writes `measured.json` here (the keys `claims.toml` names) and prints the README's tables.

    ssdtwin sweep studies/program_suspend/sweep.toml
    python studies/program_suspend/delays.py
    python studies/program_suspend/measure.py [RESULTS_DIR]

RESULTS_DIR defaults to studies/program_suspend/results/program_suspend (where the sweep writes);
delays.py writes results/delays.json beside it.

The isolating table for Figure 11a counts, per point, the mean number of page programs pulsing
(array time, extra ISPP time included; a two-plane program is two), of page programs held
suspended and of reads sensing at any instant
(Little's law over the run: operations x their time / simulated time): the terms the NAND rail
sum of the paper's Section 5.2 adds up.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import ssdtwin

HERE = Path(__file__).resolve().parent
SETTINGS = {"off": (0, False), "5": (5, False), "10": (10, False), "10+erase": (10, True)}
CASES = [(qd, read) for qd in (16, 64) for read in (0.25, 0.75)]


def _points(results: Path) -> dict[tuple[int, float, str], dict[str, Any]]:
    table = ssdtwin.load(results)
    points = {}
    for row in table.to_dict("records"):
        if row["status"] != "ok":
            raise SystemExit(f"{results}: point {row['point_id']} is {row['status']}: {row['error']}")
        setting = (int(row["flash.suspend.max_per_operation"]), bool(row["flash.suspend.erase"]))
        name = next(name for name, value in SETTINGS.items() if value == setting)
        points[int(row["host.queue_depth"]), float(row["workload.read_fraction"]), name] = row
    return points


def _preset_times() -> dict[str, float]:
    """tPROG, tREAD, tEPS, resume and extra ISPP time of the study's drive [us]."""
    scenario = ssdtwin.resolve({"drive": "enterprise_tlc"})
    flash = scenario["flash"]
    suspend = flash["suspend"]

    def micros(text: str) -> float:
        units = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}
        for unit in ("ns", "us", "ms", "s"):
            if text.endswith(unit):
                return float(text[: -len(unit)]) * units[unit]
        raise ValueError(text)

    program = micros(flash["t_program"])

    def resolve(value: Any) -> float:
        return value * program if isinstance(value, int | float) else micros(value)

    return {
        "program": program,
        "read": micros(flash["t_read"]),
        "enter": resolve(suspend["enter_time"]),
        "resume": resolve(suspend["resume_time"]),
        "extra": resolve(suspend["resume_extra_time"]),
    }


def _overlap(row: dict[str, Any], times: dict[str, float]) -> dict[str, float]:
    """Mean dies programming (array pulsing), suspended inside a program, and reading."""
    seconds = row["simulated_time_s"] * 1e6
    programs = row["flash.programs"] + row["flash.gc_programs"]
    suspensions = row["suspend.program"]
    active = programs * times["program"] + suspensions * times["extra"]
    held = programs * row["suspend.mean_program_time_us"] - active
    reads = (row["flash.reads"] + row["flash.gc_reads"]) * times["read"]
    return {"programming": active / seconds, "suspended": held / seconds, "reading": reads / seconds}


def measured(
    points: dict[tuple[int, float, str], dict[str, Any]], times: dict[str, float]
) -> dict[str, float]:
    def get(qd: int, read: float, setting: str, key: str) -> float:
        return float(points[qd, read, setting][key])

    def change(qd: int, read: float, key: str, new: str = "10", old: str = "off") -> float:
        return get(qd, read, new, key) - get(qd, read, old, key)

    def relative(qd: int, read: float, key: str, new: str = "10", old: str = "off") -> float:
        return change(qd, read, key, new, old) / get(qd, read, old, key)

    read_p9999, all_p9999 = "latency_us.read.p99_99", "latency_us.all.p99_99"
    iops_rel = [relative(qd, read, "iops", limit) for qd, read in CASES for limit in ("5", "10")]
    nand_rise = {case: change(*case, "power_w.nand_avg") for case in CASES}
    io_rise = {case: change(*case, "power_w.io_bus_avg") for case in CASES}
    program_ratio = 1 + 10 * (times["enter"] + times["resume"] + times["extra"]) / times["program"]
    w75 = _overlap(points[64, 0.25, "off"], times), _overlap(points[64, 0.25, "10"], times)
    return {
        "iops_gain_kiops_qd64_r75": change(64, 0.75, "iops") / 1e3,
        "iops_gain_rel_min_all_cases": min(iops_rel),
        "iops_rel_10_vs_5_qd64_r75": relative(64, 0.75, "iops", "10", "5"),
        "mean_latency_change_us_qd64_r75": change(64, 0.75, "latency_us.all.mean"),
        "nand_power_delta_w_qd64_r75": nand_rise[64, 0.75],
        "nand_power_delta_w_qd64_w75": nand_rise[64, 0.25],
        "io_bus_power_delta_w_qd16_w75": io_rise[16, 0.25],
        "programs_pulsing_rel_qd64_w75": w75[1]["programming"] / w75[0]["programming"] - 1,
        "total_qos_change_ms_qd64_r75": change(64, 0.75, all_p9999) / 1e3,
        "read_qos_change_ms_qd64_r75": change(64, 0.75, read_p9999) / 1e3,
        "total_qos_rel_10_vs_5_qd64_r75": relative(64, 0.75, all_p9999, "10", "5"),
        "tpgms_ratio_10_suspensions": program_ratio,
        "waf_mean_suspend_off": sum(get(qd, read, "off", "waf") for qd, read in CASES) / len(CASES),
    }


def fig6(delays: dict[str, list[dict[str, float]]]) -> dict[str, float]:
    """Figure 6's numbers from delays.py's grid (the preset's suspend timing)."""
    counts = {(row["delay1"], row["delay2"]): row["suspensions"] for row in delays["preset"]}

    def mean(pairs: list[tuple[float, float]]) -> float:
        return sum(counts[pair] for pair in pairs) / len(pairs)

    long = [(d1, d2) for d1, d2 in counts if d1 > 0.6 and d2 > 0.6]
    short = [(d1, d2) for d1, d2 in counts if d1 <= 0.3 and d2 <= 0.3]
    return {
        "fig6_suspensions_max": max(counts.values()),
        "fig6_suspensions_mean_delays_above_60pct": mean(long),
        "fig6_suspensions_rel_short_vs_long_delays": mean(short) / mean(long) - 1,
    }


def print_fig6(delays: dict[str, list[dict[str, float]]]) -> None:
    for name, rows in delays.items():
        counts = {(row["delay1"], row["delay2"]): row["suspensions"] for row in rows}
        values = sorted({d1 for d1, _ in counts})
        print(f"\ndelays.py, {name}: suspensions per program, rows Delay1, columns Delay2 (% of tPGM)\n")
        print("| Delay1 \\ Delay2 | " + " | ".join(f"{round(d * 100)}%" for d in values) + " |")
        print("|" + "---|" * (len(values) + 1))
        for d1 in values:
            print(f"| {round(d1 * 100)}% | " + " | ".join(str(counts[d1, d2]) for d2 in values) + " |")


def print_cdf(points: dict[tuple[int, float, str], dict[str, Any]]) -> None:
    """Figure 12's profile: percentiles of the latency CDF at QD 64, 75% writes."""
    percentiles = ("p50", "p99", "p99_9", "p99_99", "max")
    print("\n| suspend | latency | " + " | ".join(f"{p.replace('_', '.')} [us]" for p in percentiles) + " |")
    print("|" + "---|" * (len(percentiles) + 2))
    for setting in ("off", "5", "10"):
        row = points[64, 0.25, setting]
        for kind in ("read", "write", "all"):
            cells = [f"{row[f'latency_us.{kind}.{p}']:,.0f}" for p in percentiles]
            print(f"| {setting} | {kind} | " + " | ".join(cells) + " |")


def print_tables(points: dict[tuple[int, float, str], dict[str, Any]], times: dict[str, float]) -> None:
    print(
        "| QD | read | suspend | IOPS | mean lat. [us] | read p99 [us] | read p99.99 [us] | all p99.99 [us] "
        "| suspensions | tPGM,s [us] | WAF | erases | NAND [W] | I/O bus [W] |"
    )
    print("|" + "---|" * 14)
    for qd, read in CASES:
        for setting in SETTINGS:
            row = points[qd, read, setting]
            latency = [
                row[f"latency_us.{kind}"] for kind in ("all.mean", "read.p99", "read.p99_99", "all.p99_99")
            ]
            cells = [f"{row['iops']:,.0f}", *(f"{value:,.0f}" for value in latency)]
            cells += [f"{row['suspend.program']:,}", f"{row['suspend.mean_program_time_us']:,.0f}"]
            cells += [f"{row['waf']:.2f}", f"{row['ftl.erases.total']:,}", f"{row['power_w.nand_avg']:.2f}"]
            cells += [f"{row['power_w.io_bus_avg']:.4f}"]
            print(f"| {qd} | {read} | {setting} | " + " | ".join(cells) + " |")
    print()
    print(
        "| QD | read | suspend | page programs/s | page programs pulsing | page programs held suspended "
        "| reads sensing | NAND [W] | NAND peak (window) [W] |"
    )
    print("|" + "---|" * 9)
    for qd, read in CASES:
        for setting in ("off", "5", "10"):
            row = points[qd, read, setting]
            dies = _overlap(row, times)
            rate = (row["flash.programs"] + row["flash.gc_programs"]) / row["simulated_time_s"]
            cells = [f"{rate:,.0f}", *(f"{dies[key]:.1f}" for key in ("programming", "suspended", "reading"))]
            cells += [f"{row['power_w.nand_avg']:.2f}", f"{row['power_w.nand_peak_window']:.2f}"]
            print(f"| {qd} | {read} | {setting} | " + " | ".join(cells) + " |")


ISOLATE_COLUMNS = {
    "iops": ("IOPS", ",.0f"),
    "latency_us.read.p99_9": ("read p99.9 [us]", ",.0f"),
    "latency_us.read.p99_99": ("read p99.99 [us]", ",.0f"),
    "latency_us.all.p99_99": ("all p99.99 [us]", ",.0f"),
    "latency_us.write.p99_99": ("write p99.99 [us]", ",.0f"),
    "queues.hol_events": ("head-of-line blocked admissions", ",.0f"),
    "queues.die_utilization": ("die utilisation", ".2f"),
    "suspend.mean_program_time_us": ("tPGM,s [us]", ",.0f"),
}


def print_isolating(results: Path) -> None:
    """The table of an isolating sweep (isolate_tail.toml, isolate_extra.toml), if it was run."""
    if not (results / "results.parquet").exists():
        return
    table = ssdtwin.load(results)
    swept = list(table.columns[: table.columns.get_loc("ssdtwin_version")])
    swept = [column for column in swept if column not in ("point_id", "seed", "status", "error")]
    print(f"\n{results.name}:\n")
    print("| " + " | ".join([*swept, *(name for name, _ in ISOLATE_COLUMNS.values())]) + " |")
    print("|" + "---|" * (len(swept) + len(ISOLATE_COLUMNS)))
    for row in table.to_dict("records"):
        cells = [str(row[column]) for column in swept]
        cells += [format(row[key], spec) for key, (_, spec) in ISOLATE_COLUMNS.items()]
        print("| " + " | ".join(cells) + " |")


def main() -> None:
    results = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE / "results" / "program_suspend"
    points = _points(results)
    times = _preset_times()
    delays_file = results.parent / "delays.json"
    if not delays_file.exists():
        raise SystemExit(f"{delays_file} is missing: run python studies/program_suspend/delays.py first")
    delays = json.loads(delays_file.read_text(encoding="utf-8"))
    values = measured(points, times) | fig6(delays)
    (HERE / "measured.json").write_text(json.dumps(values, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    print_tables(points, times)
    print_cdf(points)
    print_fig6(delays)
    for name in ("isolate_tail", "isolate_extra"):
        print_isolating(results.parent / name)
    print()
    for key, value in sorted(values.items()):
        print(f"{key} = {value:.4g}")


if __name__ == "__main__":
    main()
