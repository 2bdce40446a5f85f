"""The thermal_cst study (the self-heating paper, papers/000, section 4.3, Figure 11).

    python studies/thermal_cst/run.py           # both sweeps, the README tables, plots, measured.json
    python studies/thermal_cst/run.py --reuse   # the same from the stored sweep results

Runs `sweep.toml` (CST 0 to 20 ms) and `ambient.toml` (CST 20 ms at 50 to 74 °C: the fit of the
enclosure's temperature, the paper's one fitted number) with
`ssdtwin.sweep` (results in results/ here, not committed; each sweep preconditions its one drive
once), prints the README's tables, draws `cst.png` (Figure 11: kIOPS and latency percentiles
against CST) and runs the CST 20 ms point once more with one time-series row per second for
`cst_20ms_thermal.png`. Tests the mixture reading of the QoS gain (the percentiles of a throttled
run against the unthrottled distribution with the throttled share of commands taken out, from the
sweep's stored reports and their 10 ms time series), and runs the CST for the whole window
(`host.submission_interval`, no thermal trigger), the paper's QoS mechanism.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import ssdtwin

HERE = Path(__file__).resolve().parent
PERCENTILES = [("p50", "p50"), ("p99", "p99"), ("p99.9", "p99_9"), ("p99.99", "p99_99")]


def milliseconds(value: str) -> float:
    """'20ms' -> 20.0, '0us' -> 0.0 (the sweep's `throttle.cst` column, a report's config)."""
    for unit, scale in (("ms", 1.0), ("us", 1e-3)):
        if value.endswith(unit):
            return float(value[: -len(unit)]) * scale
    raise ValueError(f"not a duration in ms or us: {value!r}")


def quantile(report: ssdtwin.Report, fraction: float) -> float:
    """The latency [µs] of all commands at `fraction` of the report's CDF (log-interpolated
    between the CDF's points: 20 a decade of 1 - fraction above 99%)."""
    import numpy as np

    cdf = report.latency_cdf["all"]
    return float(np.exp(np.interp(fraction, cdf["fraction"], np.log(cdf["latency_us"]))))


def throttled_share(report: ssdtwin.Report) -> float:
    """The share of the run's commands completed while throttled (heavy state), from its time
    series (10 ms rows in the sweep's reports)."""
    table = report.timeseries
    step = table["time_s"].iloc[1] - table["time_s"].iloc[0]
    heavy = table["throttle_state"] == 2
    return float((table["iops"][heavy] * step).sum() / report.latency_us["all"]["count"])


def mixture(full_speed: ssdtwin.Report, share: float, fraction: float) -> float:
    """The mixture reading: if a share `share` of the commands is served fast (below every tail
    percentile) and the rest follows `full_speed`, the mixture's `fraction` percentile is
    full_speed's at 1 - (1 - fraction) / (1 - share)."""
    return quantile(full_speed, 1 - (1 - fraction) / (1 - share))


def stored_reports(name: str) -> dict[float, ssdtwin.Report]:
    """The reports a sweep stored, keyed by their CST [ms]."""
    import tomllib

    out = HERE / tomllib.loads((HERE / name).read_text())["out"]
    reports = {}
    for path in sorted((out / "reports").glob("*.json")):
        report = ssdtwin.Report.from_json(path.read_text())
        reports[milliseconds(report.config["throttle"]["cst"])] = report
    return reports


def sweep(name: str, reuse: bool = False) -> Any:
    """Runs sweep file `name` afresh (its stored results are replaced) and returns its table; with
    `reuse`, loads the stored results instead when there are some."""
    import shutil
    import tomllib

    definition = HERE / name
    out = HERE / tomllib.loads(definition.read_text())["out"]
    if reuse and out.exists():
        return ssdtwin.load(out)
    shutil.rmtree(out, ignore_errors=True)
    return ssdtwin.sweep(str(definition), workers=2, progress=False)


def cst_rows(table: Any) -> list[dict[str, Any]]:
    """One row per CST point, CST 0 first, with the ratio of its IOPS to CST 0's."""
    table = table.assign(cst_ms=table["throttle.cst"].map(milliseconds)).sort_values("cst_ms")
    reference = float(table[table["cst_ms"] == 0]["iops"].iloc[0])
    rows = []
    for _, point in table.iterrows():
        rows.append(
            {
                "cst_ms": point["cst_ms"],
                "kiops": point["iops"] / 1000,
                "waf": point["waf"],
                "slowdown": reference / point["iops"],
                **{key: point[f"latency_us.all.{key}"] for _, key in PERCENTILES},
                "read_p99": point["latency_us.read.p99"],
                "read_p99_99": point["latency_us.read.p99_99"],
                "events": point["throttle.events"],
                "throttled_s": point["throttle.time_s"],
                "nand_max_c": max(point[f"thermal.max_c.nand_{index}"] for index in range(4)),
                "pcb_final_c": point["thermal.final_c.pcb"],
                "power_w": point["power_w.total_avg"],
            }
        )
    return rows


