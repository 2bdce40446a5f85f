"""Simulating the measured jobs at a candidate parameter set, many sets in parallel.

Each candidate drive is preconditioned once into a drive snapshot per starting state the jobs
need, and every job starts from its snapshot: sequential jobs from a sequential fill
(`workload.precondition = "fill"`, what the protocol's two fills leave), random ones from GC
steady state (`"steady"`, what its random-write pass leaves). The core runs without the GIL,
so a pool of threads runs simulations on as many cores as it has workers, with no process
start-up or pickling.

Capacity does not enter the figures the fit compares (latency and IOPS of a drive in steady
state at a given over-provisioning), so the fit simulates the base drive shrunk to
`FIT_BLOCKS_PER_PLANE` blocks per plane: a run takes milliseconds instead of seconds. The
written preset keeps the base preset's size. Fewer blocks would not do: with 32 blocks per plane
greedy GC's steady random-write IOPS jump up and down by 30 % between over-provisioning 0.20 and
0.27; with 64 they rise smoothly with it (as with 128).
"""

from __future__ import annotations

import concurrent.futures
import itertools
import json
import os
import tempfile
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ssdtwin import _core
from ssdtwin._core import ConfigError, SimulationError
from ssdtwin._util.arguments import core_arguments
from ssdtwin.calibrate.measure import PERCENTILE_KEYS, CalibrationError
from ssdtwin.calibrate.params import Base
from ssdtwin.calibrate.protocol import Workload
from ssdtwin.report.fio import to_fio_json

FIT_BLOCKS_PER_PLANE = 64
"""Blocks per plane of the drive the fit simulates (the base preset's, if smaller)."""
SEED = 1
Figures = dict[str, dict[str, dict[str, float]]]
"""job name -> direction -> metric -> value."""
Point = dict[str, Any]
"""Scenario overrides of one candidate drive (dotted keys)."""


def job_overrides(workload: Workload, io_scale: float, frame_buffer: int) -> dict[str, Any]:
    """The synthetic workload that reproduces a measured job, and how long to run it."""
    writes = workload.read_percent < 100
    count = max(2000, 20 * workload.queue_depth) * (2 if writes else 1)
    if workload.kind == "steady_randwrite":
        count *= 2
    warmup = 4 * workload.queue_depth + (frame_buffer if writes else 0)
    return {
        "host.queue_depth": workload.queue_depth,
        "workload.kind": "synthetic",
        "workload.read_fraction": workload.read_percent / 100,
        "workload.block_size": f"{workload.block_kib}KiB",
        "workload.pattern": "sequential" if workload.sequential else "random",
        "workload.io_count": max(500, round(count * io_scale)),
        "workload.warmup": warmup,
    }


def _figures(report: Mapping[str, Any], workload: Workload) -> dict[str, dict[str, float]]:
    """A job's figures. IOPS come from the report's `iops` (I/Os over simulated time), split by
    direction in proportion to their I/Os: the job's own `iops` divides by its runtime in whole
    milliseconds, a step of several percent on the short runs of the fit."""
    job = report["workload"]["jobs"][0]
    total_ios = sum(int(job[direction]["total_ios"]) for direction in ("read", "write"))
    result = {}
    for direction in workload.directions:
        data = job[direction]
        clat = data["clat_ns"]
        iops = float(report["iops"]) * int(data["total_ios"]) / max(total_ios, 1)
        figures = {"iops": iops, "mean_us": float(clat["mean"]) / 1000.0}
        for metric, key in PERCENTILE_KEYS.items():
            if key in clat.get("percentile", {}):
                figures[metric] = float(clat["percentile"][key]) / 1000.0
        result[direction] = figures
    return result


