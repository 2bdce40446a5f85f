"""Turns the Python API's arguments (a scenario and keyword overrides) into the arguments of
`ssdtwin._core.run` and `ssdtwin._core.resolve`; the command line, sweeps and `serve` go through
here too, so they all build a scenario the same way:

* no scenario: the built-in default scenario (`ssdtwin.default_scenario()`: the enterprise TLC
  drive shrunk to 64 GiB raw, steady-state preconditioning, 1,000,000 I/Os);
* a scenario (dict or TOML file) that does not name a `drive`: layered on the built-in default
  scenario, as if each of its keys were an override of it (`{"host": {"queue_depth": 8}}` is the
  default scenario at queue depth 8);
* a scenario that names a `drive`: a scenario of its own, that preset at its own size with the
  schema's defaults for every key it leaves out (`workload.precondition = "fill"`, 200,000 I/Os);
* overrides (`--set`, keyword arguments) apply last. An override of `drive` on the default
  scenario runs that preset at its own size (the default's 64 GiB shrink belongs to its drive).

Only argument checking happens here: what a key means, and whether its value is allowed, is the
core's business. A wrong Python type fails here with a `TypeError` that names the argument and
the key, before anything crosses into Rust.
"""

from __future__ import annotations

import errno
import json
import math
import numbers
import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeAlias

from ssdtwin import _core
from ssdtwin._core import ConfigError

RUN_ENDS = frozenset({"io_count", "duration"})
"""The workload keys that end a run: a scenario that sets either replaces the default's."""

ScenarioLike: TypeAlias = str | os.PathLike[str] | Mapping[str, Any] | None
"""What `ssdtwin.run` accepts as a scenario: None (the built-in default), a path to a TOML
file, or a dict with the tables of a scenario file."""

CoreArguments: TypeAlias = tuple[str | None, str | None, str, list[str], list[tuple[str, str]]]
"""`(scenario_path, scenario_json, base_dir, set_overrides, json_overrides)` of `_core.run`."""


def core_arguments(
    scenario: ScenarioLike,
    overrides: Mapping[str, object],
    set_overrides: list[str] | None = None,
) -> CoreArguments:
    """The `_core` arguments for `scenario`, keyword `overrides` (dotted keys or `__` for dots)
    and CLI-style `key=value` strings `set_overrides` (applied before `overrides`); a scenario
    without a `drive` is layered on the built-in default scenario (this module's docstring)."""
    scenario_path: str | None = None
    scenario_json: str | None = None
    base_dir = os.getcwd()
    dotted = dotted_overrides(overrides)
    drive_set = "drive" in dotted or any(
        item.split("=", 1)[0].strip() == "drive" for item in set_overrides or []
    )
    infinite: list[str] = []
    if scenario is None:
        pass
    elif isinstance(scenario, str | os.PathLike):
        scenario_path = scenario_file(scenario)
        table = _driveless_file(scenario_path)
        if table is not None:
            # Its relative paths (a trace, a drive file) stay relative to the file's folder.
            table, infinite = _without_infinities(table, "")
            scenario_json = json.dumps(on_default_scenario(table, drive_set))
            base_dir = str(Path(scenario_path).resolve().parent)
            scenario_path = None
    elif isinstance(scenario, Mapping):
        plain = _plain(scenario, "", "scenario")
        if isinstance(plain, dict) and "drive" not in plain:
            plain = on_default_scenario(plain, drive_set)
        scenario_json = json.dumps(plain)
    else:
        raise TypeError(
            "scenario must be None (the built-in default), a path to a TOML file (str or os.PathLike) "
            f"or a dict of scenario tables, not {type(scenario).__name__}"
        )
    set_list = [*infinite, *(set_overrides or [])]
    json_overrides = []
    for key, value in dotted.items():
        if isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isinf(float(value)):
            # JSON has no infinity; TOML does (`inf` opens a thermal path, for example).
            set_list.append(f"{key}={'-' if float(value) < 0 else ''}inf")
        else:
            json_overrides.append((key, json.dumps(_plain(value, key, "override"))))
    return scenario_path, scenario_json, base_dir, set_list, json_overrides


