"""The summary of a run that `ssdtwin run` prints (and `serve` at the end of a session): the
drive, headline figures, latency percentiles, power, flash counters, and a part for each optional
model whose block the report has."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from rich import box
from rich.console import Console
from rich.table import Table

from ssdtwin._util import capacity
from ssdtwin.report.fields import format_value, lookup
from ssdtwin.report.flows import print_flows
from ssdtwin.report.steady import steady_line, variability_line, warmup_line

if TYPE_CHECKING:
    from ssdtwin.report.report import Report

HOL_LABEL = "Head-of-line blocked admissions"
HOL_NOTE = (
    f"  {HOL_LABEL}: times the command at the head of the host queue could not enter the frame "
    "buffer or its die queue, holding up the commands behind it."
)


def headline(data: Mapping[str, Any]) -> str:
    """The summary's first line: version, drive and its size, preconditioning, seed."""
    config = data.get("config") if isinstance(data.get("config"), Mapping) else {}
    size = capacity.describe(config, lookup(data, "simulator.logical_units"))
    drive = f"drive {config.get('drive', '?')}" + (f" ({size})" if size else "")
    precondition = lookup(config, "workload.precondition")
    parts = [drive, f"precondition {precondition}" if precondition else "", f"seed {data.get('seed')}"]
    return f"ssdtwin {data.get('ssdtwin_version', '')}: " + ", ".join(part for part in parts if part)


def mapping_cache_on(data: Mapping[str, Any]) -> bool:
    """Whether the run had the cached mapping table (`ftl.mapping_cache = "cached"`)."""
    cached = lookup(data, "config.ftl.mapping_cache") == "cached"
    return cached or isinstance(data.get("mapping_cache"), Mapping)


def print_summary(report: Report, console: Console) -> None:
    """The readable summary of `ssdtwin run`: headline figures, latency percentiles, flash counters,
    and temperatures and throttling when the report has them (the thermal model on)."""
    data = report.to_dict()
    console.print(headline(data), markup=False, soft_wrap=True)
    overview = Table(show_header=False, box=box.SIMPLE)
    overview.add_column("figure")
    overview.add_column("value", justify="right")
    for label, value in [
        ("Host I/Os", format_value(lookup(data, "host_ios"), "{:,}")),
        ("IOPS", format_value(lookup(data, "iops"), "{:,.0f}")),
        ("Bandwidth", format_value(lookup(data, "bandwidth_mib_s"), "{:,.1f} MiB/s")),
        ("Simulated time", format_value(lookup(data, "simulated_time_s"), "{:.6g} s")),
        ("Wall time", format_value(lookup(data, "wall_time_s"), "{:.3f} s")),
        ("  preconditioning", format_value(lookup(data, "simulator.precondition_wall_s"), "{:.3f} s")),
        (
            "Simulated I/Os per wall s",
            format_value(lookup(data, "simulator.ios_per_wall_s"), "{:,.0f} (run)"),
        ),
        ("", format_value(lookup(data, "simulator.end_to_end_ios_per_wall_s"), "{:,.0f} (end to end)")),
        ("WAF", format_value(lookup(data, "waf"), "{:.3f}")),
        (HOL_LABEL, format_value(lookup(data, "queues.hol_events"), "{:,}")),
        ("Writes held for GC", format_value(lookup(data, "queues.gc_write_holds"), "{:,}")),
        ("Die utilisation", format_value(lookup(data, "queues.die_utilization"), "{:.1%}")),
    ]:
        overview.add_row(label, value)
    trimmed = lookup(data, "ftl.trimmed_units")
    if trimmed:
        overview.add_row("Trimmed units", format_value(trimmed, "{:,}"))
    console.print(overview)
    console.print(HOL_NOTE, markup=False, soft_wrap=True)
    for line in (warmup_line(data), drain_line(data), variability_line(data), steady_line(data)):
        if line:
            console.print(line, markup=False, soft_wrap=True)

    latency = Table(title="Latency (us)", title_justify="left", box=box.SIMPLE)
    columns = [("count", "count", "{:,}"), ("mean", "mean", "{:,.1f}"), ("p50", "p50", "{:,.1f}")]
    columns += [("p99", "p99", "{:,.1f}"), ("p99.99", "p99_99", "{:,.1f}"), ("max", "max", "{:,.1f}")]
    latency.add_column("")
    for header, _, _ in columns:
        latency.add_column(header, justify="right")
    for kind in ("read", "write", "all"):
        row = [format_value(lookup(data, f"latency_us.{kind}.{field}"), spec) for _, field, spec in columns]
        latency.add_row(kind, *row)
    console.print(latency)
    print_flows(data, console)

    power = Table(title="Power (W)", title_justify="left", box=box.SIMPLE)
    power.add_column("")
    for header in ("NAND", "I/O bus", "controller", "DRAM", "other", "total"):
        power.add_column(header, justify="right")
    parts = ("nand", "io_bus", "controller", "dram", "other", "total")
    power.add_row("average", *[format_value(lookup(data, f"power_w.{part}_avg"), "{:.3f}") for part in parts])
    peaks = [format_value(lookup(data, "power_w.nand_peak"), "{:.3f}")] + ["-"] * 4
    power.add_row("peak", *peaks, format_value(lookup(data, "power_w.total_peak"), "{:.3f}"))
    console.print(power)

    flash = Table(title="Flash operations", title_justify="left", show_header=False, box=box.SIMPLE)
    flash.add_column("counter")
    flash.add_column("value", justify="right")
    cached = mapping_cache_on(data)
    for name, value in data.get("flash", {}).items():
        if name.startswith("mapping_") and not cached:
            continue  # the cached mapping table's traffic: always 0 with the table in DRAM
        flash.add_row(name.replace("_", " "), format_value(value, "{:,}"))
    console.print(flash)

    if isinstance(data.get("thermal"), Mapping):
        print_thermal(data["thermal"], console)
    throttle = data.get("throttle")
    if isinstance(throttle, Mapping) and throttle.get("policy", "none") != "none":
        print_throttle(throttle, console)
    print_dram(data, console)
    if isinstance(data.get("reliability"), Mapping):
        print_reliability(data["reliability"], console)
    if isinstance(data.get("slc_cache"), Mapping):
        print_slc_cache(data["slc_cache"], console)
    if isinstance(data.get("zns"), Mapping):
        print_zns(data["zns"], console)
    if isinstance(data.get("fdp"), Mapping):
        console.print(fdp_line(data["fdp"]), markup=False)


