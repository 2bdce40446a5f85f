"""The page of one run: scenario, headline figures, latency CDFs, the time series, utilisation,
flash/FTL counters, and a section for each optional model whose report block is present."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from html import escape
from typing import TYPE_CHECKING, Any

import numpy

from ssdtwin.html import _models
from ssdtwin.html._figures import (
    MAX_HEATMAP_CELLS,
    PALETTE,
    Figure,
    Heatmap,
    Line,
    Panel,
    Span,
    bucket_means,
    decimate,
    log_ticks,
)
from ssdtwin.html._page import Page, cell, fmt, generic_block, key_values, table
from ssdtwin.report import lookup

if TYPE_CHECKING:
    import pandas

OPS = ("read", "write", "all")
OP_COLOURS = {"read": PALETTE[0], "write": PALETTE[1], "all": "#555555"}
PERCENTILE_TICKS = (
    [1.0, 0.1, 0.01, 1e-3, 1e-4, 1e-5, 1e-6],
    ["0%", "90%", "99%", "99.9%", "99.99%", "99.999%", "99.9999%"],
)
"""The log tail axis: 1 - fraction on a log scale, labelled by percentile."""

POWER_PARTS = ("nand", "io_bus", "controller", "dram", "other", "total")
POWER_LABELS = {
    "nand": "NAND",
    "io_bus": "I/O bus",
    "controller": "controller",
    "dram": "DRAM",
    "other": "other",
    "total": "total (input)",
}
THROTTLE_SHADES = {1: ("throttled: light", "#ff7f0e"), 2: ("throttled: heavy", "#d62728")}
HEATMAP_PREFIXES = {"die_util.": "die", "channel_util.": "channel"}
"""Time-series columns drawn as a heatmap (one row per die or channel), when the series has them."""

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
    "plp",
    "power_loss",
    "mapping_cache",
}
"""Report fields with a place on the page; any other block is shown under "Other report fields"."""

OPTIONAL_MODELS = (
    # (report block, section id, heading, the section's body)
    ("reliability", "reliability", "Reliability", _models.reliability),
    ("buffer", "buffer", "Write buffer", _models.buffer),
    ("plp", "plp", "Power-loss protection", _models.plp),
    ("power_loss", "power-loss", "Power loss", _models.power_loss),
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

    page.add("scenario", "Scenario", _scenario(config))
    page.add("summary", "Summary", _summary(report, config))
    page.add("latency", "Latency", _latency(page, report))
    page.add("timeseries", "Over time", _timeseries_section(page, report, timeseries, back_link is not None))
    page.add("utilisation", "Utilisation", _utilisation(report, timeseries))
    page.add("flash", "Flash and FTL", _flash(report))
    if _suspend_on(report, config):
        page.add("suspend", "Program/erase suspend", _suspend(report))
    if isinstance(report.get("thermal"), Mapping):
        page.add("thermal", "Temperatures", _thermal(report["thermal"]))
    throttle = report.get("throttle")
    if isinstance(throttle, Mapping) and throttle.get("policy", "none") != "none":
        page.add("throttle", "Throttling", _throttle(throttle))
    if _mapping_cache_on(report):
        page.add("mapping-cache", "Mapping cache", _models.mapping_cache(report))
    for block, section_id, heading, body in OPTIONAL_MODELS:
        if isinstance(report.get(block), Mapping):
            page.add(section_id, heading, body(report))
    page.add("workload", "Workload", _workload(report))
    other = {
        name: value for name, value in report.items() if name not in KNOWN_FIELDS and name != "timeseries"
    }
    if other:
        page.add("other", "Other report fields", _other(other))
    page.add("run", "Run", _run_facts(report))
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


# --------------------------------------------------------------------------------- scenario


def scenario_brief(config: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The scenario in a few lines: (label, text)."""
    lines: list[tuple[str, str]] = [("drive", str(config.get("drive", "?")))]
    flash = _table(config, "flash")
    if flash:
        geometry = " x ".join(
            _count(flash.get(key), noun)
            for key, noun in [
                ("channels", "channel"),
                ("chips_per_channel", "chip"),
                ("dies_per_chip", "die"),
                ("planes_per_die", "plane"),
            ]
        )
        pages = f"{flash.get('blocks_per_plane', '?')} blocks of {flash.get('pages_per_block', '?')} x "
        pages += f"{flash.get('page_size', '?')} pages"
        raw = _raw_capacity(flash)
        cell_kind = str(flash.get("cell", "?")).upper()
        lines.append(("flash", f"{geometry}; {pages}, {cell_kind}{f' ({raw} raw)' if raw else ''}"))
        timing = f"tREAD {_value(flash.get('t_read'))}, tPROG {_value(flash.get('t_program'))}, "
        timing += f"tERS {_value(flash.get('t_erase'))}, bus {flash.get('bus_rate', '?')}"
        lines.append(("timing", timing))
    ftl = _table(config, "ftl")
    if ftl:
        text = f"{ftl.get('mapping', '?')} mapping, {ftl.get('mapping_unit', '?')} units, "
        text += f"over-provisioning {_percent(ftl.get('over_provisioning'))}, GC {ftl.get('gc_policy', '?')} "
        text += f"below {_percent(ftl.get('gc_threshold'))} free blocks"
        lines.append(("FTL", text))
    host = _table(config, "host")
    if host:
        if host.get("mode") == "open":
            loop = f"open loop at {fmt(host.get('arrival_rate'))} commands/s"
        else:
            loop = f"closed loop at queue depth {host.get('queue_depth', '?')}"
        lines.append(
            ("host", f"{loop}, PCIe gen{host.get('pcie_generation', '?')} x{host.get('pcie_lanes', '?')}")
        )
    controller = _table(config, "controller")
    if controller:
        text = f"frame buffer {controller.get('frame_buffer', '?')}, die queues of "
        text += f"{controller.get('die_queue_depth', '?')}, {controller.get('scheduler', '?')} scheduler"
        lines.append(("controller", text))
    workload = _table(config, "workload")
    if workload:
        lines.append(("workload", _workload_brief(workload)))
    suspend = _table(_table(config, "flash"), "suspend")
    if suspend:
        on = [name for name in ("program", "erase") if suspend.get(name)]
        lines.append(("suspend", f"{' and '.join(on)} suspend on" if on else "off"))
    power = _table(config, "power")
    if power:
        text = "on" if power.get("enabled", True) else "off"
        if power.get("enabled", True):
            text += f", sampled every {power.get('sample_interval', '?')}"
        lines.append(("power model", text))
    thermal = _table(config, "thermal")
    if thermal:
        text = "off"
        if thermal.get("enabled"):
            text = f"on, ambient {fmt(thermal.get('ambient_c'))} °C, start {thermal.get('initial', '?')}"
            throttle = _table(config, "throttle")
            text += f"; throttling {throttle.get('policy', 'none')}"
        lines.append(("thermal model", text))
    models = [
        ("reliability model", _table(config, "reliability"), "enabled", "on"),
        ("write buffer", _table(config, "buffer"), "capacity", ""),
        ("mapping table", _table(config, "ftl"), "mapping_cache", ""),
        ("power-loss protection", _table(config, "plp"), "enabled", "on"),
        ("power cuts at", _table(config, "power_loss"), "at", ""),
    ]
    for label, settings, key, word in models:
        if key not in settings:
            continue
        value = settings[key]
        if isinstance(value, bool):
            lines.append((label, word if value else "off"))
        elif isinstance(value, list):
            lines.append((label, ", ".join(str(item) for item in value) if value else "none"))
        elif key == "capacity" and str(value).strip("0KMGiB ") == "":
            lines.append((label, "off"))
        else:
            lines.append((label, str(value)))
    return lines


