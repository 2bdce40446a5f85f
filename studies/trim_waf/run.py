"""The trim_waf study (issue 29): steady-state WAF of uniform random writes against the share of
the logical space trimmed once and never written again, measured against the closed form.

    python studies/trim_waf/run.py            # 8 runs, the README table and waf.png (~1 min)
    python studies/trim_waf/run.py --small    # the test's drive (a quarter of the blocks)

Each point replays a blkparse trace written here: at time 0 a discard (`D`) of the last `share`
of the logical space, then uniform random 4 KiB writes over the rest, one per millisecond, 3.5
times the written space: the first 1.5 times are the warm-up (`workload.warmup`, unmeasured:
the drive settles from its steady-state preconditioning to the trimmed state), the WAF is that of
the last 2 times. results.json keeps the figures, waf.png is the plot.

The closed form (theory.rs and theory_trim.rs in the core's tests use the same): the log `T` of
the models is the units GC works in, per plane the blocks less the G - 1/2 free ones GC holds on
average (G = max(2, ceil(gc_threshold x blocks))) and the two open blocks half written. With a
share `s` of the `U` logical units trimmed, the data is `U' = (1 - s) U`. The FIFO (cyclic log)
model: `WAF = 1/(1 - u)` with `u = exp(-(T/U')(1 - u))` (Desnoyers, SYSTOR 2012; Hu et al.,
SYSTOR 2009); the greedy lower bound `(1 + rho)/(2 rho)`, `rho = (T - U')/U'` (Agarwal and
Marrow, GLOBECOM 2010). Greedy lies between the two; the FIFO policy is the FIFO model's own
system.
"""

from __future__ import annotations

import json
import math
import random
import sys
import tempfile
import tomllib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import ssdtwin

HERE = Path(__file__).resolve().parent
SHARES = [0.0, 0.1, 0.2, 0.3]
POLICIES = ["fifo", "greedy"]
SMALL = {"flash.blocks_per_plane": 64}
GAP_NS = 1_000_000  # one write per millisecond
WARMUP, MEASURED = 1.5, 2.0  # multiples of the written space
SECTOR = 512


def base() -> dict[str, Any]:
    return tomllib.loads((HERE / "base.toml").read_text())