def plot_cst(rows: list[dict[str, Any]], output: Path) -> None:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(10, 3.8), layout="constrained")
    FigureCanvasAgg(figure)
    iops_axes, latency_axes = figure.subplots(1, 2)
    positions = range(len(rows))
    labels = [f"{row['cst_ms']:g}" for row in rows]
    iops_axes.bar(positions, [row["kiops"] for row in rows], color="C0")
    for position, row in zip(positions, rows, strict=True):
        iops_axes.annotate(
            f"{row['slowdown']:.2f}x", (position, row["kiops"]), ha="center", va="bottom", fontsize="small"
        )
    iops_axes.set_ylabel("sustained kIOPS (300 s)")
    for index, (label, key) in enumerate(PERCENTILES):
        latency_axes.plot(positions, [row[key] for row in rows], marker="o", label=label, color=f"C{index}")
    latency_axes.set_yscale("log")
    latency_axes.set_ylabel("latency [µs], all commands")
    latency_axes.legend(fontsize="small")
    for axes in (iops_axes, latency_axes):
        axes.set_xticks(list(positions), labels)
        axes.set_xlabel("command submission time while throttled [ms]")
        axes.grid(True, alpha=0.3)
    figure.savefig(output, dpi=120)


def full_rows(report: ssdtwin.Report) -> Any:
    """The report's time series without its last row when that row is the drain after the run's
    duration (shorter than a sample interval: its IOPS are a few completions over a sliver)."""
    table = report.timeseries
    step = table["time_s"].iloc[1] - table["time_s"].iloc[0]
    return table[table["time_s"] + step <= report.simulated_time_s + 1e-9].reset_index(drop=True)


def thermal_run(**overrides: Any) -> ssdtwin.Report:
    """The sweep's base scenario at `overrides`, one time-series row per second, started from one
    snapshot of the preconditioned drive (made on the first call, kept in results/)."""
    import tomllib

    base = tomllib.loads((HERE / "sweep.toml").read_text())["base"]
    snapshot = HERE / "results" / "drive.snap"
    if not snapshot.exists():
        ssdtwin.precondition(base, snapshot)
    return ssdtwin.run(base, snapshot=snapshot, **{"power.sample_interval": "1s", **overrides})


def measured(rows: list[dict[str, Any]]) -> dict[str, float]:
    """The figures claims.toml compares with the paper: the slowdown at CST 20 ms and the change
    of each latency percentile from CST 0 to CST 20 ms."""
    free, throttled = rows[0], next(row for row in rows if row["cst_ms"] == 20)
    values = {"slowdown_cst20": throttled["slowdown"]}
    for _, key in PERCENTILES[1:]:
        values[f"{key}_change_cst20"] = throttled[key] / free[key] - 1
    return values


def cells(*values: str) -> str:
    """A Markdown table row."""
    return "| " + " | ".join(values) + " |"


def header(*columns: str) -> str:
    """A Markdown table's header and rule; a column named with a leading "<" is left-aligned."""
    names = [column.lstrip("<") for column in columns]
    rule = ["---" if column.startswith("<") else "---:" for column in columns]
    return "| " + " | ".join(names) + " |\n|" + "|".join(rule) + "|"


