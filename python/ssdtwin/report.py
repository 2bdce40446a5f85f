"""The report of one run (the README, "The report") as a Python object.

The report's fields are declared once, in the Rust core (`sim/report.rs` and its parts in
`metrics/` and `power/`); this class does not list them again. It wraps the nested report dict
and exposes its top-level fields as attributes, so fields the core adds later appear here
without a change.
"""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas

Scalar = bool | int | float | str | None

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


class Report:
    """The result of `ssdtwin.run`: `report.iops`, `report.latency_us["read"]["p99_99"]`,
    `report.config` (the fully resolved scenario), `report.to_dict()`, `report.flat()`,
    `report.timeseries` (a pandas DataFrame of power, IOPS and bandwidth per sample interval)."""

    __slots__ = ("_data", "_timeseries")

    def __init__(self, data: Mapping[str, Any]) -> None:
        if not isinstance(data, Mapping):
            raise TypeError(f"a Report is built from the report dict, not {type(data).__name__}")
        self._data: dict[str, Any] = copy.deepcopy(dict(data))
        # The core sends the time series' columns under "timeseries"; they are not a report field.
        columns = self._data.pop("timeseries", None) or {}
        self._timeseries: dict[str, list[float]] = {
            name: list(columns.get(name, [])) for name in TIMESERIES_COLUMNS
        }
        # Columns the core adds (the thermal model's), in the core's order.
        for name, values in columns.items():
            if name not in self._timeseries:
                self._timeseries[name] = list(values)

    @classmethod
    def from_json(cls, text: str) -> Report:
        """The report of JSON text, as written by `to_json` or `ssdtwin run --json`."""
        return cls(json.loads(text))

    def __getattr__(self, name: str) -> Any:
        # Only called for names not found on the class; private names are never report fields
        # (and must fail fast while `_data` is not yet set, e.g. during unpickling).
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self._data[name]
        except KeyError:
            raise AttributeError(
                f"the report has no field {name!r}; fields: {', '.join(self._data)}"
            ) from None

    def __getitem__(self, name: str) -> Any:
        return self._data[name]

    def __contains__(self, name: object) -> bool:
        return name in self._data

    def __dir__(self) -> list[str]:
        return sorted({*super().__dir__(), *self._data})

    def __eq__(self, other: object) -> bool:
        """Reports are equal when their fields are (the JSON round trip keeps equality); the time
        series is not compared."""
        if not isinstance(other, Report):
            return NotImplemented
        return self._data == other._data

    __hash__ = None  # type: ignore[assignment]  # mutable contents, like a dict

    def __getstate__(self) -> dict[str, Any]:
        return {"report": self._data, "timeseries": self._timeseries}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._data = state["report"]
        self._timeseries = state["timeseries"]

    def __repr__(self) -> str:
        latency = self._data.get("latency_us", {}).get("all", {}).get("mean")
        parts = [f"iops={_number(self._data.get('iops'))}", f"mean_latency_us={_number(latency)}"]
        if "host_ios" in self._data:
            parts.append(f"host_ios={self._data['host_ios']}")
        return f"Report({', '.join(parts)})"

    @property
    def fields(self) -> list[str]:
        """The names of the top-level fields, in report order."""
        return list(self._data)

    @property
    def timeseries(self) -> pandas.DataFrame:
        """Power per component, IOPS and bandwidth per `power.sample_interval`, one row per
        interval, with the columns of `TIMESERIES_COLUMNS` (empty when sampling or power is off),
        plus `temp_c.<node>` and `throttle_state` when the thermal model is on.
        Not part of `to_dict()`/`to_json()`; `ssdtwin run --timeseries FILE.parquet` writes it."""
        import pandas  # deferred: pandas takes a while to import and most uses never need it

        return pandas.DataFrame(
            {name: pandas.Series(values, dtype="float64") for name, values in self._timeseries.items()}
        )

    def to_dict(self) -> dict[str, Any]:
        """The report as a nested dict (a copy: changing it does not change the report)."""
        return copy.deepcopy(self._data)

    def to_json(self, indent: int | None = 2) -> str:
        """The report as JSON text."""
        return json.dumps(self._data, indent=indent)

    def to_html(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        timeseries: pandas.DataFrame | str | os.PathLike[str] | None = None,
        title: str | None = None,
        interactive: bool = True,
    ) -> str:
        """The run's page: one self-contained HTML document (scenario, headline figures, latency
        CDFs, the time series, counters; docs/html_report.md), written to `path` when given.
        `timeseries` replaces the report's own (e.g. the Parquet file of a report read from JSON);
        `interactive=False` makes a page of PNG plots with no script."""
        from ssdtwin import html

        text = html.run_page(self, timeseries, title=title, interactive=interactive)
        if path is not None:
            html.write(text, path)
        return text

    def _repr_html_(self) -> str:
        """The run's page in a notebook, inside an iframe (its styles and scripts kept apart),
        without the PNG copies of its plots (a notebook runs the page's scripts)."""
        from ssdtwin import html

        return html.iframe(html.run_page(self, static_fallback=False))

    def flat(self) -> dict[str, Scalar]:
        """Every scalar field keyed by its dotted path (`"latency_us.read.p99_99"`), without the
        `config` table: one row of a sweep's results table."""
        flat: dict[str, Scalar] = {}
        _flatten(self._data, "", flat, skip={"config"})
        return flat


def _flatten(table: Mapping[str, Any], prefix: str, into: dict[str, Scalar], skip: set[str]) -> None:
    for name, value in table.items():
        key = f"{prefix}{name}"
        if key in skip:
            continue
        if isinstance(value, Mapping):
            _flatten(value, f"{key}.", into, skip)
        elif value is None or isinstance(value, bool | int | float | str):
            into[key] = value


def _number(value: object) -> str:
    return f"{value:.6g}" if isinstance(value, int | float) else repr(value)
