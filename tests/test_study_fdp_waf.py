"""The fdp_waf study (studies/fdp_waf), shorter runs: flows on disjoint ranges of a one-plane
drive, without and with FDP placement identifiers (issue 31). A sequential writer whose data has
its own reclaim units overwrites each unit before GC reaches it, so with identifiers the WAF of
separable lifetimes goes to 1 (Allison et al., EuroSys 2025, report WAF ~1 for CacheLib on FDP
drives); the conventional drive mixes the flows' data in its blocks and copies it."""

from __future__ import annotations

from typing import Any

import pytest

from conftest import load_script

MODES = ["initially_isolated", "persistently_isolated"]


@pytest.fixture(scope="module")
def rows() -> dict[tuple[str, str], dict[str, Any]]:
    study = load_script("studies/fdp_waf/run.py")
    points = study.run_all(small=True, cases=["two_logs", "log_and_random"])
    return {(row["case"], row["mode"]): row for row in points}


@pytest.mark.parametrize("mode", MODES)
def test_two_logs_in_their_own_reclaim_units_are_never_copied(rows, mode):
    # Each log overwrites its units in order: a reclaim unit of one log is wholly stale before GC
    # takes it, so GC copies nothing (WAF 1) once the fill's blocks (written through handle 0
    # before the flows, in LBA order) are gone; 1% for the last of them in the short run. Mixed
    # in shared blocks, the slower log's units are copied.
    assert rows[("two_logs", mode)]["waf"] == pytest.approx(1.0, abs=0.01)
    assert rows[("two_logs", "no identifiers")]["waf"] > 1.2


@pytest.mark.parametrize("mode", MODES)
def test_a_log_beside_random_writes_goes_towards_one_with_identifiers(rows, mode):
    mixed, placed = rows[("log_and_random", "no identifiers")], rows[("log_and_random", mode)]
    assert placed["waf"] < 0.6 * mixed["waf"], (placed["waf"], mixed["waf"])
    # The log's handle (1) is never copied; only the random flow's handle pays GC.
    handles = {handle["placement"]: handle for handle in placed["handles"]}
    assert handles[1]["waf"] == pytest.approx(1.0, abs=0.01)
    assert handles[0]["waf"] > 1.0


def test_gc_copies_go_to_shared_units_only_when_initially_isolated(rows):
    assert rows[("log_and_random", "persistently_isolated")]["shared_gc_share"] == 0
    assert rows[("log_and_random", "initially_isolated")]["shared_gc_share"] > 0
