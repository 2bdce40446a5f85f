"""The wear_latency study: read latency percentiles and IOPS of an aged drive against P/E cycles
and retention age (the program-suspend paper's 3D TLC drive, papers/001, whose reads slow down as
they need retries; the read-retry model of MODELS.md §3.4 as written in
docs/models/reliability.md).

    python studies/wear_latency/run.py      # the README tables and the plot (~2 min)

Each point is an aged start: every block at `reliability.pe_cycles`, the data written at
preconditioning kept `reliability.retention_age` at `reliability.retention_temp_c` (power off),
then 4 KiB random reads at QD 32. Read reclaim is off so the retries are not refreshed away.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import ssdtwin

HERE = Path(__file__).resolve().parent

BASE: dict[str, Any] = {
    "workload.read_fraction": 1.0,
    "workload.precondition": "fill",
    "workload.io_count": 50_000,
    "reliability.enabled": True,
    "reliability.pe_spread": 0.0,
    "reliability.read_reclaim": "none",
    "reliability.retention_temp_c": 55,
}
PE_CYCLES = [0, 3000, 6000, 9000, 10_000, 11_000, 12_000, 15_000, 20_000]
PE_AGE = "1y"
AGES = ["1d", "30d", "1y", "3y", "10y"]
AGE_PE = 10_000
SECONDS = {"1d": 86_400, "30d": 30 * 86_400, "1y": 31_557_600, "3y": 3 * 31_557_600, "10y": 10 * 31_557_600}


def model_rber(pe: float, age_s: float, temp_c: float = 55.0) -> float:
    """The 3D retention form at its defaults, Arrhenius 1.1 eV to 25 °C (docs/models/reliability.md)."""
    factor = math.exp(1.1 / 8.617e-5 * (1 / 298.15 - 1 / (temp_c + 273.15)))
    t = age_s * factor
    return math.exp((7.92e-6 * pe + 0.25) * math.log(t) + 3.28e-5 * pe - 12.72)


HARD_LIMIT = 220 / (4320 * 8)


def onset_pe(age_s: float) -> float:
    """P/E cycles at which the model's RBER after `age_s` at 55 °C reaches the hard limit."""
    low, high = 0.0, 100_000.0
    for _ in range(60):
        middle = (low + high) / 2
        low, high = (middle, high) if model_rber(middle, age_s) < HARD_LIMIT else (low, middle)
    return (low + high) / 2


def point(**overrides: Any) -> dict[str, Any]:
    report = ssdtwin.run(**{**BASE, **overrides})
    read = report.latency_us["read"]
    reliability = report.reliability
    return {
        "rber": reliability["rber_mean"],
        "retries_per_read": reliability["retries"] / reliability["reads"],
        "soft_fraction": reliability["soft_decodes"] / reliability["reads"],
        "p50": read["p50"],
        "p99": read["p99"],
        "p99_99": read["p99_99"],
        "kiops": report.iops / 1000,
        "nand_w": report.power_w["nand_avg"],
        "nand_uj_per_read": report.energy_j["nand"] / report.latency_us["read"]["count"] * 1e6,
    }


def pe_sweep(pe_cycles: list[int] = PE_CYCLES, **overrides: Any) -> list[dict[str, Any]]:
    return [
        {"pe": pe, **point(**{"reliability.pe_cycles": pe, "reliability.retention_age": PE_AGE, **overrides})}
        for pe in pe_cycles
    ]


def age_sweep(ages: list[str] = AGES, **overrides: Any) -> list[dict[str, Any]]:
    return [
        {
            "age": age,
            **point(**{"reliability.pe_cycles": AGE_PE, "reliability.retention_age": age, **overrides}),
        }
        for age in ages
    ]


def plot(pe_rows: list[dict[str, Any]], age_rows: list[dict[str, Any]], path: Path) -> None:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(10, 4))
    FigureCanvasAgg(figure)
    left, right = figure.subplots(1, 2)
    for key in ("p50", "p99", "p99_99"):
        left.plot([row["pe"] for row in pe_rows], [row[key] for row in pe_rows], marker="o", label=key)
        days = [SECONDS[row["age"]] / 86_400 for row in age_rows]
        right.plot(days, [row[key] for row in age_rows], marker="o", label=key)
    left.axvline(onset_pe(SECONDS[PE_AGE]), color="grey", linestyle="--", label="RBER = hard limit")
    left.set_xticks([0, 5000, 10_000, 15_000, 20_000])
    left.set_xlabel(f"P/E cycles (data {PE_AGE} at 55 °C)")
    right.set_xlabel(f"retention age at 55 °C [days] (P/E {AGE_PE})")
    right.set_xscale("log")
    for axes in (left, right):
        axes.set_ylabel("read latency [us]")
        axes.set_yscale("log")
        axes.grid(True, which="both", alpha=0.3)
        axes.legend()
    figure.tight_layout()
    figure.savefig(path, dpi=120)


def main() -> None:
    pe_rows = pe_sweep()
    print(
        "| P/E | model RBER | measured RBER | retries/read | soft | p50 us | p99 us | p99.99 us | kIOPS "
        "| NAND W | NAND uJ/read |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for row in pe_rows:
        print(
            f"| {row['pe']} | {model_rber(row['pe'], SECONDS[PE_AGE]):.2e} | {row['rber']:.2e} | "
            f"{row['retries_per_read']:.2f} | {row['soft_fraction']:.2f} | {row['p50']:.0f} | "
            f"{row['p99']:.0f} | {row['p99_99']:.0f} | {row['kiops']:.1f} | {row['nand_w']:.2f} | "
            f"{row['nand_uj_per_read']:.1f} |"
        )
    print(f"\nmodel RBER reaches the hard limit at {onset_pe(SECONDS[PE_AGE]):.0f} P/E cycles")
    age_rows = age_sweep()
    print()
    print("| age | model RBER | measured RBER | retries/read | p50 us | p99 us | p99.99 us | kIOPS |")
    print("|---|---|---|---|---|---|---|---|")
    for row in age_rows:
        print(
            f"| {row['age']} | {model_rber(AGE_PE, SECONDS[row['age']]):.2e} | {row['rber']:.2e} | "
            f"{row['retries_per_read']:.2f} | {row['p50']:.0f} | {row['p99']:.0f} | {row['p99_99']:.0f} | "
            f"{row['kiops']:.1f} |"
        )
    plot(pe_rows, age_rows, HERE / "wear_latency.png")


if __name__ == "__main__":
    main()
