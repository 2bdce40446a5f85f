"""The wear_latency study (studies/wear_latency): read latency and IOPS of an aged drive against
P/E cycles and retention age; retries start where the model's RBER crosses the hard-decision
limit, and the tails grow from there. A reduced version of the study's runs."""

from __future__ import annotations

from types import ModuleType

import pytest

from conftest import load_script

SHORT = {"workload.io_count": 10_000}


@pytest.fixture(scope="module")
def study() -> ModuleType:
    return load_script("studies/wear_latency/run.py")


@pytest.fixture(scope="module")
def pe_rows(study) -> list[dict]:
    return study.pe_sweep([6000, 10_000, 12_000, 15_000], **SHORT)


def test_retries_start_where_rber_crosses_the_hard_limit(study, pe_rows):
    age_s = study.SECONDS[study.PE_AGE]
    crossed = [study.model_rber(row["pe"], age_s) > study.HARD_LIMIT for row in pe_rows]
    # The sweep straddles the crossing (between 10,000 and 12,000 P/E at a year at 55 °C).
    assert crossed == [False, False, True, True]
    for row, above in zip(pe_rows, crossed, strict=True):
        assert (row["retries_per_read"] > 0) == above, row
        assert row["rber"] == pytest.approx(study.model_rber(row["pe"], age_s), rel=0.01)


def test_tails_grow_once_retries_start(pe_rows):
    before, after = pe_rows[1], pe_rows[-1]
    for key in ("p50", "p99", "p99_99"):
        assert after[key] > 1.2 * before[key], (key, before, after)
    assert after["kiops"] < 0.9 * before["kiops"]
    # Below the limit, wear alone costs nothing.
    assert pe_rows[0]["p99"] == pytest.approx(before["p99"], rel=0.05)


def test_retention_age_alone_starts_retries(study):
    rows = study.age_sweep(["30d", "10y"], **SHORT)
    assert rows[0]["retries_per_read"] == 0
    assert rows[1]["retries_per_read"] > 0
    assert rows[1]["p99_99"] > 1.2 * rows[0]["p99_99"]
