"""A sweep preconditions each distinct drive once and runs its points from the snapshot (README,
"Sweeps", "One preconditioning per drive"): the count in `drives.json`, results equal to
preconditioning per point, one snapshot per distinct drive, reuse on resume, the Dask backend,
the switch that turns reuse off."""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pandas
import pytest

import ssdtwin
from conftest import cli
from ssdtwin.report import WALL_CLOCK_FIELDS
from ssdtwin.sweep import drives as _sweep_drives
from ssdtwin.sweep.store import ResultsStore

BASE = {
    "flash": {"blocks_per_plane": 16},
    "workload": {"io_count": 3_000, "precondition": "steady", "read_fraction": 0.5},
}
"""A small drive whose `steady` preconditioning takes longer than its measured run."""

QD_SWEEP = {"base": BASE, "grid": {"host.queue_depth": list(range(1, 21))}}
"""Twenty points on one drive."""


def deterministic(table: pandas.DataFrame) -> pandas.DataFrame:
    """The table without wall-clock fields and the memory the process held."""
    dropped = [*WALL_CLOCK_FIELDS, "simulator.state_bytes_per_mapping_unit"]
    return table.drop(columns=[column for column in dropped if column in table.columns])


def drives(directory: Path) -> dict[str, dict[str, object]]:
    return json.loads((directory / "drives.json").read_text(encoding="utf-8"))


@contextlib.contextmanager
def core_phases(log: Path) -> Iterator[Callable[[], list[str]]]:
    """Logs, for each call of the core's `run` (a point, or a drive's preconditioning) in this
    process or in the sweep's workers (forked, so they inherit it), the phases its progress reached.
    The first progress call comes at once, in the phase the call starts in, the later ones at most
    every 0.1 s: "precondition" is always there when the call preconditioned, and a call that
    started from a snapshot has "run" alone. Yields a function giving the lines so far. A count
    from the core's own progress, not from the sweep's bookkeeping (`drives.json`)."""
    simulate = ssdtwin._core.run

    def logged(*args: Any, **kwargs: Any) -> str:
        seen: set[str] = set()
        arguments = list(args)
        given = kwargs.pop("progress", arguments[5] if len(arguments) > 5 else None)

        def progress(phase: str, *rest: Any) -> None:
            seen.add(phase)
            if given is not None:
                given(phase, *rest)

        if len(arguments) > 5:
            arguments[5] = progress
        else:
            kwargs["progress"] = progress
        try:
            return simulate(*arguments, **kwargs)
        finally:
            with open(log, "a", encoding="utf-8") as file:  # one short append per line: atomic
                file.write(" ".join(sorted(seen)) + "\n")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ssdtwin._core, "run", logged)
        yield lambda: log.read_text(encoding="utf-8").splitlines()


@pytest.fixture(scope="module")
def per_point(tmp_path_factory) -> tuple[Path, pandas.DataFrame, list[str]]:
    """The 20-point sweep with reuse off: every point preconditions its own drive. With the phases
    each call of the core reached."""
    directory = tmp_path_factory.mktemp("per-point")
    with core_phases(directory.parent / f"{directory.name}.log") as calls:
        results = ssdtwin.sweep(QD_SWEEP, out=directory, workers=2, progress=False, reuse=False)
        return directory, results, calls()


def test_a_20_point_queue_depth_sweep_preconditions_once(per_point, tmp_path, caplog):
    out = tmp_path / "out"
    with caplog.at_level(logging.INFO, logger="ssdtwin.sweep"), core_phases(tmp_path / "core.log") as calls:
        results = ssdtwin.sweep(QD_SWEEP, out=out, workers=2, progress=False)
        reuse_calls = calls()
    assert (results["status"] == "ok").all()
    assert len(results) == 20
    record = drives(out)
    assert len(record) == 1
    (drive,) = record.values()
    assert drive["preconditionings"] == 1
    assert sorted(drive["points"]) == sorted(results["point_id"])
    assert drive["drive"]["workload.precondition"] == "steady"
    assert "20 points to run on 1 distinct drives; preconditioning 1 snapshots" in caplog.text
    # The same reports as preconditioning each point, wall-clock fields aside.
    directory, reference, per_point_calls = per_point
    pandas.testing.assert_frame_equal(deterministic(results), deterministic(reference))
    per_point_drive = drives(directory)
    assert [item["preconditionings"] for item in per_point_drive.values()] == [20]
    # What the core did, by its own progress: with reuse, one call preconditioned (the snapshot)
    # and the 20 points started from it; without, each of the 20 points preconditioned.
    assert sorted(reuse_calls) == ["precondition"] + ["run"] * 20
    assert len(per_point_calls) == 20
    assert all("precondition" in call.split() for call in per_point_calls), per_point_calls
    # All points finished, so the snapshot is gone; reuse off never made one.
    assert not (out / "snapshots").exists()
    assert not (directory / "snapshots").exists()


