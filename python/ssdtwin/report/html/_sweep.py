"""The page of a sweep's results directory (its table, its figures against the first swept key,
every point's latency CDF) and a page per point."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ssdtwin._util import atomic
from ssdtwin.report.figure import PALETTE, Figure, Line, Panel, log_ticks
from ssdtwin.report.html._compare import HEADLINE
from ssdtwin.report.html._page import Page, cell, fmt, table
from ssdtwin.report.html._run import OPS, latency_figure, run_page

if TYPE_CHECKING:
    import pandas

SWEEP_METRICS = (
    # (panel label, [(column, line name)], log y)
    ("IOPS", [("iops", "IOPS")], False),
    ("MiB/s", [("bandwidth_mib_s", "bandwidth")], False),
    (
        "latency [µs]",
        [
            ("latency_us.all.mean", "mean"),
            ("latency_us.all.p99", "p99"),
            ("latency_us.all.p99_99", "p99.99"),
        ],
        True,
    ),
    ("power [W]", [("power_w.total_avg", "average power")], False),
    ("WAF", [("waf", "WAF")], False),
    ("composite max [°C]", [("thermal.composite_max_c", "composite max")], False),
)
"""The panels of a sweep's plot against its first swept key."""

POINT_PAGES = ("static", "interactive", "none")


def sweep_page(
    directory: str | os.PathLike[str],
    output: str | os.PathLike[str],
    *,
    point_pages: str = "static",
    title: str | None = None,
) -> list[Path]:
    """Writes the page of a sweep's results directory to `output` and, unless `point_pages` is
    "none", a page per finished point into `<output stem>_points/` beside it ("static": PNG
    plots and no script, a few hundred KB each; "interactive": Plotly, about 5 MB each). Returns
    the paths written, the sweep page first."""
    from ssdtwin.sweep.store import ResultsStore, load, swept_columns

    if point_pages not in POINT_PAGES:
        raise ValueError(f"point_pages must be one of {', '.join(POINT_PAGES)}, not {point_pages!r}")
    source = Path(directory)
    results = load(source)
    store = ResultsStore(source)
    output = Path(output)
    output.parent.mkdir(parents=True, exist_ok=True)
    points_folder = output.parent / f"{output.stem}_points"
    swept = swept_columns(results)
    if not swept or ("seed" in results.columns and results["seed"].nunique() > 1):
        swept.append("seed")
    written: list[Path] = []
    links: dict[str, str] = {}
    reports: dict[str, Mapping[str, Any]] = {}
    for row in results.to_dict("records"):
        if row.get("status") != "ok":
            continue
        point_id = str(row["point_id"])
        report = store.read_report(point_id)
        reports[point_id] = report
        if point_pages == "none":
            continue
        path = points_folder / f"{point_id}.html"
        label = _point_label(row, swept) or point_id
        html = run_page(
            report,
            None,
            title=f"Sweep point {point_id}: {label}",
            interactive=point_pages == "interactive",
            back_link=(f"sweep {source.name}", os.path.relpath(output, path.parent)),
        )
        atomic.write_text(path, html)
        written.append(path)
        links[point_id] = os.path.relpath(path, output.parent).replace(os.sep, "/")
    sweep_text = store.sweep_path.read_text(encoding="utf-8") if store.sweep_path.exists() else ""
    html = _sweep_html(source, results, swept, reports, links, sweep_text, title)
    atomic.write_text(output, html)
    return [output, *written]


