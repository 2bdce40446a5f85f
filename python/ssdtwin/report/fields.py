"""The report dict's fields, known without the `Report` class: looking a field up by its dotted
path, the time series' columns, and the fields that measure the host computer rather than the
drive. The bottom of `ssdtwin.report`: the renderings (html, plots, text) use these on plain dicts.
(Flattening a report into one row is the results table's business: `ssdtwin.sweep.store.row`.)"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas

TIMESERIES_COLUMNS = (
    "time_s",
    "iops",
    "bandwidth_mib_s",
    "power_w.nand",
    "power_w.io_bus",
    "power_w.controller",
    "power_w.dram",
    "power_w.other",
    "power_w.total",
)
"""Columns of `Report.timeseries` always present: interval start [s], host commands per second,
MiB/s, and the average power of each component over the interval [W] (`power.sample_interval` sets
the interval). With the thermal model on, the core adds `temp_c.<node>` (°C at the interval's end,
one column per node of the drive's network) and `throttle_state` (0 off, 1 light, 2 heavy); with
the reliability model on, `reliability.rber_mean` (mean RBER of the interval's flash reads)."""


WALL_CLOCK_FIELDS = (
    "wall_time_s",
    "simulator.precondition_wall_s",
    "simulator.run_wall_s",
    "simulator.ios_per_wall_s",
    "simulator.end_to_end_ios_per_wall_s",
)
"""Report fields that measure the host computer, not the drive: the only fields two runs of the
same seed and config may differ in."""


def lookup(data: Mapping[str, Any], path: str) -> Any:
    """The field of the report dict `data` at dotted `path`, or None when it has no such field."""
    value: Any = data
    for part in path.split("."):
        if not isinstance(value, Mapping) or part not in value:
            return None
        value = value[part]
    return value


def without_wall_clock(data: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of the report dict `data` without the `WALL_CLOCK_FIELDS`."""
    copied = copy.deepcopy(dict(data))
    for path in WALL_CLOCK_FIELDS:
        *parents, name = path.split(".")
        table = copied
        for parent in parents:
            table = table.get(parent, {})
        table.pop(name, None)
    return copied


def split_timeseries(data: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, list[float]]]:
    """The report dict as the core sends it, split into its fields (a deep copy) and the time
    series' columns, which the core sends under "timeseries" and which are no report field: the
    `TIMESERIES_COLUMNS` first (empty when absent), then the columns the core adds, in its order."""
    fields = copy.deepcopy(dict(data))
    columns = fields.pop("timeseries", None) or {}
    series: dict[str, list[float]] = {name: list(columns.get(name, [])) for name in TIMESERIES_COLUMNS}
    for name, values in columns.items():
        if name not in series:
            series[name] = list(values)
    return fields, series


def report_dict(report: Any) -> Mapping[str, Any] | None:
    """The report dict of a `Report` (anything with `to_dict()`) or of a dict; None for anything
    else (e.g. a path). The renderings take a `Report` this way, without importing its class."""
    if isinstance(report, Mapping):
        return report
    to_dict = getattr(report, "to_dict", None)
    return to_dict() if callable(to_dict) else None


def timeseries_frame(columns: Mapping[str, list[float]]) -> pandas.DataFrame:
    """The time series' columns as a DataFrame of floats (`Report.timeseries`)."""
    import pandas  # deferred: pandas takes a while to import and most uses never need it

    return pandas.DataFrame(
        {name: pandas.Series(values, dtype="float64") for name, values in columns.items()}
    )


def format_value(value: Any, spec: str) -> str:
    """`value` formatted by `spec` for a table cell; "-" for None, the plain text when `spec` does
    not fit it."""
    if value is None:
        return "-"
    try:
        return spec.format(value)
    except (TypeError, ValueError):
        return str(value)
