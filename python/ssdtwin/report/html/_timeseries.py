"""The run page's time series: IOPS, bandwidth, power per component, temperatures, throttling and
per-die/channel utilisation over simulated time, one figure of stacked panels."""

from __future__ import annotations

from collections.abc import Mapping
from html import escape
from typing import TYPE_CHECKING, Any

import numpy

from ssdtwin.report.fields import lookup
from ssdtwin.report.figure import (
    MAX_HEATMAP_CELLS,
    PALETTE,
    Figure,
    Heatmap,
    Line,
    Panel,
    Span,
    bucket_means,
    decimate,
)
from ssdtwin.report.html._page import Page

if TYPE_CHECKING:
    import pandas

POWER_PARTS = ("nand", "io_bus", "controller", "dram", "other", "total")
POWER_LABELS = {
    "nand": "NAND",
    "io_bus": "I/O bus",
    "controller": "controller",
    "dram": "DRAM",
    "other": "other",
    "total": "total (input)",
}
THROTTLE_SHADES = {1: ("throttled: light", "#ff7f0e"), 2: ("throttled: heavy", "#d62728")}
HEATMAP_PREFIXES = {"die_util.": "die", "channel_util.": "channel"}
"""Time-series columns drawn as a heatmap (one row per die or channel), when the series has them."""