def _sweep_html(
    source: Path,
    results: pandas.DataFrame,
    swept: list[str],
    reports: Mapping[str, Mapping[str, Any]],
    links: Mapping[str, str],
    sweep_text: str,
    title: str | None,
) -> str:
    page = Page(title or f"ssdtwin sweep: {source.name}")
    status = results["status"].value_counts().to_dict() if "status" in results.columns else {}
    counts = ", ".join(f"{count} {name}" for name, count in status.items())
    page.add("results", "Results", _results_table(results, swept, links))
    page.add("plots", "Plots", _sweep_plots(page, results, swept, links))
    rows = results.to_dict("records")
    labels = {str(row["point_id"]): _point_label(row, swept) or str(row["point_id"]) for row in rows}
    figures = []
    for op in OPS:
        curves = [
            (labels[point_id], report["latency_cdf"][op])
            for point_id, report in reports.items()
            if isinstance(report.get("latency_cdf"), Mapping)
            and isinstance(report["latency_cdf"].get(op), Mapping)
        ]
        figure = latency_figure(curves, op, f"latency-{op}", f"{op} latency of every point (log tail axis)")
        figures.append(page.figure(figure))
    page.add("latency", "Latency", "".join(figures) or '<p class="note">No finished point.</p>')
    failed = [row for row in rows if row.get("status") == "failed"]
    if failed:
        items = "".join(
            f"<li><code>{escape(str(row['point_id']))}</code> ({escape(labels[str(row['point_id'])])}): "
            f"{escape(str(row.get('error')))}</li>"
            for row in failed
        )
        page.add("failed", "Failed points", f"<ul>{items}</ul>")
    if sweep_text:
        page.add(
            "definition",
            "Sweep definition",
            f"<details open><summary>sweep.toml, as run</summary><pre>{escape(sweep_text)}</pre></details>",
        )
    versions = sorted({str(report.get("ssdtwin_version", "")) for report in reports.values()})
    subtitle = f"{escape(str(source))} &middot; {len(results)} points: {escape(counts)}"
    if links:
        subtitle += " &middot; each point's page is linked from the table and from the plots"
    return page.render(subtitle=subtitle, version=", ".join(versions))


def _point_label(row: Mapping[str, Any], swept: Sequence[str]) -> str:
    return ", ".join(f"{key}={_plain(row.get(key))}" for key in swept)


