"""The thermal_preopt study (studies/thermal_preopt): CST throttling alone against CST plus the
pre-throttling optimisation (the self-heating paper, section 4.3, Figures 12 and 13), on an 80 s
window of the study's scenario starting with every node at 75 °C (several throttling events)."""

from __future__ import annotations

import tomllib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

import ssdtwin

STUDY = Path(__file__).resolve().parent.parent / "studies" / "thermal_preopt"
SHORT = {"thermal.initial": 75, "workload.duration": "80s"}
FULL_BOARD = {"thermal.resistance_k_per_w.controller_to_pcb": 8, "thermal.ambient_c": 45}
CORE_DEFAULTS = {
    "throttle.pre_throttle_c": 72,
    "throttle.min_queue_depth": 1,
    "throttle.frame_buffer_steps": 3,
}


def _run(**overrides: Any) -> ssdtwin.Report:
    base = tomllib.loads((STUDY / "sweep.toml").read_text())["base"]
    return ssdtwin.run(base, **{**SHORT, **overrides})


@pytest.fixture(scope="module")
def runs() -> dict[str, ssdtwin.Report]:
    cases = {
        "cst": {"throttle.policy": "cst"},
        "preopt": {"throttle.policy": "cst_preopt"},
        "preopt_core_defaults": {"throttle.policy": "cst_preopt", **CORE_DEFAULTS},
        "full_cst": {"throttle.policy": "cst", **FULL_BOARD},
        "full_preopt": {"throttle.policy": "cst_preopt", **FULL_BOARD},
    }
    with ThreadPoolExecutor(max_workers=2) as pool:
        reports = list(pool.map(lambda overrides: _run(**overrides), cases.values()))
    return dict(zip(cases, reports, strict=True))


def test_pre_throttling_raises_average_iops_and_delays_throttling(runs):
    cst, preopt = runs["cst"], runs["preopt"]
    print(f"NAND only, kIOPS: CST alone {cst.iops / 1e3:.2f}, with pre-throttling {preopt.iops / 1e3:.2f}")
    assert cst.throttle["entries"]["heavy"] >= 2, "the window has several throttling events"
    assert preopt.iops > cst.iops
    assert preopt.throttle["entries"]["heavy"] < cst.throttle["entries"]["heavy"]
    assert preopt.throttle["state_time_s"]["heavy"] < cst.throttle["state_time_s"]["heavy"]
    # Both start at QD 8; the optimisation runs part of the window at its lower queue depth.
    assert preopt.config["host"]["queue_depth"] == cst.config["host"]["queue_depth"] == 8
    assert preopt.throttle["state_time_s"]["light"] > 0


def test_a_deep_ladder_costs_more_than_it_saves(runs):
    # The core's default ladder (from 72 °C down to QD 1, then the frame buffer) never throttles
    # but runs at QD 1 for good: far below CST alone.
    deep = runs["preopt_core_defaults"]
    assert deep.throttle["entries"]["heavy"] == 0
    assert deep.iops < 0.8 * runs["cst"].iops


def test_with_the_controller_heating_the_board_the_gain_reverses(runs):
    # Full board: the controller's power per command rises as the queue depth falls, so the
    # same optimisation loses IOPS (README).
    cst, preopt = runs["full_cst"], runs["full_preopt"]
    print(f"full board, kIOPS: CST alone {cst.iops / 1e3:.2f}, with pre-throttling {preopt.iops / 1e3:.2f}")
    assert cst.throttle["entries"]["heavy"] >= 2
    assert preopt.iops < cst.iops
    assert preopt.power_w["total_avg"] / preopt.iops > cst.power_w["total_avg"] / cst.iops
