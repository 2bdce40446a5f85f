"""Turns the Python API's arguments (a scenario and keyword overrides) into the arguments of
`ssdtwin._core.run` and `ssdtwin._core.resolve`.

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
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeAlias

from ssdtwin._core import ConfigError

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
    and CLI-style `key=value` strings `set_overrides` (applied before `overrides`)."""
    scenario_path: str | None = None
    scenario_json: str | None = None
    if scenario is None:
        pass
    elif isinstance(scenario, str | os.PathLike):
        scenario_path = scenario_file(scenario)
    elif isinstance(scenario, Mapping):
        scenario_json = json.dumps(_plain(scenario, "", "scenario"))
    else:
        raise TypeError(
            "scenario must be None (the built-in default), a path to a TOML file (str or os.PathLike) "
            f"or a dict of scenario tables, not {type(scenario).__name__}"
        )
    set_list = list(set_overrides or [])
    json_overrides = []
    for key, value in dotted_overrides(overrides).items():
        if isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isinf(float(value)):
            # JSON has no infinity; TOML does (`inf` opens a thermal path, for example).
            set_list.append(f"{key}={'-' if float(value) < 0 else ''}inf")
        else:
            json_overrides.append((key, json.dumps(_plain(value, key, "override"))))
    return scenario_path, scenario_json, os.getcwd(), set_list, json_overrides


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
