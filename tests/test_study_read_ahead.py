"""The read_ahead study (studies/read_ahead), with fewer reads: read-ahead lifts sequential 4 KiB
reads at queue depth 1 and leaves random reads alone (issue 32, part 3)."""

from __future__ import annotations

from typing import Any

import pytest

from conftest import load_script


@pytest.fixture(scope="module")
def rows() -> dict[tuple[str, int, str], dict[str, Any]]:
    study = load_script("studies/read_ahead/run.py")
    return {(row["pattern"], row["queue_depth"], row["setting"]): row for row in study.run_all(small=True)}


def test_read_ahead_lifts_sequential_reads_at_queue_depth_1(rows):
    off, ahead = rows[("sequential", 1, "off")], rows[("sequential", 1, "cache + read-ahead")]
    assert ahead["bandwidth_mib_s"] > 2 * off["bandwidth_mib_s"], (ahead, off)
    assert ahead["hit_ratio"] > 0.9, ahead
    assert ahead["prefetched_unused"] < 0.02 * ahead["prefetched"], ahead


@pytest.mark.parametrize("queue_depth", [1, 32])
@pytest.mark.parametrize("setting", ["cache", "cache + read-ahead"])
def test_the_cache_and_read_ahead_leave_random_reads_within_3_percent(rows, queue_depth, setting):
    off, on = rows[("random", queue_depth, "off")], rows[("random", queue_depth, setting)]
    assert abs(on["bandwidth_mib_s"] / off["bandwidth_mib_s"] - 1) < 0.03, (on, off)


def test_the_cache_alone_does_not_lift_a_stream_that_never_rereads(rows):
    off, cache = rows[("sequential", 1, "off")], rows[("sequential", 1, "cache")]
    assert cache["hit_ratio"] == 0.0, cache
    assert abs(cache["bandwidth_mib_s"] / off["bandwidth_mib_s"] - 1) < 0.03, (cache, off)
