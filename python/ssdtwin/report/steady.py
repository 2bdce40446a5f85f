"""Steadiness of a run in words, from the report dict: the warm-up, IOPS per window (the
report's `variability`), the SNIA PTS steady-state check (`steady_state`), and the warnings
`ssdtwin run` prints when a run that asked for steady state did not reach it or when a run that
wrote never collected garbage. Used by the text summary, the HTML page and the CLI."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ssdtwin.report.fields import format_value, lookup


def warmup_line(data: Mapping[str, Any]) -> str | None:
    """'Warm-up: 50,000 commands to 0.42 s, not measured', when the run had one."""
    warmup = data.get("warmup")
    if not isinstance(warmup, Mapping):
        return None
    return (
        f"Warm-up: {format_value(warmup.get('commands'), '{:,}')} commands to "
        f"{format_value(warmup.get('time_s'), '{:.6g}')} s, not measured"
    )


def variability_line(data: Mapping[str, Any]) -> str | None:
    """'IOPS per window (10 x 0.765 s): min 8,915, max 190,556, CV 57.3%'."""
    variability = data.get("variability")
    if not isinstance(variability, Mapping) or not variability.get("windows"):
        return None
    iops = variability.get("iops") if isinstance(variability.get("iops"), Mapping) else {}
    return (
        f"IOPS per window ({format_value(variability.get('windows'), '{:,}')} x "
        f"{format_value(variability.get('window_s'), '{:.3g}')} s): "
        f"min {format_value(iops.get('min'), '{:,.0f}')}, max {format_value(iops.get('max'), '{:,.0f}')}, "
        f"CV {format_value(iops.get('cv'), '{:.1%}')}"
    )


def steady_verdict(data: Mapping[str, Any]) -> str | None:
    """'passed', 'FAILED' or 'not decided' of the report's SNIA check; None without one."""
    state = data.get("steady_state")
    if not isinstance(state, Mapping):
        return None
    passed = state.get("passed")
    return "passed" if passed is True else "FAILED" if passed is False else "not decided"


def steady_line(data: Mapping[str, Any]) -> str | None:
    """'Steady state (SNIA PTS, last 5 windows): FAILED (excursion 77.3%, slope 61.9%)'."""
    verdict = steady_verdict(data)
    if verdict is None:
        return None
    state = data["steady_state"]
    rounds = format_value(state.get("rounds"), "{}")
    head = f"Steady state (SNIA PTS, last {rounds} windows): {verdict}"
    if verdict == "not decided":
        return f"{head} (fewer than {rounds} windows with completions)"
    excursion = format_value(state.get("excursion_fraction"), "{:.1%}")
    slope = format_value(state.get("slope_fraction"), "{:.1%}")
    return f"{head} (excursion {excursion}, slope {slope})"


def run_warnings(data: Mapping[str, Any]) -> list[str]:
    """What `ssdtwin run` warns about the drive's behaviour: a run whose scenario asked for
    `precondition = "steady"` and that failed the SNIA check, and a run that wrote without any
    block erased (GC never ran, so the drive was never in its steady state)."""
    warnings = []
    if lookup(data, "config.workload.precondition") == "steady" and steady_verdict(data) == "FAILED":
        parts = [part for part in (steady_line(data), variability_line(data)) if part]
        warnings.append(
            'the run asked for precondition = "steady" but did not reach steady state: ' + "; ".join(parts)
        )
    writes = lookup(data, "latency_us.write.count") or 0
    erases = lookup(data, "ftl.erases.total")
    if writes > 0 and erases == 0:
        warnings.append(
            f"the run wrote {writes:,} commands but GC never ran (no block erased): the figures are "
            'those of a drive with free blocks to spare; precondition with "steady" or write more'
        )
    return warnings
