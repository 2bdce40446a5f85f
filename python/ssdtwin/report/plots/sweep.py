"""Plots of reports: a sweep's results against a swept key, and latency CDFs.

    ssdtwin.plot("results/qd", x="host.queue_depth", y="iops", hue="seed", output="iops.png")
    ssdtwin.plot_latency_cdf(["a.json", "b.json"], kind="read", output="cdf.svg")

Each returns the matplotlib `Figure` (drawn with the Agg canvas: no window, no pyplot state) and
saves it to `output` when given, as PNG, SVG or PDF by the file's suffix.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

from ssdtwin.report.fields import report_dict
from ssdtwin.report.plots._common import PathLike, distinct_values, finish, is_numeric, new_figure

if TYPE_CHECKING:
    import pandas
    from matplotlib.figure import Figure

ReportLike: TypeAlias = Any
"""A report: a `Report`, its dict, or the path of a JSON report (`ssdtwin run --json`)."""

LATENCY_KINDS = ("read", "write", "all")


def plot(
    results: pandas.DataFrame | PathLike,
    x: str,
    y: str,
    hue: str | None = None,
    facet: str | None = None,
    output: PathLike | None = None,
    *,
    logx: bool | None = None,
) -> Figure:
    """`y` against `x` from a sweep's results (a DataFrame or its directory): one series per value
    of `hue`, one panel per value of `facet`. Only points with status "ok" are drawn; where several
    rows share x, hue and facet (seeds), the series is their mean and a band (a bar on categorical
    x) spans min to max. A numeric x is drawn as lines; a categorical x (a policy name) as points
    side by side, never joined. Another swept key that varies is never averaged over: with no
    `hue`, a single such key becomes the hue; otherwise a `ValueError` names the keys to give as
    `hue` or `facet`. `logx` (default: when x is positive and spans a factor 16 or more) draws x
    on a log-2 scale."""
    from ssdtwin.sweep.store import load, swept_columns

    table = results if not isinstance(results, str | os.PathLike) else load(results)
    for role, column in [("x", x), ("y", y), ("hue", hue), ("facet", facet)]:
        if column is not None and column not in table.columns:
            raise ValueError(
                f"{role} column {column!r} is not in the results; columns: {', '.join(table.columns)}"
            )
    if "status" in table.columns:
        table = table[table["status"] == "ok"]
    if table.empty:
        raise ValueError("the results have no finished point to plot")
    placed = {x, y, hue, facet}
    swept = [key for key in swept_columns(table) if key not in placed]
    varying = [key for key in swept if table[key].nunique(dropna=False) > 1]
    if varying and hue is None and len(varying) == 1:
        hue = varying.pop()
    if varying:
        raise ValueError(
            f"the sweep also varies {', '.join(varying)}, which the plot would average over: give "
            f"each as hue or facet (ssdtwin plot --hue KEY / --facet KEY), e.g. --hue {varying[0]}"
        )

    facets = distinct_values(table[facet]) if facet is not None else [None]
    hues = distinct_values(table[hue]) if hue is not None else [None]
    numeric_x = is_numeric(table[x])
    figure = new_figure(len(facets))
    axes_list = figure.subplots(1, len(facets), sharey=True, squeeze=False)[0]
    x_values = sorted(set(table[x].dropna())) if numeric_x else distinct_values(table[x])
    if logx is None:
        positive = numeric_x and x_values and min(x_values) > 0
        logx = bool(positive and max(x_values) / min(x_values) >= 16)
    # Categorical x: the series of each hue side by side around each category, not joined.
    width = 0.8 / len(hues)
    for axes, facet_value in zip(axes_list, facets, strict=True):
        panel = table if facet is None else table[table[facet] == facet_value]
        for hue_index, hue_value in enumerate(hues):
            rows = panel if hue is None else panel[panel[hue] == hue_value]
            if rows.empty:
                continue
            grouped = rows.groupby(x, sort=False)[y].agg(["mean", "min", "max"])
            order = [value for value in x_values if value in grouped.index]
            grouped = grouped.loc[order]
            label = None if hue is None else f"{hue} = {hue_value}"
            colour = f"C{hue_index % 10}"
            means, lows, highs = (grouped[name].to_numpy(dtype=float) for name in ("mean", "min", "max"))
            if numeric_x:
                positions = list(grouped.index)
                axes.plot(positions, means, marker="o", label=label, color=colour)
                if (lows != highs).any():
                    axes.fill_between(positions, lows, highs, alpha=0.2, color=colour)
            else:
                offset = (hue_index - (len(hues) - 1) / 2) * width
                positions = [x_values.index(value) + offset for value in order]
                axes.errorbar(
                    positions,
                    means,
                    yerr=[means - lows, highs - means],
                    fmt="o",
                    linestyle="none",
                    capsize=4,
                    label=label,
                    color=colour,
                )
        if logx:
            axes.set_xscale("log", base=2)
            if numeric_x and len(x_values) <= 12:
                axes.set_xticks(x_values, [f"{value:g}" for value in x_values])
                axes.minorticks_off()
        if not numeric_x:
            axes.set_xticks(range(len(x_values)), [str(value) for value in x_values])
            axes.set_xlim(-0.6, len(x_values) - 0.4)
        axes.set_xlabel(x)
        axes.grid(True, alpha=0.3)
        if facet is not None:
            axes.set_title(f"{facet} = {facet_value}")
        if hue is not None:
            axes.legend(fontsize="small")
    axes_list[0].set_ylabel(y)
    return finish(figure, output)


def plot_latency_cdf(
    reports: ReportLike | Sequence[ReportLike],
    kind: str = "all",
    labels: Sequence[str] | None = None,
    output: PathLike | None = None,
) -> Figure:
    """The latency distribution of one or several reports (their `latency_cdf` field): the CDF
    (left) and the tail, 1 - CDF on log scales, down to 10⁻⁶ (right). `reports` may also be a
    sweep's results directory: one curve per finished point, labelled by its swept values.
    `kind` is "read", "write" or "all"."""
    if kind not in LATENCY_KINDS:
        raise ValueError(f"kind must be one of {', '.join(LATENCY_KINDS)}, not {kind!r}")
    curves = _reports(reports)
    if labels is not None:
        if len(labels) != len(curves):
            raise ValueError(f"{len(labels)} labels for {len(curves)} reports")
        curves = [(label, report) for label, (_, report) in zip(labels, curves, strict=True)]
    figure = new_figure(2)
    cdf_axes, tail_axes = figure.subplots(1, 2)
    drawn = 0
    for label, report in curves:
        if "latency_cdf" not in report:
            raise ValueError(f"report {label!r} has no latency_cdf field (written by an older ssdtwin?)")
        cdf = report["latency_cdf"][kind]
        latency, fraction = cdf["latency_us"], cdf["fraction"]
        if not latency:
            continue
        (line,) = cdf_axes.plot(latency, fraction, drawstyle="steps-post", label=label)
        tail = [(value, 1.0 - share) for value, share in zip(latency, fraction, strict=True) if share < 1.0]
        if tail:
            tail_axes.plot(
                *zip(*tail, strict=True), drawstyle="steps-post", color=line.get_color(), label=label
            )
        drawn += 1
    if not drawn:
        raise ValueError(f"no report has {kind} commands to plot")
    cdf_axes.set_xscale("log")
    cdf_axes.set_ylim(0, 1.02)
    cdf_axes.set_ylabel(f"fraction of {kind} commands")
    tail_axes.set_xscale("log")
    tail_axes.set_yscale("log")
    tail_axes.set_ylabel("fraction slower (1 - CDF)")
    for axes in (cdf_axes, tail_axes):
        axes.set_xlabel(f"{kind} latency [µs]")
        axes.grid(True, which="both", alpha=0.3)
    cdf_axes.legend(fontsize="small")
    return finish(figure, output)


# --------------------------------------------------------------------------------- helpers


def _reports(reports: ReportLike | Sequence[ReportLike]) -> list[tuple[str, Mapping[str, Any]]]:
    """(label, report dict) for each report; a sweep directory gives its finished points."""
    if isinstance(reports, str | os.PathLike) and Path(reports).is_dir():
        return _sweep_reports(Path(reports))
    single = isinstance(reports, str | os.PathLike) or report_dict(reports) is not None
    items: Sequence[ReportLike] = [reports] if single else list(reports)
    curves: list[tuple[str, Mapping[str, Any]]] = []
    for index, item in enumerate(items):
        data = report_dict(item)
        if data is not None:
            curves.append((f"report {index + 1}", data))
        elif isinstance(item, str | os.PathLike):
            path = Path(item)
            if path.is_dir():
                curves.extend(_sweep_reports(path))
            else:
                curves.append((path.stem, json.loads(path.read_text(encoding="utf-8"))))
        else:
            raise TypeError(f"a report is a Report, a dict or a JSON file path, not {type(item).__name__}")
    return curves


def _sweep_reports(directory: Path) -> list[tuple[str, Mapping[str, Any]]]:
    from ssdtwin.sweep.store import ResultsStore, load, swept_columns

    table = load(directory)
    store = ResultsStore(directory)
    swept = swept_columns(table)
    if table["seed"].nunique() > 1:
        swept.append("seed")
    curves = []
    for values in table[table["status"] == "ok"].to_dict("records"):
        label = ", ".join(f"{key}={values[key]}" for key in swept) or values["point_id"]
        curves.append((label, store.read_report(values["point_id"])))
    return curves
