"""Sweeps: expansion and up-front validation, the results store, failures, resume after SIGKILL,
the Dask backend, DuckDB, two workers at once, the cap on the number of points."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pandas
import pytest

import ssdtwin
from conftest import cli
from ssdtwin.report import WALL_CLOCK_FIELDS, without_wall_clock

BASE = {"flash": {"blocks_per_plane": 16}, "workload": {"io_count": 3_000, "precondition": "none"}}
"""A base scenario that runs in a few hundredths of a second."""

STALLING = {
    "flash.channels": 1,
    "flash.dies_per_chip": 1,
    "flash.blocks_per_plane": 8,
    "flash.pages_per_block": 6,
    "ftl.over_provisioning": 0.02,
    "ftl.gc_threshold": 0.01,
    "workload.read_fraction": 0.0,
    "workload.io_count": 20_000,
}
"""A point that passes validation but stalls at run time: a tiny drive with 2% spare space,
written until GC finds nothing to reclaim (SimulationError)."""


def sweep_file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "sweep.toml"
    path.write_text(text)
    return path


def deterministic(table: pandas.DataFrame) -> pandas.DataFrame:
    return table.drop(columns=[column for column in WALL_CLOCK_FIELDS if column in table.columns])


def test_grid_zip_points_and_seeds_expand_to_their_product(tmp_path):
    definition = {
        "base": BASE,
        "grid": {"host.queue_depth": [1, 8], "flash.channels": [2, 4]},
        "zip": {"workload.read_fraction": [0.25, 1.0], "workload.block_size": ["4KiB", "16KiB"]},
        "points": [{"controller.scheduler": "fifo"}, {"controller.scheduler": "read_first"}],
        "seeds": [1, 2],
    }
    results = ssdtwin.sweep(definition, out=tmp_path / "out", workers=2)
    assert len(results) == 2 * 2 * 2 * 2 * 2
    assert results["point_id"].is_unique
    assert (results["status"] == "ok").all()
    expected = ["point_id", "host.queue_depth", "flash.channels", "workload.read_fraction"]
    expected += ["workload.block_size", "controller.scheduler", "seed", "status", "error"]
    assert list(results.columns[: len(expected)]) == expected
    combinations = results[["host.queue_depth", "flash.channels", "workload.block_size", "seed"]]
    assert len(combinations.drop_duplicates()) == 16  # zip rows vary together, not crossed
    assert set(zip(results["workload.read_fraction"], results["workload.block_size"], strict=True)) == {
        (0.25, "4KiB"),
        (1.0, "16KiB"),
    }
    # Each row's swept values and report fields are those of the report stored for the point.
    for row in results.to_dict("records"):
        report = json.loads((tmp_path / "out" / "reports" / f"{row['point_id']}.json").read_text())
        config = report["config"]
        assert config["host"]["queue_depth"] == row["host.queue_depth"]
        assert config["flash"]["channels"] == row["flash.channels"]
        assert config["workload"]["read_fraction"] == row["workload.read_fraction"]
        assert config["controller"]["scheduler"] == row["controller.scheduler"]
        assert report["seed"] == row["seed"]
        assert report["iops"] == row["iops"]
        assert report["latency_us"]["read"]["p99_99"] == row["latency_us.read.p99_99"]
    # Reads only at read fraction 1: the flattened report fields are per point.
    all_reads = results[results["workload.read_fraction"] == 1.0]
    assert (all_reads["latency_us.write.count"] == 0).all()
    assert (all_reads["latency_us.read.count"] == 3_000).all()
    # The stored table is the returned one; the sweep file is kept with the version.
    pandas.testing.assert_frame_equal(ssdtwin.load(tmp_path / "out"), results)
    stored = (tmp_path / "out" / "sweep.toml").read_text()
    assert f'ssdtwin_version = "{ssdtwin.__version__}"' in stored
    assert "read_first" in stored


def test_without_seeds_each_point_runs_once_with_the_base_seed(tmp_path):
    results = ssdtwin.sweep({"base": {**BASE, "seed": 7}, "grid": {"host.queue_depth": [1, 2]}}, out=tmp_path)
    assert list(results["seed"]) == [7, 7]


def test_a_bad_value_fails_the_whole_sweep_up_front_naming_point_and_key(tmp_path):
    definition = {"base": BASE, "grid": {"host.queue_depth": [1, 4, 0]}}
    with pytest.raises(ssdtwin.ConfigError) as caught:
        ssdtwin.sweep(definition, out=tmp_path / "out")
    assert caught.value.key == "host.queue_depth"
    assert "sweep point 3 of 3" in str(caught.value)
    assert "host.queue_depth=0" in str(caught.value)
    assert not (tmp_path / "out").exists()  # nothing ran, nothing was written


def test_a_bad_key_in_an_explicit_point_names_the_key(tmp_path):
    definition = {"base": BASE, "points": [{"host.queue_depth": 2}, {"host.queue_dept": 2}]}
    with pytest.raises(ssdtwin.ConfigError) as caught:
        ssdtwin.sweep(definition, out=tmp_path / "out")
    assert caught.value.key == "host.queue_dept"
    assert "sweep point 2 of 2" in str(caught.value)


@pytest.mark.parametrize(
    ("definition", "key", "words"),
    [
        ({"base": BASE, "grids": {}}, "grids", "unknown sweep key"),
        ({"base": BASE, "zip": {"host.queue_depth": [1, 2], "flash.channels": [2]}}, "zip", "same length"),
        ({"base": BASE, "grid": {"host.queue_depth": 4}}, "grid.host.queue_depth", "non-empty list"),
        ({"base": BASE, "seeds": [-1]}, "seeds", "non-negative"),
        (
            {"base": BASE, "grid": {"host.queue_depth": [1]}, "zip": {"host.queue_depth": [2]}},
            "host.queue_depth",
            "twice",
        ),
    ],
)
def test_malformed_sweeps_are_config_errors(tmp_path, definition, key, words):
    with pytest.raises(ssdtwin.ConfigError) as caught:
        ssdtwin.sweep(definition, out=tmp_path / "out")
    assert caught.value.key == key
    assert words in str(caught.value)


def test_sweep_file_with_a_base_path_and_nested_grid_keys(tmp_path):
    (tmp_path / "base.toml").write_text(
        'seed = 3\n[flash]\nblocks_per_plane = 16\n[workload]\nio_count = 2000\nprecondition = "none"\n'
    )
    # Unquoted dotted keys are nested tables in TOML; the sweep reads them as dotted paths.
    path = sweep_file(tmp_path, 'base = "base.toml"\nout = "res"\n[grid]\nhost.queue_depth = [2, 4]\n')
    results = ssdtwin.sweep(path)
    assert list(results["host.queue_depth"]) == [2, 4]
    assert list(results["seed"]) == [3, 3]
    assert (tmp_path / "res" / "results.parquet").exists()  # `out` is relative to the sweep file


def test_a_failing_point_is_recorded_and_the_sweep_goes_on(tmp_path):
    definition = {"base": BASE, "points": [{"host.queue_depth": 1}, STALLING, {"host.queue_depth": 4}]}
    with pytest.raises(ssdtwin.SweepFailures) as caught:
        ssdtwin.sweep(definition, out=tmp_path / "out", workers=2)
    assert caught.value.failed == 1
    assert "1 of 3 sweep points failed" in str(caught.value)
    table = ssdtwin.load(tmp_path / "out")
    assert list(table["status"]) == ["ok", "failed", "ok"]
    assert "SimulationError" in table["error"][1]
    assert "stopped making progress" in table["error"][1]
    assert table["error"].isna()[[0, 2]].all()
    assert pandas.isna(table["iops"][1])
    assert table["iops"][0] > 0


def test_cli_sweep_with_a_failed_point_exits_nonzero_and_says_how_many(tmp_path):
    lines = ['out = "out"', "[base.flash]", "blocks_per_plane = 16", "[base.workload]", "io_count = 2000"]
    lines += ['precondition = "none"', "[[points]]", "host.queue_depth = 2", "[[points]]"]
    lines += [f"{key} = {json.dumps(value)}" for key, value in STALLING.items()]
    process = cli("sweep", str(sweep_file(tmp_path, "\n".join(lines) + "\n")), "--workers", "1")
    assert process.returncode == 1, process.stderr
    assert "1 of 2 sweep points failed" in process.stderr
    assert "failed" in process.stdout  # the table shows the point's status


def test_an_existing_results_directory_needs_resume(tmp_path):
    definition = {"base": BASE, "grid": {"host.queue_depth": [1, 2]}}
    ssdtwin.sweep(definition, out=tmp_path)
    with pytest.raises(FileExistsError, match="resume"):
        ssdtwin.sweep(definition, out=tmp_path)
    again = ssdtwin.sweep(definition, out=tmp_path, resume=True)  # nothing left to run
    assert list(again["status"]) == ["ok", "ok"]


def _start_slow_sweep(tmp_path, points: int, finished: int):
    """Starts a sweep of `points` slow points in its own process group and waits until `finished`
    of them have their reports; returns the process, the sweep file and the reports folder."""
    text = 'out = "out"\n[base.flash]\nblocks_per_plane = 16\n'
    text += '[base.workload]\nio_count = 300_000\nprecondition = "none"\n'
    text += f'[grid]\n"host.queue_depth" = {list(range(1, points + 1))}\n'
    path = sweep_file(tmp_path, text)
    reports = tmp_path / "out" / "reports"
    command = [sys.executable, "-m", "ssdtwin", "sweep", str(path), "--workers", "1", "--quiet"]
    process = subprocess.Popen(
        command, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    try:
        deadline = time.monotonic() + 120
        while len(list(reports.glob("*.json"))) < finished:
            assert process.poll() is None, process.stderr.read() if process.stderr else ""
            assert time.monotonic() < deadline, "no point finished in time"
            time.sleep(0.01)
    except BaseException:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        raise
    return process, path, reports


def test_resume_after_sigkill_runs_only_the_missing_points(tmp_path):
    points = 12
    process, path, reports = _start_slow_sweep(tmp_path, points, finished=3)
    os.killpg(process.pid, signal.SIGKILL)  # the sweep and its worker, mid-run
    process.wait()
    before = {path.stem: path.stat().st_mtime_ns for path in reports.glob("*.json")}
    assert 3 <= len(before) < points, "the kill came after some points and before the end"
    assert not (tmp_path / "out" / "results.parquet").exists()

    refused = cli("sweep", str(path), "--quiet")
    assert refused.returncode == 2
    assert "--resume" in refused.stderr

    resumed = cli("sweep", str(path), "--resume", "--workers", "1", "--quiet")
    assert resumed.returncode == 0, resumed.stderr
    after = {path.stem: path.stat().st_mtime_ns for path in reports.glob("*.json")}
    assert len(after) == points
    assert {point: after[point] for point in before} == before, "finished points were not run again"
    table = ssdtwin.load(tmp_path / "out")
    assert sorted(table["point_id"]) == sorted(after)  # every point exactly once
    assert list(table["host.queue_depth"]) == list(range(1, points + 1))
    assert (table["status"] == "ok").all()
    # A run of the whole sweep from scratch gives the same figures as killed-and-resumed.
    fresh = cli("sweep", str(path), "--out", str(tmp_path / "fresh"), "--quiet")
    assert fresh.returncode == 0, fresh.stderr
    pandas.testing.assert_frame_equal(deterministic(ssdtwin.load(tmp_path / "fresh")), deterministic(table))


def test_dask_local_cluster_gives_the_local_backends_results(tmp_path):
    definition = {"base": BASE, "grid": {"host.queue_depth": [1, 8, 32]}, "seeds": [1, 2]}
    local = ssdtwin.sweep(definition, out=tmp_path / "local", workers=2)
    dask = ssdtwin.sweep(definition, backend="dask", out=tmp_path / "dask", workers=2)
    assert len(dask) == 6
    pandas.testing.assert_frame_equal(deterministic(dask), deterministic(local))
    for point_id in local["point_id"]:
        reports = [
            json.loads((tmp_path / name / "reports" / f"{point_id}.json").read_text())
            for name in ("local", "dask")
        ]
        assert without_wall_clock(reports[0]) == without_wall_clock(reports[1])


def test_dask_scheduler_address_runs_on_that_cluster(tmp_path):
    from distributed import LocalCluster

    definition = {"base": BASE, "grid": {"host.queue_depth": [2, 4]}}
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        results = ssdtwin.sweep(definition, backend="dask", scheduler=cluster.scheduler_address, out=tmp_path)
        assert "run_point" in cluster.scheduler.task_prefixes  # the points went through this scheduler
    assert (results["status"] == "ok").all()


def test_results_table_is_queryable_with_duckdb(tmp_path):
    results = ssdtwin.sweep({"base": BASE, "grid": {"host.queue_depth": [1, 4, 16]}}, out=tmp_path)
    table = tmp_path / "results.parquet"
    rows = duckdb.sql(
        f"""SELECT "host.queue_depth", iops, "latency_us.read.p99_99", status
            FROM '{table}' WHERE status = 'ok' ORDER BY "host.queue_depth" """
    ).fetchall()
    assert [row[0] for row in rows] == [1, 4, 16]
    assert [row[1] for row in rows] == list(results["iops"])
    assert [row[2] for row in rows] == list(results["latency_us.read.p99_99"])


def test_dry_run_lists_points_without_running(tmp_path):
    path = sweep_file(tmp_path, 'out = "out"\n[grid]\n"host.queue_depth" = [1, 2, 3]\n')
    process = cli("sweep", str(path), "--dry-run")
    assert process.returncode == 0, process.stderr
    assert len(process.stdout.splitlines()) == 3
    assert "host.queue_depth=3" in process.stdout
    assert not (tmp_path / "out").exists()


def test_cli_sweep_config_error_is_one_line(tmp_path):
    path = sweep_file(tmp_path, 'out = "out"\n[grid]\n"flash.channels" = [2, -1]\n')
    process = cli("sweep", str(path))
    assert process.returncode == 2
    assert process.stderr.startswith("error: `flash.channels`: sweep point 2 of 2")
    assert "Traceback" not in process.stderr


PARALLEL_BASE = {"flash": {"blocks_per_plane": 16}, "workload": {"io_count": 100_000, "precondition": "none"}}
"""Points of about a quarter of a second each: long enough that two workers' points overlap."""


