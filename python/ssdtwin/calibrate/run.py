"""A calibration from start to end: read the measurements, fit, simulate every measured job at the
fitted drive, and write the preset; the report's pages are in `ssdtwin.calibrate.pages`."""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ssdtwin._util.atomic import write_text
from ssdtwin.calibrate.fit import Fit, Fitter
from ssdtwin.calibrate.measure import METRICS, CalibrationError, Measured, read_files
from ssdtwin.calibrate.params import (
    CONTINUOUS,
    DISCRETE,
    Base,
    load_base,
    preset_document,
    preset_text,
    relative_uncertainty,
    scaled,
)
from ssdtwin.calibrate.simulate import FIT_BLOCKS_PER_PLANE, Simulator


@dataclass
class Row:
    """One figure of one measured job: measured against simulated at the fitted drive."""

    job: str
    held_out: bool
    direction: str
    metric: str
    measured: float
    simulated: float

    @property
    def error(self) -> float:
        """Relative error of the simulation, (simulated - measured) / measured."""
        return self.simulated / self.measured - 1.0


@dataclass
class ParameterRow:
    name: str
    key: str
    base: str
    fitted: str
    uncertainty: float | None
    """Relative 1-sigma; None for integers and parameters not fitted."""
    status: str


@dataclass
class Calibration:
    base: Base
    fit: Fit
    overrides: dict[str, object]
    parameters: list[ParameterRow]
    rows: list[Row]
    sources: list[str]
    ignored: list[str]
    seconds: float
    runs: int
    workers: int
    notes: list[str] = field(default_factory=list)

    def worst(self, held_out: bool, metrics: Sequence[str] = ("iops", "mean_us")) -> float:
        """The largest |error| of `metrics` over the fit set (or the held-out set); nan if empty."""
        errors = [abs(row.error) for row in self.rows if row.held_out == held_out and row.metric in metrics]
        return max(errors) if errors else math.nan


def _split(jobs: list[Measured], holdout: Sequence[str]) -> tuple[list[Measured], list[Measured]]:
    names = {job.workload.name for job in jobs}
    unknown = [name for name in holdout if name not in names]
    if unknown:
        raise CalibrationError(
            f"--holdout {', '.join(unknown)}: no measured job of that name "
            f"(measured: {', '.join(sorted(names))})"
        )
    fit = [job for job in jobs if job.workload.name not in holdout]
    if not fit:
        raise CalibrationError("--holdout leaves no job to fit")
    return fit, [job for job in jobs if job.workload.name in holdout]


def _value_text(value: float | list[float], unit: str) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(_value_text(item, unit) for item in value) + "]"
    if unit == "int":
        return str(round(value))
    return f"{value:.4g}{' ' + unit if unit else ''}"


def _parameter_rows(base: Base, fit: Fit) -> list[ParameterRow]:
    rows = []
    for parameter in CONTINUOUS:
        name = parameter.name
        value = scaled(base.values[name], fit.factors[name])
        sigma = fit.sigma_log.get(name)
        if name in fit.unidentified:
            status = f"not identified: {fit.unidentified[name]}"
            uncertainty = None if sigma is None else relative_uncertainty(sigma)
        elif sigma is None:
            status, uncertainty = "not fitted", None
        else:
            status, uncertainty = "fitted", relative_uncertainty(sigma)
        rows.append(
            ParameterRow(
                name,
                parameter.key,
                _value_text(base.values[name], parameter.unit),
                _value_text(value, parameter.unit),
                uncertainty,
                status,
            )
        )
    for parameter in DISCRETE:
        name = parameter.name
        tried = fit.candidates.get(name, [])
        if name in fit.unidentified:
            status = f"not identified: {fit.unidentified[name]}"
        elif tried:
            ranked = sorted(tried, key=lambda item: item[1])
            runner = next((item for item in ranked if item[0] != fit.integers[name]), None)
            status = f"discrete search over {sorted(value for value, _ in tried)}"
            if runner is not None and ranked[0][1] > 0:
                status += f"; next best {runner[0]} at {runner[1] / ranked[0][1]:.2g}x the cost"
        else:
            status = "not searched: no read job"
        rows.append(
            ParameterRow(
                name,
                parameter.key,
                _value_text(base.values[name], "int"),
                str(fit.integers[name]),
                None,
                status,
            )
        )
    return rows


def calibrate(
    measurements: Sequence[str | os.PathLike[str]],
    base: str,
    output: str | os.PathLike[str],
    *,
    workers: int | None = None,
    holdout: Sequence[str] = (),
    stage: Callable[[str], None] = lambda _stage: None,
    on_run: Callable[[], None] = lambda: None,
    io_scale: float = 1.0,
) -> Calibration:
    """Fits a preset to fio JSON `measurements` from preset `base`; writes it to `output`."""
    started = time.monotonic()
    measured = read_files([os.fspath(path) for path in measurements])
    fit_jobs, held_jobs = _split(measured.jobs, holdout)
    drive = load_base(base)
    count = workers or max(1, os.cpu_count() or 1)
    simulator = Simulator(drive, count, io_scale)
    simulator.on_run = on_run
    try:
        fit = Fitter(simulator, drive, fit_jobs, stage).run()
        stage("simulating every measured job at the fitted drive")
        overrides = drive.overrides(fit.factors, fit.integers)
        jobs = fit_jobs + held_jobs
        figures = simulator.figures([overrides], [job.workload for job in jobs])[0]
        runs = simulator.runs
    finally:
        simulator.close()
    rows = [
        Row(job.workload.name, job in held_jobs, direction, metric, values[metric], simulated[metric])
        for job in jobs
        for direction, values in job.figures.items()
        for simulated in [figures[job.workload.name][direction]]
        for metric in METRICS
        if metric in values and metric in simulated
    ]
    result = Calibration(
        drive,
        fit,
        overrides,
        _parameter_rows(drive, fit),
        rows,
        [os.fspath(path) for path in measurements],
        measured.ignored,
        time.monotonic() - started,
        runs,
        count,
    )
    result.notes.append(
        f"The fit simulated the base drive at {FIT_BLOCKS_PER_PLANE} blocks per plane "
        "(or the base's, if fewer); "
        "the preset keeps the base's size."
    )
    fitted = [row.key for row in result.parameters if not row.status.startswith("not identified")]
    header = (
        f"Fitted by ssdtwin calibrate from {', '.join(result.sources)} on base {base}.\n"
        f"Fitted keys: {', '.join(fitted)}; every other key is the base's.\n"
        f"Worst |error| of IOPS and mean latency: {result.worst(False):.1%} on the fit set, "
        f"{result.worst(True):.1%} held out (ssdtwin calibrate's report has the table)."
    )
    description = (
        f"Calibrated from fio measurements ({Path(result.sources[0]).name}) on base {Path(base).name}"
    )
    document = preset_document(drive, overrides, description)
    write_text(output, preset_text(document, header))
    return result
