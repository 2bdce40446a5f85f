"""What a new user meets first: a duration that ends the run, trace timestamps the report talks
about, scenario errors that name the file, line and column, and the hint for `"4KB"`."""

from __future__ import annotations

from pathlib import Path

import pytest

import ssdtwin
from conftest import SMALL, cli

HINT = '"4KB" is 4,000 bytes (KB is decimal, 1000); did you mean "4KiB" (4,096 bytes)?'

TYPO_SCENARIO = """\
# A scenario with a typo on line 7.
seed = 1
drive = "enterprise_tlc"

[host]
# the next key is misspelt
queue_dept = 4
"""


def test_decimal_block_size_error_hints_at_the_binary_unit():
    with pytest.raises(ssdtwin.ConfigError) as caught:
        ssdtwin.run(**SMALL, **{"workload.block_size": "4KB"})
    error = caught.value
    assert error.key == "workload.block_size"
    assert error.message.endswith(HINT)
    assert (error.file, error.line, error.column) == (None, None, None)  # an override has no place


def test_binary_block_size_is_accepted_where_the_decimal_one_is_not():
    config = ssdtwin.resolve(**SMALL, **{"workload.block_size": "4KiB"})
    assert config["workload"]["block_size"] == "4KiB"


def test_typo_in_a_scenario_file_names_file_line_and_column(tmp_path: Path):
    path = tmp_path / "scenario.toml"
    path.write_text(TYPO_SCENARIO)
    with pytest.raises(ssdtwin.ConfigError) as caught:
        ssdtwin.resolve(path)
    error = caught.value
    assert error.key == "host.queue_dept"
    assert error.message.startswith("unknown field `queue_dept`")
    assert (error.file, error.line, error.column) == (str(path), 7, 1)
    assert str(error).startswith(f"{path}:7:1: `host.queue_dept`: unknown field")


def test_cli_prints_the_place_of_a_typo(tmp_path: Path):
    path = tmp_path / "scenario.toml"
    path.write_text(TYPO_SCENARIO)
    result = cli("run", str(path))
    assert result.returncode == 2
    assert result.stderr.startswith(f"error: {path}:7:1: `host.queue_dept`: unknown field")
    assert "Traceback" not in result.stderr


def test_a_duration_alone_ends_the_run_at_that_simulated_time():
    scenario = {"flash": {"blocks_per_plane": 16}, "workload": {"precondition": "none", "duration": "50ms"}}
    assert ssdtwin.resolve(scenario)["workload"]["io_count"] == 0
    report = ssdtwin.run(scenario).to_dict()
    # Nothing is issued from 50 ms on; the commands in flight then (QD 32 on an empty drive, no
    # GC) finish well within 10 ms.
    assert 0.05 <= report["simulated_time_s"] < 0.06
    assert ssdtwin.resolve(**{"workload.duration": "50ms"})["workload"]["io_count"] == 0
    assert ssdtwin.resolve()["workload"]["io_count"] == 1_000_000  # configs/default.toml's


def write_trace(folder: Path, last_line: str) -> Path:
    """A DiskSim trace of 4 KiB writes (time in ns): 0, 1 ms, 51 ms (a 50 ms jump), `last_line`."""
    path = folder / "jump.trace"
    path.write_text(f"0 0 0 8 0\n1000000 0 8 8 0\n51000000 0 16 8 0\n{last_line}\n")
    return path


TRACE = {**SMALL, "workload.kind": "trace", "workload.trace.format": "disksim"}
"""A trace replay on the small drive of `SMALL` (`workload.io_count` does not bound a trace)."""


def test_a_50_ms_jump_in_a_trace_is_reported(tmp_path: Path):
    trace = write_trace(tmp_path, "52000000 0 24 8 0")
    report = ssdtwin.run(**TRACE, **{"workload.trace.path": str(trace)}).to_dict()
    stamps = report["workload"]["trace_timestamps"]
    assert stamps["used"] is True
    assert (stamps["long_gaps"], stamps["largest_gap_line"], stamps["backward"]) == (1, 3, 0)
    assert stamps["largest_gap_s"] == pytest.approx(0.05, rel=1e-9)
    assert any("1 gap of 10 ms or more" in warning for warning in report["workload"]["warnings"])


def test_cli_warns_of_the_jump_and_of_ignored_timestamps(tmp_path: Path):
    trace = write_trace(tmp_path, "52000000 0 24 8 0")
    settings = [f"{key}={value}" for key, value in {**TRACE, "workload.trace.path": trace}.items()]
    arguments = [item for setting in settings for item in ("--set", setting)]
    timed = cli("run", *arguments, "--quiet")
    assert timed.returncode == 0, timed.stderr
    assert "warning: trace " in timed.stderr
    assert "1 gap of 10 ms or more between requests (largest gap 50 ms before line 3)" in timed.stderr
    closed = cli("run", *arguments, "--quiet", "--set", "workload.trace.replay=as_fast_as_possible")
    assert closed.returncode == 0, closed.stderr
    assert 'timestamps ignored (replay = "as_fast_as_possible"' in closed.stderr


def test_a_timestamp_going_backwards_names_file_and_line(tmp_path: Path):
    trace = write_trace(tmp_path, "2000000 0 24 8 0")
    with pytest.raises(ssdtwin.ConfigError) as caught:
        ssdtwin.run(**TRACE, **{"workload.trace.path": str(trace)})
    assert caught.value.key == "workload.trace.path"
    assert f"{trace}:4: timestamp 49 ms earlier than the request's on line 3" in caught.value.message
    lenient = ssdtwin.run(**TRACE, **{"workload.trace.path": str(trace), "workload.trace.lenient": True})
    lenient = lenient.to_dict()
    assert lenient["workload"]["trace_timestamps"]["backward"] == 1
    assert lenient["host_ios"] == 4


def test_a_scenario_file_without_drive_that_sets_a_duration_drops_the_default_count(tmp_path: Path):
    # Such a file is layered on the built-in default scenario (1,000,000 I/Os): its duration, set
    # alone, decides how the run ends, as a duration set alone in any layer does.
    path = tmp_path / "timed.toml"
    path.write_text('[workload]\nduration = "50ms"\n')
    resolved = ssdtwin.resolve(path)["workload"]
    assert (resolved["io_count"], resolved["duration"]) == (0, "50ms")
    both = tmp_path / "both.toml"
    both.write_text('[workload]\nduration = "50ms"\nio_count = 1000\n')
    resolved = ssdtwin.resolve(both)["workload"]
    assert (resolved["io_count"], resolved["duration"]) == (1000, "50ms")