def on_default_scenario(table: Mapping[str, Any], drive_set: bool = False) -> dict[str, Any]:
    """`table` (a scenario without `drive`) layered on the built-in default scenario, tables
    merged key by key as the core merges a scenario on its preset; without the default's [flash]
    shrink when `drive_set` (an override names another drive)."""
    merged = tomllib.loads(_core.default_scenario())
    if drive_set:
        merged.pop("flash", None)
    workload = table.get("workload")
    if isinstance(workload, Mapping) and RUN_ENDS & workload.keys():
        # The scenario says how the run ends: the default's bound it leaves out does not apply
        # (the core's rule for layers: the last layer that sets io_count or duration decides).
        for key in RUN_ENDS - workload.keys():
            merged.get("workload", {}).pop(key, None)
    _merge(merged, table)
    return merged


def _merge(base: dict[str, Any], overlay: Mapping[str, Any]) -> None:
    for key, value in overlay.items():
        if isinstance(value, Mapping) and isinstance(base.get(key), dict):
            _merge(base[key], value)
        else:
            base[key] = value


def _driveless_file(path: str) -> dict[str, Any] | None:
    """The table of the TOML file at `path` when it names no `drive`; None when it names one, or
    when it is no valid TOML (the core then reads it and names the error)."""
    try:
        table = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None
    return None if "drive" in table else table


def _without_infinities(table: Mapping[str, Any], prefix: str) -> tuple[dict[str, Any], list[str]]:
    """`table` without its infinite numbers (JSON has none) and those as `key=inf` overrides."""
    kept: dict[str, Any] = {}
    infinite: list[str] = []
    for name, value in table.items():
        key = f"{prefix}{name}"
        if isinstance(value, Mapping):
            kept[name], inner = _without_infinities(value, f"{key}.")
            infinite.extend(inner)
        elif isinstance(value, float) and math.isinf(value):
            infinite.append(f"{key}={'-' if value < 0 else ''}inf")
        else:
            kept[name] = value
    return kept, infinite


def scenario_file(scenario: str | os.PathLike[str]) -> str:
    """The path of a scenario file as text, checked to exist."""
    path = os.fspath(scenario)
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    if not Path(path).exists():
        raise FileNotFoundError(errno.ENOENT, "scenario file not found", path)
    if Path(path).is_dir():
        raise IsADirectoryError(errno.EISDIR, "scenario is a directory, not a TOML file", path)
    return path


def dotted_overrides(overrides: Mapping[str, object]) -> dict[str, object]:
    """Keyword overrides keyed by dotted path: `flash__channels` and `flash.channels` are the same
    key, which may be given only once."""
    dotted: dict[str, object] = {}
    for name, value in overrides.items():
        key = name.replace("__", ".")
        if any(not part for part in key.split(".")):
            raise TypeError(
                f"override {name!r} has an empty key part; write `flash__channels` or `flash.channels`"
            )
        if key in dotted:
            raise TypeError(f"override `{key}` is given twice (once with `__` for the dots)")
        dotted[key] = value
    return dotted


def config_error(key: str, message: str) -> ConfigError:
    """A `ConfigError` made on the Python side, shaped like those of the core."""
    error = ConfigError(f"`{key}`: {message}" if key else message)
    error.key = key
    error.message = message
    error.file = error.line = error.column = None
    return error


def _plain(value: object, key: str, argument: str) -> object:
    """`value` as plain JSON data; `key` (dotted path) and `argument` name it in errors.

    Numbers of other types (e.g. NumPy scalars) become `int` or `float`, paths become `str`;
    None passes through so that the core names its key in the error.
    """
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        number = float(value)
        if not math.isfinite(number):
            raise config_error(
                key,
                f"{number} is not a valid value (NaN is never allowed; infinity only as a keyword "
                "override, e.g. **{'thermal.resistance_k_per_w.nand_lateral': float('inf')})",
            )
        return number
    if isinstance(value, os.PathLike):
        return os.fsdecode(os.fspath(value))
    if isinstance(value, Mapping):
        plain: dict[str, object] = {}
        for name, item in value.items():
            if not isinstance(name, str):
                raise TypeError(f"{_where(argument, key)}: table keys must be str, not {type(name).__name__}")
            plain[name] = _plain(item, f"{key}.{name}" if key else name, argument)
        return plain
    if isinstance(value, list | tuple):
        return [_plain(item, f"{key}[{index}]", argument) for index, item in enumerate(value)]
    raise TypeError(
        f"{_where(argument, key)}: a {type(value).__name__} is not a valid value; "
        "use str, int, float, bool, list or dict"
    )


def _where(argument: str, key: str) -> str:
    return f"{argument} `{key}`" if key else argument
