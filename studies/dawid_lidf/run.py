"""The dawid_lidf study (the capacitor paper, papers/003): IOPS and write traffic against the
protected ratio of the mapping table, FIFO against LIDF flushing (Figures 3-6), the capacitance a
1% protected table saves (section 3.1) and the paper's Figure 1 example.

    python studies/dawid_lidf/run.py            # 42 runs + the small ones; README table, plots, measured.json
    python studies/dawid_lidf/run.py --small    # the test's drive (128x smaller than the paper's)

Every run is the paper's preset `dawid_512gb` scaled down in capacity by `SCALE`, its proportions
kept: the mapping table stays 4 B per 4 KiB of capacity, the fio area 30 GB of 512 GB, the write
buffer of section 5 2 GB per 30 GB of area (section 3.1's 4 MB for the capacitance), and the
writes three times the area. The study changes only what the paper changes: the workload, the
flush order and the protected ratio. results.json keeps the figures, measured.json the claims'
values (claims.toml), iops.png and traffic.png the plots.
"""

from __future__ import annotations

import json
import sys
import tempfile
import tomllib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import ssdtwin

HERE = Path(__file__).resolve().parent
PRESET = "dawid_512gb"
SCALE = 32  # the study's drive: 16 GiB logical (the test's: SMALL_SCALE, 4 GiB)
SMALL_SCALE = 128
FULL_BLOCKS = 8810  # the preset's blocks per plane: 512 GiB logical
RATIOS = [0.01, 0.02, 0.05, 0.10, 0.25, 0.50, 1.0]
ORDERS = ["fifo", "lidf"]
# Section 3.1 (full size): the DRAM of the 512 GB drive.
PAPER_TABLE_MB = 512.0
PAPER_BUFFER_MB = 4.0
PAPER_OTHER_MB = 10.5
# Section 5: the write buffer of the evaluation, per 30 GB of area.
EVAL_BUFFER_MIB_FULL = 2048
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


def base() -> dict[str, Any]:
    return tomllib.loads((HERE / "base.toml").read_text())


def scaled(scale: int) -> dict[str, Any]:
    """The drive `scale` times smaller than the paper's: fewer blocks, the evaluation's buffer
    scaled with it (2 GB per 30 GB of area, the area 30 GB of 512 GB)."""
    return {
        "flash.blocks_per_plane": round(FULL_BLOCKS / scale),
        "buffer.capacity": f"{EVAL_BUFFER_MIB_FULL // scale}MiB",
    }


def area_units(scale: int = SCALE) -> int:
    """Mapping units of the working area: the logical capacity times `workload.span`."""
    config = ssdtwin.resolve(str(HERE / "base.toml"), **scaled(scale))
    flash = config["flash"]
    dies = flash["channels"] * flash["chips_per_channel"] * flash["dies_per_chip"]
    physical = dies * flash["planes_per_die"] * flash["blocks_per_plane"] * flash["pages_per_block"]
    logical = int(physical * (1 - config["ftl"]["over_provisioning"]))  # 4 KiB pages = mapping units
    return int(logical * config["workload"]["span"])


def mean_write_units() -> float:
    """Mean 4 KiB units of a JESD219 command."""
    total = sum(weight for _, weight in JESD219_BSSPLIT)
    return sum(weight * int(size[:-3]) / 4 for size, weight in JESD219_BSSPLIT) / total


def point(workload: str, order: str, ratio: float, scale: int = SCALE) -> dict[str, Any]:
    """The overrides of one point: three times the working area written (90 GB to 30 GB)."""
    writes = 3 * area_units(scale)
    per_command = (1 - JESD219_READ) * mean_write_units() if workload == "jesd219" else 1.0
    return {
        **scaled(scale),
        **WORKLOADS[workload],
        "workload.io_count": int(writes / per_command),
        "buffer.flush_order": order,
        "plp.protected_ratio": ratio,
    }


def run_point(args: tuple[str, str, float, int]) -> dict[str, Any]:
    workload, order, ratio, scale = args
    report = ssdtwin.run(str(HERE / "base.toml"), **point(workload, order, ratio, scale))
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
        "host_ios": report.host_ios,
        "coalesced": report.buffer["coalesced"],
        "buffer_writes": report.buffer["writes"],
    }


def run_all(
    scale: int = SCALE,
    workloads: list[str] | None = None,
    ratios: list[float] | None = None,
    orders: list[str] | None = None,
    workers: int = 2,
) -> list[dict[str, Any]]:
    cases = [
        (workload, order, ratio, scale)
        for workload in workloads or list(WORKLOADS)
        for order in orders or ORDERS
        for ratio in ratios or RATIOS
    ]
    # ssdtwin.run releases the GIL while it simulates: threads run the points in parallel.
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(run_point, cases))


