"""A `Figure` (`ssdtwin.report.figure`) as a Plotly figure: the interactive plots of the HTML
pages (zoom, pan, hover; zooming one panel zooms them all)."""

from __future__ import annotations

from typing import Any

from ssdtwin.report.figure import Figure, Heatmap, Line, merge_spans, numbers

_AXIS_STYLE: dict[str, Any] = {
    "showgrid": True,
    "gridcolor": "#e5e5e5",
    "zeroline": False,
    "showline": True,
    "linecolor": "#888",
    "ticks": "outside",
}
"""How every x and y axis of a page looks: light grid, a grey axis line, ticks outside."""


def to_plotly(figure: Figure) -> dict[str, Any]:
    """The figure as Plotly's `{"data": [...], "layout": {...}}`, panels as stacked y axes over
    x axes that all match the first (zoom one, zoom all)."""
    data: list[dict[str, Any]] = []
    layout: dict[str, Any] = {
        "height": figure.height,
        "margin": {"l": 70, "r": 190, "t": 40, "b": 55},
        "title": {"text": figure.title, "x": 0.0, "xanchor": "left", "font": {"size": 15}},
        "hovermode": "closest",
        "plot_bgcolor": "#ffffff",
        "paper_bgcolor": "#ffffff",
        "font": {"family": "system-ui, -apple-system, Segoe UI, Roboto, sans-serif", "size": 12},
        "shapes": [],
    }
    domains = _domains(figure)
    count = len(figure.panels)
    for index, (panel, (bottom, top)) in enumerate(zip(figure.panels, domains, strict=True)):
        suffix = "" if index == 0 else str(index + 1)
        xname, yname = f"xaxis{suffix}", f"yaxis{suffix}"
        xref, yref = f"x{suffix}", f"y{suffix}"
        last = index == count - 1
        xaxis: dict[str, Any] = {
            "anchor": yref,
            "showticklabels": last,
            **_AXIS_STYLE,
            "showspikes": True,
            "spikemode": "across",
            "spikethickness": 1,
            "spikecolor": "#999",
        }
        if figure.xlog:
            xaxis["type"] = "log"
        if figure.xcategorical:
            xaxis["type"] = "category"
        if figure.xticks is not None:
            xaxis["tickvals"] = list(figure.xticks)
            xaxis["ticktext"] = list(figure.xticktext or [f"{value:g}" for value in figure.xticks])
        if index > 0:
            xaxis["matches"] = "x"
        if last:
            xaxis["title"] = {"text": figure.xlabel}
        yaxis: dict[str, Any] = {
            "anchor": xref,
            "domain": [bottom, top],
            "title": {"text": panel.ylabel},
            **_AXIS_STYLE,
        }
        if panel.ylog:
            yaxis["type"] = "log"
        if panel.yreversed:
            yaxis["autorange"] = "reversed"
        if panel.yticks is not None:
            yaxis["tickvals"], yaxis["ticktext"] = list(panel.yticks[0]), list(panel.yticks[1])
        if panel.yrange is not None:
            yaxis["range"] = list(panel.yrange)
        layout[xname], layout[yname] = xaxis, yaxis
        legend = "legend" if index == 0 else f"legend{index + 1}"
        layout[legend] = {
            "x": 1.01,
            "xanchor": "left",
            "y": top,
            "yanchor": "top",
            "font": {"size": 11},
            "bgcolor": "rgba(255,255,255,0.8)",
        }
        lines = [trace for trace in panel.traces if isinstance(trace, Line)]
        for trace in panel.traces:
            if isinstance(trace, Heatmap):
                data.append(_plotly_heatmap(trace, xref, yref, top, bottom))
            else:
                data.append(_plotly_line(trace, xref, yref, legend, len(lines) > 1))
    for span in merge_spans(figure.spans):
        layout["shapes"].append(
            {
                "type": "rect",
                "xref": "x",
                "yref": "paper",
                "x0": span.x0,
                "x1": span.x1,
                "y0": 0,
                "y1": 1,
                "fillcolor": span.color,
                "opacity": 0.18,
                "line": {"width": 0},
                "layer": "below",
            }
        )
    for label, color in dict.fromkeys((span.label, span.color) for span in figure.spans):
        # A legend entry for each kind of span (shapes have none of their own).
        data.append(
            {
                "type": "scatter",
                "x": [None],
                "y": [None],
                "mode": "lines",
                "name": label,
                "line": {"color": color, "width": 10},
                "opacity": 0.35,
                "xaxis": "x",
                "yaxis": "y",
                "legend": "legend",
                "hoverinfo": "skip",
            }
        )
    return {"data": data, "layout": layout}


def _plotly_line(trace: Line, xref: str, yref: str, legend: str, showlegend: bool) -> dict[str, Any]:
    line: dict[str, Any] = {"width": trace.width}
    if trace.color:
        line["color"] = trace.color
    if trace.step:
        line["shape"] = "hv"
    if trace.dash:
        line["dash"] = "dash"
    result: dict[str, Any] = {
        "type": "scatter",
        "x": numbers(trace.x, 7),
        "y": numbers(trace.y, 6),
        "name": trace.name,
        "mode": "lines+markers" if trace.markers else "lines",
        "line": line,
        "xaxis": xref,
        "yaxis": yref,
        "legend": legend,
        "showlegend": showlegend,
    }
    if trace.hover is not None:
        result["text"] = list(trace.hover)
        result["hovertemplate"] = "%{text}<extra>%{fullData.name}</extra>"
    if trace.links is not None:
        result["customdata"] = list(trace.links)
    return result


def _plotly_heatmap(trace: Heatmap, xref: str, yref: str, top: float, bottom: float) -> dict[str, Any]:
    return {
        "type": "heatmap",
        "x": numbers(trace.x, 7),
        "y": list(trace.rows),
        "z": [numbers(row, 4) for row in trace.z],
        "name": trace.name,
        "zmin": trace.zmin,
        "zmax": trace.zmax,
        "colorscale": "Viridis",
        "colorbar": {
            "title": {"text": trace.name, "side": "right"},
            "x": 1.01,
            "xanchor": "left",
            "y": (top + bottom) / 2,
            "len": max(0.1, top - bottom),
            "thickness": 12,
        },
        "xaxis": xref,
        "yaxis": yref,
        "hovertemplate": "%{y}<br>t = %{x}<br>%{z:.1%}<extra></extra>",
    }


def _domains(figure: Figure) -> list[tuple[float, float]]:
    """Each panel's [bottom, top] as a fraction of the plot area, top panel first."""
    total = sum(panel.weight for panel in figure.panels) or 1.0
    gap = 0.05 if len(figure.panels) > 1 else 0.0
    usable = 1.0 - gap * (len(figure.panels) - 1)
    domains: list[tuple[float, float]] = []
    top = 1.0
    for panel in figure.panels:
        bottom = max(0.0, top - usable * panel.weight / total)
        domains.append((round(bottom, 4), round(top, 4)))
        top = bottom - gap
    return domains