def _workload_brief(workload: Mapping[str, Any]) -> str:
    kind = workload.get("kind", "?")
    amount = ""
    if workload.get("io_count"):
        amount = f"{fmt(workload.get('io_count'))} I/Os"
    elif workload.get("duration") not in (None, "0us", "0s"):
        amount = f"{workload.get('duration')} simulated"
    precondition = f"precondition {workload.get('precondition', '?')}"
    if kind == "synthetic":
        size = workload.get("block_size", "?")
        if workload.get("bssplit"):
            size = ", ".join(f"{share:.0%} {block}" for block, share in workload["bssplit"])
        text = f"synthetic {workload.get('pattern', '?')} {size}, {_percent(workload.get('read_fraction'))} "
        text += (
            f"reads, {workload.get('distribution', '?')} over {_percent(workload.get('span'))} of the space"
        )
    elif kind == "trace":
        trace = _table(workload, "trace")
        text = f"{trace.get('format', '?')} trace {trace.get('path', '')} ({trace.get('replay', '?')} replay)"
    elif kind == "fio":
        text = f"fio job file {_table(workload, 'fio').get('job', '')}"
    elif kind == "iiot":
        iiot = _table(workload, "iiot")
        text = f"IIoT: {iiot.get('sensors', '?')} sensors at {fmt(iiot.get('record_rate'))} records/s, "
        text += f"{iiot.get('writers', '?')} writers, queries at {fmt(iiot.get('query_rate'))}/s"
    else:
        text = str(kind)
    return ", ".join(part for part in (text, amount, precondition) if part)


