"""The page of one run: scenario, headline figures, latency CDFs, the time series, utilisation,
flash/FTL counters, and a section for each optional model whose report block is present."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from html import escape
from typing import TYPE_CHECKING, Any

from ssdtwin.report.fields import lookup
from ssdtwin.report.figure import PALETTE, Figure, Line, Panel, log_ticks
from ssdtwin.report.html import _models, _placement, _sections
from ssdtwin.report.html._page import Page, cell, fmt, key_values, subtable, table
from ssdtwin.report.html._scenario import scenario_section
from ssdtwin.report.html._timeseries import POWER_LABELS, POWER_PARTS, timeseries_section

if TYPE_CHECKING:
    import pandas

OPS = ("read", "write", "all")
OP_COLOURS = {"read": PALETTE[0], "write": PALETTE[1], "all": "#555555"}
PERCENTILE_TICKS = (
    [1.0, 0.1, 0.01, 1e-3, 1e-4, 1e-5, 1e-6],
    ["0%", "90%", "99%", "99.9%", "99.99%", "99.999%", "99.9999%"],
)
"""The log tail axis: 1 - fraction on a log scale, labelled by percentile."""

KNOWN_FIELDS = {
    "ssdtwin_version",
    "seed",
    "host_ios",
    "simulated_time_s",
    "wall_time_s",
    "iops",
    "bandwidth_mib_s",
    "latency_us",
    "latency_cdf",
    "flash",
    "ftl",
    "waf",
    "queues",
    "suspend",
    "power_w",
    "energy_j",
    "simulator",
    "workload",
    "config",
    "thermal",
    "throttle",
    "reliability",
    "buffer",
    "read_cache",
    "plp",
    "power_loss",
    "mapping_cache",
    "slc_cache",
    "zns",
    "fdp",
    "warmup",
    "variability",
    "steady_state",
}
"""Report fields with a place on the page; any other block is shown under "Other report fields"."""

OPTIONAL_MODELS = (
    # (report block, section id, heading, the section's body)
    ("reliability", "reliability", "Reliability", _models.reliability),
    ("buffer", "buffer", "Write buffer", _models.buffer),
    ("read_cache", "read-cache", "Read cache", _models.read_cache),
    ("plp", "plp", "Power-loss protection", _models.plp),
    ("power_loss", "power-loss", "Power loss", _models.power_loss),
    ("slc_cache", "slc-cache", "SLC write cache", _models.slc_cache),
    ("zns", "zns", "Zoned namespace", _placement.zns),
    ("fdp", "fdp", "Flexible Data Placement", _placement.fdp),
)
"""Sections of optional models, each drawn when its block is in the report (which the core writes
only with the model on)."""


def run_page(
    report: Mapping[str, Any],
    timeseries: pandas.DataFrame | None,
    *,
    title: str | None = None,
    interactive: bool = True,
    static_fallback: bool = True,
    back_link: tuple[str, str] | None = None,
) -> str:
    """The HTML of one run's page (`report` is the report dict)."""
    config = report.get("config", {}) if isinstance(report.get("config"), Mapping) else {}
    drive = str(config.get("drive", "?"))
    page = Page(title or f"ssdtwin run: {drive}", interactive=interactive, static_fallback=static_fallback)
    subtitle = _subtitle(report, back_link)
    banner = _warnings_banner(report)

    page.add("scenario", "Scenario", scenario_section(config))
    page.add("summary", "Summary", _summary(report, config))
    page.add("latency", "Latency", _latency(page, report))
    page.add("timeseries", "Over time", timeseries_section(page, report, timeseries, back_link is not None))
    page.add("utilisation", "Utilisation", _sections.utilisation(report, timeseries))
    page.add("flash", "Flash and FTL", _sections.flash(report))
    if _sections.suspend_on(report, config):
        page.add("suspend", "Program/erase suspend", _sections.suspend(report))
    if isinstance(report.get("thermal"), Mapping):
        page.add("thermal", "Temperatures", _sections.thermal(report["thermal"]))
    throttle = report.get("throttle")
    if isinstance(throttle, Mapping) and throttle.get("policy", "none") != "none":
        page.add("throttle", "Throttling", _sections.throttle(throttle))
    if _sections.mapping_cache_on(report):
        page.add("mapping-cache", "Mapping cache", _models.mapping_cache(report))
    for block, section_id, heading, body in OPTIONAL_MODELS:
        if isinstance(report.get(block), Mapping):
            page.add(section_id, heading, body(report))
    page.add("workload", "Workload", _sections.workload(report))
    other = {
        name: value for name, value in report.items() if name not in KNOWN_FIELDS and name != "timeseries"
    }
    if other:
        page.add("other", "Other report fields", _sections.other(other))
    page.add("run", "Run", _sections.run_facts(report))
    return page.render(subtitle=subtitle, banner=banner, version=str(report.get("ssdtwin_version", "")))


