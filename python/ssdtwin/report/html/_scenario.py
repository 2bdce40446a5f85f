"""The run page's scenario section: the resolved scenario in a few lines (drive, flash, FTL, host,
controller, workload, the models on), and in full as TOML."""

from __future__ import annotations

import json
from collections.abc import Mapping
from html import escape
from typing import Any

from ssdtwin._util import capacity
from ssdtwin.report.html._page import fmt, subtable


def scenario_brief(config: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The scenario in a few lines: (label, text)."""
    lines: list[tuple[str, str]] = [("drive", str(config.get("drive", "?")))]
    flash = subtable(config, "flash")
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
        size = capacity.describe(config)
        cell_kind = str(flash.get("cell", "?")).upper()
        lines.append(("flash", f"{geometry}; {pages}, {cell_kind}{f' ({size})' if size else ''}"))
        timing = f"tREAD {_value(flash.get('t_read'))}, tPROG {_value(flash.get('t_program'))}, "
        timing += f"tERS {_value(flash.get('t_erase'))}, bus {flash.get('bus_rate', '?')}"
        lines.append(("timing", timing))
    ftl = subtable(config, "ftl")
    if ftl:
        text = f"{ftl.get('mapping', '?')} mapping, {ftl.get('mapping_unit', '?')} units, "
        text += f"over-provisioning {_percent(ftl.get('over_provisioning'))}, GC {ftl.get('gc_policy', '?')} "
        text += f"below {_percent(ftl.get('gc_threshold'))} free blocks"
        lines.append(("FTL", text))
    host = subtable(config, "host")
    if host:
        if host.get("mode") == "open":
            loop = f"open loop at {fmt(host.get('arrival_rate'))} commands/s"
        else:
            loop = f"closed loop at queue depth {host.get('queue_depth', '?')}"
        lines.append(
            ("host", f"{loop}, PCIe gen{host.get('pcie_generation', '?')} x{host.get('pcie_lanes', '?')}")
        )
    controller = subtable(config, "controller")
    if controller:
        text = f"frame buffer {controller.get('frame_buffer', '?')}, die queues of "
        text += f"{controller.get('die_queue_depth', '?')}, {controller.get('scheduler', '?')} scheduler"
        lines.append(("controller", text))
    workload = subtable(config, "workload")
    if workload:
        lines.append(("workload", _workload_brief(workload)))
    suspend = subtable(subtable(config, "flash"), "suspend")
    if suspend:
        on = [name for name in ("program", "erase") if suspend.get(name)]
        lines.append(("suspend", f"{' and '.join(on)} suspend on" if on else "off"))
    power = subtable(config, "power")
    if power:
        text = "on" if power.get("enabled", True) else "off"
        if power.get("enabled", True):
            text += f", sampled every {power.get('sample_interval', '?')}"
        lines.append(("power model", text))
    thermal = subtable(config, "thermal")
    if thermal:
        text = "off"
        if thermal.get("enabled"):
            text = f"on, ambient {fmt(thermal.get('ambient_c'))} °C, start {thermal.get('initial', '?')}"
            throttle = subtable(config, "throttle")
            text += f"; throttling {throttle.get('policy', 'none')}"
        lines.append(("thermal model", text))
    models = [
        ("reliability model", subtable(config, "reliability"), "enabled", "on"),
        ("write buffer", subtable(config, "buffer"), "capacity", ""),
        ("mapping table", subtable(config, "ftl"), "mapping_cache", ""),
        ("power-loss protection", subtable(config, "plp"), "enabled", "on"),
        ("power cuts at", subtable(config, "power_loss"), "at", ""),
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
    bounds = []
    if workload.get("io_count"):
        bounds.append(f"{fmt(workload.get('io_count'))} I/Os")
    if workload.get("duration") not in (None, "0ns", "0us", "0s"):
        bounds.append(f"{workload.get('duration')} simulated")
    # Both set: the run ends at the first reached (the core's rule for io_count and duration).
    amount = " or ".join(bounds) + (", whichever first" if len(bounds) == 2 else "")
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
        trace = subtable(workload, "trace")
        text = f"{trace.get('format', '?')} trace {trace.get('path', '')} ({trace.get('replay', '?')} replay)"
    elif kind == "fio":
        text = f"fio job file {subtable(workload, 'fio').get('job', '')}"
    elif kind == "iiot":
        iiot = subtable(workload, "iiot")
        text = f"IIoT: {iiot.get('sensors', '?')} sensors at {fmt(iiot.get('record_rate'))} records/s, "
        text += f"{iiot.get('writers', '?')} writers, queries at {fmt(iiot.get('query_rate'))}/s"
    else:
        text = str(kind)
    return ", ".join(part for part in (text, amount, precondition) if part)


def scenario_section(config: Mapping[str, Any]) -> str:
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
