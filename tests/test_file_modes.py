"""Every file ssdtwin writes gets the mode an `open()` would give it, 0666 less the umask, also
those written atomically through a temporary file (which `tempfile.mkstemp` makes 0600)."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

import ssdtwin
from conftest import SMALL, SMALL_SET
from ssdtwin.cli import main


@pytest.fixture(params=[0o022, 0o027])
def umask(request: pytest.FixtureRequest) -> Iterator[int]:
    previous = os.umask(request.param)
    try:
        yield request.param
    finally:
        os.umask(previous)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_run_outputs_follow_the_umask(tmp_path: Path, umask: int) -> None:
    report, page, series = tmp_path / "run.json", tmp_path / "run.html", tmp_path / "run.parquet"
    arguments = ["run", *SMALL_SET, "--quiet", "--json", str(report), "--html", str(page)]
    result = CliRunner().invoke(main, [*arguments, "--timeseries", str(series)])
    assert result.exit_code == 0, result.output
    expected = 0o666 & ~umask  # 0644 under 022, 0640 under 027
    assert {path.name: mode(path) for path in (report, page, series)} == dict.fromkeys(
        ["run.json", "run.html", "run.parquet"], expected
    )


def test_plots_and_sweeps_follow_the_umask(tmp_path: Path, umask: int) -> None:
    expected = 0o666 & ~umask
    out = tmp_path / "sweep"
    base = {section: {} for section in {key.split(".")[0] for key in SMALL}}
    for key, value in SMALL.items():
        section, name = key.split(".", 1)
        base[section][name] = value
    ssdtwin.sweep({"base": base, "grid": {"host.queue_depth": [1, 2]}}, out=out, workers=1)
    written = [path for path in out.rglob("*") if path.is_file()]
    assert {path.name for path in written} >= {"results.parquet", "sweep.toml", "drives.json"}
    assert len(list((out / "reports").glob("*.json"))) == 2
    assert {path.relative_to(out).as_posix(): mode(path) for path in written} == {
        path.relative_to(out).as_posix(): expected for path in written
    }
    figure = tmp_path / "qd.png"
    ssdtwin.plot(out, x="host.queue_depth", y="iops", output=figure)
    assert mode(figure) == expected