def test_two_workers_run_the_points_in_two_processes_at_once(tmp_path, monkeypatch):
    """Each point's simulation is logged by the process that ran it, with when it started and
    ended: with two workers, two processes other than the sweep's ran points, and some point of one
    ran while a point of the other was running. What load cannot move: which process ran a point,
    and that they ran side by side (the speedup this gives is a benchmark figure, which load does
    move: scripts/bench.sh reports it)."""
    log = tmp_path / "points.log"
    simulate = ssdtwin._core.run

    def logged(*args, **kwargs):
        started = time.monotonic()
        report = simulate(*args, **kwargs)
        with open(log, "a", encoding="utf-8") as file:  # one short append per line: atomic
            file.write(f"{os.getpid()} {started} {time.monotonic()}\n")
        return report

    # The local backend forks its workers (Linux), so they inherit the logging function.
    monkeypatch.setattr(ssdtwin._core, "run", logged)
    definition = {"base": PARALLEL_BASE, "grid": {"host.queue_depth": [1, 2, 4, 8, 16, 32, 64, 128]}}
    results = ssdtwin.sweep(definition, out=tmp_path / "two", workers=2, progress=False)
    lines = [line.split() for line in log.read_text(encoding="utf-8").splitlines()]
    spans: dict[int, list[tuple[float, float]]] = {}
    for pid, started, ended in lines:
        spans.setdefault(int(pid), []).append((float(started), float(ended)))
    assert len(lines) == 8, lines  # every point simulated once
    assert len(spans) == 2, f"the points ran in {len(spans)} processes: {sorted(spans)}"
    assert os.getpid() not in spans, "a point ran in the sweep's own process"
    first, second = spans.values()
    overlapping = [(a, b) for a in first for b in second if a[0] < b[1] and b[0] < a[1]]
    assert overlapping, f"no point of one worker ran while the other's did: {spans}"
    # And the two workers give the one worker's figures.
    log.unlink()
    alone = ssdtwin.sweep(definition, out=tmp_path / "one", workers=1, progress=False)
    assert len({line.split()[0] for line in log.read_text(encoding="utf-8").splitlines()}) == 1
    pandas.testing.assert_frame_equal(deterministic(results), deterministic(alone))


