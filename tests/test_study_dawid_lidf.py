"""The dawid_lidf study (studies/dawid_lidf): IOPS and write traffic against the protected ratio of
the mapping table, FIFO against LIDF flushing (the capacitor paper, papers/003, Figures 3-6), on
the study's drive with a quarter of its blocks (a quarter of the area, buffer and writes)."""

from __future__ import annotations

from typing import Any

import pytest

from conftest import load_script

RATIOS = [0.01, 0.05, 0.25, 1.0]
WORKLOADS = ["sequential", "random", "jesd219"]


def _study() -> Any:
    return load_script("studies/dawid_lidf/run.py")


@pytest.fixture(scope="module")
def rows() -> dict[tuple[str, str, float], dict[str, Any]]:
    study = _study()
    results = study.run_all(small=True, workloads=WORKLOADS, ratios=RATIOS)
    return {(row["workload"], row["order"], row["ratio"]): row for row in results}


@pytest.mark.parametrize("workload", WORKLOADS)
def test_lidf_is_at_least_fifo_while_translation_pages_are_written_back(rows, workload):
    # The paper's direction (Figures 3-6): LIDF >= FIFO in IOPS, <= in translation-page writes.
    for ratio in RATIOS[:-1]:
        fifo, lidf = rows[(workload, "fifo", ratio)], rows[(workload, "lidf", ratio)]
        assert lidf["iops"] >= fifo["iops"], (workload, ratio, lidf["iops"], fifo["iops"])
        assert lidf["mapping_pages"] <= fifo["mapping_pages"], (workload, ratio)


@pytest.mark.parametrize("workload", WORKLOADS)
def test_fully_protected_lidf_is_fifo_after_its_first_round(rows, workload):
    # All protected: no translation page is ever written back, so reordering cannot win anything.
    # Once every active page is dirty, LIDF's zero-cost list is arrival order, FIFO's order. Only
    # the first flush round, while the pages are still clean, goes by group; on the skewed mix a
    # few hot units then leave before an overwrite would have coalesced (125 more user pages of
    # 130,368 on this drive, 0.12% fewer IOPS): the honest exception to LIDF >= FIFO.
    fifo, lidf = rows[(workload, "fifo", 1.0)], rows[(workload, "lidf", 1.0)]
    assert fifo["mapping_pages"] == lidf["mapping_pages"] == 0
    assert lidf["iops"] >= 0.995 * fifo["iops"], (lidf["iops"], fifo["iops"])
    assert lidf["user_pages"] <= 1.002 * fifo["user_pages"]
    assert lidf["coalesced"] >= 0.99 * fifo["coalesced"]


def test_jesd219_lidf_keeps_the_buffer_for_coalescing(rows):
    # Before the fix, groups of translation pages clean at arrival stayed in the buffer while the
    # zero-cost list was never empty and filled it: LIDF coalesced 2.8-6.3% of writes against
    # FIFO's 29.4% and lost to FIFO from 5% protected up. Every waiting write now leaves within two
    # flush rounds, so LIDF coalesces nearly as much as FIFO; what it gives up is the reordering.
    for ratio in RATIOS:
        fifo, lidf = rows[("jesd219", "fifo", ratio)], rows[("jesd219", "lidf", ratio)]
        assert lidf["coalesced"] >= 0.8 * fifo["coalesced"], (ratio, lidf["coalesced"], fifo["coalesced"])
    # And it wins most where write-backs cost most (1%: +49% on this drive).
    assert rows[("jesd219", "lidf", 0.01)]["iops"] > 1.3 * rows[("jesd219", "fifo", 0.01)]["iops"]


def test_lidf_keeps_most_of_its_iops_at_one_percent(rows):
    # The paper: close to 90% of full protection with 1% of the capacitance.
    low, full = rows[("random", "lidf", 0.01)], rows[("random", "lidf", 1.0)]
    assert low["iops"] >= 0.85 * full["iops"]
    # On the JESD219 mix too (89.9% on this drive; its hot region keeps a few pages dirty).
    low, full = rows[("jesd219", "lidf", 0.01)], rows[("jesd219", "lidf", 1.0)]
    assert low["iops"] >= 0.85 * full["iops"]
    # FIFO does not: each batch of random writes dirties nearly one translation page per unit.
    assert rows[("random", "fifo", 0.01)]["iops"] < 0.7 * rows[("random", "fifo", 1.0)]["iops"]


@pytest.mark.parametrize("workload", ["random", "jesd219"])
def test_lidf_writes_far_fewer_translation_pages_than_fifo(rows, workload):
    for ratio in RATIOS[:-1]:
        fifo, lidf = rows[(workload, "fifo", ratio)], rows[(workload, "lidf", ratio)]
        assert lidf["mapping_pages"] < 0.5 * fifo["mapping_pages"], (workload, ratio)
    # All protected: nothing is written back.
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
