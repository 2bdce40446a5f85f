"""The retention_temperature study (studies/retention_temperature): bit errors normalised to the
ECC capability against elapsed time at 55 °C and 70 °C (the self-heating paper, section 3,
Figure 3), on a reduced version of the study's runs."""

from __future__ import annotations

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