def capacitance(ratio: float, scale: int = SCALE, buffer_mb: float = PAPER_BUFFER_MB) -> dict[str, float]:
    """The hold-up capacitance of section 3.1's design at `ratio`: the preset's 4 MB write buffer
    (scaled; `buffer_mb` at full size) protected whole and `ratio` of the translation pages. PLP
    figures are closed forms of the drive, so a run of a few writes gives them."""
    report = ssdtwin.run(
        str(HERE / "base.toml"),
        **{
            "flash.blocks_per_plane": round(FULL_BLOCKS / scale),
            "buffer.capacity": f"{round(buffer_mb * 1024 / scale)}KiB",
            "workload.io_count": 64,
            "plp.protected_ratio": ratio,
        },
    )
    plp = report.plp
    return {
        "ratio": ratio,
        "buffer_pages": plp["buffer_pages"],
        "translation_pages": plp["translation_pages"],
        "protected_mapping_pages": plp["protected_mapping_pages"],
        "total_uf": plp["required_capacitance_uf"],
        "mapping_uf": plp["mapping_capacitance_uf"],
    }


# The paper's Figure 1: seven writes W(4), W(17), W(12), W(2), W(6), W(18), W(7) in the queue, a
# mapping table of 5 translation pages of which 2 may be dirty, m0 dirty at the start. Its pages
# hold 4 entries (m1 = 4..7, m3 = 12..15, m4 = 16..19: W(4), W(6), W(7) share one); here a
# translation page holds 1,024, so W(k) writes unit 1024 * (k // 4) + k % 4.
FIGURE1_WRITES = [4, 17, 12, 2, 6, 18, 7]
FIGURE1 = {
    "flash.channels": 1,  # one die: the example flushes one write at a time
    "flash.dies_per_chip": 1,
    # 5,120 logical units (5 translation pages) with half the drive spare: no garbage collection
    # (on 21 blocks at the preset's 7% it copies pages and writes their translation pages back).
    "flash.blocks_per_plane": 40,
    "ftl.over_provisioning": 0.5,
    "buffer.capacity": "56KiB",  # 14 units: a flush round starts at 7
    "plp.protected_ratio": 0.4,  # 2 of 5
    "workload.kind": "trace",
    "workload.trace.format": "disksim",
    "workload.trace.replay": "timed",
}


