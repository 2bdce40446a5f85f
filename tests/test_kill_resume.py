"""A sweep killed with SIGKILL at random moments resumes with every point stored exactly once and
complete; a run killed inside the writing of its report (half written, before the flush, before
the rename) leaves the previous report byte for byte (issue 18, "Kill and resume")."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import ssdtwin
from conftest import SMALL, cli
from ssdtwin._util import atomic as _atomic
from ssdtwin.report import without_wall_clock

BASE = SMALL | {"workload.io_count": 400_000}

SWEEP = {
    "base": {
        section: {key.split(".", 1)[1]: value for key, value in BASE.items() if key.startswith(f"{section}.")}
        for section in {key.split(".")[0] for key in BASE}
    },
    "grid": {"host.queue_depth": [1, 4, 16], "workload.read_fraction": [0.0, 0.5, 1.0]},
}
"""Nine points of about half a second each."""


def _sweep_file(folder: Path) -> Path:
    lines = [f"base.{key} = {json.dumps(value)}" for key, value in BASE.items()]
    lines.append("[grid]")
    for key, values in SWEEP["grid"].items():
        lines.append(f'"{key}" = {json.dumps(values)}')
    path = folder / "sweep.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _start(sweep_file: Path, out: Path, resume: bool) -> subprocess.Popen[bytes]:
    command = [
        sys.executable,
        "-m",
        "ssdtwin",
        "sweep",
        str(sweep_file),
        "--out",
        str(out),
        "--workers",
        "2",
        "-q",
    ]
    if resume:
        command.append("--resume")
    # A session of its own, so that the kill takes the worker processes too.
    return subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True
    )


def _stored(out: Path) -> dict[str, tuple[int, int]]:
    """Each stored report's point id with its inode and modification time: a report rewritten by
    a later attempt gets a new inode (the atomic rename), so an unchanged pair means the point was
    not computed again."""
    reports = out / "reports"
    if not reports.is_dir():
        return {}
    return {path.stem: (path.stat().st_ino, path.stat().st_mtime_ns) for path in reports.glob("*.json")}


def test_sweep_killed_at_random_moments_resumes_every_point_exactly_once(tmp_path: Path) -> None:
    sweep_file = _sweep_file(tmp_path)
    started = time.monotonic()
    reference = ssdtwin.sweep(SWEEP, out=tmp_path / "reference", workers=2, progress=False)
    # Wall time of one point on one of the two workers (pool start included, so an upper bound):
    # the random delays below are a fraction of it, so a kill lands before the next points are
    # stored however fast or slow this machine runs them.
    point_wall = (time.monotonic() - started) * 2 / 9
    expected = set(reference["point_id"])
    assert len(expected) == 9

    out = tmp_path / "killed"
    chooser = random.Random(18)
    kept: dict[str, tuple[int, int]] = {}
    kills = 0
    # Kill no later than three points before the end: with two workers at least one point is
    # still to start when the kill comes, so the final resume always has points to compute.
    last = len(expected) - 3
    for attempt in range(8):
        # Kill once one or two further points are stored, a random part of a point later; once
        # `last` points are stored, at once (the resumed sweep is still starting).
        target = min(len(kept) + chooser.randint(1, 2), last)
        process = _start(sweep_file, out, resume=attempt > 0)
        while process.poll() is None and len(_stored(out)) < target:
            time.sleep(0.01)
        if target < last:
            time.sleep(chooser.uniform(0.0, 0.3) * point_wall)
        if process.poll() is not None:
            break
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        kills += 1
        now = _stored(out)
        # Nothing stored before was computed again or lost.
        for point_id, identity in kept.items():
            assert now.get(point_id) == identity, f"attempt {attempt}: point {point_id} was rewritten or lost"
        kept = now
        if kills >= 3 and len(kept) >= last:
            break
    assert kills >= 3, f"only {kills} kills landed before the sweep finished"
    partial = set(kept)
    assert partial < expected, "the kills all landed after the last point"

    process = _start(sweep_file, out, resume=True)
    _, stderr = process.communicate(timeout=300)
    assert process.returncode == 0, stderr.decode()
    final = _stored(out)
    assert set(final) == expected
    for point_id in partial:
        assert final[point_id] == kept[point_id], f"point {point_id} was computed twice"
    # Every stored result is whole and equals the uninterrupted sweep's, wall-clock fields aside.
    for point_id in expected:
        resumed = json.loads((out / "reports" / f"{point_id}.json").read_text(encoding="utf-8"))
        clean = json.loads(
            (tmp_path / "reference" / "reports" / f"{point_id}.json").read_text(encoding="utf-8")
        )
        assert without_wall_clock(resumed) == without_wall_clock(clean), point_id
    leftovers = [path.name for path in out.rglob(f"*{_atomic.TEMPORARY_SUFFIX}")]
    assert leftovers == []
    table = ssdtwin.load(out)
    assert sorted(table["point_id"]) == sorted(expected)
    assert set(table["status"]) == {"ok"}


def test_killed_writer_leaves_the_old_file_or_the_new_one(tmp_path: Path) -> None:
    target = tmp_path / "report.json"
    _atomic.write_text(target, "old")

    def killed_mid_write() -> None:
        with _atomic.replacing(target) as temporary:
            temporary.write_text("half of the new", encoding="utf-8")
            raise RuntimeError("killed mid-write")

    with pytest.raises(RuntimeError):
        killed_mid_write()
    assert target.read_text(encoding="utf-8") == "old"
    assert [path.name for path in tmp_path.iterdir()] == ["report.json"]


SHIM = """
import os, pathlib, runpy, sys, time

