"""The retention_temperature study (the self-heating paper, papers/000, section 4.1, Figure 3):
bit errors normalised to the ECC correction capability against elapsed time for data held at
55 °C and at 70 °C, and the same ageing driven by the thermal model's package temperatures.

    python studies/retention_temperature/run.py      # the README tables and the plot (~1 min)

Part A holds the data at a fixed temperature (`reliability.retention_age` at
`reliability.retention_temp_c`, an aged start) and reads it back; part B starts from freshly
written data and lets it age during the run at the temperatures the thermal model computes, for
two boards whose ambient differs by 15 °C, and for one board whose packages differ by about 15 °C
(per-package thermal parameters); part C is part A's ratio at equal time with the retention slope
a summary of Luo et al. implies; part D isolates why the errors at equal time grow far less than
the paper's 5.6x (the retention slope). `main` writes measured.json, the numbers the validation page
(docs/validation.md, scripts/validation.py) compares with the paper.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import ssdtwin

HERE = Path(__file__).resolve().parent

# The paper's drive (papers/000, Table 3) for the Figure 3 parts (A, C, D): the iiot_64gb preset,
# shrunk to 64 blocks per plane so the study runs in seconds (capacity changes no RBER), in GC
# steady state, the paper's one drive state for all its figures (Table 3: OP 30%, WAF 2.4).
PAPER_DRIVE: dict[str, Any] = {"drive": "iiot_64gb", "flash": {"blocks_per_plane": 64}}
PAPER_STATE: dict[str, Any] = {"workload.precondition": "steady"}
# The workload: 4 KiB random reads of the whole drive. P/E 3,000 [A: mid-life TLC; the paper does
# not give the chips' wear]. Part B runs the built-in default drive (enterprise TLC, shrunk), whose
# thermal network its board of packages that differ is built on.
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
# Part B, one board whose packages differ (README: the values and why). The package beside the
# controller (nand_0) is coupled to it and sits on little copper; the one at the far end sits on
# the most; the controller itself on a thin board's copper. Read disturb off, so a package's errors
# are its retention errors alone; started at the idle drive's steady state; 40 s under load.
SPREAD: dict[str, Any] = {
    "thermal.ambient_c": 40,
    "thermal.initial": "steady",
    "thermal.resistance_k_per_w.controller_to_pcb": 15,
    "thermal.resistance_k_per_w.nand_to_pcb": [30, 15, 10, 6],
    "thermal.controller_coupling_w_per_k": [0.3, 0, 0, 0],
    "reliability.read_disturb": 0.0,
    "power.sample_interval": "100ms",
    "workload.io_count": 12_000_000,
}
# Arrhenius (docs/models/reliability.md): Boltzmann's constant [eV/K], the default activation
# energy [eV], the reference temperature of the retention times [K].
BOLTZMANN_EV_PER_K = 8.617e-5
EA_EV = 1.1
REFERENCE_K = 298.15
# Part C: a summary of Luo et al. states that at 10,000 P/E the RBER "rises an order of magnitude
# in ~3 h and another by ~11 days". With ln RBER linear in ln t, two successive decades of RBER
# take a factor 264 h / 3 h = 88 in time, so the slope is ln 10 / ln 88 = 0.514; the default
# coefficients give alpha * 10,000 + beta = 0.329. Part C raises beta to 0.514 - alpha * 10,000 so
# the slope at 10,000 P/E is the implied one, and compares the 70/55 °C ratio at equal time.
LUO_PE = 10_000
LUO_SLOPE = math.log(10) / math.log(264 / 3)


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
                PAPER_DRIVE,
                **{
                    **BASE,
                    **PAPER_STATE,
                    **overrides,
                    "reliability.retention_age": age,
                    "reliability.retention_temp_c": temp_c,
                },
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


def acceleration(temp_c: float) -> float:
    """Arrhenius acceleration factor of `temp_c` relative to 25 °C (1.1 eV)."""
    return math.exp(EA_EV / BOLTZMANN_EV_PER_K * (1 / REFERENCE_K - 1 / (temp_c + 273.15)))


def slope(report: ssdtwin.Report) -> float:
    """The 3D retention form's slope d ln RBER / d ln t at the run's P/E cycles."""
    config = report.config["reliability"]
    coefficients = config["retention_3d"]
    return coefficients["alpha"] * config["pe_cycles"] + coefficients["beta"]


def part_spread(**overrides: Any) -> dict[str, Any]:
    """One board whose packages differ: each package's temperature, normalised errors, and the
    error ratio the Arrhenius clocks predict from the package temperatures alone."""
    report = ssdtwin.run(**{**BASE, **THERMAL, **SPREAD, **overrides})
    series = report.timeseries
    # Row i covers [time_s[i], time_s[i + 1]) and carries the temperatures at its end; the last
    # row ends with the run.
    times = [*series["time_s"], report.simulated_time_s]
    s = slope(report)
    packages = []
    for index, rber in enumerate(report.reliability["rber_mean_per_package"]):
        temps = list(series[f"temp_c.nand_{index}"])
        # Effective retention time at the end of each row: the Arrhenius factor integrated over
        # the row (temperatures at row ends, linear between them; the first row flat).
        temps = [temps[0], *temps]
        clock, effective = 0.0, []
        for row in range(1, len(times)):
            span = times[row] - times[row - 1]
            clock += span * (acceleration(temps[row - 1]) + acceleration(temps[row])) / 2
            effective.append(clock)
        # Reads come at a constant rate, so the mean RBER is proportional to the mean of t_eff^s.
        predicted = sum(t**s for t in effective) / len(effective)
        packages.append(
            {
                "package": index,
                "effective_s": effective[-1],
                "mean_c": sum(temps[1:]) / len(temps[1:]),
                "max_c": report.thermal["max_c"][f"nand_{index}"],
                "final_c": report.thermal["final_c"][f"nand_{index}"],
                "rber": rber,
                "normalised": rber / hard_limit(report),
                "predicted": predicted,
            }
        )
    coolest = min(packages, key=lambda row: row["mean_c"])
    for row in packages:
        row["ratio"] = row["rber"] / coolest["rber"]
        row["predicted_ratio"] = row["predicted"] / coolest["predicted"]
        # The mean Arrhenius factors' ratio (the effective ages at the end) to the power s.
        row["af_ratio"] = row["effective_s"] / coolest["effective_s"]
        row["af_ratio_s"] = row["af_ratio"] ** s
    return {
        "packages": packages,
        "time_s": times[1:],
        "temperatures": [list(series[f"temp_c.nand_{index}"]) for index in range(len(packages))],
        "slope": s,
        "simulated_s": report.simulated_time_s,
        "controller_max_c": report.thermal["max_c"]["controller"],
    }


def part_c(ages: list[str] = ("1d", "30d"), **overrides: Any) -> list[dict[str, Any]]:
    """The 70/55 °C ratio at equal time at 10,000 P/E with the default slope and with the slope
    implied by the Luo et al. summary."""
    alpha = ssdtwin.resolve()["reliability"]["retention_3d"]["alpha"]
    variants = {
        "default": {},
        "luo": {"reliability.retention_3d.beta": LUO_SLOPE - alpha * LUO_PE},
    }
    rows = []
    for name, variant in variants.items():
        by_temp = {}
        for temp_c in TEMPERATURES_C:
            for age in ages:
                report = ssdtwin.run(
                    PAPER_DRIVE,
                    **{
                        **BASE,
                        **PAPER_STATE,
                        "reliability.pe_cycles": LUO_PE,
                        **variant,
                        **overrides,
                        "reliability.retention_age": age,
                        "reliability.retention_temp_c": temp_c,
                    },
                )
                by_temp[(temp_c, age)] = report
        for age in ages:
            cold, hot = by_temp[(55, age)], by_temp[(70, age)]
            s = slope(cold)
            rows.append(
                {
                    "variant": name,
                    "age": age,
                    "slope": s,
                    "normalised_55": cold.reliability["rber_mean"] / hard_limit(cold),
                    "normalised_70": hot.reliability["rber_mean"] / hard_limit(hot),
                    "ratio": hot.reliability["rber_mean"] / cold.reliability["rber_mean"],
                    "expected": (acceleration(70) / acceleration(55)) ** s,
                }
            )
    return rows


# Part D, the isolating run: temperature enters the RBER only through the Arrhenius time factor,
# and the 3D form turns a time factor F into F^slope errors. Off: Arrhenius off (the ratio must be
# 1); then the slope at 3,000 P/E set to each value below through beta, with delta moved so the
# 55 °C errors at 1 day stay the default's (only the slope changes, not the level).
ISOLATING_SLOPES = {"default": None, "luo": LUO_SLOPE, "linear": 1.0}
ISOLATING_AGE_S = 86_400.0


def part_d(**overrides: Any) -> list[dict[str, Any]]:
    """The 70/55 °C ratio at 1 day with Arrhenius off, and with the retention slope set to the
    default, the Luo summary's and 1 (errors linear in time), the 55 °C level held."""
    coefficients = ssdtwin.resolve()["reliability"]["retention_3d"]
    pe = BASE["reliability.pe_cycles"]
    default_slope = coefficients["alpha"] * pe + coefficients["beta"]
    log_t55 = math.log(ISOLATING_AGE_S * acceleration(55))
    variants: dict[str, dict[str, Any]] = {"arrhenius off": {"reliability.acceleration": False}}
    for name, target in ISOLATING_SLOPES.items():
        if target is None:
            variants[f"slope {name}"] = {}
            continue
        variants[f"slope {name}"] = {
            "reliability.retention_3d.beta": target - coefficients["alpha"] * pe,
            "reliability.retention_3d.delta": coefficients["delta"] + (default_slope - target) * log_t55,
        }
    rows = []
    for name, variant in variants.items():
        reports = {
            temp_c: ssdtwin.run(
                PAPER_DRIVE,
                **{
                    **BASE,
                    **PAPER_STATE,
                    **variant,
                    **overrides,
                    "reliability.retention_age": "1d",
                    "reliability.retention_temp_c": temp_c,
                },
            )
            for temp_c in TEMPERATURES_C
        }
        cold, hot = reports[55], reports[70]
        s = slope(cold)
        arrhenius = cold.config["reliability"]["acceleration"]
        rows.append(
            {
                "variant": name,
                "slope": s,
                "normalised_55": cold.reliability["rber_mean"] / hard_limit(cold),
                "normalised_70": hot.reliability["rber_mean"] / hard_limit(hot),
                "ratio": hot.reliability["rber_mean"] / cold.reliability["rber_mean"],
                "expected": (acceleration(70) / acceleration(55)) ** s if arrhenius else 1.0,
            }
        )
    return rows


