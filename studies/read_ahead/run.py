"""The read_ahead study (issue 32, part 3): bandwidth of 4 KiB reads with and without the DRAM read
cache and read-ahead, sequential and random, at queue depth 1 and 32.

    python studies/read_ahead/run.py            # 12 runs, the README table and bandwidth.png
    python studies/read_ahead/run.py --small    # the test's runs (fewer reads)

Three settings per point: off (the default: every read of programmed data goes to flash), the
read cache alone (`buffer.read_cache`: units read stay in DRAM, a read of a cached unit is served
in `controller.buffer_read_time`), and the cache with read-ahead (`buffer.read_ahead`: a read that
starts where an earlier one ended makes the controller read the stream's next units into the
cache). results.json keeps the figures, bandwidth.png is the plot.
"""

from __future__ import annotations

import json
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import ssdtwin

HERE = Path(__file__).resolve().parent
PATTERNS = ["sequential", "random"]
QUEUE_DEPTHS = [1, 32]
SETTINGS = {
    "off": {},
    "cache": {"buffer.read_cache": "64MiB"},
    "cache + read-ahead": {"buffer.read_cache": "64MiB", "buffer.read_ahead": "256KiB"},
}
SMALL = {"workload.io_count": 8000}


def run_point(args: tuple[str, int, str, bool]) -> dict[str, Any]:
    pattern, queue_depth, setting, small = args
    overrides = {
        **(SMALL if small else {}),
        "workload.pattern": pattern,
        "host.queue_depth": queue_depth,
        **SETTINGS[setting],
    }
    report = ssdtwin.run(str(HERE / "base.toml"), **overrides).to_dict()
    cache = report.get("read_cache") or {}
    return {
        "pattern": pattern,
        "queue_depth": queue_depth,
        "setting": setting,
        "bandwidth_mib_s": report["bandwidth_mib_s"],
        "iops": report["iops"],
        "read_p50_us": report["latency_us"]["read"]["p50"],
        "flash_reads": report["flash"]["reads"],
        "hit_ratio": cache.get("hit_ratio", 0.0),
        "prefetched": cache.get("prefetched", 0),
        "prefetch_hits": cache.get("prefetch_hits", 0),
        "prefetched_unused": cache.get("prefetched_unused", 0),
    }


def run_all(small: bool = False, workers: int = 2) -> list[dict[str, Any]]:
    cases = [
        (pattern, depth, setting, small)
        for pattern in PATTERNS
        for depth in QUEUE_DEPTHS
        for setting in SETTINGS
    ]
    # ssdtwin.run releases the GIL while it simulates: threads run the points in parallel.
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(run_point, cases))


def table(rows: list[dict[str, Any]]) -> str:
    """The README's table: bandwidth per point and setting, and the gain over off."""
    columns = ["pattern", "QD", *[f"{name} [MiB/s]" for name in SETTINGS], "read-ahead gain", "hit ratio"]
    columns += ["read ahead [units]", "unused"]
    lines = ["| " + " | ".join(columns) + " |", "|---|---:|" + "---:|" * (len(columns) - 2)]
    index = {(row["pattern"], row["queue_depth"], row["setting"]): row for row in rows}
    for pattern in PATTERNS:
        for depth in QUEUE_DEPTHS:
            points = [index[(pattern, depth, setting)] for setting in SETTINGS]
            ahead = points[-1]
            cells = [pattern, str(depth), *[f"{point['bandwidth_mib_s']:,.1f}" for point in points]]
            cells += [f"{ahead['bandwidth_mib_s'] / points[0]['bandwidth_mib_s']:.2f}x"]
            cells += [f"{ahead['hit_ratio']:.1%}", f"{ahead['prefetched']:,}"]
            cells += [f"{ahead['prefetched_unused']:,}"]
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def plot(rows: list[dict[str, Any]]) -> None:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(7.2, 4.2), layout="constrained")
    FigureCanvasAgg(figure)
    axes = figure.subplots()
    groups = [(pattern, depth) for pattern in PATTERNS for depth in QUEUE_DEPTHS]
    width = 0.8 / len(SETTINGS)
    index = {(row["pattern"], row["queue_depth"], row["setting"]): row for row in rows}
    for offset, setting in enumerate(SETTINGS):
        heights = [index[(pattern, depth, setting)]["bandwidth_mib_s"] for pattern, depth in groups]
        positions = [group + (offset - 1) * width for group in range(len(groups))]
        axes.bar(positions, heights, width, label=setting)
    axes.set_xticks(range(len(groups)), [f"{pattern}\nQD {depth}" for pattern, depth in groups])
    axes.set_ylabel("4 KiB read bandwidth [MiB/s]")
    axes.set_yscale("log")
    axes.legend(fontsize="small")
    figure.savefig(HERE / "bandwidth.png", dpi=110)


def main() -> None:
    small = "--small" in sys.argv
    rows = run_all(small=small)
    (HERE / ("results_small.json" if small else "results.json")).write_text(json.dumps(rows, indent=1))
    print(table(rows))
    if not small:
        plot(rows)


if __name__ == "__main__":
    main()