def test_a_sweep_of_more_than_100000_points_is_refused_naming_the_cap(tmp_path):
    # 11 queue depths x 9,091 seeds = 100,001 points, one over the cap (README, "Sweeps").
    text = f'out = "out"\nseeds = {list(range(9091))}\n[grid]\n"host.queue_depth" = {list(range(1, 12))}\n'
    path = sweep_file(tmp_path, text)
    for arguments in (["--dry-run"], []):
        process = cli("sweep", str(path), *arguments)
        assert process.returncode == 2, process.stderr
        assert process.stderr.strip().splitlines() == [
            "error: `grid`: the sweep has 100,001 points, more than the 100,000 one sweep may have; split it"
        ]
        assert process.stdout == ""
    assert not (tmp_path / "out").exists()
    # The count is a product, so a sweep of 10^10 points is refused before any is expanded.
    axes = {f"flash.{key}": list(range(1, 101)) for key in ("channels", "dies_per_chip")}
    huge = {"base": BASE, "grid": axes, "seeds": list(range(100))}
    huge["zip"] = {"host.queue_depth": list(range(1, 10_001))}
    with pytest.raises(ssdtwin.ConfigError) as caught:
        ssdtwin.sweep(huge, out=tmp_path / "huge")
    assert caught.value.key == "grid"
    assert "the sweep has 10,000,000,000 points, more than the 100,000" in str(caught.value)
    assert not (tmp_path / "huge").exists()


def test_ctrl_c_keeps_finished_points_and_marks_the_rest_pending(tmp_path):
    points = 10
    process, _, reports = _start_slow_sweep(tmp_path, points, finished=2)
    os.killpg(process.pid, signal.SIGINT)  # Ctrl-C reaches the whole process group
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr
    assert b"--resume" in stderr
    table = ssdtwin.load(tmp_path / "out")
    assert len(table) == points
    assert table["point_id"].is_unique
    finished = {path.stem for path in reports.glob("*.json")}
    assert set(table.loc[table["status"] == "ok", "point_id"]) == finished
    assert set(table["status"]) == {"ok", "pending"}