def _scenario(config: Mapping[str, Any]) -> str:
    brief = "".join(
        f"<dt>{escape(label)}</dt><dd>{escape(text)}</dd>" for label, text in scenario_brief(config)
    )
    return (
        f'<dl class="brief">{brief}</dl>'
        f"<details><summary>The full scenario (every key, as resolved)</summary>"
        f"<pre>{escape(config_text(config))}</pre></details>"
    )


def config_text(config: Mapping[str, Any]) -> str:
    """The resolved scenario as TOML (JSON if it has no TOML form)."""
    try:
        import tomli_w

        return tomli_w.dumps(_without_none(config))
    except (TypeError, ValueError):
        return json.dumps(config, indent=2)


def _without_none(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {key: _without_none(item) for key, item in value.items() if item is not None}
    if isinstance(value, list):
        return [_without_none(item) for item in value]
    return value


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
            ("HoL events", lookup(report, "queues.hol_events")),
        ],
        spec={
            "IOPS": "{:,.0f}",
            "bandwidth [MiB/s]": "{:,.1f}",
            "WAF": "{:.3f}",
            "die utilisation": "{:.1%}",
        },
    )
    parts = [f'<div class="tables"><div><h3>Headline</h3>{headline}</div>']
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
    if not isinstance(power, Mapping) or not _table(config, "power").get("enabled", True):
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


# --------------------------------------------------------------------------------- time series