def print_mixture() -> None:
    """The mixture reading against the measured percentiles, and the CST 20 ms gain split into
    the part of the stream served (drift), the throttled share (mixture) and the rest."""
    reports = stored_reports("sweep.toml")
    free = reports[0.0]
    levels = [("p99", "p99", 0.99), ("p99.9", "p99_9", 0.999), ("p99.99", "p99_99", 0.9999)]
    print()
    print(
        header(
            "CST [ms]",
            "commands",
            "throttled share s",
            *(f"{label} measured / mixture [µs]" for label, _, _ in levels),
        )
    )
    for cst, report in sorted(reports.items()):
        if cst == 0:
            continue
        share = throttled_share(report)
        values = [
            f"{report.latency_us['all'][key]:,.0f} / {mixture(free, share, fraction):,.0f}"
            for _, key, fraction in levels
        ]
        print(cells(f"{cst:g}", f"{report.latency_us['all']['count']:,}", f"{share:.3f}", *values))

    throttled = reports[20.0]
    count = throttled.latency_us["all"]["count"]
    # CST 0 over the same commands (the stream is the same whatever the timing): takes out the drift
    # of the first minutes after preconditioning.
    same = thermal_run(**{"throttle.cst": "0ms", "workload.duration": "0s", "workload.io_count": count})
    share = throttled_share(throttled)
    print()
    print(
        header(
            "<CST 20 ms against CST 0",
            *(f"{label} [µs]" for label, _, _ in levels),
        )
    )
    steps = [
        ("CST 0, 300 s", [free.latency_us["all"][key] for _, key, _ in levels]),
        (f"CST 0, its first {count:,} commands", [same.latency_us["all"][key] for _, key, _ in levels]),
        (f"mixture of the above with s = {share:.3f}", [mixture(same, share, f) for _, _, f in levels]),
        ("CST 20 ms, measured", [throttled.latency_us["all"][key] for _, key, _ in levels]),
    ]
    reference = steps[0][1]
    for name, values in steps:
        print(
            cells(
                name,
                *(
                    f"{value:,.0f} ({value / base - 1:+.1%})"
                    for value, base in zip(values, reference, strict=True)
                ),
            )
        )
    full = free.timeseries
    bins = full["iops"].groupby((full["time_s"] // 0.1).astype(int)).mean()
    print(
        f"\nCST 0, IOPS in 100 ms bins: 5th percentile {bins.quantile(0.05):,.0f}, "
        f"median {bins.median():,.0f}, 95th percentile {bins.quantile(0.95):,.0f}"
    )
    table = throttled.timeseries
    starts = table.index[(table["throttle_state"] == 0) & (table["throttle_state"].shift(1) == 2)]
    first = [float(table["iops"].iloc[start : start + 50].mean()) for start in starts]
    print(
        f"CST 20 ms, IOPS over the first 0.5 s of each full-speed period after a throttled one: "
        f"{min(first):,.0f} to {max(first):,.0f} ({len(first)} periods)"
    )


def main() -> None:
    import json
    import sys

    reuse = "--reuse" in sys.argv[1:]
    rows = cst_rows(sweep("sweep.toml", reuse))
    print(
        header(
            "CST [ms]",
            "kIOPS",
            "slowdown vs CST 0",
            "WAF",
            "p50 [µs]",
            "p99 [µs]",
            "p99.9 [µs]",
            "p99.99 [µs]",
            "read p99.99 [µs]",
            "throttle events",
            "time throttled [s]",
            "total W",
            "PCB at end [°C]",
        )
    )
    for row in rows:
        print(
            cells(
                f"{row['cst_ms']:g}",
                f"{row['kiops']:.2f}",
                f"{row['slowdown']:.2f}x",
                f"{row['waf']:.2f}",
                f"{row['p50']:,.1f}",
                f"{row['p99']:,.0f}",
                f"{row['p99_9']:,.0f}",
                f"{row['p99_99']:,.0f}",
                f"{row['read_p99_99']:,.0f}",
                f"{row['events']}",
                f"{row['throttled_s']:.1f}",
                f"{row['power_w']:.2f}",
                f"{row['pcb_final_c']:.1f}",
            )
        )
    plot_cst(rows, HERE / "cst.png")
    reference = rows[0]["kiops"]

    values = measured(rows)
    (HERE / "measured.json").write_text(json.dumps(values, indent=2, sort_keys=True) + "\n")
    print(json.dumps(values, indent=2, sort_keys=True))

    table = sweep("ambient.toml", reuse).sort_values("thermal.ambient_c")
    print()
    print(
        header(
            "ambient [°C]",
            "kIOPS at CST 20 ms",
            "slowdown vs CST 0",
            "throttle events",
            "time throttled [s]",
            "total W",
            "WAF",
        )
    )
    for _, point in table.iterrows():
        print(
            cells(
                f"{point['thermal.ambient_c']:g}",
                f"{point['iops'] / 1000:.2f}",
                f"{reference * 1000 / point['iops']:.2f}x",
                f"{point['throttle.events']}",
                f"{point['throttle.time_s']:.1f}",
                f"{point['power_w.total_avg']:.2f}",
                f"{point['waf']:.2f}",
            )
        )

    print_mixture()

    print()
    print(
        header(
            "CST for the whole run [ms]",
            "kIOPS",
            "p50 [µs]",
            "p99 [µs]",
            "p99.9 [µs]",
            "p99.99 [µs]",
            "read p99.99 [µs]",
        )
    )
    for interval in ["1ms", "5ms", "20ms"]:
        report = thermal_run(**{"throttle.policy": "none", "host.submission_interval": interval})
        latency = report.latency_us["all"]
        print(
            cells(
                f"{milliseconds(interval):g}",
                f"{report.iops / 1000:.3f}",
                f"{latency['p50']:,.1f}",
                f"{latency['p99']:,.0f}",
                f"{latency['p99_9']:,.0f}",
                f"{latency['p99_99']:,.0f}",
                f"{report.latency_us['read']['p99_99']:,.0f}",
            )
        )

    report = thermal_run(**{"throttle.cst": "20ms"})
    # The NAND packages (which CST reads) and the board; the controller peaks near 120 °C (README).
    ssdtwin.plot_thermal(
        full_rows(report),
        output=HERE / "cst_20ms_thermal.png",
        nodes=["nand_0", "nand_1", "nand_2", "nand_3", "pcb"],
    )


if __name__ == "__main__":
    main()
