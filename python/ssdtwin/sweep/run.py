"""Where sweep points run: the two backends, a local process pool and a Dask cluster, each running
the worker functions of `ssdtwin.sweep.tasks`. Both start a drive's points only once the task that
preconditions the drive into its snapshot has finished (`ssdtwin.sweep.drives`)."""

from __future__ import annotations

import concurrent.futures
import logging
import multiprocessing
import os
import sys
from collections.abc import Iterator
from typing import Any

from ssdtwin.sweep.drives import DrivePlan
from ssdtwin.sweep.tasks import (
    DriveOutcome,
    DriveTask,
    PointOutcome,
    PointTask,
    precondition_drive,
    run_point,
)


def run_local(drives: DrivePlan, workers: int | None, _scheduler: str | None) -> Iterator[PointOutcome]:
    """A process pool, its workers started (and the drives to precondition and the points that
    need none queued) before this returns, so on Linux they are forked before the progress bar
    starts its thread. A drive's points are queued when its snapshot is written. Forked workers
    need no `if __name__ == "__main__"` guard in the user's script; elsewhere they are spawned."""
    if not drives.tasks:
        return iter(())
    count = min(workers or os.cpu_count() or 1, len(drives.tasks))
    method = "fork" if sys.platform == "linux" else "spawn"
    pool = concurrent.futures.ProcessPoolExecutor(
        max_workers=count, mp_context=multiprocessing.get_context(method)
    )
    waiting: dict[str, list[PointTask]] = {}
    futures: dict[concurrent.futures.Future[Any], PointTask | DriveTask] = {}
    try:
        for drive in drives.preconditions:
            futures[pool.submit(precondition_drive, drive)] = drive
        for task in drives.tasks:
            if task.drive is not None:
                waiting.setdefault(task.drive, []).append(task)
            else:
                futures[pool.submit(run_point, task)] = task
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    return _local_outcomes(pool, futures, waiting)


def _local_outcomes(
    pool: concurrent.futures.ProcessPoolExecutor,
    futures: dict[concurrent.futures.Future[Any], PointTask | DriveTask],
    waiting: dict[str, list[PointTask]],
) -> Iterator[PointOutcome]:
    try:
        while futures:
            done, _ = concurrent.futures.wait(futures, return_when=concurrent.futures.FIRST_COMPLETED)
            for future in done:
                job = futures.pop(future)
                try:
                    outcome = future.result()
                except concurrent.futures.process.BrokenProcessPool as error:
                    outcome = f"worker process died: {error}"
                if isinstance(job, DriveTask):
                    made = outcome if isinstance(outcome, DriveOutcome) else None
                    for task in waiting.pop(job.drive, []):
                        if made is None:
                            yield PointOutcome(task.point_id, None, str(outcome))
                        elif made.error is not None:
                            yield PointOutcome(task.point_id, None, made.error)
                        else:
                            try:
                                futures[pool.submit(run_point, task)] = task
                            except concurrent.futures.process.BrokenProcessPool as error:
                                yield PointOutcome(task.point_id, None, f"worker process died: {error}")
                elif isinstance(outcome, PointOutcome):
                    yield outcome
                else:
                    yield PointOutcome(job.point_id, None, str(outcome))
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def run_dask(drives: DrivePlan, workers: int | None, scheduler: str | None) -> Iterator[PointOutcome]:
    """The Dask cluster at `scheduler`, or a local cluster of `workers` single-threaded processes
    (spawned by Dask: a script that uses it needs the `if __name__ == "__main__"` guard). A drive's
    points depend on the task that preconditions it, so Dask starts them when its snapshot is
    written."""
    tasks = drives.tasks
    if not tasks:
        return
    try:
        from distributed import Client, LocalCluster, as_completed
    except ImportError as error:  # pragma: no cover - dask is a dependency
        raise RuntimeError("the dask backend needs `pip install 'dask[distributed]'`") from error
    cluster = None
    if scheduler is None:
        count = min(workers or os.cpu_count() or 1, len(tasks))
        cluster = LocalCluster(
            n_workers=count,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            silence_logs=logging.ERROR,
        )
        client = Client(cluster)
    else:
        client = Client(scheduler)
    try:
        made = {
            drive.drive: client.submit(precondition_drive, drive, pure=False)
            for drive in drives.preconditions
        }
        futures = [
            client.submit(run_point, task, made[task.drive], pure=False)
            if task.drive is not None
            else client.submit(run_point, task, pure=False)
            for task in tasks
        ]
        for future, outcome in as_completed(futures, with_results=True, raise_errors=False):
            if isinstance(outcome, PointOutcome):
                yield outcome
            else:
                point_id = tasks[futures.index(future)].point_id
                yield PointOutcome(point_id, None, f"dask task failed: {future.exception()!r}")
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