def drain_line(data: Mapping[str, Any]) -> str | None:
    """'Drain: 2.07 ms after the last completion, 0.0123 J, 24 programs and 1 erases completed (in
    the counters, energy and average power; not in IOPS)', when the run drained (`report.drain`)."""
    drain = data.get("drain")
    if not isinstance(drain, Mapping):
        return None
    time_ms = drain.get("time_s") * 1e3 if isinstance(drain.get("time_s"), (int, float)) else None
    incomplete = "" if drain.get("complete", True) else ", stopped before its end (no progress)"
    return (
        f"Drain: {format_value(time_ms, '{:.6g}')} ms after the last completion, "
        f"{format_value(drain.get('energy_j'), '{:.3g}')} J, "
        f"{format_value(drain.get('programs_completed'), '{:,}')} programs and "
        f"{format_value(drain.get('erases_completed'), '{:,}')} erases completed{incomplete} "
        "(in the counters, energy and average power; not in IOPS)"
    )


def print_dram(data: Mapping[str, Any], console: Console) -> None:
    """The report's `buffer`, `read_cache`, `mapping_cache`, `plp` and `power_loss` blocks, one line each
    (when present)."""
    lines = []
    if isinstance(data.get("buffer"), Mapping):
        lines.append(
            f"Write buffer: hit ratio {format_value(lookup(data, 'buffer.hit_ratio'), '{:.1%}')}, "
            f"{format_value(lookup(data, 'buffer.coalesced'), '{:,}')} coalesced, "
            f"peak {format_value(lookup(data, 'buffer.peak_units'), '{:,}')} units"
        )
    if isinstance(data.get("read_cache"), Mapping):
        lines.append(
            f"Read cache: hit ratio {format_value(lookup(data, 'read_cache.hit_ratio'), '{:.1%}')} "
            f"({format_value(lookup(data, 'read_cache.hits'), '{:,}')} hits, "
            f"{format_value(lookup(data, 'read_cache.misses'), '{:,}')} misses); read ahead "
            f"{format_value(lookup(data, 'read_cache.prefetched'), '{:,}')} units, "
            f"{format_value(lookup(data, 'read_cache.prefetch_hits'), '{:,}')} read, "
            f"{format_value(lookup(data, 'read_cache.prefetched_unused'), '{:,}')} unused"
        )
    if isinstance(data.get("mapping_cache"), Mapping):
        lines.append(
            f"Mapping table ({lookup(data, 'mapping_cache.mode')}): hit ratio "
            f"{format_value(lookup(data, 'mapping_cache.hit_ratio'), '{:.1%}')}, dirty pages at most "
            f"{format_value(lookup(data, 'mapping_cache.max_dirty_pages'), '{:,}')} of "
            f"{format_value(lookup(data, 'mapping_cache.protected_pages'), '{:,}')} protected"
        )
    if isinstance(data.get("plp"), Mapping):
        lines.append(
            f"PLP: {format_value(lookup(data, 'plp.usable_energy_j'), '{:.3g} J')} usable, "
            f"{format_value(lookup(data, 'plp.protected_pages'), '{:,}')} pages protected"
        )
    if isinstance(data.get("durability"), Mapping):
        protected = "protected: at once" if lookup(data, "durability.protected") else "unprotected"
        lines.append(
            f"Flush/FUA ({protected}): {format_value(lookup(data, 'durability.flushes'), '{:,}')} flushes, "
            f"{format_value(lookup(data, 'durability.fua_writes'), '{:,}')} FUA writes, "
            f"{format_value(lookup(data, 'durability.waited'), '{:,}')} waited for programs"
        )
    for event in (data.get("power_loss") or {}).get("events", []):
        at, lost = format_value(event.get("at_s"), "{:.6g} s"), format_value(event.get("lost_writes"), "{:,}")
        pages = format_value(event.get("lost_mapping_pages"), "{:,}")
        flush = format_value(event.get("flush_time_s"), "{:.3g} s")
        energy = format_value(event.get("energy_used_j"), "{:.3g} J")
        lines.append(
            f"Power cut at {at}: {lost} writes and {pages} translation pages lost, flush {flush}, {energy}"
        )
    for line in lines:
        console.print(line, markup=False)


