"""The plots of the HTML pages as small, library-neutral descriptions.

A `Figure` is a column of `Panel`s sharing one x axis (time, latency, a swept key). Each figure is
drawn twice from the same description: as a Plotly figure (`to_plotly`, interactive: zoom, pan,
hover; zooming one panel zooms them all; `ssdtwin.report.html._plotly`) and as a matplotlib PNG
(`ssdtwin.report.plots.png`), the image shown when scripts are off. Keeping the description small
keeps both renderings alike.

Long series are thinned before they are described (`decimate`): at most `MAX_POINTS` points per
line, keeping each bucket's minimum and maximum, so spikes and dips stay visible at any length.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy

MAX_POINTS = 2000
"""Most points drawn per line of a time series (min/max decimation above that): 1,000 buckets,
about one per pixel of a plot's width on a 1280-pixel-wide page."""
MAX_HEATMAP_CELLS = 120_000
"""Most cells of a heatmap (time buckets x rows); time is averaged into buckets above that."""
MAX_SPANS = 200
"""Most shaded spans (throttled periods) per figure; closer spans are merged above that."""

PALETTE = (
    "#1f77b4",
    "#ff7f0e",
    "#2ca02c",
    "#d62728",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#bcbd22",
    "#17becf",
)
"""The matplotlib/Plotly "category 10" colours: the same in both renderings."""


@dataclass
class Line:
    """One line of a panel: y against x, a step (value held until the next x) or straight
    segments; `links` (one URL per point) make a click on a point open that page."""

    x: Sequence[Any]
    y: Sequence[Any]
    name: str
    color: str | None = None
    step: bool = False
    markers: bool = False
    dash: bool = False
    width: float = 1.5
    hover: Sequence[str] | None = None
    links: Sequence[str] | None = None


@dataclass
class Heatmap:
    """A heatmap: `z[row][column]` over `x` (column centres) and `rows` (one label per row)."""

    x: Sequence[float]
    rows: Sequence[str]
    z: Sequence[Sequence[float]]
    name: str
    zmin: float = 0.0
    zmax: float = 1.0


@dataclass
class Panel:
    """One plot area of a figure; its traces share the y axis."""

    ylabel: str
    traces: list[Line | Heatmap] = field(default_factory=list)
    ylog: bool = False
    yreversed: bool = False
    yticks: tuple[Sequence[float], Sequence[str]] | None = None
    yrange: tuple[float, float] | None = None
    weight: float = 1.0
    """The panel's share of the figure's height."""


@dataclass
class Span:
    """A shaded stretch of x over every panel (a throttled period)."""

    x0: float
    x1: float
    color: str
    label: str


@dataclass
class Figure:
    """Panels stacked top to bottom over one shared x axis."""

    id: str
    title: str
    xlabel: str
    panels: list[Panel]
    xlog: bool = False
    xcategorical: bool = False
    xticks: Sequence[float] | None = None
    """Tick positions of the x axis (e.g. the swept values), else automatic."""
    xticktext: Sequence[str] | None = None
    """Their labels (default: the values)."""
    spans: list[Span] = field(default_factory=list)
    panel_height: int = 220
    """Pixels of a panel of weight 1."""

    @property
    def height(self) -> int:
        return int(sum(panel.weight for panel in self.panels) * self.panel_height) + 110

    def is_empty(self) -> bool:
        return not any(panel.traces for panel in self.panels)


