"""The thermal_preopt study (the self-heating paper, papers/000, section 4.3, Figures 12 and 13).

    python studies/thermal_preopt/run.py           # both sweeps, the README tables, plots, measured.json
    python studies/thermal_preopt/run.py --reuse   # the same from the stored sweep results

Runs `sweep.toml` (CST alone against CST plus the pre-throttling optimisation, in the paper's
fitted enclosure and, as the isolating run, at 60 °C) and `energy.toml` (energy per command
against the queue depth) with `ssdtwin.sweep` (results in results/ here, not committed), prints
the README's tables, writes `measured.json` and plots the fitted-enclosure pair from the 10 ms time series
of its stored reports, taken per second.
"""

from __future__ import annotations

import json
import shutil
import sys
import tomllib
from pathlib import Path
from typing import Any

import ssdtwin

HERE = Path(__file__).resolve().parent
NAND_NODES = ["nand_0", "nand_1", "nand_2", "nand_3", "pcb"]


def base() -> dict[str, Any]:
    """The sweep's base scenario (the paper's steady drive in its enclosure)."""
    return tomllib.loads((HERE / "sweep.toml").read_text())["base"]


def sweep(name: str, reuse: bool = False) -> Any:
    """Runs sweep file `name` afresh (its stored results are replaced) and returns its table; with
    `reuse`, loads the stored results instead when there are some."""
    definition = HERE / name
    out = HERE / tomllib.loads(definition.read_text())["out"]
    if reuse and out.exists():
        return ssdtwin.load(out)
    shutil.rmtree(out, ignore_errors=True)
    return ssdtwin.sweep(str(definition), workers=2, progress=False)


def row(point: Any) -> dict[str, Any]:
    """The README figures of one results-table row of `sweep.toml`."""
    import pandas

    ambient = point.get("thermal.ambient_c")
    return {
        "policy": point["throttle.policy"],
        "state": "fitted" if pandas.isna(ambient) else f"{ambient:g} °C",
        "kiops": point["iops"] / 1000,
        "waf": point["waf"],
        "cst_events": point["throttle.entries.heavy"],
        "heavy_s": point["throttle.state_time_s.heavy"],
        "light_s": point["throttle.state_time_s.light"],
        "nand_max": max(point[f"thermal.max_c.nand_{index}"] for index in range(4)),
        "nand_w": point["power_w.nand_avg"],
        "power_w": point["power_w.total_avg"],
        "p99": point["latency_us.all.p99"],
        "p99_99": point["latency_us.all.p99_99"],
    }


def policies(reuse: bool = False) -> dict[tuple[str, str], dict[str, Any]]:
    """The four points of `sweep.toml`, keyed by (enclosure: "fitted" or "60 °C", policy)."""
    points = [row(point) for _, point in sweep("sweep.toml", reuse).iterrows()]
    return {(point["state"], point["policy"]): point for point in points}


def measured(points: dict[tuple[str, str], dict[str, Any]]) -> dict[str, float]:
    """The figures claims.toml compares with the paper (the fitted enclosure), and the gain in
    the isolating run's enclosure at 60 °C."""
    cst, preopt = points["fitted", "cst"], points["fitted", "cst_preopt"]
    cool_cst, cool_preopt = points["60 °C", "cst"], points["60 °C", "cst_preopt"]
    return {
        "cst_alone_kiops": cst["kiops"],
        "preopt_kiops": preopt["kiops"],
        "preopt_gain_kiops": preopt["kiops"] - cst["kiops"],
        "preopt_gain": preopt["kiops"] / cst["kiops"] - 1,
        "preopt_gain_ambient60": cool_preopt["kiops"] / cool_cst["kiops"] - 1,
    }


def stored(policy: str) -> ssdtwin.Report:
    """The stored report of `sweep.toml`'s point with `policy` in the fitted enclosure."""
    out = HERE / tomllib.loads((HERE / "sweep.toml").read_text())["out"]
    for path in sorted((out / "reports").glob("*.json")):
        report = ssdtwin.Report.from_json(path.read_text())
        throttle = report.config["throttle"]
        if report.config["thermal"]["ambient_c"] != 60 and throttle["policy"] == policy:
            return report
    raise LookupError(f"no stored report with throttle.policy = {policy!r} in the fitted enclosure in {out}")


def per_second(report: ssdtwin.Report) -> Any:
    """The report's time series in one-second rows (means; the temperatures at each second's
    end), without the drain after the run's duration."""
    table = report.timeseries
    table = table[table["time_s"] < report.simulated_time_s - 1e-9]
    seconds = (table["time_s"] + 1e-9).floordiv(1.0)
    means = table.groupby(seconds).mean()
    temperatures = [column for column in table.columns if column.startswith("temp_c.")]
    means[temperatures] = table.groupby(seconds)[temperatures].last()
    if "throttle_state" in table.columns:
        means["throttle_state"] = table.groupby(seconds)["throttle_state"].max()
    means["time_s"] = means.index.astype(float)
    return means.reset_index(drop=True)


