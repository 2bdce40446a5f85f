"""The static rendering of a `Figure` (`ssdtwin.report.figure`): a matplotlib PNG, shown by the
HTML pages when scripts are off (inside `<noscript>`) and on the pages of a sweep's points, which
carry no script."""

from __future__ import annotations

import base64
import io
from typing import Any

from ssdtwin.report.figure import PALETTE, Figure, Heatmap, Line, merge_spans

DPI = 80
WIDTH_IN = 12.0


def png(figure: Figure) -> bytes:
    """The figure as PNG bytes (matplotlib's Agg canvas: no window, no pyplot state)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure as MplFigure

    height = max(2.5, figure.height / 100)
    canvas_figure = MplFigure(figsize=(WIDTH_IN, height), layout="constrained")
    FigureCanvasAgg(canvas_figure)
    weights = [panel.weight for panel in figure.panels]
    axes_list = canvas_figure.subplots(
        len(figure.panels), 1, sharex=True, squeeze=False, gridspec_kw={"height_ratios": weights}
    )[:, 0]
    categories: dict[str, int] = {}
    for axes, panel in zip(axes_list, figure.panels, strict=True):
        colour_index = 0
        for trace in panel.traces:
            if isinstance(trace, Heatmap):
                _heatmap(canvas_figure, axes, trace)
                continue
            colour = trace.color or PALETTE[colour_index % len(PALETTE)]
            colour_index += 1
            x: Any = list(trace.x)
            if figure.xcategorical:
                x = [categories.setdefault(str(value), len(categories)) for value in x]
            y = [float("nan") if value is None else value for value in trace.y]
            axes.plot(
                x,
                y,
                label=trace.name,
                color=colour,
                drawstyle="steps-post" if trace.step else "default",
                marker="o" if trace.markers else None,
                markersize=4,
                linestyle="--" if trace.dash else "-",
                linewidth=trace.width,
            )
        if panel.ylog:
            axes.set_yscale("log")
        if panel.yticks is not None:
            limits = axes.get_ylim()  # the data's: ticks beyond it must not widen the axis
            axes.set_yticks(list(panel.yticks[0]), list(panel.yticks[1]))
            axes.minorticks_off()
            axes.set_ylim(limits)
        if panel.yrange is not None:
            low, high = panel.yrange
            axes.set_ylim((10**low, 10**high) if panel.ylog else (low, high))
        if panel.yreversed:
            axes.invert_yaxis()
        axes.set_ylabel(panel.ylabel)
        axes.grid(True, alpha=0.3)
        if sum(isinstance(trace, Line) for trace in panel.traces) > 1:
            axes.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1.0))
    kinds: dict[tuple[str, str], list[tuple[float, float]]] = {}
    for span in merge_spans(figure.spans):
        kinds.setdefault((span.label, span.color), []).append((span.x0, span.x1 - span.x0))
    for (label, colour), ranges in kinds.items():
        for axes in axes_list:  # one collection per kind and panel: fast for many spans
            axes.broken_barh(
                ranges,
                (0, 1),
                transform=axes.get_xaxis_transform(),
                color=colour,
                alpha=0.18,
                linewidth=0,
                zorder=0,
                label=label if axes is axes_list[0] else "_nolegend_",
            )
    if figure.spans:
        axes_list[0].legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.01, 1.0))
    if figure.xlog:
        axes_list[-1].set_xscale("log")
    if figure.xticks is not None:
        labels = list(figure.xticktext or [f"{value:g}" for value in figure.xticks])
        limits = axes_list[-1].get_xlim()
        axes_list[-1].set_xticks(list(figure.xticks), labels)
        axes_list[-1].minorticks_off()
        axes_list[-1].set_xlim(limits)
    if figure.xcategorical and categories:
        axes_list[-1].set_xticks(list(categories.values()), list(categories), rotation=30, ha="right")
    axes_list[-1].set_xlabel(figure.xlabel)
    axes_list[0].set_title(figure.title, loc="left", fontsize="medium")
    buffer = io.BytesIO()
    canvas_figure.savefig(buffer, format="png", dpi=DPI)
    return buffer.getvalue()


def data_uri(figure: Figure) -> str:
    """The figure's PNG as a `data:` URI for an `<img>`."""
    return "data:image/png;base64," + base64.b64encode(png(figure)).decode("ascii")


def _heatmap(canvas_figure: Any, axes: Any, trace: Heatmap) -> None:
    import numpy

    x = numpy.asarray(trace.x, dtype=float)
    if len(x) > 1:
        step = numpy.diff(x)
        edges = numpy.concatenate([[x[0] - step[0] / 2], x[:-1] + step / 2, [x[-1] + step[-1] / 2]])
    else:
        edges = numpy.array([x[0] - 0.5, x[0] + 0.5]) if len(x) else numpy.array([0.0, 1.0])
    z = numpy.asarray(trace.z, dtype=float)
    mesh = axes.pcolormesh(
        edges, numpy.arange(len(trace.rows) + 1), z, vmin=trace.zmin, vmax=trace.zmax, cmap="viridis"
    )
    step_rows = max(1, len(trace.rows) // 16)
    positions = list(range(0, len(trace.rows), step_rows))
    axes.set_yticks([position + 0.5 for position in positions], [trace.rows[i] for i in positions])
    canvas_figure.colorbar(mesh, ax=axes, label=trace.name, pad=0.01)
