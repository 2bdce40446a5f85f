"""The dawid_lidf study (the capacitor paper, papers/003, Figures 3-6): IOPS and write traffic
against the protected ratio of the mapping table, FIFO against LIDF flushing.

    python studies/dawid_lidf/run.py            # 42 runs, the README table and plots (~2 min)
    python studies/dawid_lidf/run.py --small    # the test's scaled-down drive

Each point runs `base.toml` with one workload (4 KiB sequential writes, 4 KiB random writes, the
JESD219 mix), one flush order and one protected ratio, writing three times the working area;
results.json here keeps the figures, iops.png and traffic.png are the plots.
"""

from __future__ import annotations

import json
import sys
import tomllib
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import ssdtwin

HERE = Path(__file__).resolve().parent
RATIOS = [0.01, 0.02, 0.05, 0.10, 0.25, 0.50, 1.0]
ORDERS = ["fifo", "lidf"]
# JESD219 transfer sizes (examples/jesd219.fio); a command under 4 KiB still writes one 4 KiB unit.
JESD219_BSSPLIT = [
    ["512B", 4],
    ["1KiB", 1],
    ["1536B", 1],
    ["2KiB", 1],
    ["2560B", 1],
    ["3KiB", 1],
    ["3584B", 1],
    ["4KiB", 67],
    ["8KiB", 10],
    ["16KiB", 7],
    ["32KiB", 3],
    ["64KiB", 3],
]
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
    sizes = {"B": 1, "KiB": 1024}
    total = sum(weight for _, weight in JESD219_BSSPLIT)
    units = 0.0
    for size, weight in JESD219_BSSPLIT:
        unit = "KiB" if size.endswith("KiB") else "B"
        nbytes = float(size[: -len(unit)]) * sizes[unit]
        units += weight * max(1.0, -(-nbytes // 4096))
    return units / total


def point(workload: str, order: str, ratio: float, small: bool = False) -> dict[str, Any]:
    """The overrides of one point: three times the working area written, the buffer at 6.8% of the
    area (the paper's 2 GB buffer for a 30 GB area)."""
    settings: dict[str, Any] = dict(SMALL) if small else {}
    area = area_units(settings)
    writes = 3 * area
    if workload == "jesd219":
        io_count = int(writes / ((1 - JESD219_READ) * mean_write_units()))
    else:
        io_count = writes
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
    }


def run_all(small: bool = False, workloads: list[str] | None = None, ratios: list[float] | None = None, workers: int = 2) -> list[dict[str, Any]]:
    cases = [
        (workload, order, ratio, small)
        for workload in workloads or list(WORKLOADS)
        for order in ORDERS
        for ratio in ratios or RATIOS
    ]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(run_point, cases))


def table(rows: list[dict[str, Any]]) -> str:
    """The README's table: one row per workload and ratio, FIFO and LIDF side by side."""
    lines = [
        "| workload | protected | mapping capacitance [µF] | FIFO kIOPS | LIDF kIOPS | LIDF / FIFO | LIDF / LIDF@100% | FIFO user pages | FIFO translation pages | LIDF user pages | LIDF translation pages |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    index = {(row["workload"], row["order"], row["ratio"]): row for row in rows}
    for workload in WORKLOADS:
        full = index.get((workload, "lidf", 1.0))
        for ratio in RATIOS:
            fifo, lidf = index.get((workload, "fifo", ratio)), index.get((workload, "lidf", ratio))
            if fifo is None or lidf is None:
                continue
            relative = f"{lidf['iops'] / full['iops']:.1%}" if full else ""
            lines.append(
                f"| {workload} | {ratio:.0%} | {lidf['capacitance_uf']:,.0f} | {fifo['iops'] / 1e3:.2f} | "
                f"{lidf['iops'] / 1e3:.2f} | {lidf['iops'] / fifo['iops']:.2f} | {relative} | "
                f"{fifo['user_pages']:,} | {fifo['mapping_pages']:,} | {lidf['user_pages']:,} | {lidf['mapping_pages']:,} |"
            )
    return "\n".join(lines)


def plot(rows: list[dict[str, Any]]) -> None:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    for name, key, label in [
        ("iops.png", "iops", "kIOPS"),
        ("traffic.png", "mapping_pages", "translation pages written"),
    ]:
        figure = Figure(figsize=(12, 3.8), layout="constrained")
        FigureCanvasAgg(figure)
        for axes, workload in zip(figure.subplots(1, 3), WORKLOADS, strict=True):
            for order, style in [("fifo", "o-"), ("lidf", "s-")]:
                points = sorted(
                    (row for row in rows if row["workload"] == workload and row["order"] == order),
                    key=lambda row: row["ratio"],
                )
                values = [row[key] / (1e3 if key == "iops" else 1) for row in points]
                axes.plot([100 * row["ratio"] for row in points], values, style, label=order.upper())
                if key == "mapping_pages":
                    user = [row["user_pages"] for row in points]
                    axes.plot([100 * row["ratio"] for row in points], user, style, alpha=0.35, label=f"{order.upper()} user pages")
            axes.set_xscale("log")
            axes.set_xticks([1, 2, 5, 10, 25, 50, 100], ["1", "2", "5", "10", "25", "50", "100"])
            axes.set_xlabel("protected ratio of the mapping table [%]")
            axes.set_title(workload)
            if key == "mapping_pages":
                axes.set_yscale("symlog", linthresh=100)
            # Second axis: the hold-up capacitance that protects that ratio (and the buffer).
            lidf = sorted((row for row in rows if row["workload"] == workload and row["order"] == "lidf"), key=lambda row: row["ratio"])
            top = axes.secondary_xaxis("top")
            top.set_xticks([100 * row["ratio"] for row in lidf], [f"{row['capacitance_uf']:,.0f}" for row in lidf], fontsize="x-small", rotation=60)
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
