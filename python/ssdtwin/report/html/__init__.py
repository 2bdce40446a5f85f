"""HTML reports: one self-contained page per run, per comparison of runs and per sweep
(docs/html_report.md).

    ssdtwin.run(...).to_html("report.html")                     # a run, with its time series
    ssdtwin.html.run_page("run.json", timeseries="run.parquet")  # the page's text
    ssdtwin.html.compare_page(["a.json", "b.json"])             # runs side by side
    ssdtwin.html.sweep_page("results/qd", "qd.html")            # a sweep, a page per point

A page inlines everything it needs (styles, scripts, images) and its Content-Security-Policy
forbids any network request: it opens from disk, offline, in any browser. Plots are Plotly
figures (zoom, pan, hover), with a matplotlib PNG of each inside `<noscript>` for a browser with
scripts off. plotly and matplotlib are imported only when a page is made.

The pages are made of the report dict: this package does not import the `Report` class (whose
`to_html` calls it), and takes a `Report` by what it offers, `to_dict()` and `timeseries`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

from ssdtwin._util import atomic
from ssdtwin.report.fields import split_timeseries, timeseries_frame
from ssdtwin.report.html._compare import compare_page as _compare_page
from ssdtwin.report.html._run import run_page as _run_page
from ssdtwin.report.html._sweep import POINT_PAGES
from ssdtwin.report.html._sweep import sweep_page as _sweep_page

if TYPE_CHECKING:
    import pandas

__all__ = ["POINT_PAGES", "compare_page", "iframe", "run_page", "sweep_page", "write"]

PathLike: TypeAlias = str | os.PathLike[str]
ReportLike: TypeAlias = Any
"""A report: a `Report`, its dict, or the path of a JSON report (`ssdtwin run --json`)."""


def run_page(
    report: ReportLike,
    timeseries: pandas.DataFrame | PathLike | None = None,
    *,
    title: str | None = None,
    interactive: bool = True,
    static_fallback: bool = True,
) -> str:
    """The page of one run, as HTML text. `timeseries` is a DataFrame or the Parquet file of
    `ssdtwin run --timeseries`; by default a `Report`'s own `timeseries` (a report read from JSON
    has none). `interactive=False` makes a page of PNG images with no script at all;
    `static_fallback=False` leaves out the `<noscript>` images of an interactive page."""
    data, own_series = _report(report)
    frame = _read_timeseries(timeseries) if timeseries is not None else own_series
    return _run_page(data, frame, title=title, interactive=interactive, static_fallback=static_fallback)


def compare_page(
    reports: Sequence[ReportLike], labels: Sequence[str] | None = None, *, title: str | None = None
) -> str:
    """Several runs on one page, as HTML text: headline figures side by side, the scenario keys
    that differ, and each op's latency CDFs together. `labels` name the runs (default: the JSON
    files' names, else "run 1", "run 2", ...)."""
    items = list(reports)
    if not items:
        raise ValueError("compare_page needs at least one report")
    if labels is not None and len(labels) != len(items):
        raise ValueError(f"{len(labels)} labels for {len(items)} reports")
    named: list[tuple[str, Mapping[str, Any]]] = []
    for index, item in enumerate(items):
        data, _ = _report(item)
        default = Path(item).stem if isinstance(item, str | os.PathLike) else f"run {index + 1}"
        named.append((labels[index] if labels is not None else default, data))
    seen: dict[str, int] = {}
    unique = []
    for label, data in named:
        seen[label] = seen.get(label, 0) + 1
        unique.append((label if seen[label] == 1 else f"{label} ({seen[label]})", data))
    return _compare_page(unique, title=title)


def sweep_page(
    directory: PathLike, output: PathLike, *, point_pages: str = "static", title: str | None = None
) -> list[Path]:
    """Writes the page of a sweep's results directory (`ssdtwin sweep`) to `output`: the results
    table (sortable), the figures against the first swept key, every point's latency CDF, and a
    link to each point's page, written into `<output stem>_points/` beside it. `point_pages`:
    "static" (PNG plots, no script: small), "interactive" (Plotly, ~5 MB each) or "none".
    Returns the paths written, the sweep's page first."""
    return _sweep_page(directory, output, point_pages=point_pages, title=title)


def write(text: str, output: PathLike) -> Path:
    """Writes a page's text to `output` (creating its folder) and returns the path."""
    return atomic.write_text(output, text)


def iframe(page: str, height: int = 900) -> str:
    """A page wrapped in an `<iframe srcdoc>`: how a notebook shows it (`Report._repr_html_`),
    its styles and scripts kept apart from the notebook's own."""
    return (
        f'<iframe srcdoc="{escape(page, quote=True)}" style="width:100%;height:{height}px;'
        'border:1px solid #ddd" sandbox="allow-scripts allow-popups allow-downloads"></iframe>'
    )


def _report(report: ReportLike) -> tuple[Mapping[str, Any], pandas.DataFrame | None]:
    """The report's dict and its own time series (None when it has none)."""
    if isinstance(report, Mapping):
        if "timeseries" in report:
            fields, columns = split_timeseries(report)
            return fields, _frame(columns)
        return report, None
    if isinstance(report, str | os.PathLike):
        path = Path(report)
        return json.loads(path.read_text(encoding="utf-8")), None
    to_dict = getattr(report, "to_dict", None)
    frame = getattr(report, "timeseries", None)
    if callable(to_dict) and hasattr(frame, "empty"):  # a `Report`
        return to_dict(), (frame if not frame.empty else None)
    raise TypeError(f"a report is a Report, a dict or a JSON file path, not {type(report).__name__}")


def _frame(columns: Mapping[str, list[float]]) -> pandas.DataFrame | None:
    """The time series' columns as a DataFrame (as `Report.timeseries`), None when empty."""
    frame = timeseries_frame(columns)
    return frame if not frame.empty else None


def _read_timeseries(timeseries: pandas.DataFrame | PathLike) -> pandas.DataFrame:
    import pandas

    frame = timeseries if isinstance(timeseries, pandas.DataFrame) else pandas.read_parquet(timeseries)
    if "time_s" not in frame.columns:
        raise ValueError(f"a time series needs a 'time_s' column; columns: {', '.join(frame.columns)}")
    return frame