def timeseries_figure(frame: pandas.DataFrame, figure_id: str = "timeseries") -> Figure | None:
    """IOPS, bandwidth, power per component, temperatures, throttle state and per-die/channel
    utilisation (when the series has `die_util.<i>` / `channel_util.<i>` columns) over one time
    axis; throttled periods shaded over every panel. Other numeric columns get a panel per prefix."""
    if frame is None or frame.empty or "time_s" not in frame.columns:
        return None
    starts = frame["time_s"].to_numpy(dtype=float)
    ends = _interval_ends(starts)
    used = {"time_s"}
    panels: list[Panel] = []

    def series(column: str) -> numpy.ndarray:
        used.add(column)
        return frame[column].to_numpy(dtype=float)

    def step_line(column: str, name: str, colour: str | None = None, width: float = 1.5) -> Line:
        # A rate holds over its interval: drawn as a step from the interval's start to its end.
        x = numpy.append(starts, ends[-1])
        values = series(column)
        y = numpy.append(values, values[-1])
        x, y = decimate(x, y)
        return Line(x, y, name, color=colour, step=True, width=width)

    if "iops" in frame.columns:
        panels.append(Panel("IOPS", [step_line("iops", "IOPS", PALETTE[0])]))
    if "bandwidth_mib_s" in frame.columns:
        panels.append(Panel("MiB/s", [step_line("bandwidth_mib_s", "bandwidth", PALETTE[2])]))
    power_columns = [f"power_w.{part}" for part in POWER_PARTS if f"power_w.{part}" in frame.columns]
    power_columns += [c for c in frame.columns if c.startswith("power_w.") and c not in power_columns]
    if power_columns and any(numpy.nanmax(numpy.abs(series(c)), initial=0.0) > 0 for c in power_columns):
        lines = []
        for index, column in enumerate(power_columns):
            part = column.split(".", 1)[1]
            total = part == "total"
            colour = "#222222" if total else PALETTE[index % len(PALETTE)]
            lines.append(step_line(column, POWER_LABELS.get(part, part), colour, 2.0 if total else 1.3))
        panels.append(Panel("power [W]", lines, weight=1.3))
    else:
        used.update(power_columns)
    temperatures = [c for c in frame.columns if c.startswith("temp_c.")]
    if temperatures:
        lines = []
        for index, column in enumerate(temperatures):
            x, y = decimate(ends, series(column))
            lines.append(Line(x, y, column.split(".", 1)[1], color=PALETTE[index % len(PALETTE)]))
        panels.append(Panel("temperature [°C]", lines, weight=1.4))
    spans: list[Span] = []
    if "throttle_state" in frame.columns:
        states = numpy.nan_to_num(series("throttle_state")).round().astype(int)
        x, y = decimate(numpy.append(starts, ends[-1]), numpy.append(states, states[-1]).astype(float))
        panels.append(
            Panel(
                "throttle",
                [Line(x, y, "throttle state", color="#d62728", step=True)],
                yticks=([0, 1, 2], ["off", "light", "heavy"]),
                yrange=(-0.2, 2.2),
                weight=0.55,
            )
        )
        for state, start, end in _runs(states, starts, ends):
            label, colour = THROTTLE_SHADES.get(state, (f"throttle state {state}", "#9467bd"))
            spans.append(Span(start, end, colour, label))
    if "reliability.rber_mean" in frame.columns:
        # The mean raw bit error rate of the pages read in each interval (none read: a gap); it
        # spans decades as the drive wears and ages, so the axis is logarithmic.
        rber = series("reliability.rber_mean")
        x, y = decimate(ends, numpy.where(rber > 0, rber, numpy.nan))
        panels.append(Panel("RBER", [Line(x, y, "RBER mean", color=PALETTE[4])], ylog=True, weight=0.8))
    for prefix, noun in HEATMAP_PREFIXES.items():
        columns = sorted(
            (c for c in frame.columns if c.startswith(prefix) and c[len(prefix) :].isdigit()),
            key=lambda c: int(c[len(prefix) :]),
        )
        if not columns:
            continue
        rows = numpy.vstack([series(column) for column in columns])
        buckets = max(50, min(1000, MAX_HEATMAP_CELLS // len(columns)))
        x, z = bucket_means((starts + ends) / 2, rows, buckets)
        names = [f"{noun} {column[len(prefix) :]}" for column in columns]
        heatmap = Heatmap(x, names, z, f"{noun} busy")
        panels.append(Panel(f"{noun} utilisation", [heatmap], weight=min(2.5, 0.6 + len(columns) / 24)))
    groups: dict[str, list[str]] = {}
    for column in frame.columns:
        if column in used or not _numeric(frame[column]):
            continue
        groups.setdefault(column.split(".", 1)[0], []).append(column)
    for prefix, columns in groups.items():
        lines = []
        for index, column in enumerate(columns):
            label = column.split(".", 1)[1] if "." in column else column
            x, y = decimate(starts, series(column))
            lines.append(Line(x, y, label, color=PALETTE[index % len(PALETTE)]))
        panels.append(Panel(prefix, lines))
    if not panels:
        return None
    names = [panel.ylabel.split(" [", 1)[0] for panel in panels]
    title = "Over simulated time: " + ", ".join(names) + (" (shaded: throttled)" if spans else "")
    return Figure(figure_id, title, "simulated time [s]", panels, spans=spans, panel_height=170)


def timeseries_section(
    page: Page, report: Mapping[str, Any], frame: pandas.DataFrame | None, sweep_point: bool = False
) -> str:
    figure = timeseries_figure(frame) if frame is not None else None
    if figure is None and sweep_point:
        return '<p class="note">No time series: a sweep stores each point\'s report, not its series.</p>'
    if figure is None:
        interval = lookup(report, "config.power.sample_interval")
        return (
            '<p class="note">No time series here. <code>ssdtwin run --html</code> includes it; for a '
            "saved report, give the series with <code>ssdtwin report RUN.json --timeseries FILE.parquet"
            "</code> (written by <code>ssdtwin run --timeseries</code>). It is sampled every "
            f"<code>power.sample_interval</code> ({escape(str(interval))}; 0 turns it off).</p>"
        )
    rows = len(frame) if frame is not None else 0
    thinned = any(
        isinstance(trace, Line) and len(trace.x) < rows for panel in figure.panels for trace in panel.traces
    )
    note = (
        f'<p class="note">{rows:,} intervals. Drag to zoom (all panels follow), double-click to reset. '
        "Rates hold over their interval; temperatures are at the interval's end."
    )
    if thinned:
        note += (
            " Long lines are thinned to at most 2,000 points, keeping each bucket's lowest and "
            "highest value, so no peak is lost."
        )
    if figure.spans:
        note += " Shaded: throttled periods."
    return page.figure(figure) + note + "</p>"


def _interval_ends(starts: numpy.ndarray) -> numpy.ndarray:
    if len(starts) == 0:
        return starts
    last_step = starts[-1] - starts[-2] if len(starts) > 1 else 0.0
    return numpy.append(starts[1:], starts[-1] + last_step)


def _runs(
    states: numpy.ndarray, starts: numpy.ndarray, ends: numpy.ndarray
) -> list[tuple[int, float, float]]:
    """(state, start, end) of each run of consecutive rows in one throttle state above 0."""
    if len(states) == 0:
        return []
    change = numpy.flatnonzero(numpy.diff(states)) + 1
    run_starts = numpy.concatenate([[0], change])
    run_ends = numpy.concatenate([change, [len(states)]]) - 1
    return [
        (int(states[first]), float(starts[first]), float(ends[last]))
        for first, last in zip(run_starts, run_ends, strict=True)
        if states[first] > 0
    ]


def _numeric(column: Any) -> bool:
    import pandas

    return bool(pandas.api.types.is_numeric_dtype(column) and not pandas.api.types.is_bool_dtype(column))
