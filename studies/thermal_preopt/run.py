"""The thermal_preopt study (the self-heating paper, papers/000, section 4.3, Figures 12 and 13).

    python studies/thermal_preopt/run.py     # both sweeps, the README tables and plots (~5 min)
    python studies/thermal_preopt/run.py --reuse   # the same from the stored sweep results

Runs `sweep.toml` (CST alone against CST plus the pre-throttling optimisation, in the NAND-only
and full-board thermal settings) and `sensitivity.toml` (the optimisation's knobs) with
`ssdtwin.sweep` (results in results/ here, not committed), prints the README's tables, measures
the energy per command at each queue depth (why the setting decides the sign of the gain), and
runs the NAND-only pair once more with one time-series row per second for the plots.
"""

from __future__ import annotations

import shutil
import sys
import tomllib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import ssdtwin

HERE = Path(__file__).resolve().parent
NAND_NODES = ["nand_0", "nand_1", "nand_2", "nand_3", "pcb"]


def base() -> dict[str, Any]:
    """The sweep's base scenario (the NAND-only setting, tuned optimisation)."""
    return tomllib.loads((HERE / "sweep.toml").read_text())["base"]


def run(**overrides: Any) -> ssdtwin.Report:
    return ssdtwin.run(base(), **overrides)


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
    """The README figures of one results-table row."""
    return {
        "policy": point["throttle.policy"],
        "setting": "NAND only"
        if point["config.thermal.resistance_k_per_w.controller_to_pcb"] > 1e3
        else "full board",
        "ambient": point["config.thermal.ambient_c"],
        "pre": point["config.throttle.pre_throttle_c"],
        "min_qd": point["config.throttle.min_queue_depth"],
        "fb_steps": point["config.throttle.frame_buffer_steps"],
        "kiops": point["iops"] / 1000,
        "cst_events": point["throttle.entries.heavy"],
        "heavy_s": point["throttle.state_time_s.heavy"],
        "light_s": point["throttle.state_time_s.light"],
        "nand_max": max(point[f"thermal.max_c.nand_{index}"] for index in range(4)),
        "pcb_final": point["thermal.final_c.pcb"],
        "power_w": point["power_w.total_avg"],
        "p99": point["latency_us.all.p99"],
        "p99_99": point["latency_us.all.p99_99"],
    }


def rows(table: Any) -> list[dict[str, Any]]:
    return [row(point) for _, point in table.iterrows()]


def with_config(table: Any, definition: str) -> Any:
    """The results table with the resolved values of the keys `row` reads (`config.*` columns)."""
    import pandas

    keys = [
        "thermal.resistance_k_per_w.controller_to_pcb",
        "thermal.ambient_c",
        "throttle.pre_throttle_c",
        "throttle.min_queue_depth",
        "throttle.frame_buffer_steps",
        "throttle.policy",
    ]
    sweep_file = tomllib.loads((HERE / definition).read_text())
    values: dict[str, list[Any]] = {f"config.{key}": [] for key in keys}
    for _, point in table.iterrows():
        overrides = {key: point[key] for key in table.columns if key in _swept(sweep_file)}
        # A point that does not set a key has NA there; numpy scalars become Python numbers.
        overrides = {
            key: value.item() if hasattr(value, "item") else value
            for key, value in overrides.items()
            if not pandas.isna(value)
        }
        resolved = ssdtwin.resolve(sweep_file["base"], **overrides)
        for key in keys:
            section, *rest = key.split(".")
            value = resolved[section]
            for part in rest:
                value = value[part]
            values[f"config.{key}"].append(value)
    table = table.assign(**values)
    if "throttle.policy" not in table.columns:
        table = table.assign(**{"throttle.policy": table["config.throttle.policy"]})
    return table


def _swept(sweep_file: dict[str, Any]) -> set[str]:
    keys = set(sweep_file.get("grid", {})) | set(sweep_file.get("zip", {}))
    for point in sweep_file.get("points", []):
        keys |= set(point)
    return keys


def queue_depth_energy() -> list[dict[str, Any]]:
    """IOPS and power at QD 1 to 8 with throttling off (20 s each): the energy per command of the
    NAND (what heats the packages in the NAND-only setting) and of the whole drive."""

    def one(depth: int) -> dict[str, Any]:
        report = ssdtwin.run(
            base(),
            **{
                "host.queue_depth": depth,
                "workload.duration": "20s",
                "thermal.enabled": False,
                "throttle.policy": "none",
            },
        )
        power = report.power_w
        return {
            "qd": depth,
            "kiops": report.iops / 1000,
            "total_w": power["total_avg"],
            "nand_w": power["nand_avg"],
            "controller_w": power["controller_avg"],
            "nand_uj": power["nand_avg"] / report.iops * 1e6,
            "total_uj": power["total_avg"] / report.iops * 1e6,
        }

    with ThreadPoolExecutor(max_workers=2) as pool:
        return list(pool.map(one, [1, 2, 4, 8]))


