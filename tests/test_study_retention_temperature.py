"""The retention_temperature study (studies/retention_temperature): bit errors normalised to the
ECC capability against elapsed time at 55 °C and 70 °C (the self-heating paper, section 3,
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


def test_hotter_data_has_more_errors_at_every_age(fixed):
    for age in ("1d", "30d"):
        cold, hot = fixed[(55, age)], fixed[(70, age)]
        assert hot["normalised"] > cold["normalised"] > 0
    # Errors grow with elapsed time at both temperatures.
    for temp_c in (55, 70):
        assert fixed[(temp_c, "30d")]["normalised"] > fixed[(temp_c, "1d")]["normalised"]


def test_hot_data_ages_several_times_faster(fixed):
    # The time the 55 °C data needs to reach the errors the 70 °C data has after a day, from the
    # measured log-linear growth at 55 °C: the Arrhenius ratio AF(70)/AF(55) = 5.48 (paper: up to
    # 5.6x), whatever the RBER model's slope.
    cold_1d, cold_30d, hot_1d = fixed[(55, "1d")], fixed[(55, "30d")], fixed[(70, "1d")]
    slope = math.log(cold_30d["rber"] / cold_1d["rber"]) / math.log(30)
    days = (hot_1d["rber"] / cold_1d["rber"]) ** (1 / slope)
    assert days == pytest.approx(5.48, rel=0.05)
    # At equal elapsed time the error counts differ by 5.48^slope: about 1.6x with the default 3D
    # form's slope (the paper's chips: up to 5.6x; README).
    ratio = hot_1d["rber"] / cold_1d["rber"]
    assert ratio == pytest.approx(5.48**slope, rel=0.02)
    assert 1.3 < ratio < 2.5


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
