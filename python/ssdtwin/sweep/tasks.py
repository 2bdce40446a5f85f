"""What a sweep's workers get and send back (plain data, cheap to pickle) and the two functions
they run: simulate one point (`run_point`), precondition one drive into its snapshot
(`precondition_drive`). Errors become the outcome, never an exception, so one failing point does
not stop the others."""

from __future__ import annotations

from dataclasses import dataclass, field

from ssdtwin import _core
from ssdtwin._core import SimulationError


@dataclass(frozen=True)
class PointTask:
    """What a worker needs to simulate one point (plain data, cheap to pickle)."""

    point_id: str
    scenario_path: str | None
    scenario_json: str | None
    base_dir: str
    json_overrides: list[tuple[str, str]]
    set_overrides: list[str] = field(default_factory=list)
    """`key=value` overrides applied before `json_overrides` (the infinite values JSON lacks)."""
    snapshot: str | None = None
    """The drive snapshot the point starts from, or None to precondition it."""
    drive: str | None = None
    """The drive whose snapshot this sweep makes first (the point waits for it), or None."""


@dataclass(frozen=True)
class PointOutcome:
    """What a worker sends back: the report as JSON text, or the error."""

    point_id: str
    report_json: str | None
    error: str | None


def run_point(task: PointTask, made: DriveOutcome | None = None) -> PointOutcome:
    """Simulates one point (in a worker process), from `task.snapshot` if it has one; `made` is
    the outcome of preconditioning that snapshot when this sweep made it. Errors become the
    outcome, never an exception, so one failing point does not stop the others."""
    if made is not None and made.error is not None:
        return PointOutcome(task.point_id, None, made.error)
    try:
        report = _core.run(
            task.scenario_path,
            task.scenario_json,
            task.base_dir,
            task.set_overrides,
            task.json_overrides,
            None,
            task.snapshot,
        )
    except SimulationError as error:
        return PointOutcome(task.point_id, None, f"SimulationError: {error}")
    except Exception as error:  # a worker reports every failure of its point instead of dying
        return PointOutcome(task.point_id, None, f"{type(error).__name__}: {error}")
    return PointOutcome(task.point_id, report, None)


@dataclass(frozen=True)
class DriveTask:
    """What a worker needs to precondition one drive and save it (plain data, cheap to pickle)."""

    drive: str
    snapshot: str
    point: PointTask
    """One point of the drive: any of them preconditions the same state."""


@dataclass(frozen=True)
class DriveOutcome:
    """What a worker sends back after preconditioning: the error, or None when the file is
    written."""

    drive: str
    error: str | None


def precondition_drive(task: DriveTask) -> DriveOutcome:
    """Preconditions one drive and writes its snapshot (in a worker process)."""
    point = task.point
    try:
        _core.run(
            point.scenario_path, point.scenario_json, point.base_dir, point.set_overrides,
            point.json_overrides, None, None, task.snapshot,
        )  # fmt: skip
    except SimulationError as error:
        return DriveOutcome(task.drive, f"preconditioning the drive failed: SimulationError: {error}")
    except Exception as error:  # reported on each of the drive's points instead of killing the worker
        return DriveOutcome(task.drive, f"preconditioning the drive failed: {type(error).__name__}: {error}")
    return DriveOutcome(task.drive, None)