def test_points_of_other_drives_get_their_own_snapshot(tmp_path):
    definition = {
        "base": BASE,
        "grid": {"host.queue_depth": [1, 8, 32], "workload.span": [1.0, 0.5]},
        "seeds": [1, 2],
        "points": [{"controller.scheduler": "fifo"}],
    }
    results = ssdtwin.sweep(definition, out=tmp_path / "reuse", workers=2, progress=False)
    record = drives(tmp_path / "reuse")
    # span x seed: four drives of three points each, each preconditioned once.
    assert len(record) == 4
    assert sorted(len(drive["points"]) for drive in record.values()) == [3, 3, 3, 3]
    assert [drive["preconditionings"] for drive in record.values()] == [1, 1, 1, 1]
    assert {(drive["drive"]["seed"], drive["drive"]["workload.span"]) for drive in record.values()} == {
        (1, 1.0),
        (1, 0.5),
        (2, 1.0),
        (2, 0.5),
    }
    reference = ssdtwin.sweep(definition, out=tmp_path / "each", workers=2, progress=False, reuse=False)
    pandas.testing.assert_frame_equal(deterministic(results), deterministic(reference))
    assert sum(drive["preconditionings"] for drive in drives(tmp_path / "each").values()) == 12


def test_a_drive_without_preconditioning_or_with_one_point_gets_no_snapshot(tmp_path):
    definition = {
        "base": BASE,
        "zip": {
            "host.queue_depth": [1, 4, 8, 16],
            "workload.precondition": ["none", "none", "fill", "fill"],
            "ftl.over_provisioning": [0.3, 0.3, 0.25, 0.2],
        },
    }
    # Two points on the "none" drive, one alone on each "fill" drive: nothing to share.
    ssdtwin.sweep(definition, out=tmp_path, workers=2, progress=False)
    record = drives(tmp_path)
    assert len(record) == 3
    counts = {
        f"{drive['drive']['workload.precondition']}{len(drive['points'])}": drive for drive in record.values()
    }
    assert counts["none2"]["preconditionings"] == 0
    assert counts["fill1"]["preconditionings"] == 1
    assert not (tmp_path / "snapshots").exists()


def test_resume_starts_from_a_snapshot_an_interrupted_sweep_left(per_point, tmp_path):
    # What a sweep killed after preconditioning leaves: the snapshot, and a half-written one.
    store = ResultsStore(tmp_path)
    probe = ssdtwin.sweep({**QD_SWEEP, "grid": {"host.queue_depth": [1]}}, out=tmp_path / "probe")
    (drive,) = drives(tmp_path / "probe")
    path = store.snapshot_path(drive)
    path.parent.mkdir()
    ssdtwin.precondition(BASE, path)
    partial = path.parent / "other.snap.partial"
    partial.write_bytes(b"half")
    results = ssdtwin.sweep(QD_SWEEP, out=tmp_path, workers=2, progress=False, resume=True)
    assert not partial.exists()
    assert [item["preconditionings"] for item in drives(tmp_path).values()] == [0]
    pandas.testing.assert_frame_equal(deterministic(results), deterministic(per_point[1]))
    assert probe["iops"][0] == results["iops"][0]


