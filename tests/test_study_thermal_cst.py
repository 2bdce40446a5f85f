"""The thermal_cst study (studies/thermal_cst): command-submission-time throttling on the 512 GB
IIoT drive (the self-heating paper, section 4.3, Figure 11), on a 60 s window of the study's
scenario (its board starts at 75 °C, so throttling starts within seconds)."""

from __future__ import annotations

import tomllib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

import ssdtwin

STUDY = Path(__file__).resolve().parent.parent / "studies" / "thermal_cst"
SHORT = {"workload.duration": "60s"}


def _run(**overrides: Any) -> ssdtwin.Report:
    base = tomllib.loads((STUDY / "sweep.toml").read_text())["base"]
    return ssdtwin.run(base, **{**SHORT, **overrides})


@pytest.fixture(scope="module")
def runs() -> dict[str, ssdtwin.Report]:
    cases = {
        "0ms": {"throttle.cst": "0ms"},
        "1ms": {"throttle.cst": "1ms"},
        # One time-series row per second: the throttled rate.
        "20ms": {"throttle.cst": "20ms", "power.sample_interval": "1s"},
        # The CST for the whole window, no thermal trigger: 200 commands 20 ms apart.
        "always_20ms": {
            "throttle.policy": "none",
            "host.submission_interval": "20ms",
            "workload.duration": "4s",
        },
    }
    with ThreadPoolExecutor(max_workers=2) as pool:
        reports = list(pool.map(lambda overrides: _run(**overrides), cases.values()))
    return dict(zip(cases, reports, strict=True))


def test_cst_throttling_slows_the_drive_several_fold(runs):
    free, throttled = runs["0ms"], runs["20ms"]
    kiops = {name: f"{report.iops / 1e3:.2f}" for name, report in runs.items()}
    print(f"kIOPS: CST 0 {kiops['0ms']}, 1 ms {kiops['1ms']}, 20 ms {kiops['20ms']}")
    # The hottest NAND package reaches the 80 °C threshold; a CST of 0 slows nothing, so it is
    # not counted as throttling.
    assert free.throttle["entries"]["heavy"] == 0
    assert free.throttle["time_s"] == 0
    assert max(value for node, value in free.thermal["max_c"].items() if node.startswith("nand")) > 80
    # CST 20 ms: the drive spends most of the window throttled and falls several-fold (paper 4.93x).
    assert throttled.throttle["time_s"] > 0.5 * throttled.simulated_time_s
    assert free.iops > 2.5 * throttled.iops
    # Throttling holds the hottest NAND package at the threshold.
    nand_max = max(value for node, value in throttled.thermal["max_c"].items() if node.startswith("nand"))
    assert nand_max == pytest.approx(80, abs=0.5)


def test_each_queue_slot_waits_the_cst_in_parallel(runs):
    # While throttled, each of the QD slots waits the CST from the moment it is free: about
    # QD / (CST + service time) commands per second, far above the 1 / CST of spacing every
    # submission CST apart.
    report = runs["20ms"]
    queue_depth = report.config["host"]["queue_depth"]
    table = report.timeseries
    step = table["time_s"].iloc[1] - table["time_s"].iloc[0]
    # throttle_state 2 is the heavy (CST) state; the median skips the seconds that straddle a change.
    heavy = table["throttle_state"] == 2
    throttled = table[heavy & (table["time_s"] + step <= report.simulated_time_s)]
    assert len(throttled) > 10
    rate = float(throttled["iops"].median())
    assert rate == pytest.approx(queue_depth / 0.020, rel=0.05)
    assert rate > 4 * (1 / 0.020)


def test_a_light_cst_throttles_as_hard_as_a_heavy_one_but_does_not_hold_the_threshold(runs):
    # What the study finds (README): 1 ms already gives the several-fold fall, it does not throttle
    # less than 20 ms; but its throttled rate still heats the NAND past the threshold, so after its
    # first event it never releases.
    light, heavy = runs["1ms"], runs["20ms"]
    assert runs["0ms"].iops > 2.5 * light.iops
    assert light.iops < 1.5 * heavy.iops
    assert light.throttle["entries"]["heavy"] == 1
    first_event_s = light.simulated_time_s - light.throttle["time_s"]
    assert first_event_s < 0.5 * light.simulated_time_s

    def nand_max(report):
        return max(value for node, value in report.thermal["max_c"].items() if node.startswith("nand"))

    assert nand_max(light) > nand_max(heavy) + 1


def test_qos_is_set_by_the_unthrottled_periods_unless_cst_applies_throughout(runs):
    free, light, throttled, always = runs["0ms"], runs["1ms"], runs["20ms"], runs["always_20ms"]
    # A light CST, throttled for most of the window, lowers the p99 a little.
    assert light.latency_us["all"]["p99"] < free.latency_us["all"]["p99"]
    # CST 20 ms: almost every command runs in the full-speed periods at QD 8, so the percentiles
    # hardly move (the paper's QoS improvement at 20 ms is not reproduced here).
    for key in ("p99", "p99_99"):
        assert throttled.latency_us["all"][key] == pytest.approx(free.latency_us["all"][key], rel=0.03), key
    # The paper's mechanism, commands spaced 20 ms apart for the whole window: the queues stay
    # empty and the tail collapses, at 50 IOPS.
    assert always.iops == pytest.approx(50, rel=0.02)
    assert always.latency_us["all"]["p99"] < 0.5 * free.latency_us["all"]["p99"]
