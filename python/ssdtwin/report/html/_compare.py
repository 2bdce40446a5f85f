"""The page of several runs compared: headline figures side by side, the scenario keys that
differ, and each op's latency CDFs together."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from ssdtwin.report.fields import lookup
from ssdtwin.report.html._page import Page, cell, table
from ssdtwin.report.html._run import OPS, latency_figure
from ssdtwin.report.html._scenario import config_text, scenario_brief

HEADLINE = (
    # (label, dotted report field, format)
    ("IOPS", "iops", "{:,.0f}"),
    ("bandwidth [MiB/s]", "bandwidth_mib_s", "{:,.1f}"),
    ("host I/Os", "host_ios", "{:,}"),
    ("simulated time [s]", "simulated_time_s", "{:.6g}"),
    ("WAF", "waf", "{:.3f}"),
    ("die utilisation", "queues.die_utilization", "{:.1%}"),
    ("latency mean [µs]", "latency_us.all.mean", "{:,.1f}"),
    ("latency p50 [µs]", "latency_us.all.p50", "{:,.1f}"),
    ("latency p99 [µs]", "latency_us.all.p99", "{:,.1f}"),
    ("latency p99.99 [µs]", "latency_us.all.p99_99", "{:,.1f}"),
    ("latency p99.999 [µs]", "latency_us.all.p99_999", "{:,.1f}"),
    ("latency max [µs]", "latency_us.all.max", "{:,.1f}"),
    ("read p99 [µs]", "latency_us.read.p99", "{:,.1f}"),
    ("read p99.99 [µs]", "latency_us.read.p99_99", "{:,.1f}"),
    ("write p99 [µs]", "latency_us.write.p99", "{:,.1f}"),
    ("write p99.99 [µs]", "latency_us.write.p99_99", "{:,.1f}"),
    ("power average [W]", "power_w.total_avg", "{:.3f}"),
    ("power peak [W]", "power_w.total_peak", "{:.3f}"),
    ("energy [J]", "energy_j.total", "{:.4g}"),
    ("composite max [°C]", "thermal.composite_max_c", "{:.1f}"),
    ("time throttled [s]", "throttle.time_s", "{:.6g}"),
)
"""The figures compared across runs and listed in a sweep's table (those a report has)."""


def compare_page(reports: Sequence[tuple[str, Mapping[str, Any]]], *, title: str | None = None) -> str:
    """Several runs side by side: headline figures, the scenario keys that differ, and each op's
    latency CDFs on one plot."""
    labels = [label for label, _ in reports]
    page = Page(title or f"ssdtwin: {len(reports)} runs compared")
    page.add("runs", "Headline figures", _headline_table(reports))
    page.add("differences", "Scenario differences", _differences(reports))
    figures = []
    for op in OPS:
        curves = [
            (label, report["latency_cdf"][op])
            for label, report in reports
            if isinstance(report.get("latency_cdf"), Mapping)
            and isinstance(report["latency_cdf"].get(op), Mapping)
        ]
        figures.append(
            page.figure(latency_figure(curves, op, f"latency-{op}", f"{op} latency (log tail axis)"))
        )
    page.add("latency", "Latency", "".join(figures) or '<p class="note">No latency CDF in these reports.</p>')
    details = []
    for label, report in reports:
        config = report.get("config") if isinstance(report.get("config"), Mapping) else {}
        brief = "".join(
            f"<dt>{escape(name)}</dt><dd>{escape(text)}</dd>" for name, text in scenario_brief(config)
        )
        details.append(
            f"<details><summary>{escape(label)}</summary><dl class='brief'>{brief}</dl>"
            f"<pre>{escape(config_text(config))}</pre></details>"
        )
    page.add("scenarios", "Scenarios", "".join(details))
    versions = sorted({str(report.get("ssdtwin_version", "")) for _, report in reports})
    subtitle = escape(", ".join(labels))
    return page.render(subtitle=subtitle, version=", ".join(versions))


def _headline_table(reports: Sequence[tuple[str, Mapping[str, Any]]]) -> str:
    header = ["", *(label for label, _ in reports)]
    rows = [
        ["<td>drive</td>", *(cell(lookup(report, "config.drive")) for _, report in reports)],
        ["<td>seed</td>", *(cell(report.get("seed")) for _, report in reports)],
    ]
    for label, path, spec in HEADLINE:
        values = [lookup(report, path) for _, report in reports]
        if all(value is None for value in values):
            continue
        rows.append([f"<td>{escape(label)}</td>", *(cell(value, spec) for value in values)])
    return f'<div class="scroll">{table(header, rows)}</div>'


def _differences(reports: Sequence[tuple[str, Mapping[str, Any]]]) -> str:
    flats = []
    for _, report in reports:
        config = report.get("config") if isinstance(report.get("config"), Mapping) else {}
        flats.append(dict(_flat(config)))
    keys: list[str] = []
    for flat in flats:
        keys.extend(key for key in flat if key not in keys)
    differing = [key for key in keys if len({repr(flat.get(key)) for flat in flats}) > 1]
    if not differing:
        return '<p class="note">The runs have the same resolved scenario (seeds included).</p>'
    header = ["key", *(label for label, _ in reports)]
    rows = [
        [f"<td><code>{escape(key)}</code></td>", *(cell(_short(flat.get(key))) for flat in flats)]
        for key in differing
    ]
    return f'<div class="scroll">{table(header, rows)}</div>'


def _flat(data: Mapping[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    pairs: list[tuple[str, Any]] = []
    for name, value in data.items():
        if isinstance(value, Mapping):
            pairs.extend(_flat(value, f"{prefix}{name}."))
        else:
            pairs.append((f"{prefix}{name}", value))
    return pairs


def _short(value: Any) -> Any:
    if isinstance(value, list):
        text = ", ".join(str(item) for item in value)
        return text if len(text) < 80 else text[:77] + "..."
    return value
