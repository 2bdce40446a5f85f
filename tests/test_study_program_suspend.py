"""The program-suspend study (studies/program_suspend, papers/001): the study's drive and drive state
(sweep.toml's base: enterprise_tlc at 64 blocks per plane, GC-steady) on 400,000 of its 1.5
million I/Os. Numbers the study reproduces are asserted within 25%, the paper's directions with a
margin of at least 5%; what the study does not reproduce is not asserted the other way: its named
mechanism is (studies/program_suspend/README.md). Paced GC runs from the first command (WAF about
2.46 everywhere), but the read-heavy runs end before their first erases, so no read tail of a
read-heavy run is asserted here. Figure 6 (suspensions per program against Delay1 and Delay2)
runs the study's chip experiment (studies/program_suspend/delays.py: one die of the same preset)
on part of its grid."""

from __future__ import annotations

import importlib.util
import tomllib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import ssdtwin

STUDY = Path(__file__).resolve().parents[1] / "studies" / "program_suspend"
BASE = tomllib.loads((STUDY / "sweep.toml").read_text(encoding="utf-8"))["base"]
IO_COUNT = 400_000
PAPER_IOPS_GAIN = 113_000  # Figure 10a / Section 5.1, QD 64, 75% reads, up to 10 suspensions
PAPER_IO_BUS_RISE_W = 0.017  # Figure 11b / Section 5.2, QD 16, 75% writes
SUSPEND = {"off": (False, 0), "5": (True, 5), "10": (True, 10)}
CASES = [(qd, read) for qd in (16, 64) for read in (0.25, 0.75)]
# Where the dies have room left when suspend is off (all but QD 64 write-heavy, which is bound by
# program bandwidth: see the README).
ROOMY = [(16, 0.25), (16, 0.75), (64, 0.75)]
T_PROGRAM_US = 2000.0  # enterprise_tlc's t_program (the paper's Table 2)
EXTRA_US = 125.0  # 0.0625 of it: enterprise_tlc's resume_extra_time


def _run(qd: int, read: float, suspend: str) -> ssdtwin.Report:
    enabled, limit = SUSPEND[suspend.removesuffix("+erase")]
    return ssdtwin.run(
        BASE,
        **{
            "workload.io_count": IO_COUNT,
            "host.queue_depth": qd,
            "workload.read_fraction": read,
            "flash.suspend.program": enabled,
            "flash.suspend.max_per_operation": limit,
            "flash.suspend.erase": suspend.endswith("+erase"),
        },
    )


@pytest.fixture(scope="module")
def grid() -> dict[tuple[int, float, str], ssdtwin.Report]:
    keys = [(qd, read, suspend) for qd, read in CASES for suspend in SUSPEND] + [(16, 0.25, "10+erase")]
    with ThreadPoolExecutor(max_workers=2) as pool:
        reports = list(pool.map(lambda key: _run(*key), keys))
    return dict(zip(keys, reports, strict=True))


def _seconds_to_micros(report: ssdtwin.Report) -> float:
    return report.simulated_time_s * 1e6


def test_calibration_ten_suspensions_more_than_double_the_program_time():
    # The paper's Section 4.3: tPGM,s becomes "more than twice" tPGM; Section 4.1: up to 10
    # suspensions. enterprise_tlc's tEPS (0.035 of tPROG), resume (10 us) and extra ISPP time per
    # resume (0.0625 of tPROG) give tPGM,s(10) = 2 ms + 10 x 205 us = 2.025 x tPROG.
    suspend = ssdtwin.resolve({"drive": "enterprise_tlc"})["flash"]["suspend"]
    assert suspend["enter_time"] == 0.035
    assert suspend["resume_time"] == "10us"
    assert suspend["resume_extra_time"] == 0.0625
    per_suspension = (suspend["enter_time"] + suspend["resume_extra_time"]) * T_PROGRAM_US + 10.0
    ratio = 1 + 10 * per_suspension / T_PROGRAM_US
    assert ratio > 2.0
    assert abs(ratio / 2.0 - 1) <= 0.25


def test_calibration_waf_is_table_1s_within_25_percent(grid):
    # Table 1: WAF 2.4; the study's drive state is GC-steady.
    wafs = [grid[qd, read, "off"].waf for qd, read in CASES]
    mean = sum(wafs) / len(wafs)
    assert abs(mean / 2.4 - 1) <= 0.25, wafs


def test_suspend_raises_iops_and_lowers_mean_latency_where_the_dies_have_room(grid):
    # Figure 10: suspend raises IOPS and lowers the mean latency.
    for qd, read in ROOMY:
        off = grid[qd, read, "off"]
        for limit in ("5", "10"):
            on = grid[qd, read, limit]
            assert on.iops >= 1.05 * off.iops, (qd, read, limit)
            assert on.latency_us["all"]["mean"] <= 0.95 * off.latency_us["all"]["mean"], (qd, read, limit)
            assert on.suspend["mean_program_time_us"] > off.suspend["mean_program_time_us"]


def test_suspend_raises_nand_and_io_bus_power_where_the_dies_have_room(grid):
    # Figure 11: more operations per second draw more NAND and I/O-bus power.
    for qd, read in ROOMY:
        off = grid[qd, read, "off"].power_w
        for limit in ("5", "10"):
            on = grid[qd, read, limit].power_w
            assert on["nand_avg"] >= 1.05 * off["nand_avg"], (qd, read, limit)
            assert on["io_bus_avg"] >= 1.05 * off["io_bus_avg"], (qd, read, limit)


