"""ssdtwin: a fast, deterministic simulator of NAND-flash solid state drives.

    import ssdtwin
    report = ssdtwin.run("scenario.toml", **{"flash.channels": 8})
    report = ssdtwin.run({"drive": "iiot_64gb", "host": {"queue_depth": 8}}, flash__channels=2)
    ssdtwin.precondition("scenario.toml", "drive.snap")   # precondition once ...
    report = ssdtwin.run("scenario.toml", snapshot="drive.snap", **{"host.queue_depth": 64})  # ... reuse
    report.iops, report.latency_us["read"]["p99_99"], report.to_dict(), report.flat()
    results = ssdtwin.sweep("sweep.toml")          # a pandas DataFrame, one row per point
    results = ssdtwin.load("results/qd_sweep")     # the same table, read back
    ssdtwin.plot(results, x="host.queue_depth", y="iops", output="iops.png")

The simulator is the Rust core (`ssdtwin._core`); this package is its public Python face, in parts
by role, each importing only those below it (tests/test_layout.py checks there is no cycle):

    cli/       the `ssdtwin` command (click); nothing imports it
    calibrate/ `ssdtwin calibrate`: the fio measurement protocol and a preset fitted to its output
    sweep/     design-space sweeps: plan, workers, shared drives, backends, the results directory
    report/    the `Report` and its renderings: text summary, HTML pages, matplotlib plots
    _util/     atomic output files, the API's arguments, a drive's capacity
    html.py    `ssdtwin.html`, the documented name of `ssdtwin.report.html`
"""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ssdtwin import _core
from ssdtwin._core import ConfigError, SimulationError, __version__
from ssdtwin._util import capacity
from ssdtwin._util.arguments import CoreArguments, ScenarioLike, core_arguments
from ssdtwin.report import Report
from ssdtwin.report.plots import plot, plot_latency_cdf, plot_thermal, plot_timeseries
from ssdtwin.sweep import SweepFailures, sweep
from ssdtwin.sweep.store import load

__all__ = [
    "ConfigError",
    "ProgressCallback",
    "Report",
    "ScenarioLike",
    "SimulationError",
    "SweepFailures",
    "__version__",
    "default_scenario",
    "load",
    "plot",
    "plot_latency_cdf",
    "plot_thermal",
    "plot_timeseries",
    "precondition",
    "presets",
    "resolve",
    "run",
    "schema",
    "sweep",
]

ProgressCallback = Callable[[str, float, int, float], object]
"""`progress(phase, fraction, host_ios, simulated_time_s)`: `phase` is "precondition" or "run",
`fraction` the part of that phase done (0 to 1), `simulated_time_s` in seconds."""


def run(
    scenario: ScenarioLike = None,
    *,
    progress: ProgressCallback | None = None,
    snapshot: str | os.PathLike[str] | None = None,
    **overrides: Any,
) -> Report:
    """Simulates a scenario and returns its report.

    `scenario` is None (the built-in default scenario, `default_scenario()`: the enterprise TLC
    drive shrunk to 64 GiB raw, steady-state preconditioning), a path to a TOML scenario file, or a
    dict with the tables of a scenario file (`{"drive": "iiot_64gb", "host": {"queue_depth": 8}}`).
    A file or dict without a `drive` is layered on the built-in default scenario (`{"host":
    {"queue_depth": 8}}` is the default scenario at queue depth 8); one that names a `drive` is a
    scenario of its own: that preset at its own size, with the schema's defaults for the keys it
    leaves out (`workload.precondition = "fill"`). The command line reads scenario files the same
    way. Keyword `overrides` set single keys on top of it, with dots (`**{"flash.channels": 8}`) or
    with `__` for dots (`flash__channels=8`); `drive="NAME"` on the default scenario runs that
    preset at its own size. Before a run on a drive of more than 33.5 M mapping units (a preset at
    full size, e.g. enterprise_tlc: 1 TiB raw, about 1.9 GB of memory), a `UserWarning` gives its
    size, the memory it takes and how to shrink it (`flash__blocks_per_plane=64`). `progress`, if
    given, is called about ten times a second with `(phase, fraction, host_ios, simulated_time_s)`;
    an exception it raises stops the run and propagates. The simulation does not hold the GIL, so
    runs in threads proceed in parallel. `snapshot` (a file from `precondition`) starts the drive
    from its saved state instead of preconditioning it; it must have been made for the same drive
    (every `flash.*`, `ftl.*` key, `seed`, `workload.precondition`, `workload.span`,
    `workload.steady_overwrites`).

    Raises `ConfigError` (a `ValueError`, with `.key` and `.message`) for an invalid scenario,
    `TypeError` for arguments of the wrong type and `FileNotFoundError` for a missing file.
    """
    if progress is not None and not callable(progress):
        raise TypeError(f"progress must be a callable or None, not {type(progress).__name__}")
    path = None if snapshot is None else os.fspath(snapshot)
    arguments = core_arguments(scenario, overrides)
    _warn_if_large(arguments)
    text = _core.run(*arguments, progress, path)
    return Report(json.loads(text))


def precondition(
    scenario: ScenarioLike = None,
    output: str | os.PathLike[str] = "drive.snap",
    *,
    progress: ProgressCallback | None = None,
    **overrides: Any,
) -> Path:
    """Preconditions the scenario's drive (`workload.precondition`) and writes its state to
    `output`, a drive snapshot for `run(..., snapshot=output)`; returns the path. The file is
    written whole or not at all. `scenario` and `overrides` are read as by `run` (and warn the
    same way before a drive at full size)."""
    if progress is not None and not callable(progress):
        raise TypeError(f"progress must be a callable or None, not {type(progress).__name__}")
    path = Path(output)
    arguments = core_arguments(scenario, overrides)
    _warn_if_large(arguments)
    _core.run(*arguments, progress, None, os.fspath(path))
    return path


def resolve(scenario: ScenarioLike = None, **overrides: Any) -> dict[str, Any]:
    """The fully resolved scenario (preset, file and overrides merged, every default filled in)
    as a dict, validated as `run` would, without running it; `scenario` and `overrides` are read
    as by `run` (a scenario without `drive` is layered on the built-in default scenario)."""
    return json.loads(_core.resolve(*core_arguments(scenario, overrides)))


def presets() -> dict[str, str]:
    """The built-in drive presets: name to one-line description."""
    return dict(_core.presets())


def schema() -> dict[str, Any]:
    """The JSON schema of the scenario file."""
    return json.loads(_core.schema())


def default_scenario() -> str:
    """The TOML text of the built-in default scenario (what `run()` simulates without a scenario)."""
    return _core.default_scenario()


def _warn_if_large(arguments: CoreArguments) -> None:
    """A `UserWarning` before a run on a drive large enough to take gigabytes of memory."""
    message = capacity.large_drive_warning(json.loads(_core.resolve(*arguments)))
    if message is not None:
        warnings.warn(message, UserWarning, stacklevel=3)
