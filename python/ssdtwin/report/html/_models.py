"""The sections of a run's page for the optional models: reliability (bit errors, ECC, read
retry), the DRAM write buffer, the cached mapping table, power-loss protection and power cuts.
Each shows its model's headline counters from the report's block (docs/models/reliability.md,
docs/models/dram_buffer_plp.md), and any field it does not know under "More", so a field the core
adds later is never dropped."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from ssdtwin.report.fields import lookup
from ssdtwin.report.html._page import cell, fmt, generic_block, table

MAX_LBAS_SHOWN = 100
"""The report lists at most the first 100 uncorrectable LBAs (and each power cut's lost LBAs
likewise); the page shows what it has."""


def _block(report: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    value = report.get(name)
    return value if isinstance(value, Mapping) else {}


def _config(report: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    value = lookup(report, f"config.{name}")
    return value if isinstance(value, Mapping) else {}


def _share(part: Any, whole: Any) -> float | None:
    if isinstance(part, int | float) and isinstance(whole, int | float) and whole > 0:
        return float(part) / float(whole)
    return None


def percent(value: Any) -> str:
    """A share as a percentage with its significant digits: "51.9%", "0.0043%", "0%"."""
    if not isinstance(value, int | float) or isinstance(value, bool):
        return fmt(value)
    if value == 0 or abs(value) >= 0.001:
        return f"{value:.1%}"
    return f"{value * 100:.2g}%"


def meter(share: float | None) -> str:
    """A horizontal bar for a share in [0, 1] (nothing when unknown)."""
    if share is None:
        return ""
    width = min(1.0, max(0.0, share)) * 100
    return f'<span class="meter"><span style="width:{width:.1f}%"></span></span>'


def _facts(rows: Sequence[tuple[str, Any, str]], css: str = "kv") -> str:
    """A two-column table of (label, value, format); a share (format "%") gets a bar."""
    body = []
    for label, value, spec in rows:
        if spec == "%":
            text = escape(percent(value))
            body.append([f"<td>{escape(label)}</td>", f"<td>{text}{meter(value)}</td>"])
        else:
            body.append([f"<td>{escape(label)}</td>", cell(value, spec)])
    return table(None, body, css=css)


def _more(block: Mapping[str, Any], known: set[str]) -> str:
    extra = {name: value for name, value in block.items() if name not in known}
    return f"<div><h3>More</h3>{generic_block(extra)}</div>" if extra else ""


def _lbas(lbas: Any, noun: str) -> str:
    """A collapsed list of LBAs (512-byte sectors)."""
    if not isinstance(lbas, list) or not lbas:
        return ""
    listed = ", ".join(f"{lba:,}" if isinstance(lba, int) else escape(str(lba)) for lba in lbas)
    return (
        f'<details class="lbas"><summary>{len(lbas):,} {escape(noun)} (LBA, 512-byte sectors'
        f"{'; the report lists the first 100' if len(lbas) >= MAX_LBAS_SHOWN else ''})</summary>"
        f'<p class="lbas">{listed}</p></details>'
    )


# --------------------------------------------------------------------------------- reliability


def reliability(report: Mapping[str, Any]) -> str:
    """RBER, read retries (with their histogram), soft decodes, uncorrectable reads and their LBAs,
    read reclaims, and the wear (P/E cycles) the RBER depends on."""
    block = _block(report, "reliability")
    settings = _config(report, "reliability")
    reads = block.get("reads")
    uncorrectable = block.get("uncorrectable")
    errors = [
        ("pages read (host, GC, copies)", reads, ""),
        ("RBER mean", block.get("rber_mean"), "{:.3g}"),
        ("RBER max", block.get("rber_max"), "{:.3g}"),
        ("read-retry steps", block.get("retries"), ""),
        ("retry steps per page read", _share(block.get("retries"), reads), "{:.3g}"),
        ("soft decodes", block.get("soft_decodes"), ""),
        ("uncorrectable page reads", uncorrectable, ""),
        ("share uncorrectable", _share(uncorrectable, reads), "%"),
        ("host commands with an error", block.get("errored_commands"), ""),
        ("blocks reclaimed (read reclaim)", block.get("reclaims"), ""),
    ]
    pe = lookup(report, "ftl.pe_cycles")
    pe = pe if isinstance(pe, Mapping) else {}
    wear = [
        ("P/E cycles, least worn block", pe.get("min"), ""),
        ("P/E cycles, mean", pe.get("mean"), "{:,.1f}"),
        ("P/E cycles, most worn block", pe.get("max"), ""),
        ("wear-leveling relocations", lookup(report, "ftl.wear_relocations"), ""),
        ("RBER model", settings.get("model"), ""),
        ("retention age at start", settings.get("retention_age"), ""),
        ("retention temperature [°C]", settings.get("retention_temp_c"), "{:g}"),
    ]
    parts = [
        '<div class="tables" id="reliability-counters">',
        f"<div><h3>Bit errors and decoding</h3>{_facts(errors)}</div>",
        f"<div><h3>Wear and retention</h3>{_facts([row for row in wear if row[1] is not None])}</div>",
    ]
    histogram = block.get("retries_histogram")
    if isinstance(histogram, list) and histogram:
        total = sum(value for value in histogram if isinstance(value, int | float))
        rows = [
            [
                cell(steps),
                cell(count),
                f"<td>{escape(percent(_share(count, total)))}{meter(_share(count, total))}</td>",
            ]
            for steps, count in enumerate(histogram)
        ]
        parts.append(
            '<div id="reliability-retries"><h3>Page reads by read-retry steps</h3>'
            f"{table(['retry steps', 'page reads', 'share'], rows)}</div>"
        )
    per_package = block.get("rber_mean_per_package")
    if isinstance(per_package, list) and len(per_package) > 1:
        rows = [[cell(index), cell(value, "{:.3g}")] for index, value in enumerate(per_package)]
        parts.append(f"<div><h3>RBER mean per package</h3>{table(['package', 'RBER mean'], rows)}</div>")
    known = {"reads", "rber_mean", "rber_max", "retries", "soft_decodes", "uncorrectable"}
    known |= {"errored_commands", "reclaims", "retries_histogram", "rber_mean_per_package"}
    known |= {"uncorrectable_lbas"}
    parts.append(_more(block, known))
    parts.append("</div>")
    parts.append(_lbas(block.get("uncorrectable_lbas"), "uncorrectable LBAs"))
    parts.append(
        '<p class="note">A page read takes 0 or more read-retry steps; past the last step a soft '
        "decode, and past that the read is uncorrectable (docs/models/reliability.md). The mean RBER "
        'over time is the "RBER" panel of "Over time" (the time series\' '
        "<code>reliability.rber_mean</code>).</p>"
    )
    return "".join(parts)


# --------------------------------------------------------------------------------- write buffer


def buffer(report: Mapping[str, Any]) -> str:
    """Fill (peak and at the end against the capacity), writes and coalescing, flushes, and read
    hits of the DRAM write buffer."""
    block = _block(report, "buffer")
    settings = _config(report, "buffer")
    capacity = block.get("capacity_units")
    flushed, batches = block.get("flushed_units"), block.get("batches")
    fill = [
        ("capacity [mapping units]", capacity, ""),
        ("capacity", settings.get("capacity"), ""),
        ("peak fill [units]", block.get("peak_units"), ""),
        ("peak fill", _share(block.get("peak_units"), capacity), "%"),
        ("held at the end [units]", block.get("held_units"), ""),
        ("held at the end", _share(block.get("held_units"), capacity), "%"),
    ]
    writes = [
        ("unit writes into the buffer", block.get("writes"), ""),
        ("coalesced (rewritten while waiting)", block.get("coalesced"), ""),
        ("coalesced share of writes", _share(block.get("coalesced"), block.get("writes")), "%"),
        ("units flushed to flash", flushed, ""),
        ("flush batches", batches, ""),
        ("units per batch", _share(flushed, batches), "{:,.1f}"),
    ]
    reads = [
        ("unit reads", block.get("reads"), ""),
        ("read hits (served from the buffer)", block.get("read_hits"), ""),
        ("hit ratio", block.get("hit_ratio"), "%"),
    ]
    policy = [
        ("acknowledgement", "write-through" if settings.get("write_through") else "write-back", ""),
        ("flush threshold", settings.get("flush_threshold"), "%"),
        ("flush order", settings.get("flush_order"), ""),
    ]
    known = {"capacity_units", "peak_units", "held_units", "writes", "coalesced", "flushed_units"}
    known |= {"batches", "reads", "read_hits", "hit_ratio"}
    return (
        '<div class="tables" id="buffer-counters">'
        f"<div><h3>Fill</h3>{_facts(fill)}</div>"
        f"<div><h3>Writes and flushes</h3>{_facts(writes)}</div>"
        f"<div><h3>Reads</h3>{_facts(reads)}</div>"
        f"<div><h3>Policy</h3>{_facts([row for row in policy if row[1] is not None])}</div>"
        f"{_more(block, known)}</div>"
    )


# --------------------------------------------------------------------------------- mapping cache


def mapping_cache(report: Mapping[str, Any]) -> str:
    """Lookups and their hit ratio, the cached and dirty translation pages, write-backs, and the
    flash reads and programs of translation pages."""
    block = _block(report, "mapping_cache")
    pages = block.get("translation_pages")
    cached = [
        ("mode", block.get("mode"), ""),
        ("translation pages (the whole table)", pages, ""),
        ("cached in DRAM", block.get("cached_pages"), ""),
        ("cached share of the table", _share(block.get("cached_pages"), pages), "%"),
        ("protected (may be dirty)", block.get("protected_pages"), ""),
    ]
    lookups = [
        ("lookups", block.get("lookups"), ""),
        ("hits", block.get("hits"), ""),
        ("misses", block.get("misses"), ""),
        ("hit ratio", block.get("hit_ratio"), "%"),
    ]
    dirty = [
        ("dirty pages at the end", block.get("dirty_pages"), ""),
        ("dirty pages at most", block.get("max_dirty_pages"), ""),
        ("write-backs at the dirty limit", block.get("limit_writebacks"), ""),
        ("write-backs on eviction", block.get("eviction_writebacks"), ""),
        ("translation page reads (flash)", lookup(report, "flash.mapping_reads"), ""),
        ("translation page programs (flash)", lookup(report, "flash.mapping_programs"), ""),
    ]
    known = {"mode", "translation_pages", "cached_pages", "protected_pages", "lookups", "hits"}
    known |= {"misses", "hit_ratio", "dirty_pages", "max_dirty_pages", "limit_writebacks"}
    known |= {"eviction_writebacks"}
    tables = [f"<div><h3>Translation pages</h3>{_facts(cached)}</div>"] if block else []
    if block:
        tables.append(f"<div><h3>Lookups</h3>{_facts(lookups)}</div>")
    tables.append(f"<div><h3>Dirty pages and flash traffic</h3>{_facts(dirty)}</div>")
    return f'<div class="tables" id="mapping-cache-counters">{"".join(tables)}{_more(block, known)}</div>'


# --------------------------------------------------------------------------------- PLP


def plp(report: Mapping[str, Any]) -> str:
    """The hold-up capacitors' usable energy, the pages it protects, the capacitance needed, and
    the time a flush takes."""
    block = _block(report, "plp")
    settings = _config(report, "plp")
    energy = [
        ("usable energy [J]", block.get("usable_energy_j"), "{:.4g}"),
        ("energy per page program [µJ]", block.get("page_energy_uj"), "{:,.1f}"),
        ("capacitance fitted [µF]", settings.get("capacitance"), "{:,.0f}"),
        ("capacitance the protected pages need [µF]", block.get("required_capacitance_uf"), "{:,.1f}"),
        ("of which for translation pages [µF]", block.get("mapping_capacitance_uf"), "{:,.1f}"),
        ("flush time of the protected pages [s]", block.get("flush_time_s"), "{:.4g}"),
    ]
    protected = [
        ("pages protected", block.get("protected_pages"), ""),
        ("of which write-buffer pages", block.get("buffer_pages"), ""),
        ("translation pages (the table)", block.get("translation_pages"), ""),
        ("translation pages protected", block.get("protected_mapping_pages"), ""),
        ("protected ratio", block.get("protected_ratio"), "%"),
    ]
    known = {"usable_energy_j", "page_energy_uj", "required_capacitance_uf", "mapping_capacitance_uf"}
    known |= {"flush_time_s", "protected_pages", "buffer_pages", "translation_pages"}
    known |= {"protected_mapping_pages", "protected_ratio"}
    return (
        '<div class="tables" id="plp-counters">'
        f"<div><h3>Energy</h3>{_facts([row for row in energy if row[1] is not None])}</div>"
        f"<div><h3>Protected</h3>{_facts(protected)}</div>{_more(block, known)}</div>"
    )


def power_loss(report: Mapping[str, Any]) -> str:
    """One row per power cut: what the flush saved and lost, its time and energy, the restart."""
    block = _block(report, "power_loss")
    events = [event for event in block.get("events", []) or [] if isinstance(event, Mapping)]
    columns = [
        ("at [s]", "at_s", "{:.6g}"),
        ("unflushed writes", "unflushed_writes", ""),
        ("lost writes", "lost_writes", ""),
        ("dirty translation pages", "dirty_mapping_pages", ""),
        ("lost translation pages", "lost_mapping_pages", ""),
        ("pages flushed", "flushed_pages", ""),
        ("flush time [s]", "flush_time_s", "{:.4g}"),
        ("energy used [J]", "energy_used_j", "{:.4g}"),
        ("energy left [J]", "energy_left_j", "{:.4g}"),
        ("recovery [s]", "recovery_time_s", "{:.4g}"),
        ("resumed at [s]", "resumed_at_s", "{:.6g}"),
    ]
    rows = [[cell(event.get(key), spec) for _, key, spec in columns] for event in events]
    parts = [
        f'<div class="scroll" id="power-loss-events">{table([label for label, _, _ in columns], rows)}</div>'
    ]
    for event in events:
        parts.append(_lbas(event.get("lost_lbas"), f"LBAs lost at {fmt(event.get('at_s'), '{:.6g}')} s"))
    rest = {name: value for name, value in block.items() if name != "events"}
    if rest:
        parts.append(f"<h3>More</h3>{generic_block(rest)}")
    if not events:
        parts.insert(0, '<p class="note">No power cut happened within the run.</p>')
    return "".join(parts)


def slc_cache(report: Mapping[str, Any]) -> str:
    """The SLC write cache: its size, where host writes went (SLC or direct), what folding moved
    and cost, the SLC pool's wear and the time the cache was full (the cliff)."""
    block = _block(report, "slc_cache")
    size = [
        ("size at the start [GiB]", block.get("initial_size_gib"), "{:.3f}"),
        ("size at the end [GiB]", block.get("size_gib"), "{:.3f}"),
        ("unfolded at the end [GiB]", block.get("used_gib"), "{:.3f}"),
        ("time full under writes (cliff) [s]", block.get("cliff_time_s"), "{:.4g}"),
        ("times it filled", block.get("cliff_entries"), ""),
    ]
    writes = [
        ("written in SLC [GiB]", block.get("slc_written_gib"), "{:.3f}"),
        ("written direct [GiB]", block.get("direct_written_gib"), "{:.3f}"),
        ("folded [GiB]", block.get("folded_gib"), "{:.3f}"),
        ("fold programs", block.get("fold_programs"), ""),
        ("fold die time [s]", block.get("fold_die_time_s"), "{:.4g}"),
        ("fold array energy [J]", block.get("fold_energy_j"), "{:.4g}"),
        ("SLC erases", block.get("slc_erases"), ""),
    ]
    blocks = [
        ("SLC-mode blocks at the end", block.get("slc_blocks"), ""),
        ("most at once", block.get("slc_blocks_peak"), ""),
        ("of the static region", block.get("static_slc_blocks"), ""),
        ("SLC-mode blocks per plane", block.get("slc_blocks_per_plane"), "{:.1f}"),
        ("native blocks per plane", block.get("native_blocks_per_plane"), "{:.1f}"),
        ("dynamic blocks borrowed", block.get("dynamic_borrowed"), ""),
        ("dynamic blocks returned", block.get("dynamic_returned"), ""),
        ("SLC mean / max P/E", _pair(block.get("slc_mean_pe"), block.get("slc_max_pe")), ""),
        ("SLC wear (mean P/E / endurance)", block.get("slc_wear"), "%"),
        ("native mean / max P/E", _pair(block.get("native_mean_pe"), block.get("native_max_pe")), ""),
    ]
    known = {
        "initial_size_gib",
        "size_gib",
        "used_gib",
        "cliff_time_s",
        "cliff_entries",
        "slc_written_gib",
        "direct_written_gib",
        "folded_gib",
        "fold_programs",
        "fold_reads",
        "fold_die_time_s",
        "fold_energy_j",
        "slc_erases",
        "slc_blocks",
        "slc_blocks_peak",
        "static_slc_blocks",
        "slc_blocks_per_plane",
        "native_blocks_per_plane",
        "dynamic_borrowed",
        "dynamic_returned",
        "slc_mean_pe",
        "slc_max_pe",
        "slc_wear",
        "native_mean_pe",
        "native_max_pe",
    }
    return (
        '<div class="tables" id="slc-cache-counters">'
        f"<div><h3>Cache</h3>{_facts(size)}</div>"
        f"<div><h3>Writes and folding</h3>{_facts(writes)}</div>"
        f"<div><h3>Blocks in SLC mode</h3>{_facts(blocks)}</div>{_more(block, known)}</div>"
    )