# --------------------------------------------------------------------------------- header


def _subtitle(report: Mapping[str, Any], back_link: tuple[str, str] | None) -> str:
    parts = [
        f"seed {fmt(report.get('seed'))}",
        f"{fmt(report.get('host_ios'))} host I/Os",
        f"{fmt(report.get('simulated_time_s'), '{:.6g}')} s simulated",
        f"{fmt(report.get('wall_time_s'), '{:.3g}')} s wall time",
        f"ssdtwin {escape(str(report.get('ssdtwin_version', '?')))}",
    ]
    text = " &middot; ".join(escape(part) for part in parts)
    if back_link is not None:
        label, href = back_link
        text = f'<a href="{escape(href, quote=True)}">&larr; {escape(label)}</a> &middot; {text}'
    return text


def _warnings_banner(report: Mapping[str, Any]) -> str:
    workload = report.get("workload") if isinstance(report.get("workload"), Mapping) else {}
    warnings = list(workload.get("warnings", []) or [])
    skipped = workload.get("skipped_lines", 0) or 0
    if skipped:
        warnings.append(f"skipped {skipped:,} malformed trace lines (lenient)")
    if not warnings:
        return ""
    items = "".join(f"<li>{escape(str(warning))}</li>" for warning in warnings)
    return (
        f'<div class="warnings" id="warnings"><strong>{len(warnings)} warning'
        f"{'s' if len(warnings) != 1 else ''} from the workload reader</strong><ul>{items}</ul></div>"
    )


# --------------------------------------------------------------------------------- summary


def _summary(report: Mapping[str, Any], config: Mapping[str, Any]) -> str:
    headline = key_values(
        [
            ("IOPS", report.get("iops")),
            ("bandwidth [MiB/s]", report.get("bandwidth_mib_s")),
            ("host I/Os", report.get("host_ios")),
            ("simulated time [s]", report.get("simulated_time_s")),
            ("WAF", report.get("waf")),
            ("die utilisation", lookup(report, "queues.die_utilization")),
            ("head-of-line blocked admissions", lookup(report, "queues.hol_events")),
            ("host writes held for GC", lookup(report, "queues.gc_write_holds")),
        ],
        spec={
            "IOPS": "{:,.0f}",
            "bandwidth [MiB/s]": "{:,.1f}",
            "WAF": "{:.3f}",
            "die utilisation": "{:.1%}",
        },
    )
    parts = [f'<div class="tables"><div><h3>Headline</h3>{headline}</div>']
    steadiness = _sections.steadiness(report)
    if steadiness:
        parts.append(f"<div><h3>Steadiness</h3>{steadiness}</div>")
    power = _power_table(report, config)
    if power:
        parts.append(f"<div><h3>Power and energy</h3>{power}</div>")
    parts.append("</div>")
    parts.append(f"<h3>Latency [µs]</h3>{latency_table(report)}")
    return "".join(parts)


def latency_table(report: Mapping[str, Any]) -> str:
    """Count, mean, percentiles to p99.999 and max of each op, as the report has them."""
    latency = report.get("latency_us") if isinstance(report.get("latency_us"), Mapping) else {}
    fields: list[str] = []
    for op in OPS:
        for name in latency.get(op, {}) or {}:
            if name not in fields:
                fields.append(name)
    header = ["", *(_percentile_label(name) for name in fields)]
    rows = []
    for op in OPS:
        values = latency.get(op) or {}
        row = [f"<td>{op}</td>"]
        for name in fields:
            row.append(cell(values.get(name), "{:,}" if name == "count" else "{:,.1f}"))
        rows.append(row)
    return table(header, rows, css="latency")


