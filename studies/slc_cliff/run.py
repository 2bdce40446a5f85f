"""The slc_cliff study (issue 32): sustained 128 KiB sequential writes at queue depth 32 on the
client presets with an SLC write cache, from an empty drive: write bandwidth against the amount
written, the cliff where the cache is full, and the recovery after idle time.

    python studies/slc_cliff/run.py            # results.json, bandwidth.png, recovery.png (~20 s)
    python studies/slc_cliff/run.py --small    # the test's runs: client_tlc with a 2 GB cache

Runs:
  fill    (client_tlc, client_qlc) sequential writes of 1.45x the cache from an empty drive;
          bandwidth per 10 ms sample against the GiB written so far.
  recover (client_tlc) an SPC trace: a burst that fills the cache and goes on past it, an idle
          gap, then a second burst; the second burst's first samples show what idle folding gave
          back. Gaps of 10 s and 60 s (--small: 1.5 s and 10 s).

The closed form of the cliff point: on an empty drive the cache holds
`static_size + min(dynamic_max, dynamic_share x free / bits)` (free = every block), whole
programs of (planes x page_size) while they fit (docs/models/slc_cache.md).
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import ssdtwin

HERE = Path(__file__).resolve().parent
GIB = 1024.0**3
SAMPLE_S = 0.01
BLOCK = 128 * 1024
BASE = {
    "host.queue_depth": 32,
    "workload.kind": "synthetic",
    "workload.read_fraction": 0.0,
    "workload.block_size": "128KiB",
    "workload.pattern": "sequential",
    "workload.precondition": "none",
    "power.enabled": True,
    "power.sample_interval": f"{int(SAMPLE_S * 1000)}ms",
}
# The test's cache: client_tlc with 1 GB static and a 1 GB dynamic cap (2 GB = 1.86 GiB).
SMALL = {"slc_cache.static_size": "1GB", "slc_cache.dynamic_max": "1GB"}


def preset_keys(drive: str) -> dict[str, Any]:
    """The preset's [flash] and [slc_cache] tables, from `ssdtwin.resolve`."""
    resolved = ssdtwin.resolve({"drive": drive})
    return {"flash": resolved["flash"], "ftl": resolved["ftl"], "slc_cache": resolved["slc_cache"]}


def size_of(text: str) -> float:
    units = {"KiB": 1024, "MiB": 1024**2, "GiB": 1024**3, "KB": 1e3, "MB": 1e6, "GB": 1e9, "B": 1}
    for suffix, factor in units.items():
        if text.endswith(suffix) and text[: -len(suffix)].replace(".", "").isdigit():
            return float(text[: -len(suffix)]) * factor
    raise ValueError(f"size {text!r}")


