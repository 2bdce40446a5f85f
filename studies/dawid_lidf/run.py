"""The dawid_lidf study (the capacitor paper, papers/003, Figures 3-6): IOPS and write traffic
against the protected ratio of the mapping table, FIFO against LIDF flushing.

    python studies/dawid_lidf/run.py            # 42 runs, the README table and plots (~1.5 min)
    python studies/dawid_lidf/run.py --small    # the test's scaled-down drive

Each point runs `base.toml` with one workload (4 KiB sequential writes, 4 KiB random writes, the
JESD219 mix), one flush order and one protected ratio, writing three times the working area;
results.json here keeps the figures, iops.png and traffic.png are the plots.
"""

from __future__ import annotations

import json
import sys
import tomllib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import ssdtwin

HERE = Path(__file__).resolve().parent
RATIOS = [0.01, 0.02, 0.05, 0.10, 0.25, 0.50, 1.0]
ORDERS = ["fifo", "lidf"]
# JESD219 transfer sizes (examples/jesd219.fio): 512 B to 3.5 KiB (weight 10 in all) write one
# 4 KiB mapping unit each (a read-modify-write of the unit), so they join the 4 KiB share.
JESD219_BSSPLIT = [["4KiB", 77], ["8KiB", 10], ["16KiB", 7], ["32KiB", 3], ["64KiB", 3]]
JESD219_READ = 0.4
WORKLOADS = {
    "sequential": {"workload.pattern": "sequential"},
    "random": {"workload.pattern": "random"},
    "jesd219": {
        "workload.pattern": "random",
        "workload.distribution": "jesd219",
        "workload.read_fraction": JESD219_READ,
        "workload.bssplit": JESD219_BSSPLIT,
    },
}
# The test's drive: a quarter of the blocks, so a quarter of the area, buffer and writes.
SMALL = {"flash.blocks_per_plane": 32}


def base() -> dict[str, Any]:
    return tomllib.loads((HERE / "base.toml").read_text())


def area_units(settings: dict[str, Any]) -> int:
    """Mapping units of the working area: the logical capacity times `workload.span`."""
    table = base()
    flash = table["flash"]
    blocks = settings.get("flash.blocks_per_plane", flash["blocks_per_plane"])
    planes = flash["channels"] * flash["dies_per_chip"] * flash["planes_per_die"]
    physical = planes * blocks * flash["pages_per_block"]  # 4 KiB pages = mapping units
    logical = int(physical * (1 - 0.30))
    return int(logical * table["workload"]["span"])


def mean_write_units() -> float:
    """Mean 4 KiB units of a JESD219 command."""
    total = sum(weight for _, weight in JESD219_BSSPLIT)
    return sum(weight * int(size[:-3]) / 4 for size, weight in JESD219_BSSPLIT) / total


def point(workload: str, order: str, ratio: float, small: bool = False) -> dict[str, Any]:
    """The overrides of one point: three times the working area written, the buffer at 6.8% of the
    area (the paper's 2 GB buffer for a 30 GB area)."""
    settings: dict[str, Any] = dict(SMALL) if small else {}
    area = area_units(settings)
    writes = 3 * area
    per_command = (1 - JESD219_READ) * mean_write_units() if workload == "jesd219" else 1.0
    io_count = int(writes / per_command)
    buffer_mib = round(area * 4096 * 2 / 30 / 2**20)
    return {
        **settings,
        **WORKLOADS[workload],
        "workload.io_count": io_count,
        "buffer.capacity": f"{buffer_mib}MiB",
        "buffer.flush_order": order,
        "plp.protected_ratio": ratio,
    }


def run_point(args: tuple[str, str, float, bool]) -> dict[str, Any]:
    workload, order, ratio, small = args
    report = ssdtwin.run(str(HERE / "base.toml"), **point(workload, order, ratio, small))
    plp = report.plp
    return {
        "workload": workload,
        "order": order,
        "ratio": ratio,
        "iops": report.iops,
        "user_pages": report.flash["programs"],
        "mapping_pages": report.flash["mapping_programs"],
        "gc_pages": report.flash["gc_programs"],
        "protected_mapping_pages": plp["protected_mapping_pages"],
        "translation_pages": plp["translation_pages"],
        "capacitance_uf": plp["mapping_capacitance_uf"],
        "total_capacitance_uf": plp["required_capacitance_uf"],
        "host_ios": report.host_ios,
        "coalesced": report.buffer["coalesced"],
        "buffer_writes": report.buffer["writes"],
    }


