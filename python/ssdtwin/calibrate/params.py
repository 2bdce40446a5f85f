"""The drive parameters the fit can set, their scenario keys and units, and the fitted preset file.

Continuous parameters are fitted as log multipliers of the base preset's value (a list value, as
per-page-type `t_read`, is scaled as a whole), so each one's uncertainty is relative. Integer
parameters (dies per chip, channels) are chosen by a discrete search.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tomli_w

from ssdtwin import _core
from ssdtwin._core import ConfigError
from ssdtwin._util.arguments import core_arguments
from ssdtwin.calibrate.measure import CalibrationError


@dataclass(frozen=True)
class Parameter:
    name: str
    key: str
    """The scenario key, dotted."""
    unit: str
    """`us` (a duration), `MT/s` (a rate), `` (a number) or `int`."""
    stage: str
    """Which stage of the fit identifies it first."""


CONTINUOUS = (
    Parameter("command_overhead", "host.command_overhead", "us", "i: QD 1 read latency"),
    Parameter("t_read", "flash.t_read", "us", "i: QD 1 read latency"),
    Parameter("bus_rate", "flash.bus_rate", "MT/s", "ii: read QD curve, sequential reads"),
    Parameter("t_program", "flash.t_program", "us", "iii: writes"),
    Parameter("over_provisioning", "ftl.over_provisioning", "", "iii: steady random writes"),
    Parameter("frame_buffer", "controller.frame_buffer", "int", "iii: write latency"),
)
DISCRETE = (
    Parameter("dies_per_chip", "flash.dies_per_chip", "int", "ii: read QD curve"),
    Parameter("channels", "flash.channels", "int", "ii: sequential reads"),
)
BY_NAME = {parameter.name: parameter for parameter in CONTINUOUS + DISCRETE}
OP_CEILING = 0.9
"""Over-provisioning stays below this during the fit."""

_DURATION = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:e[+-]?\d+)?)\s*(ns|us|µs|ms|s)\s*$", re.IGNORECASE)
_DURATION_US = {"ns": 1e-3, "us": 1.0, "µs": 1.0, "ms": 1e3, "s": 1e6}
_RATE = re.compile(r"^\s*([0-9]*\.?[0-9]+)\s*(kT/s|MT/s|GT/s|T/s)\s*$")
_RATE_MT = {"T/s": 1e-6, "kT/s": 1e-3, "MT/s": 1.0, "GT/s": 1e3}


def get_key(table: Mapping[str, Any], key: str) -> Any:
    value: Any = table
    for part in key.split("."):
        value = value[part]
    return value


def to_number(value: Any, unit: str, key: str) -> float | list[float]:
    """A resolved value as a number in `unit` (a list stays a list)."""
    if isinstance(value, list):
        return [float(to_number(item, unit, key)) for item in value]  # type: ignore[arg-type]
    if unit == "us":
        match = _DURATION.match(str(value))
        if match is None:
            raise CalibrationError(f"base preset: `{key}` = {value!r} is not a duration the fit reads")
        return float(match.group(1)) * _DURATION_US[match.group(2).lower().replace("µ", "u")]
    if unit == "MT/s":
        match = _RATE.match(str(value))
        if match is None:
            raise CalibrationError(f"base preset: `{key}` = {value!r} is not a rate the fit reads (MT/s)")
        return float(match.group(1)) * _RATE_MT[match.group(2)]
    return float(value)


def render(value: float | list[float], unit: str) -> Any:
    """A number in `unit` as the scenario file writes it."""
    if isinstance(value, list):
        return [render(item, unit) for item in value]
    if unit == "us":
        return f"{value:.4g}us"
    if unit == "MT/s":
        return f"{value:.4g}MT/s"
    if unit == "int":
        return max(1, round(value))
    return round(value, 4)


def scaled(base: float | list[float], factor: float) -> float | list[float]:
    return [item * factor for item in base] if isinstance(base, list) else base * factor


def first(value: float | list[float]) -> float:
    """A representative number of a value: a list's mean."""
    return sum(value) / len(value) if isinstance(value, list) else value


@dataclass
class Base:
    """The base preset: its name or path as given, and its resolved scenario."""

    drive: str
    resolved: dict[str, Any]
    values: dict[str, float | list[float]]
    """Each parameter's base value, in its unit."""

    def overrides(self, factors: Mapping[str, float], integers: Mapping[str, int]) -> dict[str, Any]:
        """Scenario overrides (dotted keys) of the parameters at these multipliers and integers."""
        result: dict[str, Any] = {}
        for name, factor in factors.items():
            parameter = BY_NAME[name]
            result[parameter.key] = render(scaled(self.values[name], factor), parameter.unit)
        for name, value in integers.items():
            result[BY_NAME[name].key] = int(value)
        return result


def load_base(drive: str) -> Base:
    """The base preset `drive` (a preset name or a .toml path), resolved; a CalibrationError names it."""
    if drive.endswith(".toml") or "/" in drive:
        path = Path(drive)
        if not path.is_file():
            raise CalibrationError(f"--base {drive}: no such drive file")
        drive = str(path.resolve())
    try:
        resolved = dict(_core_resolve({"drive": drive}))
    except ConfigError as error:
        raise CalibrationError(f"--base {drive}: {error}".rstrip()) from None
    values = {
        parameter.name: to_number(get_key(resolved, parameter.key), parameter.unit, parameter.key)
        for parameter in CONTINUOUS + DISCRETE
    }
    return Base(drive, resolved, values)


def _core_resolve(scenario: Mapping[str, Any]) -> dict[str, Any]:
    import json

    return dict(json.loads(_core.resolve(*core_arguments(scenario, {}))))


PRESET_TABLES = ("host", "controller", "flash", "ftl", "buffer", "plp", "power", "thermal")
HOST_DRIVE_KEYS = ("pcie_generation", "pcie_lanes", "command_overhead")


def _without_none(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _without_none(item) for key, item in value.items() if item is not None}
    return value


def preset_document(base: Base, overrides: Mapping[str, Any], description: str) -> dict[str, Any]:
    """The fitted drive file: the base preset's drive tables, resolved, with the fitted keys set."""
    document: dict[str, Any] = {"description": description}
    for table in PRESET_TABLES:
        values = dict(base.resolved[table])
        if table == "host":
            values = {key: values[key] for key in HOST_DRIVE_KEYS}
        document[table] = _without_none(values)
    for key, value in overrides.items():
        table, *rest = key.split(".")
        target = document[table]
        for part in rest[:-1]:
            target = target[part]
        target[rest[-1]] = value
    return document


def preset_text(document: Mapping[str, Any], header: str) -> str:
    comment = "".join(f"# {line}\n" if line else "#\n" for line in header.splitlines())
    return comment + tomli_w.dumps(dict(document))


def relative_uncertainty(sigma_log: float) -> float:
    """The relative 1-sigma uncertainty of a value whose log has standard deviation `sigma_log`."""
    return math.expm1(sigma_log) if math.isfinite(sigma_log) else math.inf