def closed_form_cache(drive: str, overrides: dict[str, Any]) -> float:
    """Host data the empty drive's cache takes before the cliff [bytes]: the configured size, in
    whole programs."""
    keys = preset_keys(drive)
    flash, slc = keys["flash"], {**keys["slc_cache"]}
    for key, value in overrides.items():
        if key.startswith("slc_cache."):
            slc[key.split(".", 1)[1]] = value
    bits = {"mlc": 2, "tlc": 3, "qlc": 4}[flash["cell"]]
    page = size_of(str(flash["page_size"]))
    dies = flash["channels"] * flash["chips_per_channel"] * flash["dies_per_chip"]
    free = dies * flash["planes_per_die"] * flash["blocks_per_plane"] * flash["pages_per_block"] * page
    dynamic = slc["dynamic_share"] * free / bits
    cap = size_of(str(slc["dynamic_max"]))
    if cap > 0:
        dynamic = min(dynamic, cap)
    size = size_of(str(slc["static_size"])) + dynamic
    program = flash["planes_per_die"] * page if flash["multi_plane"] else page
    return (size // program) * program


def curve(report: ssdtwin.Report) -> tuple[list[float], list[float]]:
    """(GiB written at the end of each sample, MB/s in it) from the report's time series."""
    frame = report.timeseries
    written, rate, total = [], [], 0.0
    for mib_s in frame["bandwidth_mib_s"]:
        total += mib_s * SAMPLE_S * 1024**2
        written.append(total / GIB)
        rate.append(mib_s * 1024**2 / 1e6)
    return written, rate


def cliff_point(written: list[float], rate: list[float]) -> float:
    """GiB written before the first sample whose bandwidth is below half the median of the first
    tenth (the cliff lies within that sample)."""
    head = sorted(rate[1 : max(3, len(rate) // 10)])
    fast = head[len(head) // 2]
    for index in range(1, len(rate)):
        if rate[index] < 0.5 * fast:
            return written[index - 1]
    return float("nan")


def fill(drive: str, overrides: dict[str, Any]) -> dict[str, Any]:
    cache = closed_form_cache(drive, overrides)
    count = int(1.45 * cache / BLOCK)
    report = ssdtwin.run({"drive": drive}, **BASE, **overrides, **{"workload.io_count": count})
    written, rate = curve(report)
    slc = report.to_dict()["slc_cache"]
    cut = next(index for index, amount in enumerate(written) if amount * GIB >= cache)
    before = rate[1:cut]
    after = rate[cut + 10 :]
    return {
        "drive": drive,
        "closed_form_cache_gib": cache / GIB,
        "cliff_gib": cliff_point(written, rate),
        "slc_written_gib": slc["slc_written_gib"],
        "direct_written_gib": slc["direct_written_gib"],
        "before_mb_s": sum(before) / len(before),
        "after_mb_s": sum(after) / max(1, len(after)),
        "cliff_time_s": slc["cliff_time_s"],
        "nand_energy_j": report.energy_j["nand"],
        "written": written,
        "rate": rate,
    }


def recover(gap_s: float, overrides: dict[str, Any], folder: Path) -> dict[str, Any]:
    """Burst 1: 1.2x the cache; idle `gap_s` after it ends; burst 2: 0.6x the cache."""
    drive = "client_tlc"
    cache = closed_form_cache(drive, overrides)
    first = ssdtwin.run(
        {"drive": drive}, **BASE, **overrides, **{"workload.io_count": int(1.2 * cache / BLOCK)}
    )
    start_2 = first.simulated_time_s + gap_s
    count_1, count_2 = int(1.2 * cache / BLOCK), int(0.6 * cache / BLOCK)
    trace = folder / f"bursts_{gap_s}.spc"
    with trace.open("w") as out:
        for index in range(count_1 + count_2):
            at = 0.0 if index < count_1 else start_2
            out.write(f"0,{index * (BLOCK // 512)},{BLOCK},w,{at:.6f}\n")
    keys = {**BASE, **overrides, "workload.kind": "trace", "workload.trace.format": "spc"}
    keys |= {"workload.trace.path": str(trace), "workload.trace.replay": "timed"}
    report = ssdtwin.run({"drive": drive}, **keys)
    # The same trace without folding (an idle delay longer than the gap): burst 2 goes direct.
    resting = ssdtwin.run({"drive": drive}, **keys, **{"slc_cache.idle_delay": "1000s"})
    frame = report.timeseries
    rows = [index for index, time in enumerate(frame["time_s"]) if time >= start_2]
    rates = [frame["bandwidth_mib_s"][index] * 1024**2 / 1e6 for index in rows[1:21]]
    slc = report.to_dict()["slc_cache"]
    return {
        "gap_s": gap_s,
        "burst_1_gib": count_1 * BLOCK / GIB,
        "burst_2_gib": count_2 * BLOCK / GIB,
        "folded_gib": slc["folded_gib"],
        "burst_2_in_slc_gib": slc["slc_written_gib"] - cache / GIB,
        "burst_2_start_mb_s": sum(rates) / max(1, len(rates)),
        "fold_die_time_s": slc["fold_die_time_s"],
        "fold_energy_j": slc["fold_energy_j"],
        "slc_erases": slc["slc_erases"],
        "nand_energy_j": report.energy_j["nand"],
        "nand_energy_no_fold_j": resting.energy_j["nand"],
        "time": list(frame["time_s"]),
        "rate": [value * 1024**2 / 1e6 for value in frame["bandwidth_mib_s"]],
        "used": list(frame["slc.used_gib"]),
    }


def run_all(small: bool = False) -> dict[str, Any]:
    overrides = SMALL if small else {}
    fills = [fill("client_tlc", overrides)] + ([] if small else [fill("client_qlc", {})])
    with tempfile.TemporaryDirectory() as folder:
        gaps = (1.5, 10.0) if small else (10.0, 60.0)
        recovers = [recover(gap, overrides, Path(folder)) for gap in gaps]
    return {"fill": fills, "recover": recovers}


def plot(results: dict[str, Any]) -> None:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(7.0, 4.2), layout="constrained")
    FigureCanvasAgg(figure)
    axes = figure.subplots()
    for index, row in enumerate(results["fill"]):
        axes.plot(row["written"], row["rate"], drawstyle="steps-post", color=f"C{index}", label=row["drive"])
        axes.axvline(
            row["closed_form_cache_gib"], color=f"C{index}", linestyle=":", label=f"{row['drive']} cache"
        )
    axes.set_xlabel("written [GiB]")
    axes.set_ylabel("write bandwidth [MB/s], per 10 ms")
    axes.set_title("128 KiB sequential writes at QD 32 from an empty drive")
    axes.legend()
    figure.savefig(HERE / "bandwidth.png", dpi=120)

    figure = Figure(figsize=(7.0, 5.0), layout="constrained")
    FigureCanvasAgg(figure)
    top, bottom = figure.subplots(2, 1, sharex=True)
    for index, row in enumerate(results["recover"]):
        label = f"idle gap {row['gap_s']:.0f} s"
        top.plot(row["time"], row["rate"], drawstyle="steps-post", color=f"C{index}", label=label)
        bottom.plot(row["time"], row["used"], drawstyle="steps-post", color=f"C{index}", label=label)
    top.set_ylabel("write bandwidth [MB/s]")
    top.set_title("client_tlc: a burst past the cache, idle time, a second burst")
    top.legend()
    bottom.set_ylabel("data in SLC [GiB]")
    bottom.set_xlabel("simulated time [s]")
    figure.savefig(HERE / "recovery.png", dpi=120)


def table(results: dict[str, Any]) -> str:
    lines = [
        "| drive | cache, closed form [GiB] | cliff measured [GiB] | before [MB/s] | after [MB/s] |",
        "|---|---:|---:|---:|---:|",
    ]
    for row in results["fill"]:
        lines.append(
            f"| {row['drive']} | {row['closed_form_cache_gib']:.2f} | {row['cliff_gib']:.2f} | "
            f"{row['before_mb_s']:.0f} | {row['after_mb_s']:.0f} |"
        )
    lines += [
        "",
        "| idle gap [s] | folded [GiB] | burst 2 in SLC [GiB] | burst 2 start [MB/s] "
        "| fold die time [s] | fold energy [J] | SLC erases |",
        "|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in results["recover"]:
        lines.append(
            f"| {row['gap_s']:.0f} | {row['folded_gib']:.2f} | {row['burst_2_in_slc_gib']:.2f} | "
            f"{row['burst_2_start_mb_s']:.0f} | {row['fold_die_time_s']:.2f} | {row['fold_energy_j']:.2f} "
            f"| {row['slc_erases']} |"
        )
    return "\n".join(lines)


def main() -> None:
    small = "--small" in sys.argv
    results = run_all(small=small)
    print(table(results))
    if not small:
        slim = {
            "fill": [
                {k: v for k, v in row.items() if k not in ("written", "rate")} for row in results["fill"]
            ],
            "recover": [
                {k: v for k, v in row.items() if k not in ("time", "rate", "used")}
                for row in results["recover"]
            ],
        }
        (HERE / "results.json").write_text(json.dumps(slim, indent=2) + "\n")
        plot(results)


if __name__ == "__main__":
    main()
