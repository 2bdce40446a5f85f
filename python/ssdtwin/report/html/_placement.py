"""The sections of a run's page for data placement: the zoned namespace (zone commands, resets,
open and active zones, refused writes; docs/models/zns.md) and Flexible Data Placement (WAF and
reclaim units per handle, the FDP events; docs/models/fdp.md). Each shows its block's headline
figures, and any field it does not know under "More"."""

from __future__ import annotations

from collections.abc import Mapping
from html import escape
from typing import Any

from ssdtwin.report.html._models import _block, _facts, _more
from ssdtwin.report.html._page import cell, table

ZNS_COMMANDS = (
    ("writes accepted", "writes", ""),
    ("zone appends accepted", "appends", ""),
    ("logical blocks written", "lbas_written", ""),
    ("zones filled", "zones_filled", ""),
    ("opens / closes / finishes", None, ""),
    ("implicit closes (controller)", "implicit_closes", ""),
)
ZNS_RESETS = (
    ("zone resets (zones holding data)", "zone_resets", ""),
    ("Reset Zone commands", "reset_commands", ""),
    ("blocks erased by resets", "reset_erases", ""),
)
ZNS_ZONES = (
    ("zones", "zones", ""),
    ("open zones: max", "open_zones_max", ""),
    ("open zones: time-weighted mean", "open_zones_mean", "{:.3g}"),
    ("active zones: max", "active_zones_max", ""),
    ("active zones: time-weighted mean", "active_zones_mean", "{:.3g}"),
    ("zone append latency: mean [µs]", "append_latency_mean_us", "{:.4g}"),
    ("zone append latency: p99 [µs]", "append_latency_p99_us", "{:.4g}"),
)
ZNS_REFUSED = (
    ("writes and appends refused", "rejected_writes", ""),
    ("of them off the write pointer", "invalid_writes", ""),
    ("commands completed with an error", "errored_commands", ""),
)


Rows = tuple[tuple[str, str | None, str], ...]


def _rows(block: Mapping[str, Any], rows: Rows) -> list[tuple[str, Any, str]]:
    out = []
    for label, name, spec in rows:
        if name is None:
            parts = [block.get("opens"), block.get("closes"), block.get("finishes")]
            value = " / ".join(f"{part:,}" if isinstance(part, int) else "?" for part in parts)
            out.append((label, value, ""))
        else:
            out.append((label, block.get(name), spec))
    return out


def zns(report: Mapping[str, Any]) -> str:
    """The zoned namespace: commands, resets, open and active zones, refused commands by status."""
    block = _block(report, "zns")
    statuses = block.get("rejected_by_status")
    by_status = ""
    if isinstance(statuses, Mapping) and statuses:
        rows = [[f"<td>{escape(str(status))}</td>", cell(count)] for status, count in statuses.items()]
        by_status = f"<div><h3>Refused, by status</h3>{table(['status', 'commands'], rows)}</div>"
    known = {name for group in (ZNS_COMMANDS, ZNS_RESETS, ZNS_ZONES, ZNS_REFUSED) for _, name, _ in group}
    known |= {"opens", "closes", "finishes", "rejected_by_status"}
    return (
        '<div class="tables" id="zns-counters">'
        f"<div><h3>Commands</h3>{_facts(_rows(block, ZNS_COMMANDS))}</div>"
        f"<div><h3>Resets</h3>{_facts(_rows(block, ZNS_RESETS))}</div>"
        f"<div><h3>Zones</h3>{_facts(_rows(block, ZNS_ZONES))}</div>"
        f"<div><h3>Refused</h3>{_facts(_rows(block, ZNS_REFUSED))}</div>"
        f"{by_status}{_more(block, known)}</div>"
    )


def fdp(report: Mapping[str, Any]) -> str:
    """Flexible Data Placement: host and media bytes, WAF and reclaim units per handle; events."""
    block = _block(report, "fdp")
    handles = block.get("handles")
    rows = []
    if isinstance(handles, list):
        for handle in handles:
            if not isinstance(handle, Mapping):
                continue
            rows.append(
                [
                    cell(handle.get("placement")),
                    cell(_gib(handle.get("host_bytes")), "{:.4g}"),
                    cell(_gib(handle.get("media_bytes")), "{:.4g}"),
                    cell(handle.get("waf"), "{:.3f}"),
                    cell(handle.get("reclaim_units_in_use")),
                ]
            )
    header = ["handle", "host written [GiB]", "media written [GiB]", "WAF", "reclaim units in use"]
    events = block.get("events") if isinstance(block.get("events"), Mapping) else {}
    facts = [
        ("blocks per reclaim unit", block.get("reclaim_unit_blocks"), ""),
        ("GC copies in shared units [GiB]", _gib(block.get("shared_gc_media_bytes")), "{:.4g}"),
        ("reclaim unit not fully written", events.get("reclaim_unit_not_fully_written"), ""),
        ("media reallocated", events.get("media_reallocated"), ""),
        ("invalid placement identifier", events.get("invalid_placement_identifier"), ""),
    ]
    known = {"handles", "events", "reclaim_unit_blocks", "shared_gc_media_bytes"}
    return (
        '<div class="tables" id="fdp-counters">'
        f"<div><h3>Per handle</h3>{table(header, rows)}</div>"
        f"<div><h3>Reclaim units and events</h3>{_facts(facts)}</div>"
        f"{_more(block, known)}</div>"
    )


def _gib(value: Any) -> float | None:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value) / 2**30
    return None
