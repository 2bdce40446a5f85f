"""Plots of a run's time series: any of its columns, and the thermal view (temperatures, IOPS,
throttled periods shaded).

    ssdtwin.plot_timeseries("run.parquet", output="power.png")      # the power_w.* columns
    ssdtwin.plot_thermal("run.parquet", output="thermal.png")       # temp_c.*, IOPS, throttling
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ssdtwin.report.plots._common import PathLike, finish, is_numeric, new_figure

if TYPE_CHECKING:
    import pandas
    from matplotlib.figure import Figure

TIME_COLUMN = "time_s"
TEMPERATURE_PREFIX = "temp_c."
THROTTLE_COLUMN = "throttle_state"
THROTTLE_STATES = {1: ("light", "tab:orange", 0.15), 2: ("heavy", "tab:red", 0.3)}
"""The shading of each throttle state > 0: (legend label, colour, alpha)."""


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
        numeric = [column for column in table.columns if column != TIME_COLUMN and is_numeric(table[column])]
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
    figure = new_figure(1, rows=len(panels))
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
    return finish(figure, output)


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
    figure = new_figure(1, rows=2)
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
    return finish(figure, output)


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
