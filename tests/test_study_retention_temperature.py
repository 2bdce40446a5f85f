"""The retention_temperature study (studies/retention_temperature): bit errors normalised to the
ECC capability against elapsed time at 55 °C and 70 °C (the self-heating paper, section 4.1,
Figure 3), on a reduced version of the study's runs."""

from __future__ import annotations

import itertools
import math
from types import ModuleType

import pytest

from conftest import load_script

SHORT = {"workload.io_count": 3000}


@pytest.fixture(scope="module")
def study() -> ModuleType:
    return load_script("studies/retention_temperature/run.py")


@pytest.fixture(scope="module")
def fixed(study) -> dict[tuple[int, str], dict]:
    rows = study.part_a(ages=["1d", "30d"], **SHORT)
    return {(row["temp_c"], row["age"]): row for row in rows}


def test_hotter_data_has_more_errors_at_every_age_by_more_than_5_percent(fixed):
    # The direction the paper reports (Figure 3: the 70 °C data has more errors), with the 5%
    # margin of a direction claim (docs/validation.md).
    for age in ("1d", "30d"):
        cold, hot = fixed[(55, age)], fixed[(70, age)]
        assert hot["normalised"] > 1.05 * cold["normalised"]
        assert cold["normalised"] > 0
    # Errors grow with elapsed time at both temperatures.
    for temp_c in (55, 70):
        assert fixed[(temp_c, "30d")]["normalised"] > fixed[(temp_c, "1d")]["normalised"]


def test_hot_data_ages_by_the_arrhenius_factor_and_errors_by_its_power_slope(fixed):
    # The time the 55 °C data needs to reach the errors the 70 °C data has after a day, from the
    # measured log-linear growth at 55 °C: the model's Arrhenius factor AF(70)/AF(55) = 5.48
    # (1.1 eV), whatever the RBER model's slope. This is a time factor, not the paper's ratio of
    # error counts.
    cold_1d, cold_30d, hot_1d = fixed[(55, "1d")], fixed[(55, "30d")], fixed[(70, "1d")]
    slope = math.log(cold_30d["rber"] / cold_1d["rber"]) / math.log(30)
    days = (hot_1d["rber"] / cold_1d["rber"]) ** (1 / slope)
    assert days == pytest.approx(5.48, rel=0.05)
    # At equal elapsed time the error counts differ by 5.48^slope = 1.59 with the default slope
    # (0.274 at 3,000 P/E). The paper reports up to 5.6x: NOT REPRODUCED, the README and
    # claims.toml give the cause (the retention slope) and the isolating run (part D).
    ratio = hot_1d["rber"] / cold_1d["rber"]
    assert slope == pytest.approx(7.92e-6 * 3000 + 0.25, rel=0.01)
    assert ratio == pytest.approx(5.48**slope, rel=0.02)


def test_the_equal_time_ratio_is_the_time_factor_to_the_power_of_the_slope(study):
    # Part D, the isolating run of the gap to the paper's 5.6x: Arrhenius off gives 1; with the
    # 55 °C level held and only the slope changed, errors linear in time (slope 1) give the whole
    # time factor, 5.48, and the default slope 5.48^0.274 = 1.59.
    rows = {row["variant"]: row for row in study.part_d(**SHORT)}
    assert rows["arrhenius off"]["ratio"] == pytest.approx(1.0, abs=1e-9)
    assert rows["slope linear"]["slope"] == pytest.approx(1.0)
    assert rows["slope linear"]["ratio"] == pytest.approx(5.48, rel=0.03)
    assert rows["slope default"]["ratio"] == pytest.approx(5.48**0.27376, rel=0.02)
    # The level is held: the 55 °C errors are the same in every slope variant.
    for name in ("slope luo", "slope linear"):
        assert rows[name]["normalised_55"] == pytest.approx(rows["slope default"]["normalised_55"], rel=0.01)


def test_the_thermal_model_ages_each_package_at_its_temperature(study):
    rows = study.part_b(**{"workload.io_count": 60_000})
    cool = [row for row in rows if row["ambient_c"] == 40]
    hot = [row for row in rows if row["ambient_c"] == 55]
    assert len(cool) == len(hot) == 4
    for cool_package, hot_package in zip(cool, hot, strict=True):
        assert hot_package["max_c"] > cool_package["max_c"] + 10
        assert hot_package["rber"] > cool_package["rber"] > 0


def test_a_board_whose_packages_differ_ages_the_hotter_packages_faster(study):
    # The study's board with per-package thermal parameters (README, part B), ~14 s under load
    # instead of the study's 42 s: the spread between the coolest and the hottest package is about
    # 15 °C (13.3 °C here, 15.0 °C in the study's run).
    result = study.part_spread(**{"workload.io_count": 4_000_000})
    packages = result["packages"]
    assert len(packages) == 4
    spread = max(row["max_c"] for row in packages) - min(row["max_c"] for row in packages)
    assert 12 < spread < 18, spread
    # The hotter a package ran, the more errors its data has.
    by_temperature = sorted(packages, key=lambda row: row["mean_c"])
    for cooler, hotter in itertools.pairwise(by_temperature):
        assert hotter["mean_c"] > cooler["mean_c"]
        assert hotter["rber"] > cooler["rber"] > 0
    # And by the ratio the Arrhenius clocks give from the temperatures alone: the mean of
    # t_eff(t)^slope over the run, t_eff the package's integrated acceleration factor.
    hottest = by_temperature[-1]
    assert hottest["ratio"] > 1.2
    for row in packages:
        assert row["ratio"] == pytest.approx(row["predicted_ratio"], rel=0.01)
    # Below (ratio of the effective ages at the end)^slope: the packages heat up during the run,
    # so the hot package's lead in effective age grows, and earlier reads saw less of it.
    assert hottest["af_ratio"] > 2
    assert 1 < hottest["ratio"] < hottest["af_ratio_s"]


def test_a_steeper_sourced_slope_gives_a_larger_ratio_at_equal_time(study):
    # Part C: at 10,000 P/E the default slope (0.329) and the one the Luo et al. summary implies
    # (ln 10 / ln 88 = 0.514); at equal elapsed time the 70/55 °C ratio is 5.48^slope.
    assert math.log(10) / math.log(264 / 3) == pytest.approx(0.514, abs=0.001)
    assert pytest.approx(0.514, abs=0.001) == study.LUO_SLOPE
    rows = {(row["variant"], row["age"]): row for row in study.part_c(ages=["1d"], **SHORT)}
    default, luo = rows[("default", "1d")], rows[("luo", "1d")]
    assert default["slope"] == pytest.approx(0.3292)
    assert luo["slope"] == pytest.approx(study.LUO_SLOPE)
    for row in (default, luo):
        assert row["ratio"] == pytest.approx(5.4766 ** row["slope"], rel=0.03)
    assert luo["ratio"] > default["ratio"] > 1.5
    assert luo["ratio"] == pytest.approx(2.40, abs=0.05)