def print_reliability(reliability: Mapping[str, Any], console: Console) -> None:
    """The report's `reliability` block in one line: RBER, retries, soft decodes, uncorrectable
    reads and the commands that completed with an error."""
    console.print(
        f"Reliability: RBER mean {format_value(reliability.get('rber_mean'), '{:.3g}')}, "
        f"max {format_value(reliability.get('rber_max'), '{:.3g}')}; "
        f"{format_value(reliability.get('retries'), '{:,}')} retries, "
        f"{format_value(reliability.get('soft_decodes'), '{:,}')} soft decodes, "
        f"{format_value(reliability.get('uncorrectable'), '{:,}')} uncorrectable, "
        f"{format_value(reliability.get('errored_commands'), '{:,}')} commands with an error, "
        f"{format_value(reliability.get('reclaims'), '{:,}')} blocks reclaimed",
        markup=False,
    )


def print_slc_cache(slc: Mapping[str, Any], console: Console) -> None:
    """The report's `slc_cache` block in one line: size, where writes went, folding, the cliff."""
    console.print(
        f"SLC cache: {format_value(slc.get('initial_size_gib'), '{:.2f}')} GiB at the start, "
        f"{format_value(slc.get('size_gib'), '{:.2f}')} at the end; "
        f"{format_value(slc.get('slc_written_gib'), '{:.2f}')} GiB written in SLC, "
        f"{format_value(slc.get('direct_written_gib'), '{:.2f}')} direct, "
        f"{format_value(slc.get('folded_gib'), '{:.2f}')} folded "
        f"({format_value(slc.get('fold_die_time_s'), '{:.3g}')} s of die time, "
        f"{format_value(slc.get('fold_energy_j'), '{:.3g}')} J, "
        f"{format_value(slc.get('slc_erases'), '{:,}')} SLC erases); "
        f"full for {format_value(slc.get('cliff_time_s'), '{:.3g}')} s under writes; "
        f"{format_value(slc.get('slc_blocks'), '{:,}')} blocks in SLC mode at the end "
        f"(at most {format_value(slc.get('slc_blocks_peak'), '{:,}')}), "
        f"SLC P/E max {format_value(slc.get('slc_max_pe'), '{:,}')}, "
        f"native {format_value(slc.get('native_max_pe'), '{:,}')}",
        markup=False,
    )