def geometry(small: bool) -> dict[str, float]:
    """Logical units U, and the log T of the models [mapping units], from base.toml."""
    table = base()
    flash, ftl = table["flash"], table["ftl"]
    blocks = (SMALL if small else {}).get("flash.blocks_per_plane", flash["blocks_per_plane"])
    planes = flash["channels"] * flash["chips_per_channel"] * flash["dies_per_chip"] * flash["planes_per_die"]
    units_per_block = flash["pages_per_block"] * (16 // 4)  # 16 KiB pages of 4 KiB units
    physical = planes * blocks * units_per_block
    logical = math.floor(physical * (1 - ftl["over_provisioning"]))
    trigger = max(2, math.ceil(ftl["gc_threshold"] * blocks))
    log = planes * (blocks - trigger - 0.5) * units_per_block
    return {"logical": logical, "log": log}


def fifo_model(alpha: float) -> float:
    """WAF = 1/(1 - u), u the root in (0, 1) of u = exp(-alpha (1 - u)), by bisection."""
    low, high = 0.0, 1.0 - 1e-9
    for _ in range(200):
        middle = 0.5 * (low + high)
        if middle - math.exp(-alpha * (1.0 - middle)) < 0.0:
            low = middle
        else:
            high = middle
    return 1.0 / (1.0 - 0.5 * (low + high))


def models(share: float, small: bool) -> dict[str, float]:
    """The closed forms for a trimmed share: FIFO model, greedy lower bound, spare factor."""
    shape = geometry(small)
    data = (1.0 - share) * shape["logical"]
    rho = (shape["log"] - data) / data
    return {"fifo_model": fifo_model(1.0 + rho), "greedy_lower": (1.0 + rho) / (2.0 * rho), "rho": rho}


def write_trace(path: Path, share: float, small: bool, seed: int) -> dict[str, int]:
    """The point's blkparse trace; returns the written units and the warm-up writes."""
    logical = int(geometry(small)["logical"])
    written = round((1.0 - share) * logical)
    warmup = int(WARMUP * written)
    writes = warmup + int(MEASURED * written)
    rng = random.Random(seed)
    sectors_per_unit = 4096 // SECTOR
    with path.open("w") as out:
        if written < logical:
            trimmed = (logical - written) * sectors_per_unit
            out.write(f"8,0 0 1 0.000000000 1 Q D {written * sectors_per_unit} + {trimmed} [fstrim]\n")
        for index in range(writes):
            at = (index + 1) * GAP_NS
            sector = rng.randrange(written) * sectors_per_unit
            out.write(
                f"8,0 0 {index + 2} {at // 10**9}.{at % 10**9:09d} 1 Q W {sector} + {sectors_per_unit} [w]\n"
            )
    return {"written": written, "warmup": warmup, "writes": writes}


def run_point(args: tuple[float, str, bool, Path]) -> dict[str, Any]:
    share, policy, small, folder = args
    trace = folder / f"trim_{share}_{policy}.blkparse"
    counts = write_trace(trace, share, small, seed=round(share * 1000))
    overrides = {
        **(SMALL if small else {}),
        "workload.trace.path": str(trace),
        "workload.warmup": counts["warmup"],
        "ftl.gc_policy": policy,
    }
    report = ssdtwin.run(str(HERE / "base.toml"), **overrides)
    trace.unlink()
    return {
        "share": share,
        "policy": policy,
        "waf": report.waf,
        "host_ios": report.host_ios,
        "die_utilization": report.queues["die_utilization"],
        **counts,
        **models(share, small),
    }


def run_all(
    small: bool = False,
    shares: list[float] | None = None,
    policies: list[str] | None = None,
    workers: int = 2,
) -> list[dict[str, Any]]:
    with tempfile.TemporaryDirectory() as folder:
        cases = [
            (share, policy, small, Path(folder))
            for share in shares or SHARES
            for policy in policies or POLICIES
        ]
        # ssdtwin.run releases the GIL while it simulates: threads run the points in parallel.
        with ThreadPoolExecutor(max_workers=workers) as pool:
            return list(pool.map(run_point, cases))


def table(rows: list[dict[str, Any]]) -> str:
    """The README's table: one row per trimmed share, both policies against the closed forms."""
    columns = [
        "trimmed share",
        "spare factor rho",
        "FIFO model WAF",
        "FIFO policy WAF",
        "FIFO / model",
        "greedy lower bound",
        "greedy WAF",
        "die utilisation",
    ]
    lines = ["| " + " | ".join(columns) + " |", "|---:|" + "---:|" * (len(columns) - 1)]
    index = {(row["share"], row["policy"]): row for row in rows}
    for share in sorted({row["share"] for row in rows}):
        fifo, greedy = index.get((share, "fifo")), index.get((share, "greedy"))
        if fifo is None or greedy is None:
            continue
        cells = [
            f"{share:.0%}",
            f"{fifo['rho']:.3f}",
            f"{fifo['fifo_model']:.3f}",
            f"{fifo['waf']:.3f}",
            f"{fifo['waf'] / fifo['fifo_model'] - 1:+.1%}",
            f"{fifo['greedy_lower']:.3f}",
            f"{greedy['waf']:.3f}",
            f"{max(fifo['die_utilization'], greedy['die_utilization']):.2f}",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def plot(rows: list[dict[str, Any]]) -> None:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(6.4, 4.2), layout="constrained")
    FigureCanvasAgg(figure)
    axes = figure.subplots()
    fine = [index / 100 for index in range(0, 41)]
    axes.plot(
        [100 * s for s in fine],
        [models(s, False)["fifo_model"] for s in fine],
        "-",
        color="C0",
        label="FIFO model, spare + trimmed share",
    )
    axes.plot(
        [100 * s for s in fine],
        [models(s, False)["greedy_lower"] for s in fine],
        "--",
        color="C1",
        label="greedy lower bound (Agarwal-Marrow)",
    )
    for policy, style, color in [("fifo", "o", "C0"), ("greedy", "s", "C1")]:
        points = sorted((row for row in rows if row["policy"] == policy), key=lambda row: row["share"])
        axes.plot(
            [100 * row["share"] for row in points],
            [row["waf"] for row in points],
            style,
            color=color,
            label=f"measured, {policy} GC",
        )
    axes.set_xlabel("trimmed share of the logical space [%]")
    axes.set_ylabel("steady-state write amplification")
    axes.set_ylim(bottom=1.0)
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