def timeseries_figure(frame: pandas.DataFrame, figure_id: str = "timeseries") -> Figure | None:
    """IOPS, bandwidth, power per component, temperatures, throttle state and per-die/channel
    utilisation (when the series has `die_util.<i>` / `channel_util.<i>` columns) over one time
    axis; throttled periods shaded over every panel. Other numeric columns get a panel per prefix."""
    if frame is None or frame.empty or "time_s" not in frame.columns:
        return None
    starts = frame["time_s"].to_numpy(dtype=float)
    ends = _interval_ends(starts)
    used = {"time_s"}
    panels: list[Panel] = []

    def series(column: str) -> numpy.ndarray:
        used.add(column)
        return frame[column].to_numpy(dtype=float)

    def step_line(column: str, name: str, colour: str | None = None, width: float = 1.5) -> Line:
        # A rate holds over its interval: drawn as a step from the interval's start to its end.
        x = numpy.append(starts, ends[-1])
        values = series(column)
        y = numpy.append(values, values[-1])
        x, y = decimate(x, y)
        return Line(x, y, name, color=colour, step=True, width=width)

    if "iops" in frame.columns:
        panels.append(Panel("IOPS", [step_line("iops", "IOPS", PALETTE[0])]))
    if "bandwidth_mib_s" in frame.columns:
        panels.append(Panel("MiB/s", [step_line("bandwidth_mib_s", "bandwidth", PALETTE[2])]))
    power_columns = [f"power_w.{part}" for part in POWER_PARTS if f"power_w.{part}" in frame.columns]
    power_columns += [c for c in frame.columns if c.startswith("power_w.") and c not in power_columns]
    if power_columns and any(numpy.nanmax(numpy.abs(series(c)), initial=0.0) > 0 for c in power_columns):
        lines = []
        for index, column in enumerate(power_columns):
            part = column.split(".", 1)[1]
            total = part == "total"
            colour = "#222222" if total else PALETTE[index % len(PALETTE)]
            lines.append(step_line(column, POWER_LABELS.get(part, part), colour, 2.0 if total else 1.3))
        panels.append(Panel("power [W]", lines, weight=1.3))
    else:
        used.update(power_columns)
    temperatures = [c for c in frame.columns if c.startswith("temp_c.")]
    if temperatures:
        lines = []
        for index, column in enumerate(temperatures):
            x, y = decimate(ends, series(column))
            lines.append(Line(x, y, column.split(".", 1)[1], color=PALETTE[index % len(PALETTE)]))
        panels.append(Panel("temperature [°C]", lines, weight=1.4))
    spans: list[Span] = []
    if "throttle_state" in frame.columns:
        states = numpy.nan_to_num(series("throttle_state")).round().astype(int)
        x, y = decimate(numpy.append(starts, ends[-1]), numpy.append(states, states[-1]).astype(float))
        panels.append(
            Panel(
                "throttle",
                [Line(x, y, "throttle state", color="#d62728", step=True)],
                yticks=([0, 1, 2], ["off", "light", "heavy"]),
                yrange=(-0.2, 2.2),
                weight=0.55,
            )
        )
        for state, start, end in _runs(states, starts, ends):
            label, colour = THROTTLE_SHADES.get(state, (f"throttle state {state}", "#9467bd"))
            spans.append(Span(start, end, colour, label))
    if "reliability.rber_mean" in frame.columns:
        # The mean raw bit error rate of the pages read in each interval (none read: a gap); it
        # spans decades as the drive wears and ages, so the axis is logarithmic.
        rber = series("reliability.rber_mean")
        x, y = decimate(ends, numpy.where(rber > 0, rber, numpy.nan))
        panels.append(Panel("RBER", [Line(x, y, "RBER mean", color=PALETTE[4])], ylog=True, weight=0.8))
    for prefix, noun in HEATMAP_PREFIXES.items():
        columns = sorted(
            (c for c in frame.columns if c.startswith(prefix) and c[len(prefix) :].isdigit()),
            key=lambda c: int(c[len(prefix) :]),
        )
        if not columns:
            continue
        rows = numpy.vstack([series(column) for column in columns])
        buckets = max(50, min(1000, MAX_HEATMAP_CELLS // len(columns)))
        x, z = bucket_means((starts + ends) / 2, rows, buckets)
        names = [f"{noun} {column[len(prefix) :]}" for column in columns]
        heatmap = Heatmap(x, names, z, f"{noun} busy")
        panels.append(Panel(f"{noun} utilisation", [heatmap], weight=min(2.5, 0.6 + len(columns) / 24)))
    groups: dict[str, list[str]] = {}
    for column in frame.columns:
        if column in used or not _numeric(frame[column]):
            continue
        groups.setdefault(column.split(".", 1)[0], []).append(column)
    for prefix, columns in groups.items():
        lines = []
        for index, column in enumerate(columns):
            label = column.split(".", 1)[1] if "." in column else column
            x, y = decimate(starts, series(column))
            lines.append(Line(x, y, label, color=PALETTE[index % len(PALETTE)]))
        panels.append(Panel(prefix, lines))
    if not panels:
        return None
    names = [panel.ylabel.split(" [", 1)[0] for panel in panels]
    title = "Over simulated time: " + ", ".join(names) + (" (shaded: throttled)" if spans else "")
    return Figure(figure_id, title, "simulated time [s]", panels, spans=spans, panel_height=170)


def _timeseries_section(
    page: Page, report: Mapping[str, Any], frame: pandas.DataFrame | None, sweep_point: bool = False
) -> str:
    figure = timeseries_figure(frame) if frame is not None else None
    if figure is None and sweep_point:
        return '<p class="note">No time series: a sweep stores each point\'s report, not its series.</p>'
    if figure is None:
        interval = lookup(report, "config.power.sample_interval")
        return (
            '<p class="note">No time series here. <code>ssdtwin run --html</code> includes it; for a '
            "saved report, give the series with <code>ssdtwin report RUN.json --timeseries FILE.parquet"
            "</code> (written by <code>ssdtwin run --timeseries</code>). It is sampled every "
            f"<code>power.sample_interval</code> ({escape(str(interval))}; 0 turns it off).</p>"
        )
    rows = len(frame) if frame is not None else 0
    thinned = any(
        isinstance(trace, Line) and len(trace.x) < rows for panel in figure.panels for trace in panel.traces
    )
    note = (
        f'<p class="note">{rows:,} intervals. Drag to zoom (all panels follow), double-click to reset. '
        "Rates hold over their interval; temperatures are at the interval's end."
    )
    if thinned:
        note += (
            " Long lines are thinned to at most 2,000 points, keeping each bucket's lowest and "
            "highest value, so no peak is lost."
        )
    if figure.spans:
        note += " Shaded: throttled periods."
    return page.figure(figure) + note + "</p>"


def _interval_ends(starts: numpy.ndarray) -> numpy.ndarray:
    if len(starts) == 0:
        return starts
    last_step = starts[-1] - starts[-2] if len(starts) > 1 else 0.0
    return numpy.append(starts[1:], starts[-1] + last_step)


def _runs(
    states: numpy.ndarray, starts: numpy.ndarray, ends: numpy.ndarray
) -> list[tuple[int, float, float]]:
    """(state, start, end) of each run of consecutive rows in one throttle state above 0."""
    if len(states) == 0:
        return []
    change = numpy.flatnonzero(numpy.diff(states)) + 1
    run_starts = numpy.concatenate([[0], change])
    run_ends = numpy.concatenate([change, [len(states)]]) - 1
    return [
        (int(states[first]), float(starts[first]), float(ends[last]))
        for first, last in zip(run_starts, run_ends, strict=True)
        if states[first] > 0
    ]


def _numeric(column: Any) -> bool:
    import pandas

    return bool(pandas.api.types.is_numeric_dtype(column) and not pandas.api.types.is_bool_dtype(column))


# --------------------------------------------------------------------------------- counters


def _utilisation(report: Mapping[str, Any], frame: pandas.DataFrame | None) -> str:
    queues = report.get("queues") if isinstance(report.get("queues"), Mapping) else {}
    rows = []
    for name, value in queues.items():
        if name.endswith("utilization") or name.endswith("utilisation"):
            meter = ""
            if isinstance(value, int | float):
                share = min(1.0, max(0.0, float(value)))
                meter = f'<span class="meter"><span style="width:{share * 100:.1f}%"></span></span>'
            label = name.replace("_", " ")
            rows.append([f"<td>{escape(label)}</td>", f"<td>{escape(fmt(value, '{:.1%}'))}{meter}</td>"])
    others = [(name.replace("_", " "), value) for name, value in queues.items() if "utili" not in name]
    html = table(None, rows, css="kv") if rows else ""
    if others:
        html += key_values(others)
    has_heatmap = frame is not None and any(
        str(column).startswith(prefix) for column in frame.columns for prefix in HEATMAP_PREFIXES
    )
    if has_heatmap:
        html += (
            '<p class="note">Per-die and per-channel utilisation over time: the heatmap in "Over time".</p>'
        )
    else:
        html += (
            '<p class="note">The share of die time spent on operations over the whole run (including '
            "waiting for the channel). The time series has no per-die or per-channel columns, so there is "
            "no heatmap over time.</p>"
        )
    return html


def _flash(report: Mapping[str, Any]) -> str:
    flash = report.get("flash") if isinstance(report.get("flash"), Mapping) else {}
    ftl = report.get("ftl") if isinstance(report.get("ftl"), Mapping) else {}
    parts = ['<div class="tables">']
    if flash:
        pairs = [(name.replace("_", " "), value) for name, value in flash.items()]
        parts.append(f"<div><h3>Flash operations</h3>{key_values(pairs)}</div>")
    gc = [
        ("GC page reads", flash.get("gc_reads")),
        ("GC page programs", flash.get("gc_programs")),
        ("GC erases", lookup(ftl, "erases.gc")),
        ("valid page copies", ftl.get("valid_page_copies")),
        ("WAF", report.get("waf")),
    ]
    parts.append(f"<div><h3>Garbage collection</h3>{key_values(gc, {'WAF': '{:.3f}'})}</div>")
    rest = [
        (key.replace("_", " "), value)
        for key, value in _leaves(ftl)
        if key not in ("valid_page_copies", "erases.gc")
    ]
    if rest:
        parts.append(f"<div><h3>FTL</h3>{key_values(rest)}</div>")
    parts.append("</div>")
    return "".join(parts)


def _suspend_on(report: Mapping[str, Any], config: Mapping[str, Any]) -> bool:
    settings = _table(_table(config, "flash"), "suspend")
    suspend = report.get("suspend") if isinstance(report.get("suspend"), Mapping) else {}
    counted = any(isinstance(suspend.get(k), int | float) and suspend.get(k) for k in ("program", "erase"))
    return bool(settings.get("program") or settings.get("erase") or counted)


def _suspend(report: Mapping[str, Any]) -> str:
    suspend = report.get("suspend") if isinstance(report.get("suspend"), Mapping) else {}
    facts = key_values(
        [
            ("program suspensions", suspend.get("program")),
            ("erase suspensions", suspend.get("erase")),
            ("mean program time [µs]", suspend.get("mean_program_time_us")),
            ("mean erase time [µs]", suspend.get("mean_erase_time_us")),
        ],
        {"mean program time [µs]": "{:,.1f}", "mean erase time [µs]": "{:,.1f}"},
    )
    histograms = []
    for key, noun in (("per_program", "programs"), ("per_erase", "erases")):
        counts = suspend.get(key) or []
        if counts:
            rows = [[cell(times), cell(count)] for times, count in enumerate(counts)]
            histograms.append(
                f"<div><h3>{noun.capitalize()} by suspensions</h3>{table(['suspensions', noun], rows)}</div>"
            )
    return f'<div class="tables"><div>{facts}</div>{"".join(histograms)}</div>'


def _thermal(thermal: Mapping[str, Any]) -> str:
    maxima = thermal.get("max_c") or {}
    finals = thermal.get("final_c") or {}
    rows = [
        [f"<td>{escape(node)}</td>", cell(maxima.get(node), "{:.1f}"), cell(finals.get(node), "{:.1f}")]
        for node in dict.fromkeys([*maxima, *finals])
    ]
    rows.append(
        [
            "<td><strong>composite</strong></td>",
            cell(thermal.get("composite_max_c"), "{:.1f}"),
            cell(thermal.get("composite_final_c"), "{:.1f}"),
        ]
    )
    nodes = table(["node", "max [°C]", "final [°C]"], rows)
    above = thermal.get("time_above_s") or {}
    above_rows = [
        [f"<td>{escape(str(threshold))} °C</td>", cell(above[threshold], "{:.6g}")] for threshold in above
    ]
    energy = key_values(
        [
            ("heat received [J]", thermal.get("energy_in_j")),
            ("stored above ambient [J]", thermal.get("energy_stored_j")),
            ("given to ambient [J]", thermal.get("energy_to_ambient_j")),
            (
                "time constants [s]",
                ", ".join(f"{value:.3g}" for value in thermal.get("time_constants_s", []) or []),
            ),
        ]
    )
    known = {"max_c", "final_c", "composite_max_c", "composite_final_c", "time_above_s"}
    known |= {"energy_in_j", "energy_stored_j", "energy_to_ambient_j", "time_constants_s"}
    extra = {name: value for name, value in thermal.items() if name not in known}
    parts = [
        '<div class="tables">',
        f"<div><h3>Per node</h3>{nodes}</div>",
        f"<div><h3>Composite at or above</h3>{table(['threshold', 'time [s]'], above_rows)}</div>"
        if above_rows
        else "",
        f"<div><h3>Heat</h3>{energy}</div>",
        f"<div><h3>More</h3>{generic_block(extra)}</div>" if extra else "",
        "</div>",
    ]
    return "".join(parts)


def _throttle(throttle: Mapping[str, Any]) -> str:
    facts = key_values(
        [
            ("policy", throttle.get("policy")),
            ("events (upward transitions)", throttle.get("events")),
            ("time throttled [s]", throttle.get("time_s")),
        ],
        {"time throttled [s]": "{:.6g}"},
    )
    times = throttle.get("state_time_s") or {}
    entries = throttle.get("entries") or {}
    rows = [
        [f"<td>{escape(state)}</td>", cell(times.get(state), "{:.6g}"), cell(entries.get(state))]
        for state in dict.fromkeys(["off", "light", "heavy", *times, *entries])
    ]
    transitions = throttle.get("transitions") or []
    listed = ""
    if transitions:
        items = "".join(
            f"<tr>{cell(item[0], '{:.6g}')}<td class='text'>{escape(str(item[1]))}</td></tr>"
            for item in transitions[:1000]
            if isinstance(item, list | tuple) and len(item) == 2
        )
        listed = (
            f"<details><summary>{len(transitions):,} state changes</summary>"
            f'<div class="scroll"><table><thead><tr><th>time [s]</th><th class="text">state</th></tr>'
            f"</thead><tbody>{items}</tbody></table></div></details>"
        )
    return (
        f'<div class="tables"><div>{facts}</div><div>'
        f"{table(['state', 'time [s]', 'entries'], rows)}</div></div>{listed}"
    )


def _mapping_cache_on(report: Mapping[str, Any]) -> bool:
    reads = lookup(report, "flash.mapping_reads")
    return isinstance(report.get("mapping_cache"), Mapping) or bool(
        isinstance(reads, int | float) and reads > 0
    )


def _workload(report: Mapping[str, Any]) -> str:
    workload = report.get("workload") if isinstance(report.get("workload"), Mapping) else {}
    warnings = workload.get("warnings") or []
    parts = []
    if warnings:
        items = "".join(f"<li>{escape(str(warning))}</li>" for warning in warnings)
        parts.append(f'<div class="warnings"><strong>Warnings</strong><ul>{items}</ul></div>')
    else:
        parts.append('<p class="note">No warnings from the workload reader.</p>')
    if workload.get("skipped_lines"):
        parts.append(f"<p>Skipped {fmt(workload['skipped_lines'])} malformed trace lines (lenient).</p>")
    jobs = [job for job in workload.get("jobs", []) or [] if isinstance(job, Mapping)]
    if jobs:
        rows = []
        for job in jobs:
            for op in ("read", "write"):
                result = job.get(op)
                if not isinstance(result, Mapping) or not result.get("total_ios"):
                    continue
                latency = result.get("lat_ns") or {}
                rows.append(
                    [
                        f"<td>{escape(str(job.get('name', '?')))}</td>",
                        f"<td class='text'>{op}</td>",
                        cell(job.get("queue_depth")),
                        cell(result.get("total_ios")),
                        cell(result.get("iops"), "{:,.0f}"),
                        cell(_kib_to_mib(result.get("bw")), "{:,.1f}"),
                        cell(_ns_to_us(latency.get("mean")), "{:,.1f}"),
                        cell(_ns_to_us(latency.get("max")), "{:,.1f}"),
                        cell(job.get("runtime_ms")),
                    ]
                )
        header = ["job", "op", "QD", "I/Os", "IOPS", "MiB/s", "mean [µs]", "max [µs]", "runtime [ms]"]
        parts.append(f"<h3>Jobs</h3>{table(header, rows)}")
    return "".join(parts)


def _other(blocks: Mapping[str, Any]) -> str:
    parts = ['<p class="note">Fields of the report this page has no section for, as they are.</p>']
    scalars = [(name, value) for name, value in blocks.items() if not isinstance(value, Mapping)]
    if scalars:
        parts.append(key_values(scalars))
    for name, value in blocks.items():
        if isinstance(value, Mapping):
            parts.append(f"<h3>{escape(name)}</h3>{generic_block(value)}")
    return "".join(parts)


def _run_facts(report: Mapping[str, Any]) -> str:
    pairs = [
        ("ssdtwin version", report.get("ssdtwin_version")),
        ("seed", report.get("seed")),
        ("wall time [s]", report.get("wall_time_s")),
    ]
    simulator = report.get("simulator") if isinstance(report.get("simulator"), Mapping) else {}
    pairs += [(name.replace("_", " "), value) for name, value in simulator.items()]
    return key_values(pairs)


# --------------------------------------------------------------------------------- helpers


def _table(config: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    value = config.get(name) if isinstance(config, Mapping) else None
    return value if isinstance(value, Mapping) else {}


def _leaves(data: Mapping[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    pairs: list[tuple[str, Any]] = []
    for name, value in data.items():
        if isinstance(value, Mapping):
            pairs.extend(_leaves(value, f"{prefix}{name}."))
        elif not isinstance(value, list):
            pairs.append((f"{prefix}{name}", value))
    return pairs


def _count(value: Any, noun: str) -> str:
    """ "1 chip", "8 dies"."""
    if value is None:
        return f"? {noun}s"
    return f"{value} {noun}" if value == 1 else f"{value} {noun}s"


def _percent(value: Any) -> str:
    return f"{value:.0%}" if isinstance(value, int | float) else "?"


def _value(value: Any) -> str:
    if isinstance(value, list):
        return "/".join(str(item) for item in value)
    return str(value) if value is not None else "?"


def _kib_to_mib(value: Any) -> Any:
    return value / 1024 if isinstance(value, int | float) else None


def _ns_to_us(value: Any) -> Any:
    return value / 1000 if isinstance(value, int | float) else None


UNITS = {"B": 1, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "KB": 10**3, "MB": 10**6, "GB": 10**9}


def _raw_capacity(flash: Mapping[str, Any]) -> str:
    match = re.fullmatch(r"\s*([\d.]+)\s*([KMG]i?B|B)\s*", str(flash.get("page_size", "")))
    if not match or match.group(2) not in UNITS:
        return ""
    try:
        page = float(match.group(1)) * UNITS[match.group(2)]
        count = 1
        for key in ("channels", "chips_per_channel", "dies_per_chip", "planes_per_die"):
            count *= int(flash[key])
        count *= int(flash["blocks_per_plane"]) * int(flash["pages_per_block"])
    except (KeyError, TypeError, ValueError):
        return ""
    total = page * count
    for unit, size in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20)):
        if total >= size:
            return f"{total / size:.3g} {unit}"
    return f"{total / 2**10:.3g} KiB"
