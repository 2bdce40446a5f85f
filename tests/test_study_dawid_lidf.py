"""The dawid_lidf study (studies/dawid_lidf): IOPS and write traffic against the protected ratio of
the mapping table, FIFO against LIDF flushing (the capacitor paper, papers/003, Figures 3-6), on
the study's drive with a quarter of its blocks (a quarter of the area, buffer and writes)."""

from __future__ import annotations

from typing import Any

import pytest

from conftest import load_script

RATIOS = [0.01, 0.10, 1.0]


def _study() -> Any:
    return load_script("studies/dawid_lidf/run.py")


@pytest.fixture(scope="module")
def rows() -> dict[tuple[str, str, float], dict[str, Any]]:
    study = _study()
    results = study.run_all(small=True, workloads=["random", "sequential", "jesd219"], ratios=RATIOS)
    return {(row["workload"], row["order"], row["ratio"]): row for row in results}


@pytest.mark.parametrize("workload", ["random", "sequential"])
def test_lidf_is_at_least_fifo_at_every_ratio(rows, workload):
    for ratio in RATIOS:
        fifo, lidf = rows[(workload, "fifo", ratio)], rows[(workload, "lidf", ratio)]
        # Equal at 100% (nothing is written back), within run-to-run noise of the flush order.
        assert lidf["iops"] >= 0.99 * fifo["iops"], (workload, ratio)


def test_jesd219_lidf_wins_at_one_percent_but_loses_coalescing_above(rows):
    # Not the paper's direction (README, "What differs"): on the skewed mix LIDF wins only at
    # the lowest ratio. It flushes writes whose translation page is dirty first, which are the
    # hot region's, so hot overwrites rarely find their unit still waiting: far fewer writes
    # coalesce than under FIFO, more pages are programmed, and once the translation-page write-backs
    # no longer dominate (from 5% in the study, README) FIFO is faster.
    low_fifo, low_lidf = rows[("jesd219", "fifo", 0.01)], rows[("jesd219", "lidf", 0.01)]
    assert low_lidf["iops"] > low_fifo["iops"]
    fifo, lidf = rows[("jesd219", "fifo", 1.0)], rows[("jesd219", "lidf", 1.0)]
    assert lidf["iops"] < fifo["iops"]
    assert lidf["coalesced"] < 0.5 * fifo["coalesced"]
    assert lidf["user_pages"] > fifo["user_pages"]


def test_lidf_keeps_most_of_its_iops_at_one_percent_on_random_writes(rows):
    # The paper: close to 90% of full protection with 1% of the capacitance.
    low, full = rows[("random", "lidf", 0.01)], rows[("random", "lidf", 1.0)]
    assert low["iops"] >= 0.85 * full["iops"]
    # FIFO does not: each batch of random writes dirties nearly one translation page per unit.
    assert rows[("random", "fifo", 0.01)]["iops"] < 0.7 * rows[("random", "fifo", 1.0)]["iops"]


@pytest.mark.parametrize("workload", ["random", "jesd219"])
def test_lidf_writes_fewer_translation_pages_than_fifo(rows, workload):
    for ratio in RATIOS[:-1]:
        fifo, lidf = rows[(workload, "fifo", ratio)], rows[(workload, "lidf", ratio)]
        assert lidf["mapping_pages"] < 0.5 * fifo["mapping_pages"], (workload, ratio)
    # All protected: nothing is written back, and the same user pages reach flash.
    for order in ("fifo", "lidf"):
        assert rows[(workload, order, 1.0)]["mapping_pages"] == 0


def test_every_point_writes_three_times_the_area_and_needs_more_capacitance_for_more_protection(rows):
    study = _study()
    area = study.area_units(study.SMALL)
    for (workload, _, _), row in rows.items():
        # Units written: three times the area (JESD219: its 60% writes of 1.6 units on average).
        assert row["buffer_writes"] == pytest.approx(3 * area, rel=0.0 if workload != "jesd219" else 0.03)
        # Each reaches flash unless it coalesced or is still buffered (at most the buffer, 4,352).
        assert row["user_pages"] + row["coalesced"] + 4352 >= row["buffer_writes"]
    caps = [rows[("random", "lidf", ratio)]["capacitance_uf"] for ratio in RATIOS]
    assert caps == sorted(caps)
    assert caps[0] < caps[-1]