def figure13(cst: ssdtwin.Report, preopt: ssdtwin.Report, output: Path) -> None:
    """The paper's Figure 13: the hottest NAND package and IOPS against time, both policies."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(10, 6), layout="constrained")
    FigureCanvasAgg(figure)
    temperature_axes, iops_axes = figure.subplots(2, 1, sharex=True)
    for index, (label, report) in enumerate([("CST alone", cst), ("CST + pre-throttling", preopt)]):
        table = per_second(report)
        ends = table["time_s"] + 1.0
        nand = table[[f"temp_c.{node}" for node in NAND_NODES[:4]]].max(axis=1)
        temperature_axes.plot(ends, nand, color=f"C{index}", label=label)
        iops_axes.step(
            table["time_s"],
            table["iops"] / 1000,
            where="post",
            color=f"C{index}",
            label=f"{label}: {report.iops / 1000:.1f} kIOPS average",
        )
    for threshold, name in [(80, "throttle"), (72, "pre-throttle"), (75, "release")]:
        temperature_axes.axhline(threshold, color="grey", linewidth=0.8, linestyle="--")
        temperature_axes.annotate(name, (0, threshold), fontsize="x-small", va="bottom", color="grey")
    temperature_axes.set_ylabel("hottest NAND package [°C]")
    iops_axes.set_ylabel("kIOPS (1 s)")
    iops_axes.set_xlabel("simulated time [s]")
    for axes in (temperature_axes, iops_axes):
        axes.grid(True, alpha=0.3)
        axes.legend(fontsize="small", loc="lower left")
    figure.savefig(output, dpi=120)


def cells(*values: str) -> str:
    """A Markdown table row."""
    return "| " + " | ".join(values) + " |"


def header(*columns: str) -> str:
    """A Markdown table's header and rule; a column named with a leading "<" is left-aligned."""
    names = [column.lstrip("<") for column in columns]
    rule = ["---" if column.startswith("<") else "---:" for column in columns]
    return "| " + " | ".join(names) + " |\n|" + "|".join(rule) + "|"


def main() -> None:
    reuse = "--reuse" in sys.argv[1:]
    points = policies(reuse)
    print(
        header(
            "<enclosure",
            "<policy",
            "kIOPS",
            "gain vs CST alone",
            "WAF",
            "CST events",
            "CST [s]",
            "reduced QD/FB [s]",
            "NAND max [°C]",
            "NAND W",
            "total W",
            "p99 [µs]",
            "p99.99 [µs]",
        )
    )
    for (state, policy), point in points.items():
        gain = point["kiops"] / points[state, "cst"]["kiops"] - 1
        print(
            cells(
                state,
                policy,
                f"{point['kiops']:.2f}",
                f"{gain:+.1%}" if policy == "cst_preopt" else "—",
                f"{point['waf']:.2f}",
                f"{point['cst_events']}",
                f"{point['heavy_s']:.1f}",
                f"{point['light_s']:.1f}",
                f"{point['nand_max']:.1f}",
                f"{point['nand_w']:.2f}",
                f"{point['power_w']:.2f}",
                f"{point['p99']:,.0f}",
                f"{point['p99_99']:,.0f}",
            )
        )
    print()
    print(header("QD", "kIOPS", "WAF", "NAND W", "total W", "NAND µJ per command", "drive µJ per command"))
    for _, point in sweep("energy.toml", reuse).sort_values("host.queue_depth").iterrows():
        print(
            cells(
                f"{point['host.queue_depth']}",
                f"{point['iops'] / 1000:.1f}",
                f"{point['waf']:.2f}",
                f"{point['power_w.nand_avg']:.2f}",
                f"{point['power_w.total_avg']:.2f}",
                f"{point['power_w.nand_avg'] / point['iops'] * 1e6:.1f}",
                f"{point['power_w.total_avg'] / point['iops'] * 1e6:.1f}",
            )
        )
    values = measured(points)
    (HERE / "measured.json").write_text(json.dumps(values, indent=2, sort_keys=True) + "\n")
    print(json.dumps(values, indent=2, sort_keys=True))

    cst, preopt = stored("cst"), stored("cst_preopt")
    figure13(cst, preopt, HERE / "figure13.png")
    ssdtwin.plot_thermal(per_second(cst), output=HERE / "cst_thermal.png", nodes=NAND_NODES)
    ssdtwin.plot_thermal(per_second(preopt), output=HERE / "cst_preopt_thermal.png", nodes=NAND_NODES)


if __name__ == "__main__":
    main()
