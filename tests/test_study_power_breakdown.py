"""The power_breakdown study (studies/power_breakdown) reproduces the self-heating paper's
directions: the NAND share of total power grows with channels (its Figure 5: 19.4% -> 41%), and
the NAND average power rises with queue depth while the peak saturates (its Figure 8: at 704 mW)."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

import ssdtwin
from conftest import load_script

STUDY = Path(__file__).resolve().parent.parent / "studies" / "power_breakdown"


@pytest.fixture(scope="module")
def study():
    return load_script("studies/power_breakdown/run.py")


def test_nand_share_grows_with_channels(study):
    one, eight = study.breakdown()
    assert (one["channels"], eight["channels"]) == (1, 8)
    print(f"NAND share: 1 channel {one['nand_share']:.1%}, 8 channels {eight['nand_share']:.1%}")
    assert eight["nand_share"] > 1.5 * one["nand_share"], (one, eight)
    # The paper's controller figures (2 W, 6 W) and other ICs (0.4 W) come back at full activity.
    assert one["controller_avg_w"] == pytest.approx(2.0, rel=0.03)
    assert eight["controller_avg_w"] == pytest.approx(6.0, rel=0.03)
    assert one["other_avg_w"] == pytest.approx(0.4)
    assert eight["other_avg_w"] == pytest.approx(0.4)


def test_nand_average_rises_with_queue_depth_and_the_peak_saturates(study):
    rows = study.queue_depth()
    depths = [row["host.queue_depth"] for row in rows]
    averages = [row["nand_avg_w"] for row in rows]
    peaks = [row["nand_peak_w"] for row in rows]
    print("QD, NAND average, NAND peak [W]:", list(zip(depths, averages, peaks, strict=True)))
    rising = [average for depth, average in zip(depths, averages, strict=True) if depth <= 32]
    assert all(later > earlier for earlier, later in itertools.pairwise(rising)), averages
    assert averages[-1] == pytest.approx(averages[-2], rel=0.03), "the average levels off at QD 64"
    # The ceiling: all 8 dies of the channel at their highest profile segment at once, the
    # paper's 704 mW (the preset's profile is calibrated to it). The peak reaches it and stays.
    power = ssdtwin.resolve(str(STUDY / "scenario.toml"))["power"]
    highest_factor = max(factor for _, factor in power["program_profile"])
    ceiling = 8 * power["vcc_v"] * power["icc_program_ma"] * 1e-3 * highest_factor
    assert ceiling == pytest.approx(0.704, rel=1e-3)
    saturated = [peak for depth, peak in zip(depths, peaks, strict=True) if depth >= 8]
    assert all(peak == pytest.approx(ceiling, rel=1e-6) for peak in saturated), peaks
    assert max(peaks) <= ceiling * (1 + 1e-6)
    assert all(peak > average for peak, average in zip(peaks, averages, strict=True))
