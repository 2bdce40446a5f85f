"""The run page's sections of counters: utilisation, flash and FTL, suspend, temperatures,
throttling, the workload's jobs, report fields without a section, and the run's facts."""

from __future__ import annotations

from collections.abc import Mapping
from html import escape
from typing import TYPE_CHECKING, Any

from ssdtwin.report.fields import lookup
from ssdtwin.report.html._page import cell, fmt, generic_block, key_values, subtable, table
from ssdtwin.report.html._timeseries import HEATMAP_PREFIXES
from ssdtwin.report.steady import steady_line, variability_line, warmup_line

if TYPE_CHECKING:
    import pandas


def utilisation(report: Mapping[str, Any], frame: pandas.DataFrame | None) -> str:
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


def flash(report: Mapping[str, Any]) -> str:
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


def suspend_on(report: Mapping[str, Any], config: Mapping[str, Any]) -> bool:
    settings = subtable(subtable(config, "flash"), "suspend")
    suspend = report.get("suspend") if isinstance(report.get("suspend"), Mapping) else {}
    counted = any(isinstance(suspend.get(k), int | float) and suspend.get(k) for k in ("program", "erase"))
    return bool(settings.get("program") or settings.get("erase") or counted)


def suspend(report: Mapping[str, Any]) -> str:
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


def thermal(thermal: Mapping[str, Any]) -> str:
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


def throttle(throttle: Mapping[str, Any]) -> str:
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


def mapping_cache_on(report: Mapping[str, Any]) -> bool:
    reads = lookup(report, "flash.mapping_reads")
    return isinstance(report.get("mapping_cache"), Mapping) or bool(
        isinstance(reads, int | float) and reads > 0
    )


def workload(report: Mapping[str, Any]) -> str:
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
                percentiles = latency.get("percentile") or {}
                rows.append(
                    [
                        f"<td>{escape(str(job.get('name', '?')))}</td>",
                        f"<td class='text'>{op}</td>",
                        f"<td class='text'>{escape(str(job.get('priority') or '-'))}</td>",
                        cell(job.get("queue_depth")),
                        cell(result.get("total_ios")),
                        cell(result.get("iops"), "{:,.0f}"),
                        cell(_kib_to_mib(result.get("bw")), "{:,.1f}"),
                        cell(_ns_to_us(latency.get("mean")), "{:,.1f}"),
                        cell(_ns_to_us(percentiles.get("99.000000")), "{:,.1f}"),
                        cell(_ns_to_us(percentiles.get("99.990000")), "{:,.1f}"),
                        cell(_ns_to_us(latency.get("max")), "{:,.1f}"),
                        cell(job.get("slowdown"), "{:.3g}"),
                        cell(job.get("runtime_ms")),
                    ]
                )
        header = ["job", "op", "class", "QD", "I/Os", "IOPS", "MiB/s", "mean [µs]", "p99 [µs]", "p99.99 [µs]"]
        header += ["max [µs]", "slowdown", "runtime [ms]"]
        parts.append(f"<h3>Jobs (flows)</h3>{table(header, rows)}")
        fairness = workload.get("fairness")
        if isinstance(fairness, (int, float)):
            parts.append(
                f"<p>Fairness (min slowdown / max slowdown of the flows, MQSim's; 1 = fair): "
                f"{fmt(fairness, '{:.3g}')}</p>"
            )
    return "".join(parts)


def other(blocks: Mapping[str, Any]) -> str:
    parts = ['<p class="note">Fields of the report this page has no section for, as they are.</p>']
    scalars = [(name, value) for name, value in blocks.items() if not isinstance(value, Mapping)]
    if scalars:
        parts.append(key_values(scalars))
    for name, value in blocks.items():
        if isinstance(value, Mapping):
            parts.append(f"<h3>{escape(name)}</h3>{generic_block(value)}")
    return "".join(parts)


def steadiness(report: Mapping[str, Any]) -> str:
    """The warm-up, IOPS and bandwidth per window and the SNIA PTS steady-state check, as the text
    summary words them (`ssdtwin.report.steady`), with the figures behind them."""
    lines = [line for line in (warmup_line(report), variability_line(report), steady_line(report)) if line]
    if not lines:
        return ""
    bandwidth = lookup(report, "variability.bandwidth_mib_s")
    bandwidth = bandwidth if isinstance(bandwidth, Mapping) else {}
    state = report.get("steady_state") if isinstance(report.get("steady_state"), Mapping) else {}
    rounds = ", ".join(f"{value:,.0f}" for value in state.get("round_iops", []) or [])
    pairs = [
        ("bandwidth per window min [MiB/s]", bandwidth.get("min")),
        ("bandwidth per window max [MiB/s]", bandwidth.get("max")),
        ("bandwidth per window CV", bandwidth.get("cv")),
        ("IOPS of the last windows", rounds),
        ("criterion", state.get("criterion")),
    ]
    items = "".join(f"<li>{escape(line)}</li>" for line in lines)
    spec = {name: "{:,.1f}" for name, _ in pairs[:2]} | {"bandwidth per window CV": "{:.1%}"}
    return f'<ul class="steadiness">{items}</ul>{key_values(pairs, spec=spec)}'


def run_facts(report: Mapping[str, Any]) -> str:
    pairs = [
        ("ssdtwin version", report.get("ssdtwin_version")),
        ("seed", report.get("seed")),
        ("wall time [s]", report.get("wall_time_s")),
    ]
    simulator = report.get("simulator") if isinstance(report.get("simulator"), Mapping) else {}
    pairs += [(name.replace("_", " "), value) for name, value in simulator.items()]
    return key_values(pairs)


# --------------------------------------------------------------------------------- helpers


def _leaves(data: Mapping[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    pairs: list[tuple[str, Any]] = []
    for name, value in data.items():
        if isinstance(value, Mapping):
            pairs.extend(_leaves(value, f"{prefix}{name}."))
        elif not isinstance(value, list):
            pairs.append((f"{prefix}{name}", value))
    return pairs


def _kib_to_mib(value: Any) -> Any:
    return value / 1024 if isinstance(value, int | float) else None


def _ns_to_us(value: Any) -> Any:
    return value / 1000 if isinstance(value, int | float) else None