def _pair(mean: Any, most: Any) -> str | None:
    """`mean / max` of a P/E summary, or None when the report lacks it."""
    if not isinstance(mean, (int, float)) or not isinstance(most, (int, float)):
        return None
    return f"{mean:.3g} / {most}"


def read_cache(report: Mapping[str, Any]) -> str:
    """Size, hits and misses of the DRAM read cache, and what read-ahead read and what it wasted."""
    block = _block(report, "read_cache")
    settings = _config(report, "buffer")
    cache = [
        ("capacity [mapping units]", block.get("capacity_units"), ""),
        ("capacity", settings.get("read_cache"), ""),
        ("held at the end [units]", block.get("held_units"), ""),
        ("unit reads looked up", block.get("lookups"), ""),
        ("hits (served from DRAM)", block.get("hits"), ""),
        ("misses (read from flash)", block.get("misses"), ""),
        ("hit ratio", block.get("hit_ratio"), "%"),
    ]
    ahead = [
        ("read-ahead [mapping units]", block.get("read_ahead_units"), ""),
        ("read-ahead", settings.get("read_ahead"), ""),
        ("units read ahead", block.get("prefetched"), ""),
        ("read ahead, then read by the host", block.get("prefetch_hits"), ""),
        ("read ahead, never read", block.get("prefetched_unused"), ""),
        ("unused share", _share(block.get("prefetched_unused"), block.get("prefetched")), "%"),
    ]
    known = {"capacity_units", "held_units", "lookups", "hits", "misses", "hit_ratio", "read_ahead_units"}
    known |= {"prefetched", "prefetch_hits", "prefetched_unused"}
    return (
        '<div class="tables" id="read-cache-counters">'
        f"<div><h3>Cache</h3>{_facts(cache)}</div>"
        f"<div><h3>Read-ahead</h3>{_facts(ahead)}</div>"
        f"{_more(block, known)}</div>"
    )