def _plain(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _results_table(results: pandas.DataFrame, swept: list[str], links: Mapping[str, str]) -> str:
    figures = [(label, path, spec) for label, path, spec in HEADLINE if path in results.columns]
    has_errors = "error" in results.columns and results["error"].notna().any()
    columns = ["point", *swept]
    if "seed" not in swept:
        columns.append("seed")
    columns += ["status", *(label for label, _, _ in figures)]
    if has_errors:
        columns.append("error")
    rows = []
    for row in results.to_dict("records"):
        point_id = str(row["point_id"])
        link = links.get(point_id)
        first = (
            f'<td><a href="{escape(link, quote=True)}">{escape(point_id)}</a></td>'
            if link
            else f"<td>{escape(point_id)}</td>"
        )
        cells = [first]
        cells += [cell(_value(row.get(key))) for key in swept]
        if "seed" not in swept:
            cells.append(cell(_value(row.get("seed"))))
        status = str(row.get("status", ""))
        cells.append(f'<td class="text status-{escape(status)}">{escape(status)}</td>')
        cells += [cell(_value(row.get(path)), spec) for _, path, spec in figures]
        if has_errors:
            error = row.get("error")
            cells.append(f"<td class='text'>{escape('' if _value(error) is None else str(error))}</td>")
        rows.append(cells)
    note = (
        '<p class="note">Click a heading to sort. Every column of <code>results.parquet</code> is in the '
        "full table below.</p>"
    )
    full = _full_table(results)
    return f'{note}<div class="scroll">{table(columns, rows, css="sortable results")}</div>{full}'


def _full_table(results: pandas.DataFrame) -> str:
    columns = list(results.columns)
    rows = [[cell(_value(row.get(column))) for column in columns] for row in results.to_dict("records")]
    return (
        f"<details><summary>All {len(columns)} columns of results.parquet</summary>"
        f'<div class="scroll">{table(columns, rows, css="sortable")}</div></details>'
    )


def _value(value: Any) -> Any:
    """A table value as a plain Python value (pandas' NA and numpy scalars unwrapped)."""
    import pandas

    if value is None:
        return None
    try:
        if pandas.isna(value):
            return None
    except (TypeError, ValueError):
        pass
    if hasattr(value, "item"):
        return value.item()
    return value


def _sweep_plots(page: Page, results: pandas.DataFrame, swept: list[str], links: Mapping[str, str]) -> str:
    import pandas

    finished = results[results["status"] == "ok"] if "status" in results.columns else results
    if finished.empty:
        return '<p class="note">No finished point to plot.</p>'
    varied = [key for key in swept if key in finished.columns and finished[key].nunique(dropna=True) > 1]
    numeric = [
        key
        for key in varied
        if pandas.api.types.is_numeric_dtype(finished[key])
        and not pandas.api.types.is_bool_dtype(finished[key])
    ]
    x_key = (numeric or varied or [None])[0]
    hue_keys = [key for key in varied if key != x_key and key != "seed"]
    categorical = x_key is None or x_key not in numeric
    records = finished.to_dict("records")
    groups: dict[str, list[dict[str, Any]]] = {}
    for row in records:
        hue = ", ".join(f"{key}={_plain(row.get(key))}" for key in hue_keys)
        groups.setdefault(hue, []).append(row)
    x_values = [_value(row.get(x_key)) for row in records] if x_key is not None else []
    logx = False
    if not categorical and x_values:
        positive = [float(value) for value in x_values if value is not None and float(value) > 0]
        logx = len(positive) == len(x_values) and max(positive) / min(positive) >= 16
    panels = []
    constant: list[str] = []
    for label, columns, logy in SWEEP_METRICS:
        present = [(column, name) for column, name in columns if column in finished.columns]
        present = [(column, name) for column, name in present if finished[column].notna().any()]
        if not present:
            continue
        if all(finished[column].nunique(dropna=True) <= 1 for column, _ in present):
            values = ", ".join(
                f"{name} {fmt(_value(finished[column].dropna().iloc[0]))}" for column, name in present
            )
            constant.append(values)
            continue
        lines = []
        for group_index, (hue, rows) in enumerate(groups.items()):
            for line_index, (column, name) in enumerate(present):
                line = _sweep_line(rows, x_key, column, swept, links, categorical)
                if line is None:
                    continue
                x, y, hover, urls = line
                colour_index = group_index if len(groups) > 1 else line_index
                full_name = f"{name}, {hue}" if hue and len(present) > 1 else (hue or name)
                lines.append(
                    Line(
                        x,
                        y,
                        full_name,
                        color=PALETTE[colour_index % len(PALETTE)],
                        markers=True,
                        dash=len(groups) > 1 and line_index > 0,
                        hover=hover,
                        links=urls,
                    )
                )
        if lines:
            yticks = log_ticks([value for line in lines for value in line.y]) if logy else None
            panels.append(Panel(label, lines, ylog=logy, yticks=yticks))
    if not panels:
        if constant:
            return f'<p class="note">The same at every point: {escape("; ".join(constant))}.</p>'
        return '<p class="note">The results have none of the plotted figures.</p>'
    xlabel = x_key if x_key is not None else "point"
    hue_text = f"; one line per {', '.join(hue_keys)}" if hue_keys else ""
    seeds_text = (
        "; points repeated over seeds are drawn as their mean"
        if "seed" in finished.columns and finished["seed"].nunique() > 1
        else ""
    )
    ticks = None
    if not categorical and x_values:
        distinct = sorted({float(value) for value in x_values if value is not None})
        ticks = distinct if len(distinct) <= 12 else None
    figure = Figure(
        "sweep",
        f"Against {xlabel}{hue_text}",
        xlabel,
        panels,
        xlog=logx,
        xcategorical=categorical,
        xticks=ticks,
    )
    note = (
        f'<p class="note">Hover a point for its values; click it to open its page{hue_text}{seeds_text}.</p>'
        if links
        else f'<p class="note">Hover a point for its values{hue_text}{seeds_text}.</p>'
    )
    if constant:
        note += f'<p class="note">The same at every point: {escape("; ".join(constant))}.</p>'
    return page.figure(figure) + note


def _sweep_line(
    rows: list[dict[str, Any]],
    x_key: str | None,
    column: str,
    swept: Sequence[str],
    links: Mapping[str, str],
    categorical: bool,
) -> tuple[list[Any], list[float], list[str], list[str]] | None:
    """One line of a sweep plot: y averaged over rows sharing x (seeds), in x order."""
    by_x: dict[Any, list[dict[str, Any]]] = {}
    for row in rows:
        y = _value(row.get(column))
        if y is None:
            continue
        x = _point_label(row, swept) if x_key is None else _value(row.get(x_key))
        by_x.setdefault(x if not categorical else str(x), []).append(row)
    if not by_x:
        return None
    keys = list(by_x) if categorical else sorted(by_x)
    xs, ys, hover, urls = [], [], [], []
    for key in keys:
        group = by_x[key]
        values = [float(_value(row.get(column))) for row in group]
        mean = sum(values) / len(values)
        xs.append(key)
        ys.append(mean)
        label = _point_label(group[0], [k for k in swept if k != "seed"]) or str(group[0]["point_id"])
        seeds = f" (mean of {len(values)} seeds)" if len(values) > 1 else ""
        hover.append(f"{escape(label)}<br>{escape(column)} = {fmt(mean)}{seeds}")
        urls.append(links.get(str(group[0]["point_id"]), ""))
    return xs, ys, hover, urls