target, where, whole = pathlib.Path(sys.argv[1]), sys.argv[2], pathlib.Path(sys.argv[3])
mine = lambda path: pathlib.Path(path).name.startswith("." + target.name + ".")  # its temporary file


def stop(temporary):
    print("inside the write:", temporary, flush=True)
    time.sleep(600)  # until the test kills this process


write_text, fsync, replace = pathlib.Path.write_text, os.fsync, os.replace


def half_write(self, text, *args, **kwargs):
    if mine(self):
        write_text(whole, text, encoding="utf-8")  # the whole new report, for the test to compare
    if where == "writing" and mine(self):
        with open(self, "w", encoding="utf-8") as file:
            file.write(text[: len(text) // 2])
            file.flush()
        stop(self)
    return write_text(self, text, *args, **kwargs)


def before_fsync(descriptor):
    path = os.readlink(f"/proc/self/fd/{descriptor}")
    if where == "flushing" and mine(path):
        stop(path)
    return fsync(descriptor)


def before_rename(source, destination, *args, **kwargs):
    if where == "renaming" and pathlib.Path(destination) == target:
        stop(source)
    return replace(source, destination, *args, **kwargs)


pathlib.Path.write_text, os.fsync, os.replace = half_write, before_fsync, before_rename
sys.argv = ["ssdtwin", *sys.argv[4:]]
runpy.run_module("ssdtwin", run_name="__main__")
"""
"""`python -m ssdtwin ARGS` in a process that stops inside the writing of TARGET's report, at
WHERE: "writing" (half the report in the temporary file), "flushing" (all of it, before the
fsync) or "renaming" (flushed, before the rename over TARGET); it prints a line and sleeps there.
The whole text it was writing goes to WHOLE. Usage: python -c SHIM TARGET WHERE WHOLE ARGS..."""


@pytest.mark.parametrize("where", ["writing", "flushing", "renaming"])
def test_run_killed_while_writing_its_report_keeps_the_previous_report(tmp_path: Path, where: str) -> None:
    """`ssdtwin run --json` over a previous report, killed (SIGKILL) inside the writing of the new
    one: the previous report is intact byte for byte, and what the kill leaves beside it is a
    hidden temporary file, never a file that reads as a report."""
    target = tmp_path / "report.json"
    small = [f"--set={key}={value}" for key, value in SMALL.items()]
    previous = cli("run", "-q", "--json", str(target), *small, "--set=seed=1")
    assert previous.returncode == 0, previous.stderr
    before = target.read_bytes()

    side = tmp_path.parent / f"{tmp_path.name}-whole.json"  # outside the report's folder
    command = [sys.executable, "-c", SHIM, str(target), where, str(side), "run", "-q", "--json", str(target)]
    command += small
    process = subprocess.Popen([*command, "--set=seed=2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert process.stdout is not None
        line = process.stdout.readline().decode()  # blocks until the child is inside the write
        assert line.startswith("inside the write: "), (line, process.stderr.read() if process.stderr else "")
        temporary = Path(line.removeprefix("inside the write: ").strip())
        written = temporary.read_bytes()  # what the new report had reached when the kill came
    finally:
        process.kill()
        process.wait()
    assert process.returncode == -signal.SIGKILL

    assert target.read_bytes() == before, "the previous report changed"
    whole = side.read_bytes()
    assert whole != before
    if where == "writing":
        assert written == whole[: len(whole) // 2]  # half of the new report had been written
    else:
        assert written == whole  # all of it, and it never became the report
    # The kill left the temporary file: hidden, and not named like a report, so nothing that lists
    # reports picks it up.
    leftovers = sorted(path.name for path in tmp_path.iterdir())
    assert leftovers == sorted(["report.json", temporary.name])
    assert temporary.name.startswith(".report.json.")
    assert temporary.name.endswith(_atomic.TEMPORARY_SUFFIX)
    assert not temporary.name.endswith(".json")

    # The next run replaces the report whole: the one the killed run was writing.
    finished = cli("run", "-q", "--json", str(target), *small, "--set=seed=2")
    assert finished.returncode == 0, finished.stderr
    assert without_wall_clock(json.loads(target.read_text(encoding="utf-8"))) == without_wall_clock(
        json.loads(whole)
    )
