"""How a scenario is built, the same from Python and from the command line: a dict or file
without a `drive` is layered on the built-in default scenario; one that names a `drive` is that
preset at its own size with the schema's defaults; overrides apply last. And a drive at full size
warns, before the run, with its size, the memory it takes and how to shrink it."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest
from click.testing import CliRunner

import ssdtwin
from conftest import SMALL, SMALL_SET, cli
from ssdtwin import _core
from ssdtwin.cli import main

DEFAULT_BLOCKS_PER_PLANE = 64
"""configs/default.toml shrinks the enterprise TLC drive to 64 blocks per plane (64 GiB raw)."""
PRESET_BLOCKS_PER_PLANE = 1024
"""configs/drives/enterprise_tlc.toml: 1024 blocks per plane (1 TiB raw)."""

TIB = 2**40
FULL_PRESET_USER_GIB = (16 * 8 * 2 * 1024 * 256 * 4) * 7 // 10 * 4096 / 2**30
"""16 channels x 8 dies x 2 planes x 1024 blocks x 256 pages x 4 units of 4 KiB, 30% spare."""


def test_a_dict_without_drive_is_the_default_scenario_with_its_keys_changed() -> None:
    layered = ssdtwin.resolve({"host": {"queue_depth": 8}})
    assert layered == ssdtwin.resolve(host__queue_depth=8)
    assert layered["flash"]["blocks_per_plane"] == DEFAULT_BLOCKS_PER_PLANE
    assert layered["workload"]["precondition"] == "steady"
    assert layered["workload"]["io_count"] == 1_000_000


def test_a_dict_that_names_a_drive_is_that_preset_at_its_own_size() -> None:
    own = ssdtwin.resolve({"drive": "enterprise_tlc"})
    assert own["flash"]["blocks_per_plane"] == PRESET_BLOCKS_PER_PLANE
    assert own["workload"]["precondition"] == "fill"


def test_an_override_of_drive_drops_the_default_drives_shrink_also_under_a_dict() -> None:
    layered = ssdtwin.resolve({"host": {"queue_depth": 8}}, drive="iiot_64gb")
    assert layered == ssdtwin.resolve(drive="iiot_64gb", host__queue_depth=8)
    assert layered["flash"]["blocks_per_plane"] == PRESET_BLOCKS_PER_PLANE
    assert layered["workload"]["precondition"] == "steady"  # the default scenario's workload


def test_a_file_without_drive_is_layered_too_and_keeps_its_paths_relative_to_itself(tmp_path: Path) -> None:
    folder = tmp_path / "scenarios"
    folder.mkdir()
    path = folder / "partial.toml"
    path.write_text(
        '[host]\nqueue_depth = 8\n[workload.trace]\npath = "trace.csv"\n'
        "[thermal.resistance_k_per_w]\nnand_lateral = inf\n",
        encoding="utf-8",
    )
    resolved = ssdtwin.resolve(path)
    assert resolved["flash"]["blocks_per_plane"] == DEFAULT_BLOCKS_PER_PLANE
    assert resolved["host"]["queue_depth"] == 8
    assert resolved["workload"]["precondition"] == "steady"
    assert resolved["workload"]["trace"]["path"] == str(folder / "trace.csv")
    infinite = ssdtwin.resolve(**{"thermal.resistance_k_per_w.nand_lateral": float("inf")})
    assert resolved["thermal"] == infinite["thermal"]


def test_the_command_line_reads_a_file_as_python_does(tmp_path: Path) -> None:
    path = tmp_path / "partial.toml"
    path.write_text("[host]\nqueue_depth = 4\n", encoding="utf-8")
    process = cli("run", str(path), *SMALL_SET, "--quiet", "--json", "-")
    assert process.returncode == 0, process.stderr
    config = json.loads(process.stdout)["config"]
    assert config == ssdtwin.resolve(path, **SMALL)
    assert config["workload"]["steady_overwrites"] == ssdtwin.resolve()["workload"]["steady_overwrites"]
    assert config["host"]["queue_depth"] == 4


class Stopped(Exception):
    """Raised in place of the simulation: what came before it is what a user sees first."""


def _stop(*_arguments: object) -> str:
    raise Stopped


def test_a_full_size_preset_warns_before_the_run_with_its_size_memory_and_the_fix(monkeypatch) -> None:
    monkeypatch.setattr(_core, "run", _stop)
    with pytest.warns(UserWarning, match="at full size") as caught, pytest.raises(Stopped):
        ssdtwin.run({"drive": "enterprise_tlc"})
    (warning,) = caught
    message = str(warning.message)
    assert f"{TIB / 2**40:.3g} TiB raw" in message
    assert f"{FULL_PRESET_USER_GIB:.3g} GiB user" in message
    assert "1.9 GB of memory" in message  # 188 M units x 10 bytes: 1.81 GB resident measured
    assert "flash__blocks_per_plane=64" in message
    assert warning.filename == __file__  # points at the caller's line
    with pytest.warns(UserWarning, match="at full size"), pytest.raises(Stopped):
        ssdtwin.precondition({"drive": "enterprise_tlc"}, "drive.snap")


def test_the_shrink_advice_for_a_preset_with_a_static_slc_region_runs(monkeypatch) -> None:
    # client_tlc's 4 GB static SLC region does not fit beside the logical capacity of a drive
    # shrunk to 64 blocks per plane: the advice names the static size too, and what it advises runs.
    with monkeypatch.context() as patched:
        patched.setattr(_core, "run", _stop)
        with pytest.warns(UserWarning, match="at full size") as caught, pytest.raises(Stopped):
            ssdtwin.run({"drive": "client_tlc"})
    message = str(caught[0].message)
    assert "static SLC region (now 3906250KiB" in message  # 4 GB, resolved
    assert "slc_cache.static_size=0B" in message
    shrunk = {"flash__blocks_per_plane": 64, "workload__io_count": 2000, "workload__precondition": "none"}
    with pytest.raises(ssdtwin.ConfigError, match=r"slc_cache\.static_size"):
        ssdtwin.run({"drive": "client_tlc"}, **shrunk)
    report = ssdtwin.run({"drive": "client_tlc"}, **shrunk, slc_cache__static_size="0B")
    assert report["host_ios"] == 2000


def test_the_default_and_small_drives_do_not_warn(monkeypatch) -> None:
    monkeypatch.setattr(_core, "run", _stop)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for scenario in (None, {"drive": "iiot_64gb"}, {"host": {"queue_depth": 8}}):
            with pytest.raises(Stopped):
                ssdtwin.run(scenario)


def test_the_command_line_warns_on_stderr_before_a_full_size_preset(monkeypatch) -> None:
    monkeypatch.setattr(_core, "run", _stop)
    result = CliRunner().invoke(main, ["run", "--set", "drive=enterprise_tlc", "--quiet"])
    assert isinstance(result.exception, Stopped)
    assert result.stderr.startswith("warning: drive enterprise_tlc at full size: 1 TiB raw")
    assert "--set flash.blocks_per_plane=64" in result.stderr
    result = CliRunner().invoke(main, ["run", "--quiet"])
    assert "warning" not in result.stderr