def run_all(
    small: bool = False,
    workloads: list[str] | None = None,
    ratios: list[float] | None = None,
    workers: int = 2,
) -> list[dict[str, Any]]:
    cases = [
        (workload, order, ratio, small)
        for workload in workloads or list(WORKLOADS)
        for order in ORDERS
        for ratio in ratios or RATIOS
    ]
    # ssdtwin.run releases the GIL while it simulates: threads run the points in parallel.
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(run_point, cases))


def share(row: dict[str, Any], key: str) -> str:
    """`row[key]` as a share of the point's buffered unit writes."""
    return f"{row[key] / row['buffer_writes']:.1%}"


def table(rows: list[dict[str, Any]]) -> str:
    """The README's table: one row per workload and ratio, FIFO and LIDF side by side."""
    columns = [
        "workload",
        "protected",
        "mapping capacitance [µF]",
        "FIFO kIOPS",
        "LIDF kIOPS",
        "LIDF / FIFO",
        "LIDF / LIDF@100%",
        "FIFO user pages",
        "FIFO translation pages",
        "LIDF user pages",
        "LIDF translation pages",
        "coalesced FIFO / LIDF",
    ]
    lines = ["| " + " | ".join(columns) + " |", "|---|" + "---:|" * (len(columns) - 1)]
    index = {(row["workload"], row["order"], row["ratio"]): row for row in rows}
    for workload in WORKLOADS:
        full = index.get((workload, "lidf", 1.0))
        for ratio in RATIOS:
            fifo, lidf = index.get((workload, "fifo", ratio)), index.get((workload, "lidf", ratio))
            if fifo is None or lidf is None:
                continue
            relative = f"{lidf['iops'] / full['iops']:.1%}" if full else ""
            cells = [
                workload,
                f"{ratio:.0%}",
                f"{lidf['capacitance_uf']:,.0f}",
                f"{fifo['iops'] / 1e3:.2f}",
                f"{lidf['iops'] / 1e3:.2f}",
                f"{lidf['iops'] / fifo['iops']:.2f}",
                relative,
                f"{fifo['user_pages']:,}",
                f"{fifo['mapping_pages']:,}",
                f"{lidf['user_pages']:,}",
                f"{lidf['mapping_pages']:,}",
                f"{share(fifo, 'coalesced')} / {share(lidf, 'coalesced')}",
            ]
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def plot(rows: list[dict[str, Any]]) -> None:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    for name, key, label in [
        ("iops.png", "iops", "kIOPS"),
        ("traffic.png", "mapping_pages", "pages written (translation; faint: user)"),
    ]:
        figure = Figure(figsize=(12, 3.8), layout="constrained")
        FigureCanvasAgg(figure)
        for axes, workload in zip(figure.subplots(1, 3), WORKLOADS, strict=True):
            for order, style, color in [("fifo", "o-", "C0"), ("lidf", "s-", "C1")]:
                points = sorted(
                    (row for row in rows if row["workload"] == workload and row["order"] == order),
                    key=lambda row: row["ratio"],
                )
                values = [row[key] / (1e3 if key == "iops" else 1) for row in points]
                axes.plot(
                    [100 * row["ratio"] for row in points], values, style, color=color, label=order.upper()
                )
                if key == "mapping_pages":
                    user = [row["user_pages"] for row in points]
                    axes.plot(
                        [100 * row["ratio"] for row in points],
                        user,
                        style,
                        color=color,
                        alpha=0.35,
                        label=f"{order.upper()} user pages",
                    )
            axes.set_xscale("log")
            axes.set_xticks([1, 2, 5, 10, 25, 50, 100], ["1", "2", "5", "10", "25", "50", "100"])
            axes.set_xlabel("protected ratio of the mapping table [%]")
            axes.set_title(workload)
            if key == "mapping_pages":
                axes.set_yscale("symlog", linthresh=100)
            axes.set_ylim(bottom=0)
            # Second axis: the hold-up capacitance that protects that ratio (and the buffer).
            lidf = sorted(
                (row for row in rows if row["workload"] == workload and row["order"] == "lidf"),
                key=lambda row: row["ratio"],
            )
            top = axes.secondary_xaxis("top")
            top.set_xticks(
                [100 * row["ratio"] for row in lidf],
                [f"{row['capacitance_uf']:,.0f}" for row in lidf],
                fontsize="x-small",
                rotation=60,
            )
            top.set_xlabel("capacitance for the mapping pages [µF]", fontsize="small")
        figure.axes[0].set_ylabel(label)
        figure.axes[0].legend(fontsize="small")
        figure.savefig(HERE / name, dpi=110)


def main() -> None:
    small = "--small" in sys.argv
    rows = run_all(small=small)
    (HERE / ("results_small.json" if small else "results.json")).write_text(json.dumps(rows, indent=1))
    print(table(rows))
    if not small:
        plot(rows)


if __name__ == "__main__":
    main()