def print_zns(zns: Mapping[str, Any], console: Console) -> None:
    """The report's `zns` block in two lines: commands, resets and refusals; zones open and active,
    zone-append latency."""
    refused = zns.get("rejected_by_status")
    by_status = ""
    if isinstance(refused, Mapping) and refused:
        by_status = " (" + ", ".join(f"{name} {count:,}" for name, count in refused.items()) + ")"
    console.print(
        f"Zones: {format_value(zns.get('zones'), '{:,}')} zones; "
        f"{format_value(zns.get('writes'), '{:,}')} writes, "
        f"{format_value(zns.get('appends'), '{:,}')} appends, "
        f"{format_value(zns.get('zone_resets'), '{:,}')} zone resets "
        f"({format_value(zns.get('reset_erases'), '{:,}')} blocks erased), "
        f"{format_value(zns.get('implicit_closes'), '{:,}')} implicit closes; "
        f"{format_value(zns.get('rejected_writes'), '{:,}')} writes refused{by_status}",
        markup=False,
    )
    console.print(
        f"Zones open: max {format_value(zns.get('open_zones_max'), '{:,}')}, "
        f"mean {format_value(zns.get('open_zones_mean'), '{:.2f}')}; active: max "
        f"{format_value(zns.get('active_zones_max'), '{:,}')}, "
        f"mean {format_value(zns.get('active_zones_mean'), '{:.2f}')}; zone append latency "
        f"mean {format_value(zns.get('append_latency_mean_us'), '{:.1f}')} us, "
        f"p99 {format_value(zns.get('append_latency_p99_us'), '{:.1f}')} us",
        markup=False,
    )


def fdp_line(fdp: Mapping[str, Any]) -> str:
    """The report's `fdp` block in one line: WAF and reclaim units per handle that wrote, events.

    'FDP: handle 0 WAF 1.020 (3 RUs), handle 1 WAF 1.850 (9 RUs); GC shared 0.12 GiB;
    events: 0 RU not fully written, 412 media reallocated, 0 invalid placement identifiers'
    """
    handles = [
        f"handle {handle.get('placement')} WAF {format_value(handle.get('waf'), '{:.3f}')} "
        f"({format_value(handle.get('reclaim_units_in_use'), '{:,}')} RUs)"
        for handle in fdp.get("handles", [])
        if isinstance(handle, Mapping) and handle.get("host_bytes")
    ]
    events = fdp.get("events", {})
    shared = fdp.get("shared_gc_media_bytes")
    shared_gib = format_value(shared / 2**30 if isinstance(shared, (int, float)) else None, "{:.2f}")
    return (
        f"FDP: {', '.join(handles) or 'no host writes'}; GC shared {shared_gib} GiB; "
        f"events: {format_value(events.get('reclaim_unit_not_fully_written'), '{:,}')} RU not fully written, "
        f"{format_value(events.get('media_reallocated'), '{:,}')} media reallocated, "
        f"{format_value(events.get('invalid_placement_identifier'), '{:,}')} invalid placement identifiers"
    )


def print_thermal(thermal: Mapping[str, Any], console: Console) -> None:
    """The report's `thermal` block: each node's maximum and final temperature, the composite
    temperature's, and the time spent above each threshold."""
    table = Table(title="Temperature (°C)", title_justify="left", box=box.SIMPLE)
    table.add_column("")
    table.add_column("max", justify="right")
    table.add_column("final", justify="right")
    maxima, finals = thermal.get("max_c", {}), thermal.get("final_c", {})
    for node in dict.fromkeys([*maxima, *finals]):
        table.add_row(
            node, format_value(maxima.get(node), "{:.1f}"), format_value(finals.get(node), "{:.1f}")
        )
    table.add_row(
        "composite",
        format_value(thermal.get("composite_max_c"), "{:.1f}"),
        format_value(thermal.get("composite_final_c"), "{:.1f}"),
    )
    console.print(table)
    above = thermal.get("time_above_s", {})
    if above:
        thresholds = sorted(above, key=_threshold_order)
        parts = [f"{threshold} °C {format_value(above[threshold], '{:.6g} s')}" for threshold in thresholds]
        console.print(f"Time above: {', '.join(parts)}", markup=False)


def print_throttle(throttle: Mapping[str, Any], console: Console) -> None:
    """The report's `throttle` block: policy, events, time throttled, and time and entries per state."""
    console.print(
        f"Throttling: policy {throttle.get('policy')}, "
        f"{format_value(throttle.get('events'), '{:,}')} events, "
        f"{format_value(throttle.get('time_s'), '{:.6g} s')} throttled",
        markup=False,
    )
    table = Table(box=box.SIMPLE)
    table.add_column("state")
    table.add_column("time", justify="right")
    table.add_column("entries", justify="right")
    times, entries = throttle.get("state_time_s", {}), throttle.get("entries", {})
    for state in dict.fromkeys(["off", "light", "heavy", *times, *entries]):
        table.add_row(
            state, format_value(times.get(state), "{:.6g} s"), format_value(entries.get(state), "{:,}")
        )
    console.print(table)


def _threshold_order(threshold: str) -> tuple[float, str]:
    """Thresholds ("75", "80", ...) in numeric order; a key that is no number goes last."""
    try:
        return (float(threshold), threshold)
    except ValueError:
        return (float("inf"), threshold)