def test_iops_gain_at_qd64_read_heavy_is_the_papers_within_25_percent(grid):
    gain = grid[64, 0.75, "10"].iops - grid[64, 0.75, "off"].iops
    assert abs(gain / PAPER_IOPS_GAIN - 1) <= 0.25, gain


def test_io_bus_power_rise_at_qd16_write_heavy_is_the_papers_within_25_percent(grid):
    rise = grid[16, 0.25, "10"].power_w["io_bus_avg"] - grid[16, 0.25, "off"].power_w["io_bus_avg"]
    assert abs(rise / PAPER_IO_BUS_RISE_W - 1) <= 0.25, rise


def test_suspend_barely_moves_nand_power_at_qd64_write_heavy(grid):
    # The paper's -1.5 W (Figure 11a) is not reproduced (README). Its mechanism, fewer programs
    # pulsing at once, moves the mean only with the program rate (Little's law: rate x pulsing
    # time), and dies holding suspended programs add back what it takes: the change stays far
    # from 1.5 W either way.
    def pulsing(report: ssdtwin.Report) -> float:
        programs = report.flash["programs"] + report.flash["gc_programs"]
        return (programs * T_PROGRAM_US + report.suspend["program"] * EXTRA_US) / _seconds_to_micros(report)

    def program_rate(report: ssdtwin.Report) -> float:
        return (report.flash["programs"] + report.flash["gc_programs"]) / report.simulated_time_s

    off, on = grid[64, 0.25, "off"], grid[64, 0.25, "10"]
    assert on.suspend["program"] > 0
    assert abs(on.power_w["nand_avg"] - off.power_w["nand_avg"]) < 0.3
    assert pulsing(on) / pulsing(off) >= program_rate(on) / program_rate(off)


def test_ten_suspensions_change_iops_little_over_five(grid):
    for qd, read in CASES:
        five, ten = grid[qd, read, "5"].iops, grid[qd, read, "10"].iops
        assert abs(ten - five) / five < 0.05, (qd, read, five, ten)
        assert grid[qd, read, "10"].suspend["program"] >= grid[qd, read, "5"].suspend["program"] * 0.95


def test_erases_set_the_read_tail_where_they_run(grid):
    # The mechanism behind the read-QoS gain the study does not reproduce (README): where erases
    # run, a read that reaches an erasing die waits out the rest of a 5 ms tERS (Table 2), with or
    # without program suspend: a p99.99 beyond 4 ms, which no 2 ms program (plus the reads ahead)
    # makes; erase suspend takes that wait out.
    for qd, read in [(16, 0.25), (64, 0.25)]:
        for suspend in SUSPEND:
            report = grid[qd, read, suspend]
            assert report.ftl["erases"]["total"] > 0
            assert report.latency_us["read"]["p99_99"] >= 4_000, (qd, read, suspend)
    assert grid[16, 0.25, "10+erase"].latency_us["read"]["p99_99"] <= 2_500


def _delays_module():
    spec = importlib.util.spec_from_file_location("program_suspend_delays", STUDY / "delays.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SHORT_DELAYS = [0.1, 0.2, 0.3]  # fractions of tPGM
LONG_DELAYS = [0.7, 0.8, 0.9]  # "higher than 60%" (Section 4.1)


@pytest.fixture(scope="module")
def delay_grid() -> dict[str, dict[tuple[float, float], int]]:
    # Suspensions per program at Delay1 and Delay2 (fractions of tPGM), with the preset's suspend
    # timing and without its extra ISPP step per resume.
    delays = _delays_module()
    with ThreadPoolExecutor(max_workers=2) as pool:
        preset = pool.submit(delays.grid, SHORT_DELAYS + LONG_DELAYS)
        no_extra = pool.submit(delays.grid, [0.1], resume_extra_time=0.0)
        return {"preset": preset.result(), "no_extra": no_extra.result()}


def _mean(counts: dict[tuple[float, float], int], values: list[float]) -> float:
    pairs = [(d1, d2) for d1 in values for d2 in values]
    return sum(counts[pair] for pair in pairs) / len(pairs)


def test_one_suspension_per_program_when_both_delays_exceed_60_percent_of_tpgm(delay_grid):
    # Figure 6 / Section 4.1: "if both Delay1 and Delay2 assume a value higher than 60% of tPGM,
    # there is room for servicing only one program suspension".
    counts = delay_grid["preset"]
    assert all(counts[d1, d2] >= 1 for d1 in LONG_DELAYS for d2 in LONG_DELAYS), counts
    assert abs(_mean(counts, LONG_DELAYS) / 1.0 - 1) <= 0.25, counts


def test_shorter_delays_give_more_suspensions_per_program(delay_grid):
    # Figure 6 / Section 4.1: "Lower delay times lead to a higher number of suspensions".
    counts = delay_grid["preset"]
    assert _mean(counts, SHORT_DELAYS) >= 1.05 * _mean(counts, LONG_DELAYS), counts
    for d1 in SHORT_DELAYS:
        row = [counts[d1, d2] for d2 in SHORT_DELAYS + LONG_DELAYS]
        assert row == sorted(row, reverse=True), (d1, row)


def test_the_extra_ispp_step_per_resume_adds_suspensions_at_10_percent_delays(delay_grid):
    # The cause of the study's 14 suspensions against the paper's "up to 10" (README, Figure 6): a
    # 10% Delay2 runs 2 of the 16 ISPP steps before the next suspension and each resume adds one
    # back, so the program advances one step per suspension instead of two.
    with_extra, without = delay_grid["preset"][0.1, 0.1], delay_grid["no_extra"][0.1, 0.1]
    assert with_extra >= 1.05 * without, (with_extra, without)