def measured(rows_a: list[dict[str, Any]], rows_d: list[dict[str, Any]]) -> dict[str, float]:
    """The numbers the validation page compares with the paper (studies/retention_temperature/
    claims.toml): the largest 70/55 °C error ratio at equal elapsed time over part A's ages (the
    paper: "up to 5.6 times"), its relative change, the Arrhenius time factor, and part D's ratios."""
    ratios = []
    for age in AGES:
        cold, hot = (next(r for r in rows_a if r["temp_c"] == t and r["age"] == age) for t in TEMPERATURES_C)
        ratios.append(hot["rber"] / cold["rber"])
    result = {
        "errors_ratio_70_55_equal_time": max(ratios),
        "errors_change_70_vs_55_equal_time": max(ratios) - 1,
        "arrhenius_time_factor_70_55": acceleration(70) / acceleration(55),
    }
    for row in rows_d:
        key = row["variant"].replace(" ", "_")
        result[f"isolating_ratio_{key}"] = row["ratio"]
        result[f"isolating_slope_{key}"] = row["slope"]
    return {key: round(value, 6) for key, value in result.items()}


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


def plot_spread(result: dict[str, Any], path: Path) -> None:
    """Each package's temperature over the run, and its normalised errors."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(9, 3.8))
    FigureCanvasAgg(figure)
    temperatures, errors = figure.subplots(1, 2)
    for row, column in zip(result["packages"], result["temperatures"], strict=True):
        temperatures.plot(result["time_s"], column, label=f"nand_{row['package']}")
    temperatures.set_xlabel("time under load [s]")
    temperatures.set_ylabel("package temperature [°C]")
    temperatures.grid(True, alpha=0.3)
    temperatures.legend()
    names = [f"nand_{row['package']}" for row in result["packages"]]
    errors.bar(names, [row["normalised"] for row in result["packages"]], color="tab:red")
    for index, row in enumerate(result["packages"]):
        errors.annotate(
            f"{row['ratio']:.2f}x", (index, row["normalised"]), ha="center", va="bottom", fontsize=9
        )
    errors.set_ylabel("bit errors / ECC correction capability")
    errors.set_title("mean over the run's reads (ratio to the coolest)", fontsize=10)
    figure.suptitle("One board whose packages differ (P/E 3,000, fresh data)", fontsize=11)
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
    spread = part_spread()
    plot_spread(spread, HERE / "retention_spread.png")
    print()
    print(
        f"one board, {spread['simulated_s']:.1f} s, slope {spread['slope']:.3f}, "
        f"controller max {spread['controller_max_c']:.1f} °C"
    )
    print("| package | mean °C | max °C | normalised | AF ratio | AF ratio^s | errors ratio | predicted |")
    print("|---|---|---|---|---|---|---|---|")
    for row in spread["packages"]:
        print(
            f"| nand_{row['package']} | {row['mean_c']:.1f} | {row['max_c']:.1f} | {row['normalised']:.5f} "
            f"| {row['af_ratio']:.2f} | {row['af_ratio_s']:.3f} | {row['ratio']:.3f} "
            f"| {row['predicted_ratio']:.3f} |"
        )
    print()
    print("| slope | elapsed | 55 °C | 70 °C | ratio 70/55 | 5.48^slope |")
    print("|---|---|---|---|---|---|")
    for row in part_c():
        print(
            f"| {row['variant']} {row['slope']:.3f} | {row['age']} | {row['normalised_55']:.4f} "
            f"| {row['normalised_70']:.4f} | {row['ratio']:.2f} | {row['expected']:.2f} |"
        )
    rows_d = part_d()
    print()
    print("| variant | slope | 55 °C | 70 °C | ratio 70/55 | expected |")
    print("|---|---|---|---|---|---|")
    for row in rows_d:
        print(
            f"| {row['variant']} | {row['slope']:.3f} | {row['normalised_55']:.4f} "
            f"| {row['normalised_70']:.4f} | {row['ratio']:.2f} | {row['expected']:.2f} |"
        )
    values = measured(rows, rows_d)
    (HERE / "measured.json").write_text(json.dumps(values, indent=2, sort_keys=True) + "\n")
    print()
    print(json.dumps(values, indent=2, sort_keys=True))


if __name__ == "__main__":
    main()
