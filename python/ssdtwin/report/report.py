"""The report of one run (docs/guide/report.md) as a Python object.

The report's fields are declared once, in the Rust core (`sim/report.rs` and its parts in
`metrics/` and `power/`); this class does not list them again. It wraps the nested report dict
and exposes its top-level fields as attributes, so fields the core adds later appear here
without a change.

Its renderings live beside it and take the report dict, never this class: `to_html` calls
`ssdtwin.report.html`, which imports only `ssdtwin.report.fields`, so the dependency points one
way (this module -> html -> fields).
"""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ssdtwin.report.fields import split_timeseries, timeseries_frame
from ssdtwin.sweep.store import Scalar, report_row

if TYPE_CHECKING:
    import pandas


class Report:
    """The result of `ssdtwin.run`: `report.iops`, `report.latency_us["read"]["p99_99"]`,
    `report.config` (the fully resolved scenario), `report.to_dict()`, `report.flat()`,
    `report.timeseries` (a pandas DataFrame of power, IOPS and bandwidth per sample interval)."""

    __slots__ = ("_data", "_timeseries")

    def __init__(self, data: Mapping[str, Any]) -> None:
        if not isinstance(data, Mapping):
            raise TypeError(f"a Report is built from the report dict, not {type(data).__name__}")
        # The core sends the time series' columns under "timeseries"; they are not a report field.
        self._data, self._timeseries = split_timeseries(data)

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
        return timeseries_frame(self._timeseries)

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
        from ssdtwin.report import html

        frame = self.timeseries
        text = html.run_page(
            self._data,
            timeseries if timeseries is not None else (frame if not frame.empty else None),
            title=title,
            interactive=interactive,
        )
        if path is not None:
            html.write(text, path)
        return text

    def _repr_html_(self) -> str:
        """The run's page in a notebook, inside an iframe (its styles and scripts kept apart),
        without the PNG copies of its plots (a notebook runs the page's scripts)."""
        from ssdtwin.report import html

        frame = self.timeseries
        page = html.run_page(self._data, frame if not frame.empty else None, static_fallback=False)
        return html.iframe(page)

    def flat(self) -> dict[str, Scalar]:
        """Every scalar field keyed by its dotted path (`"latency_us.read.p99_99"`), without the
        `config` table: one row of a sweep's results table."""
        return report_row(self._data)


def _number(value: object) -> str:
    return f"{value:.6g}" if isinstance(value, int | float) else repr(value)