def test_dask_workers_share_the_snapshot(per_point, tmp_path):
    definition = {**QD_SWEEP, "grid": {"host.queue_depth": [1, 2, 4, 8]}}
    results = ssdtwin.sweep(definition, out=tmp_path, backend="dask", workers=2, progress=False)
    assert [item["preconditionings"] for item in drives(tmp_path).values()] == [1]
    reference = per_point[1].set_index("host.queue_depth").loc[[1, 2, 4, 8]].reset_index()
    mine = deterministic(results).drop(columns=["point_id"]).set_index("host.queue_depth")
    theirs = deterministic(reference).drop(columns=["point_id"]).set_index("host.queue_depth")
    pandas.testing.assert_frame_equal(mine, theirs[mine.columns])


def test_a_drive_that_fails_to_precondition_fails_each_of_its_points(tmp_path):
    stalling = {
        "flash": {"channels": 1, "dies_per_chip": 1, "blocks_per_plane": 8, "pages_per_block": 6},
        "ftl": {"over_provisioning": 0.02, "gc_threshold": 0.01},
        "workload": {"io_count": 100, "precondition": "steady"},
    }
    definition = {"base": stalling, "grid": {"host.queue_depth": [1, 2, 4]}}
    with pytest.raises(ssdtwin.SweepFailures) as raised:
        ssdtwin.sweep(definition, out=tmp_path, workers=2, progress=False)
    table = raised.value.results
    assert (table["status"] == "failed").all()
    assert table["error"].str.startswith("preconditioning the drive failed").all()
    # The points are not finished, so the (never written) snapshot's folder has no half file.
    assert not list(tmp_path.glob("snapshots/*.partial"))


def test_cli_no_reuse_and_the_sweep_key(tmp_path):
    lines = ['out = "out"', "[base.flash]", "blocks_per_plane = 16", "[base.workload]"]
    lines += ["io_count = 2000", 'precondition = "fill"', "[grid]", '"host.queue_depth" = [1, 2, 4]']
    path = tmp_path / "sweep.toml"
    path.write_text("\n".join(lines) + "\n")
    ran = cli("sweep", str(path), "-q", "--workers", "2")
    assert ran.returncode == 0, ran.stderr
    assert "3 points on 1 distinct drive, preconditioned 1 time in all" in ran.stdout
    ran = cli("sweep", str(path), "-q", "--workers", "2", "--no-reuse", "--out", str(tmp_path / "b"))
    assert ran.returncode == 0, ran.stderr
    assert "3 points on 1 distinct drive, preconditioned 3 times in all" in ran.stdout
    path.write_text("reuse_snapshots = false\n" + path.read_text())
    assert ssdtwin.sweep(path, out=tmp_path / "c", progress=False) is not None
    assert [item["preconditionings"] for item in drives(tmp_path / "c").values()] == [3]
    assert "reuse_snapshots = false" in (tmp_path / "c" / "sweep.toml").read_text()
    path.write_text('reuse_snapshots = "no"\n' + "\n".join(lines) + "\n")
    with pytest.raises(ssdtwin.ConfigError) as raised:
        ssdtwin.sweep(path, out=tmp_path / "d")
    assert raised.value.key == "reuse_snapshots"


def test_drive_names_follow_the_cores_drive_keys():
    from ssdtwin.sweep import PointTask

    def task(**overrides: object) -> PointTask:
        pairs = [(key, json.dumps(value)) for key, value in overrides.items()]
        return PointTask("p", None, json.dumps(BASE), ".", pairs)

    name, keys = _sweep_drives.drive_name(task())
    assert len(name) == _sweep_drives.DRIVE_HASH_LENGTH
    assert keys["flash.blocks_per_plane"] == 16
    assert keys["seed"] == 1
    # Keys outside the drive leave it alone; drive keys make another.
    assert _sweep_drives.drive_name(task(**{"host.queue_depth": 64}))[0] == name
    assert _sweep_drives.drive_name(task(**{"workload.read_fraction": 1.0}))[0] == name
    for key, value in [("seed", 2), ("ftl.gc_policy", "cost_benefit"), ("workload.span", 0.5)]:
        assert _sweep_drives.drive_name(task(**{key: value}))[0] != name, key
