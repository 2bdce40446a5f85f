"""The slc_cliff study (studies/slc_cliff), on client_tlc with a 2 GB cache: 128 KiB sequential
writes fall off a cliff where the configured cache is full (closed form of the keys), to the
native TLC rate; idle time folds the cache back into TLC at a cost in die time, energy and SLC
erases, and the next burst runs at SLC speed again (issue 32)."""

from __future__ import annotations

from typing import Any

import pytest

from conftest import load_script


@pytest.fixture(scope="module")
def results() -> dict[str, Any]:
    study = load_script("studies/slc_cliff/run.py")
    return study.run_all(small=True)


def test_the_cliff_is_within_2_percent_of_the_configured_cache_size(results):
    row = results["fill"][0]
    # The cliff lies within one 10 ms sample (0.021 GiB at 2.3 GB/s, 1.2% of 1.86 GiB).
    assert abs(row["cliff_gib"] / row["closed_form_cache_gib"] - 1) < 0.02, row
    assert abs(row["slc_written_gib"] / row["closed_form_cache_gib"] - 1) < 0.001, row


def test_bandwidth_falls_from_the_slc_rate_to_the_tlc_rate(results):
    row = results["fill"][0]
    # The preset's closed forms (configs/drives/client_tlc.toml): each die moves 2 x 16 KiB per
    # data in (43.2 us at 800 MT/s with parity) and SLC program (185 us): 16 x 32 KiB / 228.2 us
    # = 2298 MB/s; per TLC program (830 us on average): 16 x 32 KiB / 873.2 us = 600 MB/s.
    slc = 16 * 32768 / (43.2e-6 + 185e-6) / 1e6
    tlc = 16 * 32768 / (43.2e-6 + 830e-6) / 1e6
    assert 0.9 * slc < row["before_mb_s"] < 1.02 * slc, row
    assert 0.9 * tlc < row["after_mb_s"] < 1.05 * tlc, row


def test_idle_time_folds_the_cache_and_the_next_burst_runs_in_slc(results):
    short, long = results["recover"]
    assert long["folded_gib"] > short["folded_gib"] > 0.0
    # 60 s fold all of burst 1's SLC data: burst 2 (0.6 x the cache) lands in SLC entirely.
    assert long["burst_2_in_slc_gib"] > 0.99 * long["burst_2_gib"], long
    assert long["burst_2_start_mb_s"] > 3 * 600, long
    # 1.5 s of idle (1 s of folding after the 0.5 s delay) folds part of the cache only.
    assert short["folded_gib"] < 0.9 * short["burst_1_gib"] / 1.2, short


def test_folding_costs_die_time_energy_and_slc_erases(results):
    long = results["recover"][1]
    assert long["fold_die_time_s"] > 0.0
    assert long["slc_erases"] > 0
    # Against the same trace with no folding (burst 2 then goes direct to TLC): folding the whole
    # cache (an SLC read and a TLC program per page) costs more than burst 2's 0.6 x the cache
    # written in SLC rather than TLC saves.
    assert long["nand_energy_j"] > long["nand_energy_no_fold_j"], long