def _percentile_label(name: str) -> str:
    """ "p99_99" -> "p99.99"."""
    return name.replace("_", ".") if re.fullmatch(r"p\d+(_\d+)?", name) else name


def _power_table(report: Mapping[str, Any], config: Mapping[str, Any]) -> str:
    power = report.get("power_w")
    if not isinstance(power, Mapping) or not subtable(config, "power").get("enabled", True):
        return ""
    energy = report.get("energy_j") if isinstance(report.get("energy_j"), Mapping) else {}
    header = ["", "average [W]", "peak [W]", "energy [J]"]
    rows = []
    for part in POWER_PARTS:
        peak = power.get(f"{part}_peak")
        rows.append(
            [
                f"<td>{POWER_LABELS[part]}</td>",
                cell(power.get(f"{part}_avg"), "{:.3f}"),
                cell(peak, "{:.3f}"),
                cell(energy.get(part), "{:.4g}"),
            ]
        )
    note = ""
    if power.get("nand_peak_window") is not None:
        note = (
            f'<p class="note">NAND peak averaged over the peak window: '
            f"{fmt(power.get('nand_peak_window'), '{:.3f}')} W.</p>"
        )
    return table(header, rows) + note


# --------------------------------------------------------------------------------- latency


def latency_figure(
    curves: Sequence[tuple[str, Mapping[str, Any]]], op: str | None, figure_id: str, title: str
) -> Figure:
    """Latency on a log x axis against the percentile on a log tail axis (1 - fraction, log,
    labelled 90%, 99%, … upwards). With `op`, one line per report (a comparison); without, one
    line per op of the single report in `curves`."""
    lines: list[Line] = []
    for index, (label, cdf) in enumerate(curves):
        pairs = [
            (float(value), float(share))
            for value, share in zip(
                cdf.get("latency_us", []) or [], cdf.get("fraction", []) or [], strict=False
            )
            if value is not None and share is not None and value > 0
        ]
        if not pairs:
            continue
        # From 0% at the fastest command up the tail; 1 - fraction = 0 (the slowest command) has no
        # place on a log axis, so the last step is held out to it instead.
        points = [(pairs[0][0], 1.0)] + [(value, 1.0 - share) for value, share in pairs if share < 1.0]
        if pairs[-1][1] >= 1.0 and pairs[-1][0] > points[-1][0]:
            points.append((pairs[-1][0], points[-1][1]))
        x, y = zip(*points, strict=True)
        hover = [f"{(1 - tail) * 100:.5g}% of commands ≤ {value:,.1f} µs" for value, tail in points]
        colour = OP_COLOURS.get(label) if op is None else PALETTE[index % len(PALETTE)]
        dash = op is None and label == "all"
        lines.append(
            Line(x, y, label, color=colour, step=True, dash=dash, hover=hover, markers=len(points) <= 2)
        )
    panel = Panel(
        "percentile (log tail)", lines, ylog=True, yreversed=True, yticks=PERCENTILE_TICKS, weight=1.6
    )
    ticks = log_ticks([value for line in lines for value in line.x])
    figure = Figure(figure_id, title, "latency [µs]", [panel], xlog=True)
    if ticks is not None:
        figure.xticks, figure.xticktext = ticks
    return figure


def _latency(page: Page, report: Mapping[str, Any]) -> str:
    cdf = report.get("latency_cdf")
    if not isinstance(cdf, Mapping):
        return (
            '<p class="note">The report has no <code>latency_cdf</code> (written by an older ssdtwin?).</p>'
        )
    curves = [(op, cdf[op]) for op in OPS if isinstance(cdf.get(op), Mapping)]
    figure = latency_figure(curves, None, "latency", "Latency distribution per op (log tail axis)")
    html = page.figure(figure)
    if not html:
        return '<p class="note">No command completed.</p>'
    return html + (
        '<p class="note">Each line is the share of commands at or below a latency; the vertical axis is '
        "1 - that share on a log scale, so each step up is another nine (99%, 99.9%, …). Each line ends at "
        "the slowest command.</p>"
    )
