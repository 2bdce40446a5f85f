"""Design-space sweeps (docs/guide/sweeps.md): a base scenario, axes over any scenario key, one
simulation per point on a local process pool or a Dask cluster, results in a directory.

    plan.py       the sweep file: read, checked, expanded into points (`load_sweep`, `expand`)
    tasks.py      what a worker gets and returns; the functions workers run
    drives.py     points that share a drive start from one snapshot of it, preconditioned once
    run.py        the backends: a local process pool, a Dask cluster
    store.py      the results directory (`load`)
    progress.py   the progress bar of points

The sweep file's shape and how its points are made are in `plan.py`.

Points that share a drive start from one snapshot of it, preconditioned once
(`ssdtwin.sweep.drives`). Workers simulate and return the report text; the process that runs the
sweep writes every other file. The snapshots are written and read by the workers, so a Dask
cluster spread over machines needs the output directory on a shared file system, or reuse off.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

from ssdtwin import _core
from ssdtwin.sweep import drives as _drives
from ssdtwin.sweep.plan import (
    SweepDefinition,
    SweepLike,
    describe_points,
    expand,
    load_sweep,
    output_directory,
    point_count,
    point_task,
)
from ssdtwin.sweep.progress import sweep_progress
from ssdtwin.sweep.run import run_dask, run_local
from ssdtwin.sweep.store import STATUS_FAILED, ResultsStore, StoredPoint
from ssdtwin.sweep.tasks import PointTask

if TYPE_CHECKING:
    import pandas

__all__ = [
    "BACKENDS",
    "PointTask",
    "SweepDefinition",
    "SweepFailures",
    "SweepLike",
    "describe_drives",
    "describe_points",
    "expand",
    "load_sweep",
    "output_directory",
    "point_count",
    "sweep",
]

Backend: TypeAlias = Literal["local", "dask"]
BACKENDS: tuple[str, ...] = ("local", "dask")
_LOG = logging.getLogger("ssdtwin.sweep")

describe_drives = _drives.describe


class SweepFailures(RuntimeError):
    """Some points of a finished sweep failed; `.results` is the table, `.failed` their number."""

    def __init__(self, failed: int, total: int, results: pandas.DataFrame, directory: Path) -> None:
        super().__init__(
            f"{failed} of {total} sweep points failed; their errors are in the `error` column of "
            f"{directory / 'results.parquet'}"
        )
        self.failed = failed
        self.total = total
        self.results = results
        self.directory = directory


def sweep(
    sweep: SweepLike,
    *,
    backend: Backend = "local",
    scheduler: str | None = None,
    out: str | os.PathLike[str] | None = None,
    resume: bool = False,
    workers: int | None = None,
    progress: bool | None = None,
    reuse: bool | None = None,
) -> pandas.DataFrame:
    """Runs every point of a sweep and returns the results table (one row per point).

    `sweep` is a sweep file or a dict of its keys. `backend="local"` runs points on a process
    pool of `workers` processes (default: all cores); `backend="dask"` sends them to the Dask
    scheduler at `scheduler` (e.g. "tcp://10.0.0.5:8786"), or to a local Dask cluster of
    `workers` processes when no address is given. Results go to `out` (default: the sweep's own
    `out`); an output directory that already holds a sweep is refused unless `resume=True`, which
    runs only the points without a stored report. `progress` shows a progress bar on stderr
    (default: when stdout and stderr are terminals). Points that share a drive (every key that
    shapes the preconditioned state equal) start from one snapshot of it in `out/snapshots/`,
    preconditioned once; `reuse=False` (or `reuse_snapshots = false` in the sweep, the default
    for `reuse=None`) preconditions every point itself and writes no snapshot.

    Raises `ConfigError` (naming the point and key) before anything runs if a point is invalid,
    and `SweepFailures` (with `.results`) after the sweep if some points failed.
    """
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, not {backend!r}")
    if scheduler is not None and backend != "dask":
        raise ValueError("a scheduler address needs backend='dask'")
    if workers is not None and (not isinstance(workers, int) or workers < 1):
        raise ValueError(f"workers must be a positive integer, not {workers!r}")
    if reuse is not None and not isinstance(reuse, bool):
        raise TypeError(f"reuse must be True, False or None, not {reuse!r}")
    definition = load_sweep(sweep)
    directory = output_directory(definition, out)
    points = expand(definition)

    store = ResultsStore(directory)
    if store.has_results() and not resume:
        raise FileExistsError(
            17,
            "the output directory already holds a sweep: resume it (--resume) or choose another",
            str(directory),
        )
    store.create()
    store.write_sweep_file(_toml_text(definition.as_toml(_core.__version__)))
    stored = [StoredPoint(point.point_id, point.overrides, point.seed) for point in points]

    finished = store.finished() if resume else set()
    todo = {point.point_id for point in points if point.point_id not in finished}
    drives = _drives.plan(
        store,
        [point_task(definition, point) for point in points],
        todo,
        definition.reuse_snapshots if reuse is None else reuse,
        resume,
    )
    store.write_drives(drives.record)
    _LOG.info(
        "%d points to run on %d distinct drives; preconditioning %d snapshots",
        len(todo),
        len(drives.record),
        len(drives.preconditions),
    )
    show = progress if progress is not None else sys.stdout.isatty() and sys.stderr.isatty()
    try:
        runner = run_dask if backend == "dask" else run_local
        outcomes = runner(drives, workers, scheduler)
        with sweep_progress(len(points), len(points) - len(todo), enabled=show) as advance:
            for outcome in outcomes:
                if outcome.report_json is not None:
                    store.write_report(outcome.point_id, outcome.report_json)
                else:
                    store.write_error(outcome.point_id, outcome.error or "unknown error")
                advance(outcome.report_json is None)
    finally:
        # Also on Ctrl-C: the table then shows the points not yet run as "pending".
        results = store.build_table(stored)
        store.write_table(results)
        _drives.remove_finished(store, drives.snapshots)
    failed = int((results["status"] == STATUS_FAILED).sum())
    if failed:
        raise SweepFailures(failed, len(points), results, directory)
    return results


def _toml_text(table: Mapping[str, Any]) -> str:
    import tomli_w

    return tomli_w.dumps(dict(table))