def figure1_trace() -> str:
    """DiskSim lines (ns, device, 512 B sector, sectors, 0 = write): first seven writes to m0's
    other units, which leave m0 dirty; 100 ms later the example's seven."""
    lines = [f"0 0 {8 * (100 + i)} 8 0" for i in range(7)]
    for k in FIGURE1_WRITES:
        unit = 1024 * (k // 4) + k % 4
        lines.append(f"100000000 0 {8 * unit} 8 0")
    return "\n".join(lines) + "\n"


def figure1(order: str) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "figure1.disksim"
        path.write_text(figure1_trace())
        report = ssdtwin.run(
            {"drive": PRESET, "seed": 1},
            **FIGURE1,
            **{"workload.trace.path": str(path), "buffer.flush_order": order},
        )
    return {
        "order": order,
        "translation_pages": report.plp["translation_pages"],
        "protected_mapping_pages": report.plp["protected_mapping_pages"],
        "user_pages": report.flash["programs"],
        "mapping_pages": report.flash["mapping_programs"],
    }


def measured(
    rows: list[dict[str, Any]], caps: list[dict[str, float]], fig1: list[dict[str, Any]]
) -> dict[str, float]:
    """The claims' values (claims.toml): number claims in their unit, directions as the signed
    relative change."""
    index = {(row["workload"], row["order"], row["ratio"]): row for row in rows}
    cap = {row["ratio"]: row for row in caps}
    values: dict[str, float] = {}
    for workload in ("random", "jesd219"):
        fifo_low, lidf_low = index[(workload, "fifo", 0.01)], index[(workload, "lidf", 0.01)]
        fifo_full = index[(workload, "fifo", 1.0)]
        values[f"lidf_1pct_iops_of_full_fifo_{workload}_pct"] = 100 * lidf_low["iops"] / fifo_full["iops"]
        values[f"lidf_vs_fifo_iops_1pct_{workload}"] = lidf_low["iops"] / fifo_low["iops"] - 1
        values[f"fifo_iops_1pct_vs_full_{workload}"] = fifo_low["iops"] / fifo_full["iops"] - 1
        mapping = lidf_low["mapping_pages"] / fifo_low["mapping_pages"]
        values[f"lidf_vs_fifo_mapping_writes_1pct_{workload}"] = mapping - 1
        flash = [row["user_pages"] + row["mapping_pages"] for row in (lidf_low, fifo_low)]
        values[f"lidf_vs_fifo_flash_writes_1pct_{workload}"] = flash[0] / flash[1] - 1
    values["capacitance_saved_1pct_pct"] = 100 * (1 - cap[0.01]["total_uf"] / cap[1.0]["total_uf"])
    for row in fig1:
        values[f"figure1_{row['order']}_mapping_writes"] = float(row["mapping_pages"])
    return values


def share(row: dict[str, Any], key: str) -> str:
    """`row[key]` as a share of the point's buffered unit writes."""
    return f"{row[key] / row['buffer_writes']:.1%}"


def table(rows: list[dict[str, Any]], caps: list[dict[str, float]]) -> str:
    """The README's table: one row per workload and ratio, FIFO and LIDF side by side."""
    columns = [
        "workload",
        "protected",
        "capacitance [% of 100%]",
        "FIFO kIOPS",
        "LIDF kIOPS",
        "LIDF / FIFO",
        "LIDF / FIFO@100%",
        "FIFO user pages",
        "FIFO translation pages",
        "LIDF user pages",
        "LIDF translation pages",
        "coalesced FIFO / LIDF",
    ]
    lines = ["| " + " | ".join(columns) + " |", "|---|" + "---:|" * (len(columns) - 1)]
    index = {(row["workload"], row["order"], row["ratio"]): row for row in rows}
    cap = {row["ratio"]: row["total_uf"] for row in caps}
    for workload in WORKLOADS:
        full = index.get((workload, "fifo", 1.0))
        for ratio in RATIOS:
            fifo, lidf = index.get((workload, "fifo", ratio)), index.get((workload, "lidf", ratio))
            if fifo is None or lidf is None:
                continue
            cells = [
                workload,
                f"{ratio:.0%}",
                f"{cap[ratio] / cap[1.0]:.1%}" if ratio in cap and 1.0 in cap else "",
                f"{fifo['iops'] / 1e3:.1f}",
                f"{lidf['iops'] / 1e3:.1f}",
                f"{lidf['iops'] / fifo['iops']:.2f}",
                f"{lidf['iops'] / full['iops']:.1%}" if full else "",
                f"{fifo['user_pages']:,}",
                f"{fifo['mapping_pages']:,}",
                f"{lidf['user_pages']:,}",
                f"{lidf['mapping_pages']:,}",
                f"{share(fifo, 'coalesced')} / {share(lidf, 'coalesced')}",
            ]
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def plot(rows: list[dict[str, Any]], caps: list[dict[str, float]]) -> None:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    cap = {row["ratio"]: row["total_uf"] for row in caps}
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
                ratios = [100 * row["ratio"] for row in points]
                values = [row[key] / (1e3 if key == "iops" else 1) for row in points]
                axes.plot(ratios, values, style, color=color, label=order.upper())
                if key == "mapping_pages":
                    user = [row["user_pages"] for row in points]
                    faint = f"{order.upper()} user pages"
                    axes.plot(ratios, user, style, color=color, alpha=0.35, label=faint)
            axes.set_xscale("log")
            axes.set_xticks([1, 2, 5, 10, 25, 50, 100], ["1", "2", "5", "10", "25", "50", "100"])
            axes.set_xlabel("protected ratio of the mapping table [%]")
            axes.set_title(workload)
            if key == "mapping_pages":
                axes.set_yscale("symlog", linthresh=100)
            axes.set_ylim(bottom=0)
            # Second axis: the hold-up capacitance of section 3.1's design at that ratio.
            top = axes.secondary_xaxis("top")
            top.set_xticks(
                [100 * ratio for ratio in RATIOS],
                [f"{cap[ratio] / cap[1.0]:.0%}" for ratio in RATIOS],
                fontsize="x-small",
            )
            top.set_xlabel("capacitance, share of full protection (4 MB buffer design)", fontsize="small")
        figure.axes[0].set_ylabel(label)
        figure.axes[0].legend(fontsize="small")
        figure.savefig(HERE / name, dpi=110)


def main() -> None:
    small = "--small" in sys.argv
    scale = SMALL_SCALE if small else SCALE
    rows = run_all(scale=scale)
    caps = [capacitance(ratio, scale) for ratio in RATIOS]
    # The isolating runs of the capacitance: section 5's 2 GB buffer in place of the 4 MB one.
    eval_caps = [capacitance(ratio, scale, EVAL_BUFFER_MIB_FULL) for ratio in (0.01, 1.0)]
    fig1 = [figure1(order) for order in ORDERS]
    suffix = "_small" if small else ""
    results = {
        "scale": scale,
        "points": rows,
        "capacitance": caps,
        "capacitance_2gb_buffer": eval_caps,
        "figure1": fig1,
    }
    (HERE / f"results{suffix}.json").write_text(json.dumps(results, indent=1) + "\n")
    values = measured(rows, caps, fig1)
    if not small:
        (HERE / "measured.json").write_text(json.dumps(values, indent=1, sort_keys=True) + "\n")
        plot(rows, caps)
    print(table(rows, caps))
    print(json.dumps(fig1, indent=1))
    print(json.dumps(eval_caps, indent=1))
    print(json.dumps(values, indent=1, sort_keys=True))


if __name__ == "__main__":
    main()