class Simulator:
    """Runs the measured jobs on candidate drives: `figures(points, jobs)`, in parallel."""

    def __init__(self, base: Base, workers: int, io_scale: float = 1.0) -> None:
        self.base = base
        self.workers = max(1, workers)
        self.io_scale = io_scale
        self.runs = 0
        self.on_run: Callable[[], None] = lambda: None
        self._lock = threading.Lock()
        self._folder = tempfile.TemporaryDirectory(prefix="ssdtwin-calibrate-")
        self._snapshots: dict[str, str] = {}
        self._numbers = itertools.count()
        self._pool = concurrent.futures.ThreadPoolExecutor(max_workers=self.workers)
        blocks = int(base.resolved["flash"]["blocks_per_plane"])
        self.scenario: dict[str, Any] = {
            "drive": base.drive,
            "seed": SEED,
            "flash": {"blocks_per_plane": min(blocks, FIT_BLOCKS_PER_PLANE)},
            "workload": {},
        }

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)
        self._folder.cleanup()

    def _arguments(self, point: Point, extra: Mapping[str, Any] | None = None) -> tuple[Any, ...]:
        return core_arguments(self.scenario, {**point, **(extra or {})})

    def _snapshot(self, point: Point) -> str:
        drive_point = {key: value for key, value in point.items() if not key.startswith("host.")}
        name = _drive_name(drive_point)
        with self._lock:
            path = self._snapshots.get(name)
        if path is not None:
            return path
        path = os.path.join(self._folder.name, f"{next(self._numbers)}.snap")
        self._call(drive_point, None, path)
        with self._lock:
            self._snapshots.setdefault(name, path)
            return self._snapshots[name]

    def _call(self, point: Point, snapshot: str | None, output: str | None, extra: Any = None) -> str:
        try:
            text = _core.run(*self._arguments(point, extra), None, snapshot, output)
        except ConfigError as error:
            raise CalibrationError(f"the fit set an invalid scenario: {error}".rstrip()) from None
        except SimulationError as error:
            raise CalibrationError(f"a simulation of the fit stopped: {error}") from None
        with self._lock:
            self.runs += 1
        self.on_run()
        return str(text)

    def _report(self, point: Point, workload: Workload) -> dict[str, Any]:
        point = {**point, "workload.precondition": precondition_of(workload)}
        snapshot = self._snapshot(point)
        default = self.base.resolved["controller"]["frame_buffer"]
        extra = job_overrides(workload, self.io_scale, int(point.get("controller.frame_buffer", default)))
        return dict(json.loads(self._call(point, snapshot, None, extra)))

    def _one(self, point: Point, workload: Workload) -> dict[str, dict[str, float]]:
        return _figures(self._report(point, workload), workload)

    def _forget_snapshots(self, keep: set[str]) -> None:
        """Deletes the snapshots of earlier batches: each holds the whole drive's state (a few MB
        for a small drive, 118 MB for enterprise_tlc at 64 blocks per plane)."""
        with self._lock:
            for name in [name for name in self._snapshots if name not in keep]:
                Path(self._snapshots.pop(name)).unlink(missing_ok=True)

    def figures(self, points: Sequence[Point], jobs: Sequence[Workload]) -> list[Figures]:
        """The simulated figures of every job at every point (snapshots first, then the jobs)."""
        kinds = {precondition_of(job) for job in jobs}
        drives = [{**point, "workload.precondition": kind} for point in points for kind in sorted(kinds)]
        unique = {_drive_name(drive): drive for drive in drives}
        self._forget_snapshots(set(unique))
        list(self._pool.map(self._snapshot, unique.values()))
        futures = [[self._pool.submit(self._one, point, job) for job in jobs] for point in points]
        return [{job.name: future.result() for job, future in zip(jobs, row, strict=True)} for row in futures]

    def fio_document(self, point: Point, jobs: Sequence[Workload]) -> dict[str, Any]:
        """fio's JSON document (`ssdtwin.report.fio`) of the jobs simulated at `point`, one entry
        per job under the job's name: what fio would write for the protocol on this drive (with
        each direction's `iops` exact, not over the runtime in whole milliseconds)."""
        reports = list(self._pool.map(lambda job: self._report(point, job), jobs))
        document = to_fio_json(reports[0], now=0)
        document["jobs"] = []
        for index, (job, report) in enumerate(zip(jobs, reports, strict=True)):
            entry = to_fio_json(report, now=0)["jobs"][0]
            entry["jobname"] = job.name
            for direction, figures in _figures(report, job).items():
                # The job's own `iops` divides by whole milliseconds; the report's is exact.
                entry[direction]["iops"] = figures["iops"]
            entry["groupid"] = index
            document["jobs"].append(entry)
        return document


def precondition_of(workload: Workload) -> str:
    """The drive state a job starts from: the protocol runs its sequential jobs right after the
    sequential fills (`fill`), the random ones after the random-write preconditioning (`steady`)."""
    return "fill" if workload.sequential else "steady"


def _drive_name(point: Point) -> str:
    """The snapshot a point needs: its keys other than the host's (which do not shape the drive)."""
    return json.dumps(
        {key: value for key, value in point.items() if not key.startswith("host.")}, sort_keys=True
    )
