"""The fdp_waf study (issue 31): write amplification of flows on disjoint LBA ranges, without and
with NVMe Flexible Data Placement placement identifiers.

    python studies/fdp_waf/run.py            # 16 runs, the README table and waf.png (~30 s)
    python studies/fdp_waf/run.py --small    # the test's shorter runs

Cases (`CASES`: offset, span, queue depth and pattern of each flow, closed loops):
`two_logs`, two sequential writers (a log over 20% of the space at depth 8, one over the other 80%
at depth 2); `log_and_random`, random writes over 20% at depth 8 beside a sequential log over 80%
at depth 2 (the shape of a flash cache's small-object and large-object engines); `hot_cold`, two
random writers (20% at depth 8, 80% at depth 2); `four`, four random writers on 10%, 20%, 30% and
40% at depths 8, 6, 4 and 2. Each case runs with FDP on and no identifiers (every write on handle
0: the conventional drive; tests/it/fdp.rs checks it runs identically to FDP off), then with flow
i on placement identifier i, initially and persistently isolated. The drive is filled once
(through handle 0); a warm-up of `WARMUP` simulated seconds (about 2.5 times the logical space in
writes) lets the placement settle; the WAF is that of the next `MEASURED`.
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
    # name: [(offset, span, queue depth, pattern)] per flow
    "two_logs": [(0.0, 0.2, 8, "sequential"), (0.2, 0.8, 2, "sequential")],
    "log_and_random": [(0.0, 0.2, 8, "random"), (0.2, 0.8, 2, "sequential")],
    "hot_cold": [(0.0, 0.2, 8, "random"), (0.2, 0.8, 2, "random")],
    "four": [
        (0.0, 0.1, 8, "random"),
        (0.1, 0.2, 6, "random"),
        (0.3, 0.3, 4, "random"),
        (0.6, 0.4, 2, "random"),
    ],
}
MODES = ["no identifiers", "initially_isolated", "persistently_isolated"]
WARMUP, MEASURED = "100s", "40s"
SMALL_WARMUP, SMALL_MEASURED = "60s", "20s"


def flows(case: str, placement: bool) -> list[dict[str, Any]]:
    """The case's flows; with `placement`, flow i writes with placement identifier i."""
    out = []
    for index, (offset, span, depth, pattern) in enumerate(CASES[case]):
        flow: dict[str, Any] = {
            "name": f"flow{index}",
            "offset": offset,
            "span": span,
            "queue_depth": depth,
            "pattern": pattern,
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
        "warmup": warmup,
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
    """The README's table: per case and placement, host writes, WAF, and per handle."""
    lines = [
        "| case | placement | host writes | WAF | per handle: share of host writes, WAF, RUs in use |",
        "|---|---|---:|---:|---|",
    ]
    for row in rows:
        handles = "; ".join(
            f"{h['placement']}: {h['host_share']:.0%}, {h['waf']:.2f}, {h['reclaim_units_in_use']}"
            for h in row["handles"]
        )
        cells = [row["case"], row["mode"], f"{row['host_ios']:,}", f"{row['waf']:.3f}", handles]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def plot(rows: list[dict[str, Any]]) -> None:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(7.2, 4.0), layout="constrained")
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
    axes.set_xticks(range(len(CASES)), ["two logs", "log + random", "hot / cold random", "four random"])
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
