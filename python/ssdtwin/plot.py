"""Plots: a sweep's results, latency CDFs of reports, a run's time series. The only module of
ssdtwin that uses matplotlib, and only inside its functions, so `import ssdtwin` stays light.

    ssdtwin.plot("results/qd", x="host.queue_depth", y="iops", hue="seed", output="iops.png")
    ssdtwin.plot_latency_cdf(["a.json", "b.json"], kind="read", output="cdf.svg")
    ssdtwin.plot_timeseries("run.parquet", output="power.png")      # the power_w.* columns
    ssdtwin.plot_thermal("run.parquet", output="thermal.png")       # temp_c.*, IOPS, throttling

Each returns the matplotlib `Figure` (drawn with the Agg canvas: no window, no pyplot state) and
saves it to `output` when given, as PNG, SVG or PDF by the file's suffix.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

from ssdtwin import _atomic
from ssdtwin.report import Report

if TYPE_CHECKING:
    import pandas
    from matplotlib.figure import Figure

PathLike: TypeAlias = str | os.PathLike[str]
ReportLike: TypeAlias = Report | Mapping[str, Any] | PathLike
"""A report: a `Report`, its dict, or the path of a JSON report (`ssdtwin run --json`)."""

FORMATS = (".png", ".svg", ".pdf")
LATENCY_KINDS = ("read", "write", "all")
TIME_COLUMN = "time_s"
TEMPERATURE_PREFIX = "temp_c."
THROTTLE_COLUMN = "throttle_state"
THROTTLE_STATES = {1: ("light", "tab:orange", 0.15), 2: ("heavy", "tab:red", 0.3)}
"""The shading of each throttle state > 0: (legend label, colour, alpha)."""


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
    """`y` against `x` from a sweep's results (a DataFrame or its directory): one line per value of
    `hue`, one panel per value of `facet`. Only points with status "ok" are drawn; where several
    rows share x, hue and facet (seeds), the line is their mean and a band spans min to max.
    `logx` (default: when x is positive and spans a factor 16 or more) draws x on a log-2 scale."""
    from ssdtwin.store import load

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

    facets = _values(table[facet]) if facet is not None else [None]
    hues = _values(table[hue]) if hue is not None else [None]
    numeric_x = _is_numeric(table[x])
    figure = _figure(len(facets))
    axes_list = figure.subplots(1, len(facets), sharey=True, squeeze=False)[0]
    x_values = sorted(set(table[x].dropna())) if numeric_x else _values(table[x])
    if logx is None:
        positive = numeric_x and x_values and min(x_values) > 0
        logx = bool(positive and max(x_values) / min(x_values) >= 16)
    for axes, facet_value in zip(axes_list, facets, strict=True):
        panel = table if facet is None else table[table[facet] == facet_value]
        for hue_index, hue_value in enumerate(hues):
            rows = panel if hue is None else panel[panel[hue] == hue_value]
            if rows.empty:
                continue
            grouped = rows.groupby(x, sort=False)[y].agg(["mean", "min", "max"])
            order = [value for value in x_values if value in grouped.index]
            grouped = grouped.loc[order]
            positions = list(grouped.index) if numeric_x else [x_values.index(value) for value in order]
            label = None if hue is None else f"{hue} = {hue_value}"
            (line,) = axes.plot(
                positions, grouped["mean"].to_numpy(), marker="o", label=label, color=f"C{hue_index % 10}"
            )
            if (grouped["min"] != grouped["max"]).any():
                axes.fill_between(
                    positions,
                    grouped["min"].to_numpy(),
                    grouped["max"].to_numpy(),
                    alpha=0.2,
                    color=line.get_color(),
                )
        if logx:
            axes.set_xscale("log", base=2)
            if numeric_x and len(x_values) <= 12:
                axes.set_xticks(x_values, [f"{value:g}" for value in x_values])
                axes.minorticks_off()
        if not numeric_x:
            axes.set_xticks(range(len(x_values)), [str(value) for value in x_values])
        axes.set_xlabel(x)
        axes.grid(True, alpha=0.3)
        if facet is not None:
            axes.set_title(f"{facet} = {facet_value}")
        if hue is not None:
            axes.legend(fontsize="small")
    axes_list[0].set_ylabel(y)
    return _finish(figure, output)


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
    figure = _figure(2)
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
    return _finish(figure, output)


def plot_timeseries(
    timeseries: pandas.DataFrame | PathLike,
    columns: Sequence[str] | None = None,
    output: PathLike | None = None,
) -> Figure:
    """A run's time series (a DataFrame or the Parquet file of `ssdtwin run --timeseries`)
    against `time_s`. `columns` default to every `power_w.*` column, or every other numeric column
    when there is none. Columns sharing a prefix before the first dot (`power_w.nand`,
    `power_w.total`) share a panel; panels share the time axis."""
    table = _timeseries_table(timeseries)
    if columns is None:
        numeric = [column for column in table.columns if column != TIME_COLUMN and _is_numeric(table[column])]
        power = [column for column in numeric if column.startswith("power_w.")]
        columns = power or numeric
    else:
        missing = [column for column in columns if column not in table.columns]
        if missing:
            raise ValueError(
                f"no column {missing[0]!r} in the time series; columns: {', '.join(table.columns)}"
            )
    if not columns:
        raise ValueError("the time series has no numeric column to plot")
    panels: dict[str, list[str]] = {}
    for column in columns:
        panels.setdefault(column.split(".", 1)[0], []).append(column)
    figure = _figure(1, rows=len(panels))
    axes_list = figure.subplots(len(panels), 1, sharex=True, squeeze=False)[:, 0]
    time = table[TIME_COLUMN].to_numpy()
    for axes, (prefix, panel_columns) in zip(axes_list, panels.items(), strict=True):
        for column in panel_columns:
            label = column.split(".", 1)[1] if "." in column else column
            axes.plot(time, table[column].to_numpy(), label=label)
        axes.set_ylabel(prefix)
        axes.grid(True, alpha=0.3)
        if len(panel_columns) > 1:
            axes.legend(fontsize="small", ncol=min(3, len(panel_columns)))
    axes_list[-1].set_xlabel("simulated time [s]")
    return _finish(figure, output)


def plot_thermal(
    timeseries: pandas.DataFrame | PathLike,
    output: PathLike | None = None,
    nodes: Sequence[str] | None = None,
) -> Figure:
    """The temperatures and throughput of a run with the thermal model on (a DataFrame or the
    Parquet file of `ssdtwin run --timeseries`): the `temp_c.<node>` columns (top; only `nodes`
    when given, e.g. `["controller", "nand_0"]`), labelled by node, and IOPS (bottom) against
    simulated time. Each row is the interval from its `time_s` to the next row's (the last row
    lasts as long as the one before it): a temperature is drawn at its interval's end, IOPS as a
    step over it. Where `throttle_state` is above 0, both panels are shaded, one span per
    contiguous run of a state, light and heavy throttling in different shades."""
    table = _timeseries_table(timeseries)
    available = [column for column in table.columns if column.startswith(TEMPERATURE_PREFIX)]
    if not available:
        raise ValueError(
            f"a thermal plot needs {TEMPERATURE_PREFIX}<node> columns (a run with the thermal model on); "
            f"columns: {', '.join(table.columns)}"
        )
    if nodes is None:
        columns = available
    else:
        columns = [f"{TEMPERATURE_PREFIX}{node}" for node in nodes]
        missing = [column for column in columns if column not in table.columns]
        if missing:
            raise ValueError(
                f"no column {missing[0]!r} in the time series; temperature columns: {', '.join(available)}"
            )
    if "iops" not in table.columns:
        raise ValueError(f"no column 'iops' in the time series; columns: {', '.join(table.columns)}")
    if table.empty:
        raise ValueError("the time series has no row to plot")

    starts = table[TIME_COLUMN].to_numpy(dtype=float)
    ends = _interval_ends(starts)
    figure = _figure(1, rows=2)
    temperature_axes, iops_axes = figure.subplots(2, 1, sharex=True)
    for column in columns:
        temperature_axes.plot(ends, table[column].to_numpy(), label=column[len(TEMPERATURE_PREFIX) :])
    iops = table["iops"].to_numpy(dtype=float)
    iops_axes.plot([*starts, ends[-1]], [*iops, iops[-1]], drawstyle="steps-post", color="C0")
    if THROTTLE_COLUMN in table.columns:
        states = table[THROTTLE_COLUMN].fillna(0).round().astype(int).to_numpy()
        for axes, labelled in [(temperature_axes, True), (iops_axes, False)]:
            seen: set[int] = set()
            for state, start, end in _throttle_runs(states, starts, ends):
                name, colour, alpha = THROTTLE_STATES.get(state, (f"state {state}", "tab:purple", 0.3))
                label = f"throttled: {name}" if labelled and state not in seen else "_nolegend_"
                seen.add(state)
                axes.axvspan(start, end, color=colour, alpha=alpha, linewidth=0, zorder=0, label=label)
    temperature_axes.set_ylabel("temperature [°C]")
    temperature_axes.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1.0))
    iops_axes.set_ylabel("IOPS")
    iops_axes.set_xlabel("simulated time [s]")
    for axes in (temperature_axes, iops_axes):
        axes.grid(True, alpha=0.3)
    return _finish(figure, output)


# --------------------------------------------------------------------------------- helpers


def _timeseries_table(timeseries: pandas.DataFrame | PathLike) -> pandas.DataFrame:
    """The time series as a DataFrame (read from Parquet if a path), checked for `time_s`."""
    import pandas

    table = timeseries if isinstance(timeseries, pandas.DataFrame) else pandas.read_parquet(timeseries)
    if TIME_COLUMN not in table.columns:
        raise ValueError(f"a time series needs a {TIME_COLUMN!r} column; columns: {', '.join(table.columns)}")
    return table


def _interval_ends(starts: Any) -> Any:
    """The end of each row's interval: the next row's start; the last row lasts as long as the one
    before it (a lone row, no time)."""
    import numpy

    if len(starts) == 0:
        return starts
    last_step = starts[-1] - starts[-2] if len(starts) > 1 else 0.0
    return numpy.append(starts[1:], starts[-1] + last_step)


def _throttle_runs(
    states: Sequence[int], starts: Sequence[float], ends: Sequence[float]
) -> list[tuple[int, float, float]]:
    """(state, start, end) of each contiguous run of rows in the same throttle state above 0."""
    runs: list[tuple[int, float, float]] = []
    for index, state in enumerate(states):
        if state <= 0:
            continue
        if index > 0 and states[index - 1] == state:
            runs[-1] = (int(state), runs[-1][1], float(ends[index]))
        else:
            runs.append((int(state), float(starts[index]), float(ends[index])))
    return runs


def _figure(columns: int, rows: int = 1) -> Figure:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(4.8 * columns + 1.2, 3.2 * rows + 0.8), layout="constrained")
    FigureCanvasAgg(figure)
    return figure


def _finish(figure: Figure, output: PathLike | None) -> Figure:
    if output is not None:
        path = Path(output)
        if path.suffix.lower() not in FORMATS:
            raise ValueError(f"output {str(path)!r}: the suffix must be one of {', '.join(FORMATS)}")
        with _atomic.replacing(path) as temporary:
            figure.savefig(temporary, dpi=120, format=path.suffix.lower().lstrip("."))
    return figure


def _reports(reports: ReportLike | Sequence[ReportLike]) -> list[tuple[str, Mapping[str, Any]]]:
    """(label, report dict) for each report; a sweep directory gives its finished points."""
    if isinstance(reports, str | os.PathLike) and Path(reports).is_dir():
        return _sweep_reports(Path(reports))
    single = isinstance(reports, Report | Mapping | str | os.PathLike)
    items: Sequence[ReportLike] = [reports] if single else list(reports)  # type: ignore[list-item, arg-type]
    curves: list[tuple[str, Mapping[str, Any]]] = []
    for index, item in enumerate(items):
        if isinstance(item, Report):
            curves.append((f"report {index + 1}", item.to_dict()))
        elif isinstance(item, Mapping):
            curves.append((f"report {index + 1}", item))
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
    from ssdtwin.store import ResultsStore, load

    table = load(directory)
    store = ResultsStore(directory)
    fixed = {"point_id", "seed", "status", "error"}
    first_report_column = next(
        (index for index, column in enumerate(table.columns) if column == "ssdtwin_version"),
        len(table.columns),
    )
    swept = [column for column in table.columns[:first_report_column] if column not in fixed]
    if table["seed"].nunique() > 1:
        swept.append("seed")
    curves = []
    for values in table[table["status"] == "ok"].to_dict("records"):
        label = ", ".join(f"{key}={values[key]}" for key in swept) or values["point_id"]
        curves.append((label, store.read_report(values["point_id"]).to_dict()))
    return curves


def _values(column: pandas.Series) -> list[Any]:
    """The distinct values of a column: sorted if numeric, else in order of appearance."""
    values = list(dict.fromkeys(column.dropna()))
    if _is_numeric(column):
        values.sort()
    return values


def _is_numeric(column: pandas.Series) -> bool:
    import pandas

    return bool(pandas.api.types.is_numeric_dtype(column) and not pandas.api.types.is_bool_dtype(column))
