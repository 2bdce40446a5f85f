"""The time_to_throttle study: how long an uncooled M.2 drive writes at full speed before its
composite temperature reaches the NVMe thresholds, and where NVMe throttling then holds it.

    python studies/time_to_throttle/run.py          # prints the README tables, writes the plots

`scenario.toml` is the drive and workload; this script runs it without throttling and with
`throttle.policy = "nvme"`, and without throttling on other channel x die layouts.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import ssdtwin

HERE = Path(__file__).resolve().parent
SCENARIO = HERE / "scenario.toml"
LAYOUTS = [(16, 8), (8, 8), (16, 2), (8, 4), (8, 2)]
"""(channels, dies per chip) of the layout table; (8, 4) is the scenario's."""


def run(**overrides: Any) -> ssdtwin.Report:
    return ssdtwin.run(str(SCENARIO), **overrides)


def full_rows(report: ssdtwin.Report) -> Any:
    """The report's time series without its last row when that row is the drain after the run's
    duration (shorter than a sample interval: its IOPS are a few completions over a sliver)."""
    table = report.timeseries
    step = table["time_s"].iloc[1] - table["time_s"].iloc[0]
    return table[table["time_s"] + step <= report.simulated_time_s + 1e-9].reset_index(drop=True)


def crossing(report: ssdtwin.Report, column: str | None, threshold: float) -> float | None:
    """The first time [s] the time series' `column` (None: the hottest NAND package) reaches
    `threshold`, linear between samples (each row's temperature is at the end of its interval);
    None if it never does."""
    table = full_rows(report)
    starts = table["time_s"].to_numpy()
    values = (hottest_nand(report) if column is None else table[column]).to_numpy()
    step = starts[1] - starts[0]
    previous_time, previous = starts[0], None
    for start, value in zip(starts, values, strict=True):
        end = start + step
        if value >= threshold:
            if previous is None or value == previous:
                return float(end)
            return float(previous_time + (threshold - previous) / (value - previous) * (end - previous_time))
        previous_time, previous = end, value
    return None


def hottest_nand(report: ssdtwin.Report) -> Any:
    """The hottest NAND package's temperature per time-series row."""
    table = full_rows(report)
    return table[[column for column in table.columns if column.startswith("temp_c.nand_")]].max(axis=1)


def summary(report: ssdtwin.Report, tmt1: float = 75.0) -> dict[str, Any]:
    """The figures of the README's tables for one run."""
    table = full_rows(report)
    composite = table["temp_c.controller"]
    row: dict[str, Any] = {
        "channels": report.config["flash"]["channels"],
        "dies": report.config["flash"]["channels"] * report.config["flash"]["dies_per_chip"],
        "policy": report.throttle["policy"],
        "mib_s": report.bandwidth_mib_s,
        "total_w": report.power_w["total_avg"],
        "nand_w": report.power_w["nand_avg"],
        "controller_w": report.power_w["controller_avg"],
        "composite_75_s": crossing(report, "temp_c.controller", 75.0),
        "composite_80_s": crossing(report, "temp_c.controller", 80.0),
        "composite_max_c": report.thermal["composite_max_c"],
        "nand_max_c": max(
            value for node, value in report.thermal["max_c"].items() if node.startswith("nand")
        ),
        "pcb_final_c": report.thermal["final_c"]["pcb"],
        "light_s": report.throttle["state_time_s"]["light"],
        "heavy_s": report.throttle["state_time_s"]["heavy"],
        "events": report.throttle["events"],
    }
    row["nand_80_s"] = crossing(report, None, 80.0)
    first = row["composite_75_s"]
    if first is not None:
        after = table["time_s"] >= first
        row["after_mean_c"] = float(composite[after].mean())
        row["after_max_c"] = float(composite[after].max())
        row["after_min_c"] = float(composite[after].min())
        row["after_mib_s"] = float(table["bandwidth_mib_s"][after].mean())
        row["before_mib_s"] = float(table["bandwidth_mib_s"][~after].mean())
    return row


def cells(*values: str) -> str:
    """A Markdown table row."""
    return "| " + " | ".join(values) + " |"


def header(*columns: str) -> str:
    """A Markdown table's header and rule; a column named with a leading "<" is left-aligned."""
    names = [column.lstrip("<") for column in columns]
    rule = ["---" if column.startswith("<") else "---:" for column in columns]
    return "| " + " | ".join(names) + " |\n|" + "|".join(rule) + "|"


def main() -> None:
    with ThreadPoolExecutor(max_workers=2) as pool:
        none, nvme = pool.map(lambda policy: run(**{"throttle.policy": policy}), ["none", "nvme"])
        layouts = list(
            pool.map(
                lambda layout: run(**{"flash.channels": layout[0], "flash.dies_per_chip": layout[1]}),
                LAYOUTS,
            )
        )
    ssdtwin.plot_thermal(full_rows(none), output=HERE / "no_throttle.png")
    ssdtwin.plot_thermal(full_rows(nvme), output=HERE / "nvme.png")

    def fmt(value: Any, spec: str) -> str:
        return "never" if value is None else format(value, spec)

    print(
        header(
            "<channels x dies",
            "dies",
            "MiB/s",
            "total W",
            "NAND W",
            "controller W",
            "composite 75 °C [s]",
            "composite 80 °C [s]",
            "hottest NAND 80 °C [s]",
            "composite max [°C]",
            "NAND max [°C]",
        )
    )
    for (channels, dies), report in zip(LAYOUTS, layouts, strict=True):
        row = summary(report)
        print(
            cells(
                f"{channels} x {dies}",
                f"{row['dies']}",
                f"{row['mib_s']:,.0f}",
                f"{row['total_w']:.2f}",
                f"{row['nand_w']:.2f}",
                f"{row['controller_w']:.2f}",
                f"{fmt(row['composite_75_s'], '.1f')}",
                f"{fmt(row['composite_80_s'], '.1f')}",
                f"{fmt(row['nand_80_s'], '.1f')}",
                f"{row['composite_max_c']:.1f}",
                f"{row['nand_max_c']:.1f}",
            )
        )
    print()
    print(
        header(
            "<policy",
            "MiB/s (300 s)",
            "composite 75 °C [s]",
            "composite 80 °C [s]",
            "<composite after 75 °C: mean / min / max [°C]",
            "<MiB/s before / after",
            "light [s]",
            "heavy [s]",
            "events",
            "composite max [°C]",
            "NAND max [°C]",
        )
    )
    for report in (none, nvme):
        row = summary(report)
        print(
            cells(
                f"{row['policy']}",
                f"{row['mib_s']:,.0f}",
                f"{fmt(row['composite_75_s'], '.1f')}",
                f"{fmt(row['composite_80_s'], '.1f')}",
                f"{row['after_mean_c']:.1f} / {row['after_min_c']:.1f} / {row['after_max_c']:.1f}",
                f"{row['before_mib_s']:,.0f} / {row['after_mib_s']:,.0f}",
                f"{row['light_s']:.1f}",
                f"{row['heavy_s']:.1f}",
                f"{row['events']}",
                f"{row['composite_max_c']:.1f}",
                f"{row['nand_max_c']:.1f}",
            )
        )


if __name__ == "__main__":
    main()
