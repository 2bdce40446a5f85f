"""Measured figures, read from fio's JSON output (`fio --output-format=json`, the layout
`ssdtwin.report.fio` writes for simulated runs): per job `read`/`write` `iops` and `clat_ns`
(`mean`, `percentile` keyed `"99.000000"`, `"99.900000"`, ...).

Only jobs named by the protocol's scheme (`ssdtwin.calibrate.protocol`) are used; `precondition_*`
jobs are skipped silently and any other job is listed in `Measurements.ignored`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ssdtwin.calibrate.protocol import PRECONDITION_PREFIX, Workload, parse_name

METRICS = ("iops", "mean_us", "p99_us", "p99_9_us")
"""The figures compared per job and direction: IOPS, mean, 99th and 99.9th percentile of clat."""
PERCENTILE_KEYS = {"p99_us": "99.000000", "p99_9_us": "99.900000"}


class CalibrationError(ValueError):
    """Bad input to `ssdtwin calibrate`: the message names the file, job or key and what is allowed."""


@dataclass
class Measured:
    """One measured job: its workload and, per direction, the figures of `METRICS`."""

    workload: Workload
    source: str
    figures: dict[str, dict[str, float]]
    """direction (`read`/`write`) -> metric -> value; a percentile fio did not report is absent."""


@dataclass
class Measurements:
    jobs: list[Measured] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)
    """`file: job` of the jobs whose name is not of the protocol's scheme."""


def _number(value: object, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise CalibrationError(f"{where}: expected a finite number, found {value!r}")
    return float(value)


def _direction(section: object, where: str) -> dict[str, float]:
    if not isinstance(section, Mapping):
        raise CalibrationError(f"{where}: missing or not an object (fio's JSON has one per direction)")
    clat = section.get("clat_ns")
    if not isinstance(clat, Mapping):
        raise CalibrationError(f"{where}.clat_ns: missing (run fio with its default clat statistics)")
    figures = {
        "iops": _number(section.get("iops"), f"{where}.iops"),
        "mean_us": _number(clat.get("mean"), f"{where}.clat_ns.mean") / 1000.0,
    }
    percentiles = clat.get("percentile", {})
    if not isinstance(percentiles, Mapping):
        raise CalibrationError(f"{where}.clat_ns.percentile: expected an object of percentiles")
    for metric, key in PERCENTILE_KEYS.items():
        if key in percentiles:
            figures[metric] = _number(percentiles[key], f"{where}.clat_ns.percentile.{key}") / 1000.0
    if figures["iops"] <= 0 or figures["mean_us"] <= 0:
        raise CalibrationError(f"{where}: no I/O measured (iops {figures['iops']:g})")
    return figures


def read_document(document: Any, source: str, into: Measurements) -> None:
    """Adds the protocol's jobs of one fio JSON document (already parsed) to `into`."""
    if not isinstance(document, Mapping) or "jobs" not in document:
        raise CalibrationError(
            f"{source}: not fio JSON output: no top-level `jobs` (fio --output-format=json)"
        )
    jobs = document["jobs"]
    if not isinstance(jobs, list) or not jobs:
        raise CalibrationError(f"{source}: `jobs` is empty or not a list: no measured job")
    for index, job in enumerate(jobs):
        where = f"{source}: jobs[{index}]"
        if not isinstance(job, Mapping) or not isinstance(job.get("jobname"), str):
            raise CalibrationError(f"{where}: no `jobname`")
        name = job["jobname"]
        if name.startswith(PRECONDITION_PREFIX):
            continue
        workload = parse_name(name)
        if workload is None:
            into.ignored.append(f"{source}: {name}")
            continue
        figures = {
            direction: _direction(job.get(direction), f"{where} ({name}).{direction}")
            for direction in workload.directions
        }
        into.jobs.append(Measured(workload, source, figures))


def read_files(paths: Sequence[str | Path]) -> Measurements:
    """The measurements of fio JSON files; a job measured twice keeps its last measurement."""
    measurements = Measurements()
    for path in paths:
        source = str(path)
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as error:
            raise CalibrationError(f"{source}: {error.strerror or error}") from None
        except UnicodeDecodeError:
            raise CalibrationError(f"{source}: not a text file (fio JSON output expected)") from None
        try:
            document = json.loads(_strip_preamble(text))
        except json.JSONDecodeError as error:
            raise CalibrationError(
                f"{source}:{error.lineno}: not JSON ({error.msg}); expected fio --output-format=json output"
            ) from None
        read_document(document, source, measurements)
    latest: dict[str, Measured] = {}
    for job in measurements.jobs:
        latest[job.workload.name] = job
    measurements.jobs = list(latest.values())
    if not measurements.jobs:
        names = ", ".join(str(path) for path in paths)
        raise CalibrationError(
            f"{names}: no job named by the protocol's scheme (randread_4k_qd1, seqwrite_128k_qd32, ...; "
            "docs/calibration.md, 'Job names')"
        )
    return measurements


def _strip_preamble(text: str) -> str:
    """fio may print lines (`note: ...`) before the JSON object: start at the first `{`."""
    start = text.find("{")
    return text if start <= 0 else text[start:]
