"""Drive snapshots: precondition once, run many times from the saved state (README, "Drive
snapshots"): the same report as preconditioning each time, a refusal naming the key for another
drive, the CLI's `precondition` and `run --from`."""

from __future__ import annotations

import pytest

import ssdtwin
from conftest import cli
from ssdtwin.report import without_wall_clock

DRIVE = {
    "flash.blocks_per_plane": 16,
    "workload.io_count": 5_000,
    "workload.precondition": "steady",
    "workload.read_fraction": 0.5,
}


def outputs(report: ssdtwin.Report) -> dict[str, object]:
    data = without_wall_clock(report.to_dict())
    data["simulator"].pop("state_bytes_per_mapping_unit")  # memory held, not simulated
    return data


@pytest.fixture(scope="module")
def snapshot(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("snap") / "drive.snap"
    assert ssdtwin.precondition(None, path, **DRIVE) == path
    assert path.stat().st_size > 0
    return str(path)


def phases(**arguments: object) -> tuple[ssdtwin.Report, set[str]]:
    """The run's report and the phases its progress callable was called with: the first call
    comes at once (the later ones at most every 0.1 s), in the first phase the run enters."""
    seen: set[str] = set()
    report = ssdtwin.run(None, progress=lambda phase, *_: seen.add(phase), **arguments)
    return report, seen


def test_runs_from_a_snapshot_equal_runs_that_precondition_and_skip_preconditioning(snapshot):
    for queue_depth in (4, 32):
        direct, direct_phases = phases(**DRIVE, **{"host.queue_depth": queue_depth})
        loaded, loaded_phases = phases(snapshot=snapshot, **DRIVE, **{"host.queue_depth": queue_depth})
        assert outputs(loaded) == outputs(direct)
        # Loading replaces preconditioning: the run from the snapshot never enters that phase.
        assert "precondition" in direct_phases
        assert loaded_phases == {"run"}


def test_a_snapshot_of_another_drive_is_refused_naming_the_key(snapshot):
    with pytest.raises(ssdtwin.ConfigError) as raised:
        ssdtwin.run(None, snapshot=snapshot, **{**DRIVE, "flash.blocks_per_plane": 32})
    assert raised.value.key == "flash.blocks_per_plane"
    with pytest.raises(ssdtwin.ConfigError) as raised:
        ssdtwin.run(None, snapshot=snapshot, seed=9, **DRIVE)
    assert raised.value.key == "seed"


def test_the_cli_preconditions_once_and_runs_from_the_snapshot(tmp_path):
    path = tmp_path / "cli.snap"
    settings = [item for key, value in DRIVE.items() for item in ("--set", f"{key}={value}")]
    made = cli("precondition", *settings, "-o", str(path), "--quiet")
    assert made.returncode == 0, made.stderr
    assert path.exists()
    assert not path.with_suffix(".snap.partial").exists()
    ran = cli("run", *settings, "--from", str(path), "--json", "-", "--quiet")
    assert ran.returncode == 0, ran.stderr
    report = ssdtwin.Report.from_json(ran.stdout)
    assert report.host_ios == DRIVE["workload.io_count"]
    missing = cli("run", *settings, "--from", str(tmp_path / "absent.snap"), "--quiet")
    assert missing.returncode == 2
    assert "snapshot" in missing.stderr
