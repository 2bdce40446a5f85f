"""The pieces of `ssdtwin calibrate`'s fit checked against values worked out by hand: the
uncertainty and flat directions from a Jacobian, the discrete search's walk, the job-name scheme."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ssdtwin.calibrate.fit import Fitter, covariance
from ssdtwin.calibrate.params import render, to_number
from ssdtwin.calibrate.protocol import parse_name


def test_covariance_is_inverse_jtj_times_the_residual_variance() -> None:
    # J = diag(1, 2) over 4 residuals: JᵀJ = diag(1 + 1, 4 + 4) with the rows repeated.
    jacobian = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 0.0], [0.0, 2.0]])
    residuals = np.array([0.1, -0.1, 0.1, -0.1])
    sigma, flat = covariance(jacobian, residuals, ["a", "b"])
    s2 = 0.04 / (4 - 2)  # sum of squares over degrees of freedom
    assert sigma["a"] == pytest.approx(math.sqrt(s2 / 2))
    assert sigma["b"] == pytest.approx(math.sqrt(s2 / 8))
    assert flat == []


def test_two_parameters_that_move_the_figures_alike_are_a_flat_direction() -> None:
    jacobian = np.array([[1.0, 1.0, 0.0], [2.0, 2.0, 0.0], [3.0, 3.0, 1.0], [0.0, 0.0, 1.0]])
    sigma, flat = covariance(jacobian, np.full(4, 0.01), ["t_read", "command_overhead", "t_program"])
    assert flat == [["t_read", "command_overhead"]]
    assert math.isinf(sigma["t_read"])
    assert math.isinf(sigma["command_overhead"])
    assert math.isfinite(sigma["t_program"])


def test_the_discrete_walk_goes_past_its_first_neighbours_to_the_minimum() -> None:
    tried: list[int] = []

    def cost(value: int) -> float:
        tried.append(value)
        return (value - 9) ** 2 + 1.0

    assert Fitter._walk(cost, 4) == 9
    assert len(tried) == len(set(tried)), "each candidate is simulated once"
    assert Fitter._walk(lambda value: abs(value - 32) + 1.0, 16, wide=True) == 32


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("randread_4k_qd1", ("randread", 4, 1, 100)),
        ("seqwrite_128k_qd32", ("seqwrite", 128, 32, 0)),
        ("mix70_4k_qd32", ("mix", 4, 32, 70)),
        ("steady_randwrite_4k_qd32", ("steady_randwrite", 4, 32, 0)),
        ("mix170_4k_qd32", None),
        ("randread_4k_qd0", None),
        ("randread_4k", None),
        ("precondition_fill1", None),
    ],
)
def test_job_names_give_the_workload(name: str, expected: tuple[str, int, int, int] | None) -> None:
    workload = parse_name(name)
    if expected is None:
        assert workload is None
    else:
        assert workload is not None
        assert (workload.kind, workload.block_kib, workload.queue_depth, workload.read_percent) == expected


def test_units_read_and_written_as_the_scenario_file_does() -> None:
    assert to_number("2ms", "us", "flash.t_program") == 2000.0
    assert to_number(["60us", "75us"], "us", "flash.t_read") == [60.0, 75.0]
    assert to_number("1.2GT/s", "MT/s", "flash.bus_rate") == 1200.0
    assert render(72.4166, "us") == "72.42us"
    assert render(459.99, "MT/s") == "460MT/s"
