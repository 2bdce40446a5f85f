"""Bad numbers and empty inputs (issue 18, "Bad numbers"): NaN, infinity, negative and zero counts,
values beyond what fits, sizes that do not divide, an empty trace, a trace of only bad lines. Each
gets one clear error naming the key or the line, exit status 2, and nothing is written."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import ssdtwin
from conftest import SMALL_SET, cli
from ssdtwin import ConfigError

EXIT_USAGE = 2


def _leaves(table: dict[str, Any], prefix: str = "") -> Iterator[tuple[str, Any]]:
    for key, value in table.items():
        if isinstance(value, dict) and value:
            yield from _leaves(value, f"{prefix}{key}.")
        else:
            yield f"{prefix}{key}", value


RESOLVED = dict(_leaves(ssdtwin.resolve()))
FLOAT_KEYS = sorted(key for key, value in RESOLVED.items() if isinstance(value, float))
INTEGER_KEYS = sorted(
    key for key, value in RESOLVED.items() if isinstance(value, int) and not isinstance(value, bool)
)


def _rejected(key: str, value: Any) -> str:
    """The error message for `key = value`, which must name the key."""
    with pytest.raises(ConfigError) as caught:
        ssdtwin.resolve(**{key: value})
    message = str(caught.value)
    assert key in message, f"{key} = {value!r}: the error does not name the key: {message}"
    return message


def test_the_scenario_has_numeric_keys_to_check() -> None:
    assert len(FLOAT_KEYS) > 30
    assert len(INTEGER_KEYS) > 20


@pytest.mark.parametrize("key", FLOAT_KEYS)
def test_nan_is_refused_for_every_real_valued_key(key: str) -> None:
    _rejected(key, math.nan)


@pytest.mark.parametrize("key", INTEGER_KEYS)
def test_negative_and_oversized_integers_are_refused_for_every_count(key: str) -> None:
    _rejected(key, -1)
    _rejected(key, 2**64)
    _rejected(key, 1.5)


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("host.queue_depth", 0),
        ("controller.frame_buffer", 0),
        ("controller.die_queue_depth", 0),
        ("flash.channels", 0),
        ("flash.pages_per_block", 0),
        ("workload.read_fraction", math.inf),
        ("workload.read_fraction", -0.1),
        ("host.arrival_rate", math.inf),
        ("host.arrival_rate", -1.0),
        ("ftl.over_provisioning", math.inf),
        ("ftl.over_provisioning", -0.5),
        ("power.vcc_v", math.inf),
        ("power.vcc_v", -3.3),
        ("flash.program_time_spread", math.inf),
        ("ftl.mapping_unit", "3KiB"),
        ("flash.page_size", "15000B"),
        ("flash.t_read", "0us"),
    ],
)
def test_zero_infinite_negative_and_non_dividing_values_are_refused(key: str, value: Any) -> None:
    _rejected(key, value)


def test_model_keys_are_checked_when_the_model_is_on() -> None:
    on = {"thermal.enabled": True, "power.enabled": True}
    for key, value in [
        ("thermal.capacitance_j_per_k.controller", -1.0),
        ("thermal.capacitance_j_per_k.controller", math.inf),
        ("thermal.resistance_k_per_w.pcb_to_ambient", 0.0),
        ("thermal.ambient_c", math.inf),
        ("thermal.step", "0ms"),
    ]:
        with pytest.raises(ConfigError) as caught:
            ssdtwin.resolve(**on, **{key: value})
        assert key in str(caught.value), f"{key} = {value!r}: {caught.value}"


def _run_refused(tmp_path: Path, *arguments: str) -> str:
    """Runs `ssdtwin run ARGS --json OUT`: exit status 2, one `error:` line naming the problem,
    nothing written; returns the error line."""
    out = tmp_path / "out.json"
    finished = cli("run", "-q", "--json", str(out), *arguments)
    assert finished.returncode == EXIT_USAGE, (finished.returncode, finished.stderr)
    errors = [line for line in finished.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, finished.stderr
    assert "Traceback" not in finished.stderr
    assert not out.exists()
    assert list(tmp_path.glob(".out.json*")) == []
    return errors[0]


@pytest.mark.parametrize(
    ("setting", "key"),
    [
        ("host.queue_depth=nan", "host.queue_depth"),
        ("host.queue_depth=inf", "host.queue_depth"),
        ("host.queue_depth=-4", "host.queue_depth"),
        ("host.queue_depth=99999999999999999999999", "host.queue_depth"),
        ("workload.io_count=-1", "workload.io_count"),
        ("workload.read_fraction=nan", "workload.read_fraction"),
        ("power.vcc_v=-inf", "power.vcc_v"),
        ("ftl.mapping_unit=3KiB", "ftl.mapping_unit"),
    ],
)
def test_cli_refuses_bad_numbers_with_status_2_and_writes_nothing(
    tmp_path: Path, setting: str, key: str
) -> None:
    error = _run_refused(tmp_path, *SMALL_SET, "--set", setting)
    assert key in error


@pytest.mark.parametrize(
    ("name", "text", "lenient"),
    [
        ("empty", "", False),
        ("blank", "\n\n\n", False),
        ("garbage", "garbage line\nmore junk here\n", True),
    ],
)
def test_a_trace_without_a_single_request_is_an_error_naming_the_file(
    tmp_path: Path, name: str, text: str, lenient: bool
) -> None:
    trace = tmp_path / f"{name}.csv"
    trace.write_text(text, encoding="utf-8")
    error = _run_refused(
        tmp_path,
        *SMALL_SET,
        "--set",
        "workload.kind=trace",
        "--set",
        f"workload.trace.path={trace}",
        "--set",
        "workload.trace.format=msr",
        "--set",
        f"workload.trace.lenient={str(lenient).lower()}",
    )
    assert "workload.trace.path" in error
    assert str(trace) in error
    assert "no request" in error


def test_a_trace_of_only_bad_lines_names_the_first_line(tmp_path: Path) -> None:
    trace = tmp_path / "bad.csv"
    trace.write_text("128166372003061629,hm,1,Read,x,4096,100\n", encoding="utf-8")
    error = _run_refused(
        tmp_path, *SMALL_SET, "--set", "workload.kind=trace", "--set", f"workload.trace.path={trace}"
    )
    assert f"{trace}:1:" in error


@pytest.mark.parametrize(
    ("line", "problem"),
    [("iodepth=0", "iodepth"), ("bs=0", "bs"), ("size=-1", "size"), ("rwmixread=nan", "rwmixread")],
)
def test_fio_job_bad_numbers_name_the_line(tmp_path: Path, line: str, problem: str) -> None:
    job = tmp_path / "job.fio"
    job.write_text(f"[global]\nioengine=libaio\nrw=randrw\nbs=4k\n[job1]\n{line}\n", encoding="utf-8")
    error = _run_refused(
        tmp_path, *SMALL_SET, "--set", "workload.kind=fio", "--set", f"workload.fio.job={job}"
    )
    assert problem in error


def test_a_sweep_with_bad_numbers_is_refused_before_anything_runs(tmp_path: Path) -> None:
    sweep = tmp_path / "sweep.toml"
    sweep.write_text('out = "results"\n[grid]\n"host.queue_depth" = [1, nan]\n', encoding="utf-8")
    finished = cli("sweep", str(sweep), "-q")
    assert finished.returncode == EXIT_USAGE, finished.stderr
    assert "host.queue_depth" in finished.stderr
    assert not (tmp_path / "results").exists()