def full_rows(report: ssdtwin.Report) -> Any:
    """The report's time series without its last row when that row is the drain after the run's
    duration (shorter than a sample interval: its IOPS are a few completions over a sliver)."""
    table = report.timeseries
    step = table["time_s"].iloc[1] - table["time_s"].iloc[0]
    return table[table["time_s"] + step <= report.simulated_time_s + 1e-9].reset_index(drop=True)


def figure13(cst: ssdtwin.Report, preopt: ssdtwin.Report, output: Path) -> None:
    """The paper's Figure 13: the hottest NAND package and IOPS against time, both policies."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(10, 6), layout="constrained")
    FigureCanvasAgg(figure)
    temperature_axes, iops_axes = figure.subplots(2, 1, sharex=True)
    for index, (label, report) in enumerate([("CST alone", cst), ("CST + pre-throttling", preopt)]):
        table = full_rows(report)
        ends = table["time_s"] + (table["time_s"].iloc[1] - table["time_s"].iloc[0])
        nand = table[[f"temp_c.{node}" for node in NAND_NODES[:4]]].max(axis=1)
        temperature_axes.plot(ends, nand, color=f"C{index}", label=f"{label}")
        iops_axes.step(
            table["time_s"],
            table["iops"] / 1000,
            where="post",
            color=f"C{index}",
            label=f"{label}: {report.iops / 1000:.1f} kIOPS average",
        )
    for threshold, name in [(80, "throttle"), (79, "pre-throttle"), (75, "release")]:
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
    policies = rows(with_config(sweep("sweep.toml", reuse), "sweep.toml"))
    print(
        header(
            "<setting",
            "ambient [°C]",
            "<policy",
            "pre-throttle [°C]",
            "QD floor",
            "FB steps",
            "kIOPS",
            "gain vs CST alone",
            "CST events",
            "CST [s]",
            "reduced QD/FB [s]",
            "NAND max [°C]",
            "total W",
            "p99 [µs]",
            "p99.99 [µs]",
        )
    )
    reference: dict[str, float] = {}
    for point in policies:
        if point["policy"] == "cst":
            reference[point["setting"]] = point["kiops"]
    for point in policies:
        preopt = point["policy"] == "cst_preopt"
        gain = point["kiops"] / reference[point["setting"]] - 1
        print(
            cells(
                f"{point['setting']}",
                f"{point['ambient']:g}",
                f"{point['policy']}",
                f"{point['pre']:g}" if preopt else "—",
                f"{point['min_qd'] if preopt else '—'}",
                f"{point['fb_steps'] if preopt else '—'}",
                f"{point['kiops']:.2f}",
                f"{f'{gain:+.1%}' if preopt else '—'}",
                f"{point['cst_events']}",
                f"{point['heavy_s']:.1f}",
                f"{point['light_s']:.1f}",
                f"{point['nand_max']:.1f}",
                f"{point['power_w']:.2f}",
                f"{point['p99']:,.0f}",
                f"{point['p99_99']:,.0f}",
            )
        )

    sensitivity = rows(with_config(sweep("sensitivity.toml", reuse), "sensitivity.toml"))
    print()
    print(
        header(
            "pre-throttle [°C]",
            "QD floor",
            "kIOPS",
            "gain vs CST alone",
            "CST events",
            "CST [s]",
            "reduced QD [s]",
        )
    )
    for point in sorted(sensitivity, key=lambda point: (point["pre"], point["min_qd"])):
        gain = point["kiops"] / reference["NAND only"] - 1
        print(
            cells(
                f"{point['pre']:g}",
                f"{point['min_qd']}",
                f"{point['kiops']:.2f}",
                f"{gain:+.1%}",
                f"{point['cst_events']}",
                f"{point['heavy_s']:.1f}",
                f"{point['light_s']:.1f}",
            )
        )

    print()
    print(
        header(
            "QD",
            "kIOPS",
            "total W",
            "NAND W",
            "controller W",
            "NAND µJ per command",
            "drive µJ per command",
        )
    )
    for point in queue_depth_energy():
        print(
            cells(
                f"{point['qd']}",
                f"{point['kiops']:.1f}",
                f"{point['total_w']:.2f}",
                f"{point['nand_w']:.2f}",
                f"{point['controller_w']:.2f}",
                f"{point['nand_uj']:.1f}",
                f"{point['total_uj']:.1f}",
            )
        )

    with ThreadPoolExecutor(max_workers=2) as pool:
        cst, preopt = pool.map(
            lambda policy: run(**{"throttle.policy": policy, "power.sample_interval": "1s"}),
            ["cst", "cst_preopt"],
        )
    figure13(cst, preopt, HERE / "figure13.png")
    ssdtwin.plot_thermal(full_rows(cst), output=HERE / "cst_thermal.png", nodes=NAND_NODES)
    ssdtwin.plot_thermal(full_rows(preopt), output=HERE / "cst_preopt_thermal.png", nodes=NAND_NODES)


if __name__ == "__main__":
    main()
