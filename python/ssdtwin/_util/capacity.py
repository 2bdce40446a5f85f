"""A drive's size, read from a resolved scenario (`ssdtwin.resolve`, a report's `config`): raw
capacity, the capacity the host sees, its mapping units, and the warning shown before a run on a
drive large enough to take gigabytes of memory and many seconds.

The user capacity is the core's: `floor(physical mapping units x (1 - ftl.over_provisioning))`
mapping units (`Ftl::new`), the figure a report gives as `simulator.logical_units`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

SIZE_UNITS = {
    "B": 1,
    "KiB": 2**10,
    "K": 2**10,
    "k": 2**10,
    "MiB": 2**20,
    "M": 2**20,
    "GiB": 2**30,
    "G": 2**30,
    "TiB": 2**40,
    "T": 2**40,
    "KB": 10**3,
    "kB": 10**3,
    "MB": 10**6,
    "GB": 10**9,
    "TB": 10**12,
}
"""The units of a size in a scenario (the core's `parse_byte_size`)."""

GEOMETRY_KEYS = ("channels", "chips_per_channel", "dies_per_chip", "planes_per_die", "blocks_per_plane")

STATE_BYTES_PER_UNIT = 10
"""Memory the simulation holds per logical mapping unit [bytes], about: the mapping and block
tables. Measured with page mapping (the presets' default) as the report's
`simulator.state_bytes_per_mapping_unit`: 9.85 on the default scenario, 9.77 on the full
enterprise_tlc preset (188 M units, 1.81 GB resident)."""

LARGE_DRIVE_UNITS = 2**25
"""Logical mapping units (33.5 M, 128 GiB of 4 KiB units, about 330 MB of state) above which a
run warns before it starts: the built-in default scenario has 11.7 M, the full enterprise_tlc
preset 188 M."""


def parse_size(text: Any) -> int | None:
    """The bytes of a size such as "16KiB", or None when `text` is no size."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([A-Za-z]+)\s*", str(text))
    if not match or match.group(2) not in SIZE_UNITS:
        return None
    return int(float(match.group(1)) * SIZE_UNITS[match.group(2)])


def _pages(flash: Mapping[str, Any]) -> int | None:
    try:
        count = int(flash["pages_per_block"])
        for key in GEOMETRY_KEYS:
            count *= int(flash[key])
    except (KeyError, TypeError, ValueError):
        return None
    return count


def raw_bytes(flash: Mapping[str, Any]) -> int | None:
    """The raw capacity of a `[flash]` table: every page of every block [bytes]."""
    pages, page_size = _pages(flash), parse_size(flash.get("page_size"))
    return None if pages is None or page_size is None else pages * page_size


def logical_units(config: Mapping[str, Any]) -> int | None:
    """The mapping units the host can address (the core's `logical_units`) of a resolved
    scenario, or None when it lacks a key."""
    flash, ftl = config.get("flash"), config.get("ftl")
    if not isinstance(flash, Mapping) or not isinstance(ftl, Mapping):
        return None
    pages, page_size = _pages(flash), parse_size(flash.get("page_size"))
    unit = parse_size(ftl.get("mapping_unit"))
    over_provisioning = ftl.get("over_provisioning")
    if pages is None or page_size is None or not unit or not isinstance(over_provisioning, int | float):
        return None
    physical = pages * (page_size // unit)
    return math.floor(physical * (1.0 - over_provisioning))


def user_bytes(config: Mapping[str, Any], units: int | None = None) -> int | None:
    """The capacity the host sees [bytes]: `units` (default: computed from `config`) mapping units
    of `ftl.mapping_unit`."""
    ftl = config.get("ftl")
    unit = parse_size(ftl.get("mapping_unit")) if isinstance(ftl, Mapping) else None
    units = logical_units(config) if units is None else units
    return None if unit is None or units is None else units * unit


def format_bytes(count: float) -> str:
    """ "64 GiB", "44.8 GiB", "1 TiB": three significant digits in the largest binary unit."""
    for unit, size in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if count >= size:
            return f"{count / size:.3g} {unit}"
    return f"{count:.0f} B"


def describe(config: Mapping[str, Any], units: int | None = None) -> str:
    """ "64 GiB raw, 44.8 GiB user": the drive's capacities, as far as `config` tells them."""
    flash = config.get("flash")
    raw = raw_bytes(flash) if isinstance(flash, Mapping) else None
    user = user_bytes(config, units)
    parts = [f"{format_bytes(raw)} raw" if raw is not None else ""]
    parts.append(f"{format_bytes(user)} user" if user else "")
    return ", ".join(part for part in parts if part)


def large_drive_warning(config: Mapping[str, Any]) -> str | None:
    """What to tell before a run on a drive of more than `LARGE_DRIVE_UNITS` logical mapping
    units (its size, the memory and preconditioning it takes, how to shrink it), else None."""
    units = logical_units(config)
    if units is None or units <= LARGE_DRIVE_UNITS:
        return None
    precondition = (config.get("workload") or {}).get("precondition", "?")
    state = units * STATE_BYTES_PER_UNIT
    memory = f"{state / 1e9:.2g} GB" if state >= 1e9 else f"{state / 1e6:.0f} MB"
    blocks = (config.get("flash") or {}).get("blocks_per_plane", "?")
    slc = config.get("slc_cache") or {}
    static = slc.get("static_size", "0B") if slc.get("enabled") else "0B"
    return (
        f"drive {config.get('drive', '?')} at full size: {describe(config, units)} "
        f"({units / 1e6:,.0f} M mapping units); the simulation will hold about {memory} of memory"
        + (f" and precondition ({precondition}) the whole drive first" if precondition != "none" else "")
        + f". To shrink it, set fewer blocks per plane (now {blocks}), e.g. "
        "`--set flash.blocks_per_plane=64` or `flash__blocks_per_plane=64` (the built-in default "
        "scenario's size)"
        + (
            f", with a smaller static SLC region (now {static}: its SLC-mode blocks must fit beside "
            "the logical capacity), e.g. `--set slc_cache.static_size=0B`"
            if str(static).strip() not in ("0B", "0", "")
            else ""
        )
    )
