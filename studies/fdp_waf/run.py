"""The fdp_waf study (issue 31): write amplification of flows of different hotness on disjoint
LBA ranges, without and with NVMe Flexible Data Placement identifiers.

    python studies/fdp_waf/run.py            # 8 runs, the README table and waf.png
    python studies/fdp_waf/run.py --small    # the test's shorter runs

Two cases. `hot_cold`: a hot flow writes 20% of the logical space at queue depth 8, a cold flow the
other 80% at depth 2 (closed loop: the hot flow issues about 80% of the writes). `four`: four
flows on 10%, 20%, 30% and 40% of the space at depths 8, 6, 4 and 2. Each case runs with FDP on
and no identifiers (every write on handle 0: the conventional drive, `tests/it/fdp.rs` checks it
runs identically to FDP off), then each flow with its own identifier, initially and persistently
isolated. The drive is filled once (through handle 0); a warm-up of `WARMUP` of simulated time
(about 3 times the logical space in writes) lets the placement settle; the WAF is that of the
next `MEASURED`. The flows are closed loops, so their shares of the writes follow their queue
depths; the table gives the shares measured.
"""

from __future__ import annotations

import json
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import ssdtwin

HERE = Path(__file__).resolve().parent
CASES = {
    # name: [(offset, span, queue depth)] per flow
    "hot_cold": [(0.0, 0.2, 8), (0.2, 0.8, 2)],
    "four": [(0.0, 0.1, 8), (0.1, 0.2, 6), (0.3, 0.3, 4), (0.6, 0.4, 2)],
}
MODES = ["no identifiers", "initially_isolated", "persistently_isolated"]
WARMUP, MEASURED = "80s", "80s"
SMALL_WARMUP, SMALL_MEASURED = "40s", "40s"


def flows(case: str, placement: bool) -> list[dict[str, Any]]:
    """The case's flows; with `placement`, flow i writes with placement identifier i."""
    out = []
    for index, (offset, span, depth) in enumerate(CASES[case]):
        flow: dict[str, Any] = {
            "name": f"flow{index}",
            "offset": offset,
            "span": span,
            "queue_depth": depth,
        }
        if placement:
            flow["placement"] = index
        out.append(flow)
    return out


def run_point(args: tuple[str, str, bool]) -> dict[str, Any]:
    case, mode, small = args
    warmup, measured = (SMALL_WARMUP, SMALL_MEASURED) if small else (WARMUP, MEASURED)
    overrides: dict[str, Any] = {
        "workload.flows": flows(case, mode != "no identifiers"),
        "workload.warmup": warmup,
        "workload.duration": measured,
    }
    if mode != "no identifiers":
        overrides["fdp.handle_type"] = mode
    report = ssdtwin.run(str(HERE / "base.toml"), **overrides)
    data = report.to_dict()
    fdp = data["fdp"]
    host_total = sum(handle["host_bytes"] for handle in fdp["handles"])
    return {
        "case": case,
        "mode": mode,
        "waf": report.waf,
        "host_ios": report.host_ios,
        "handles": [
            {
                "placement": handle["placement"],
                "host_share": handle["host_bytes"] / host_total,
                "waf": handle["waf"],
                "reclaim_units_in_use": handle["reclaim_units_in_use"],
            }
            for handle in fdp["handles"]
            if handle["host_bytes"] > 0
        ],
        "shared_gc_share": fdp["shared_gc_media_bytes"] / max(1, data["ftl"]["media_write_bytes"]),
        "events": fdp["events"],
    }


def run_all(small: bool = False, cases: list[str] | None = None, workers: int = 2) -> list[dict[str, Any]]:
    points = [(case, mode, small) for case in cases or list(CASES) for mode in MODES]
    # ssdtwin.run releases the GIL while it simulates: threads run the points in parallel.
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(run_point, points))


def table(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| case | placement | WAF | per handle: share of host writes, WAF |",
        "|---|---|---:|---|",
    ]
    for row in rows:
        handles = "; ".join(
            f"{handle['placement']}: {handle['host_share']:.0%}, {handle['waf']:.2f}" for handle in row["handles"]
        )
        lines.append(f"| {row['case']} | {row['mode']} | {row['waf']:.3f} | {handles} |")
    return "\n".join(lines)


def plot(rows: list[dict[str, Any]]) -> None:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(6.4, 4.0), layout="constrained")
    FigureCanvasAgg(figure)
    axes = figure.subplots()
    width = 0.25
    for offset, mode in enumerate(MODES):
        points = [row for row in rows if row["mode"] == mode]
        axes.bar(
            [index + (offset - 1) * width for index in range(len(points))],
            [row["waf"] for row in points],
            width,
            label=mode.replace("_", " "),
        )
    axes.set_xticks(range(len(CASES)), ["hot 20% / cold 80%", "four flows"])
    axes.axhline(1.0, color="grey", linewidth=0.8)
    axes.set_ylabel("write amplification (measured run)")
    axes.legend(fontsize="small")
    figure.savefig(HERE / "waf.png", dpi=110)


def main() -> None:
    small = "--small" in sys.argv
    rows = run_all(small=small)
    (HERE / ("results_small.json" if small else "results.json")).write_text(json.dumps(rows, indent=1))
    print(table(rows))
    if not small:
        plot(rows)


if __name__ == "__main__":
    main()
