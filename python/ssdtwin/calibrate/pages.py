"""The calibration's report: a text summary and a self-contained HTML page (parameters with
their uncertainty and status; per measured job and figure, measured against simulated and the
error, on the fit set and the held-out set)."""

from __future__ import annotations

import html
import math

from ssdtwin.calibrate.run import Calibration, ParameterRow, Row

METRIC_NAMES = {"iops": "IOPS", "mean_us": "mean [us]", "p99_us": "p99 [us]", "p99_9_us": "p99.9 [us]"}


def _uncertainty(row: ParameterRow) -> str:
    if row.uncertainty is None:
        return ""
    return "flat" if not math.isfinite(row.uncertainty) else f"±{row.uncertainty:.1%}"


def _number(value: float) -> str:
    return f"{value:,.0f}" if value >= 1000 else f"{value:.4g}"


def _table(rows: list[list[str]], header: list[str]) -> list[str]:
    widths = [max(len(str(line[i])) for line in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(header, widths, strict=True)).rstrip()]
    lines.append("  ".join("-" * width for width in widths))
    lines += [
        "  ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True)).rstrip()
        for line in rows
    ]
    return lines


def _error_rows(rows: list[Row]) -> list[list[str]]:
    return [
        [
            row.job,
            "held out" if row.held_out else "fit",
            row.direction,
            METRIC_NAMES[row.metric],
            _number(row.measured),
            _number(row.simulated),
            f"{row.error:+.1%}",
        ]
        for row in rows
    ]


def _summary(result: Calibration) -> list[str]:
    lines = []
    for held_out, name in ((False, "fit set"), (True, "held-out set")):
        jobs = {row.job for row in result.rows if row.held_out == held_out}
        if not jobs:
            lines.append(f"{name}: no job")
            continue
        lines.append(
            f"{name}: {len(jobs)} job(s); worst |error| of IOPS and mean {result.worst(held_out):.1%}, "
            f"of p99 and p99.9 {result.worst(held_out, ('p99_us', 'p99_9_us')):.1%}"
        )
    return lines


def text(result: Calibration, output: str) -> str:
    """The report as text (what `ssdtwin calibrate` prints)."""
    lines = [f"preset written: {output}", ""]
    lines += _table(
        [
            [row.name, row.key, row.base, row.fitted, _uncertainty(row), row.status]
            for row in result.parameters
        ],
        ["parameter", "key", "base", "fitted", "1-sigma", "status"],
    )
    lines += [
        "",
        *_table(_error_rows(result.rows), ["job", "set", "dir", "figure", "measured", "simulated", "error"]),
    ]
    lines += ["", *_summary(result)]
    lines += [f"fit stages: {stage}" for stage in result.fit.stages]
    lines.append(
        f"{result.runs} simulations on {result.workers} worker(s) in {result.seconds:.0f} s; "
        + " ".join(result.notes)
    )
    lines += [f"ignored (name not of the protocol's scheme): {name}" for name in result.ignored]
    return "\n".join(lines) + "\n"


STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 70em; color: #222; }
table { border-collapse: collapse; margin: 1em 0; }
th, td { border-bottom: 1px solid #ddd; padding: 0.25em 0.7em; text-align: left; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
tr.held td { background: #f3f6fb; }
.bad { color: #b00020; font-weight: 600; }
"""


def _cells(cells: list[str], numeric: set[int], tag: str = "td") -> str:
    return "".join(
        f"<{tag}{' class=n' if index in numeric else ''}>{html.escape(cell)}</{tag}>"
        for index, cell in enumerate(cells)
    )


def page(result: Calibration, output: str) -> str:
    """The report as a self-contained HTML page."""
    parameters = "".join(
        f"<tr>{_cells([row.name, row.key, row.base, row.fitted, _uncertainty(row), row.status], {4})}</tr>"
        for row in result.parameters
    )
    errors = []
    for row, cells in zip(result.rows, _error_rows(result.rows), strict=True):
        mark = ' class="bad"' if abs(row.error) > 0.05 else ""
        body = _cells(cells[:-1], {4, 5}) + f"<td class=n{mark}>{html.escape(cells[-1])}</td>"
        errors.append(f"<tr{' class=held' if row.held_out else ''}>{body}</tr>")
    header = ["job", "set", "direction", "figure", "measured", "simulated", "error"]
    items = "".join(
        f"<li>{html.escape(line)}</li>" for line in _summary(result) + result.fit.stages + result.notes
    )
    return (
        "<!DOCTYPE html><html><head><meta charset=utf-8><title>ssdtwin calibration</title>"
        f"<style>{STYLE}</style></head><body><h1>ssdtwin calibration</h1>"
        f"<p>Preset <code>{html.escape(output)}</code> from {html.escape(', '.join(result.sources))}, "
        f"base <code>{html.escape(result.base.drive)}</code>; {result.runs} simulations in "
        f"{result.seconds:.0f} s.</p><ul>{items}</ul>"
        "<h2>Parameters</h2><p>1-sigma: relative, from the Jacobian of the final fit "
        "(covariance inv(J<sup>T</sup>J)·s²); <em>flat</em>: along a direction the data cannot resolve.</p>"
        f"<table><tr>{_cells(['parameter', 'key', 'base', 'fitted', '1-sigma', 'status'], set(), 'th')}</tr>"
        f"{parameters}</table>"
        "<h2>Measured against simulated</h2><p>Error = simulated / measured - 1; held-out jobs shaded, "
        "errors over 5% in red.</p>"
        f"<table><tr>{_cells(header, set(), 'th')}</tr>{''.join(errors)}</table></body></html>\n"
    )