def merge_spans(spans: Sequence[Span]) -> list[Span]:
    """`spans`, with close neighbours merged until at most `MAX_SPANS` remain: a merged span runs
    from the first's start to the last's end and takes the colour and label of the longest (so a
    flapping stretch of light and heavy throttling shows as one shaded period)."""
    if len(spans) <= MAX_SPANS:
        return list(spans)
    ordered = sorted(spans, key=lambda span: span.x0)
    extent = max(span.x1 for span in ordered) - ordered[0].x0
    gap = extent / 4000
    # Each group: [start, end, longest member].
    groups: list[list[Any]] = [[span.x0, span.x1, span] for span in ordered]
    while len(groups) > MAX_SPANS and gap <= extent:
        merged: list[list[Any]] = []
        for group in groups:
            last = merged[-1] if merged else None
            if last is not None and group[0] - last[1] <= gap:
                last[1] = max(last[1], group[1])
                if group[2].x1 - group[2].x0 > last[2].x1 - last[2].x0:
                    last[2] = group[2]
            else:
                merged.append(list(group))
        groups, gap = merged, gap * 2
    return [Span(start, end, longest.color, longest.label) for start, end, longest in groups]


# --------------------------------------------------------------------------------- data


def log_ticks(values: Sequence[Any]) -> tuple[list[float], list[str]] | None:
    """Ticks for a log axis over `values`: 1, 2, 5 per decade over up to four decades, else one per
    decade, labelled in full ("2,000", not "2"); None when there is nothing positive."""
    positive = [float(value) for value in values if value is not None and float(value) > 0]
    if not positive:
        return None
    low, high = min(positive), max(positive)
    first, last = math.floor(math.log10(low)), math.ceil(math.log10(high))
    steps = (1, 2, 5) if last - first <= 4 else (1,)
    ticks = [
        step * 10.0**decade
        for decade in range(first, last + 1)
        for step in steps
        if low / 1.5 <= step * 10.0**decade <= high * 1.5
    ]
    if len(ticks) < 2:
        return None
    return ticks, [f"{tick:,.0f}" if tick >= 1 else f"{tick:g}" for tick in ticks]


def numbers(values: Sequence[Any] | numpy.ndarray, digits: int) -> list[Any]:
    """`values` for JSON: floats to `digits` significant digits (the page's size), strings kept,
    missing and non-finite values as None (a gap in the line)."""
    result: list[Any] = []
    for value in values.tolist() if isinstance(values, numpy.ndarray) else values:
        if value is None or isinstance(value, str | bool | int):
            result.append(value)
        else:
            number = float(value)
            result.append(float(f"{number:.{digits}g}") if math.isfinite(number) else None)
    return result


def decimate(x: numpy.ndarray, y: numpy.ndarray, limit: int | None = None) -> tuple[numpy.ndarray, ...]:
    """At most `limit` points of the line (x, y): the rows are cut into `limit // 2` buckets of
    consecutive rows, and each bucket keeps its lowest and its highest point, in time order. A peak
    one sample wide stays visible however long the series; the line between is what is lost."""
    limit = MAX_POINTS if limit is None else limit
    count = len(y)
    if count <= limit:
        return x, y
    buckets = max(1, limit // 2)
    size = math.ceil(count / buckets)
    padded = numpy.full(buckets * size, numpy.nan)
    padded[:count] = y
    blocks = padded.reshape(buckets, size)
    missing = numpy.isnan(blocks)
    low = numpy.argmin(numpy.where(missing, numpy.inf, blocks), axis=1)
    high = numpy.argmax(numpy.where(missing, -numpy.inf, blocks), axis=1)
    offsets = numpy.arange(buckets) * size
    keep = numpy.unique(numpy.concatenate([offsets + low, offsets + high]))
    keep = keep[keep < count]
    return x[keep], y[keep]


def bucket_means(x: numpy.ndarray, rows: numpy.ndarray, columns: int) -> tuple[numpy.ndarray, numpy.ndarray]:
    """`rows` (series x time) averaged over `columns` buckets of consecutive times; x is each
    bucket's mean time. Unchanged when there are no more times than that."""
    count = rows.shape[1]
    if count <= columns:
        return x, rows
    edges = numpy.linspace(0, count, columns + 1).astype(int)
    starts = edges[:-1]
    widths = numpy.diff(edges)
    means = numpy.add.reduceat(numpy.nan_to_num(rows), starts, axis=1) / widths
    return numpy.add.reduceat(x, starts) / widths, means
