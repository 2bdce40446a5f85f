"""A sweep preconditions each distinct drive once (docs/guide/sweeps.md, "One preconditioning per
drive").

Points whose scenarios agree on every key that shapes the preconditioned drive (the core's own
list, the one a drive snapshot records: `seed`, every `flash.*` and `ftl.*` key,
`workload.precondition`, `workload.span`, ...) share a drive. For every such drive with
`workload.precondition` other than `none` and more than one point left to run, one task
preconditions it into `DIR/snapshots/<drive>.snap` (written by the core to a temporary name and
renamed) and the drive's points start from that file instead of preconditioning. A snapshot left
by an interrupted sweep is reused on `--resume`; a snapshot whose points all have their report is
deleted at the end of the sweep. `DIR/drives.json` records, per drive, its keys, its points and
how many times the sweep preconditioned it (1 with reuse, one per point without).

Workers read and write the snapshot files themselves: local workers and a local Dask cluster share
the machine's file system; a Dask cluster spread over machines needs DIR on a file system that
every worker sees, or `--no-reuse`.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from ssdtwin import _core
from ssdtwin.sweep.store import ResultsStore
from ssdtwin.sweep.tasks import DriveTask, PointTask

DRIVE_HASH_LENGTH = 16
"""Hex digits of a drive's name (a SHA-256 of its keys)."""


@dataclass
class DrivePlan:
    """The point tasks (each with the snapshot it starts from, if any), the drives to precondition
    first, and the `drives.json` record."""

    tasks: list[PointTask]
    preconditions: list[DriveTask]
    record: dict[str, Any]
    snapshots: dict[str, list[str]]
    """Each snapshot file of this sweep and the ids of all the points that start from it."""


def drive_name(task: PointTask) -> tuple[str, dict[str, Any]]:
    """The drive of a point: a hash of the keys that shape it, and the keys."""
    text = _core.drive_keys(
        task.scenario_path, task.scenario_json, task.base_dir, task.set_overrides, task.json_overrides
    )
    return hashlib.sha256(text.encode()).hexdigest()[:DRIVE_HASH_LENGTH], json.loads(text)


def plan(
    store: ResultsStore, all_tasks: Sequence[PointTask], todo: set[str], reuse: bool, resume: bool
) -> DrivePlan:
    """Groups the points by drive and decides which drives to precondition into a snapshot."""
    drives: dict[str, list[PointTask]] = {}
    keys: dict[str, dict[str, Any]] = {}
    for task in all_tasks:
        name, drive_keys = drive_name(task)
        drives.setdefault(name, []).append(task)
        keys[name] = drive_keys
    earlier = store.read_drives() if resume else {}
    tasks: list[PointTask] = []
    preconditions: list[DriveTask] = []
    record: dict[str, Any] = {}
    snapshots: dict[str, list[str]] = {}
    for name, members in drives.items():
        waiting = [task for task in members if task.point_id in todo]
        preconditioned = int(earlier.get(name, {}).get("preconditionings", 0))
        path = store.snapshot_path(name)
        shared = reuse and keys[name].get("workload.precondition") != "none"
        if shared and waiting and (path.exists() or len(waiting) > 1):
            snapshots[str(path)] = [task.point_id for task in members]
            if not path.exists():
                preconditions.append(DriveTask(name, str(path), waiting[0]))
                preconditioned += 1
            tasks.extend(replace(task, snapshot=str(path), drive=name) for task in waiting)
        else:
            if keys[name].get("workload.precondition") != "none":
                preconditioned += len(waiting)
            tasks.extend(waiting)
        record[name] = {
            "drive": keys[name],
            "points": [task.point_id for task in members],
            "preconditionings": preconditioned,
        }
    if preconditions:
        store.snapshots.mkdir(exist_ok=True)
    made = {task.drive for task in preconditions}
    # A point waits only for a snapshot this sweep makes; one left by an earlier run is ready.
    tasks = [task if task.drive in made else replace(task, drive=None) for task in tasks]
    order = {task.point_id: index for index, task in enumerate(all_tasks)}
    tasks.sort(key=lambda task: order[task.point_id])
    return DrivePlan(tasks, preconditions, record, snapshots)


def remove_finished(store: ResultsStore, snapshots: dict[str, list[str]]) -> None:
    """Deletes the snapshots whose points all have their report (a failed or pending point keeps
    its snapshot for `--resume`)."""
    finished = store.finished()
    for path, point_ids in snapshots.items():
        if all(point_id in finished for point_id in point_ids):
            store.remove_snapshot(path)


def describe(directory: str | os.PathLike[str]) -> str:
    """One line on the drives of a sweep's directory, from its `drives.json`."""
    store = ResultsStore(directory)
    record = store.read_drives()
    points = sum(len(drive["points"]) for drive in record.values())
    times = sum(int(drive["preconditionings"]) for drive in record.values())
    return (
        f"{points} points on {len(record)} distinct drive{'s' * (len(record) != 1)}, "
        f"preconditioned {times} time{'s' * (times != 1)} in all: {store.drives_path}"
    )
