"""The retention_temperature study (the self-heating paper, papers/000, section 3, Figure 3):
bit errors normalised to the ECC correction capability against elapsed time for data held at
55 °C and at 70 °C, and the same ageing driven by the thermal model's package temperatures.

    python studies/retention_temperature/run.py      # the README tables and the plot (~1 min)

Part A holds the data at a fixed temperature (`reliability.retention_age` at
`reliability.retention_temp_c`, an aged start) and reads it back; part B starts from freshly
written data and lets it age during the run at the temperatures the thermal model computes, for
two boards whose ambient differs by 15 °C.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import ssdtwin

HERE = Path(__file__).resolve().parent

# The drive and workload: the built-in default drive (enterprise TLC, shrunk), read back with
# 4 KiB random reads. P/E 3,000 [A: mid-life TLC; the paper does not give the chips' wear].
BASE: dict[str, Any] = {
    "workload.read_fraction": 1.0,
    "workload.precondition": "fill",
    "workload.io_count": 20_000,
    "reliability.enabled": True,
    "reliability.pe_cycles": 3000,
    "reliability.pe_spread": 0.0,
    "reliability.read_reclaim": "none",
}
TEMPERATURES_C = [55, 70]
AGES = ["1h", "1d", "7d", "30d", "90d", "365d"]
AGE_HOURS = {"1h": 1, "1d": 24, "7d": 168, "30d": 720, "90d": 2160, "365d": 8760}
# Part B: the thermal model on, two ambient temperatures 15 °C apart, freshly written data.
THERMAL: dict[str, Any] = {
    "power.enabled": True,
    "thermal.enabled": True,
    "thermal.nand_packages": 4,
    "thermal.initial": "ambient",
    "workload.io_count": 300_000,
}
AMBIENTS_C = [40, 55]


def hard_limit(report: ssdtwin.Report) -> float:
    """RBER at the ECC's correction capability: correctable bits over codeword bits."""
    config = report.config["reliability"]
    codeword_bytes = int(config["codeword"].rstrip("B"))
    return config["correctable_bits"] / (codeword_bytes * 8)


def part_a(ages: list[str] = AGES, **overrides: Any) -> list[dict[str, Any]]:
    """Normalised errors per (temperature, age)."""
    rows = []
    for temp_c in TEMPERATURES_C:
        for age in ages:
            report = ssdtwin.run(
                **{
                    **BASE,
                    **overrides,
                    "reliability.retention_age": age,
                    "reliability.retention_temp_c": temp_c,
                }
            )
            rber = report.reliability["rber_mean"]
            rows.append(
                {
                    "temp_c": temp_c,
                    "age": age,
                    "hours": AGE_HOURS[age],
                    "rber": rber,
                    "normalised": rber / hard_limit(report),
                    "retries_per_read": report.reliability["retries"] / report.reliability["reads"],
                }
            )
    return rows


def part_b(**overrides: Any) -> list[dict[str, Any]]:
    """Per-package temperature and RBER for each ambient."""
    rows = []
    for ambient in AMBIENTS_C:
        report = ssdtwin.run(**{**BASE, **THERMAL, **overrides, "thermal.ambient_c": ambient})
        packages = report.reliability["rber_mean_per_package"]
        for index, rber in enumerate(packages):
            rows.append(
                {
                    "ambient_c": ambient,
                    "package": index,
                    "max_c": report.thermal["max_c"][f"nand_{index}"],
                    "rber": rber,
                    "normalised": rber / hard_limit(report),
                    "simulated_s": report.simulated_time_s,
                }
            )
    return rows


def plot(rows: list[dict[str, Any]], path: Path) -> None:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(6, 4))
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    for temp_c in TEMPERATURES_C:
        points = [row for row in rows if row["temp_c"] == temp_c]
        axes.plot(
            [row["hours"] for row in points],
            [row["normalised"] for row in points],
            marker="o",
            label=f"{temp_c} °C",
        )
    axes.set_xscale("log")
    axes.set_yscale("log")
    axes.set_xlabel("elapsed time [h]")
    axes.set_ylabel("bit errors / ECC correction capability")
    axes.set_title("Retention at 55 and 70 °C (P/E 3,000, 3D retention model)")
    axes.grid(True, which="both", alpha=0.3)
    axes.legend()
    figure.tight_layout()
    figure.savefig(path, dpi=120)


def main() -> None:
    rows = part_a()
    print("| elapsed | 55 °C | 70 °C | ratio 70/55 |")
    print("|---|---|---|---|")
    for age in AGES:
        cold, hot = (
            next(row for row in rows if row["temp_c"] == t and row["age"] == age) for t in TEMPERATURES_C
        )
        ratio = hot["rber"] / cold["rber"]
        print(f"| {age} | {cold['normalised']:.4f} | {hot['normalised']:.4f} | {ratio:.2f} |")
    plot(rows, HERE / "retention_temperature.png")
    print()
    print("| ambient | package | max °C | normalised errors |")
    print("|---|---|---|---|")
    for row in part_b():
        print(f"| {row['ambient_c']} | {row['package']} | {row['max_c']:.1f} | {row['normalised']:.5f} |")


if __name__ == "__main__":
    main()
