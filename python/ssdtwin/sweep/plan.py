"""A sweep file read, checked and expanded into its points (docs/guide/sweeps.md).

    base = "scenario.toml"            # or an inline [base] table
    out = "results/qd_sweep"          # relative to the sweep file; --out overrides it
    seeds = [1, 2]                    # each point once per seed (default: the base seed)
    [grid]                            # cartesian product
    "host.queue_depth" = [1, 2, 4]
    [zip]                             # varied together, lists of one length
    "workload.read_fraction" = [0.25, 0.75]
    "workload.block_size" = ["4KiB", "16KiB"]
    points = [{"flash.channels" = 4}, {"flash.channels" = 8}]   # explicit points (before any table)
    reuse_snapshots = true            # precondition each distinct drive once (default)

The points are the product of the grid, the zip rows, the explicit points and the seeds (an
absent axis contributes one empty choice). Every point is resolved by the core's own loader
before anything runs, so a bad key or value stops the sweep up front with the point and key named.
A point's id is its index and a hash of its fully resolved scenario: `--resume` skips points whose
report is stored under the same id, and a change of base, axes or simulator defaults gives new ids.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import os
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeAlias

from ssdtwin import _core
from ssdtwin._core import ConfigError
from ssdtwin._util.arguments import config_error, core_arguments, scenario_file
from ssdtwin.sweep.tasks import PointTask

SweepLike: TypeAlias = str | os.PathLike[str] | Mapping[str, Any]
"""A sweep file path, or a dict with the keys of a sweep file."""

SWEEP_KEYS = ("base", "out", "grid", "zip", "points", "seeds", "reuse_snapshots")
"""The keys a sweep file may have."""
MAX_POINTS = 100_000
"""The most points one sweep may have: each is resolved by the core before anything runs."""


@dataclass(frozen=True)
class SweepDefinition:
    """A sweep file, checked for shape (the values are checked when the points are resolved)."""

    base_path: str | None
    """Path of the base scenario file (absolute), or None for an inline or the default base."""
    base_table: dict[str, Any] | None
    """The inline `[base]` table, or None."""
    base_dir: str
    """Directory that relative paths in the sweep (base, out, drive files) are relative to."""
    out: str | None
    grid: dict[str, list[Any]] = field(default_factory=dict)
    zip: dict[str, list[Any]] = field(default_factory=dict)
    points: list[dict[str, Any]] = field(default_factory=list)
    seeds: list[int] | None = None
    reuse_snapshots: bool = True
    """Points that share a drive start from one snapshot of it (`ssdtwin.sweep.drives`)."""

    def as_toml(self, version: str) -> dict[str, Any]:
        """The sweep as run, for `DIR/sweep.toml`."""
        table: dict[str, Any] = {"ssdtwin_version": version}
        if self.base_path is not None:
            table["base"] = self.base_path
        if self.out is not None:
            table["out"] = self.out
        if self.seeds is not None:
            table["seeds"] = list(self.seeds)
        if not self.reuse_snapshots:
            table["reuse_snapshots"] = False
        if self.points:
            table["points"] = self.points
        if self.base_table is not None:
            table["base"] = self.base_table
        if self.grid:
            table["grid"] = self.grid
        if self.zip:
            table["zip"] = self.zip
        return table


@dataclass(frozen=True)
class Point:
    """One simulation of a sweep."""

    index: int
    point_id: str
    overrides: dict[str, Any]
    """The swept keys (dotted) and their values, as written in the sweep."""
    seed: int

    def describe(self) -> str:
        values = ", ".join(f"{key}={json.dumps(value)}" for key, value in self.overrides.items())
        return f"{values}, seed={self.seed}" if values else f"seed={self.seed}"


def load_sweep(sweep: SweepLike) -> SweepDefinition:
    """Reads and shape-checks a sweep file or dict."""
    if isinstance(sweep, str | os.PathLike):
        path = Path(scenario_file(sweep))
        try:
            table = tomllib.loads(path.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as error:
            raise config_error("", f"{path} is not valid TOML: {error}") from None
        base_dir = path.resolve().parent
    elif isinstance(sweep, Mapping):
        table = dict(sweep)
        base_dir = Path.cwd()
    else:
        raise TypeError(f"sweep must be a path to a sweep file or a dict, not {type(sweep).__name__}")

    unknown = [key for key in table if key not in SWEEP_KEYS]
    if unknown:
        raise config_error(unknown[0], f"unknown sweep key; a sweep file has {', '.join(SWEEP_KEYS)}")

    base = table.get("base")
    base_path: str | None = None
    base_table: dict[str, Any] | None = None
    if isinstance(base, str):
        base_path = str(base_dir / base) if not os.path.isabs(base) else base
        scenario_file(base_path)
    elif isinstance(base, Mapping):
        base_table = dict(base)
    elif base is not None:
        raise config_error("base", f"must be a scenario file path or a table, not {_kind(base)}")

    out = table.get("out")
    if out is not None and not isinstance(out, str):
        raise config_error("out", f"must be a directory path, not {_kind(out)}")

    grid = _axes(table.get("grid", {}), "grid")
    zipped = _axes(table.get("zip", {}), "zip")
    lengths = {len(values) for values in zipped.values()}
    if len(lengths) > 1:
        sizes = ", ".join(f"{key} has {len(values)}" for key, values in zipped.items())
        raise config_error("zip", f"all lists must have the same length ({sizes})")

    raw_points = table.get("points", [])
    if not isinstance(raw_points, list) or not all(isinstance(point, Mapping) for point in raw_points):
        raise config_error("points", 'must be a list of tables, e.g. points = [{"host.queue_depth" = 1}]')
    points = [_flatten(point, "", f"points[{index}]") for index, point in enumerate(raw_points)]

    seeds = table.get("seeds")
    if seeds is not None and (
        not isinstance(seeds, list)
        or not seeds
        or not all(isinstance(seed, int) and not isinstance(seed, bool) and seed >= 0 for seed in seeds)
    ):
        raise config_error("seeds", f"must be a non-empty list of non-negative integers, not {seeds!r}")

    reuse = table.get("reuse_snapshots", True)
    if not isinstance(reuse, bool):
        raise config_error("reuse_snapshots", f"must be true or false, not {reuse!r}")

    count = point_count(grid, zipped, points, seeds)
    if count > MAX_POINTS:
        raise config_error(
            "grid" if grid else "zip" if zipped else "points",
            f"the sweep has {count:,} points, more than the {MAX_POINTS:,} one sweep may have; split it",
        )

    owners: dict[str, str] = {}
    for axis, keys in [("grid", grid), ("zip", zipped)] + [
        (f"points[{index}]", point) for index, point in enumerate(points)
    ]:
        for key in keys:
            if key == "seed" and seeds is not None:
                raise config_error(f"{axis}.seed", "the seed is swept by `seeds`; do not also set it here")
            owner = owners.setdefault(key, axis)
            if owner != axis and not (owner.startswith("points") and axis.startswith("points")):
                raise config_error(key, f"is swept twice, in {owner} and in {axis}")
    return SweepDefinition(
        base_path=base_path,
        base_table=base_table,
        base_dir=str(base_dir),
        out=out,
        grid=grid,
        zip=zipped,
        points=points,
        seeds=list(seeds) if seeds is not None else None,
        reuse_snapshots=reuse,
    )


def point_count(
    grid: Mapping[str, Sequence[Any]],
    zipped: Mapping[str, Sequence[Any]],
    points: Sequence[Any],
    seeds: Sequence[int] | None,
) -> int:
    """How many points `expand` makes of these axes (grid x zip rows x explicit points x seeds),
    without making them."""
    rows = max([1, *(len(values) for values in zipped.values())])
    return math.prod(len(values) for values in grid.values()) * rows * max(1, len(points)) * len(seeds or [1])


def output_directory(definition: SweepDefinition, out: str | os.PathLike[str] | None) -> Path:
    """`out` (relative to the working directory), else the sweep's `out` (relative to the sweep
    file)."""
    if out is not None:
        return Path(out).resolve()
    if definition.out is None:
        raise config_error("out", "the sweep has no output directory: give `out` in the sweep or --out")
    return (Path(definition.base_dir) / definition.out).resolve()


def expand(definition: SweepDefinition) -> list[Point]:
    """Every point of the sweep, each resolved by the core (a `ConfigError` names the first bad
    point and its key)."""
    grid_rows = [
        dict(zip(definition.grid, values, strict=True))
        for values in itertools.product(*definition.grid.values())
    ]
    zip_rows = [
        dict(zip(definition.zip, values, strict=True))
        for values in zip(*definition.zip.values(), strict=True)
    ]
    explicit = definition.points or [{}]
    combinations = [
        {**grid_row, **zip_row, **point}
        for grid_row in grid_rows
        for zip_row in (zip_rows or [{}])
        for point in explicit
    ]
    if definition.seeds is not None:
        seeds: list[int] = definition.seeds
    else:
        try:
            seeds = [int(_resolve(definition, {})["seed"])]
        except ConfigError as error:
            raise config_error(error.key, f"sweep base: {error.message}") from None
    points: list[Point] = []
    total = len(combinations) * len(seeds)
    for overrides in combinations:
        for seed in seeds:
            index = len(points)
            point_overrides = {**overrides, "seed": seed} if definition.seeds is not None else overrides
            try:
                resolved = _resolve(definition, point_overrides)
            except ConfigError as error:
                swept = Point(index, "", overrides, seed)
                message = f"sweep point {index + 1} of {total} ({swept.describe()}): {error.message}"
                raise config_error(error.key, message) from None
            seed_value = int(resolved["seed"])
            digest = hashlib.sha256(json.dumps(resolved, sort_keys=True).encode()).hexdigest()[:12]
            points.append(Point(index, f"{index:05d}-{digest}", overrides, seed_value))
    return points


# --------------------------------------------------------------------------------- helpers


def point_task(definition: SweepDefinition, point: Point) -> PointTask:
    scenario_path, scenario_json, base_dir, set_overrides, json_overrides = _core_arguments(
        definition, point.overrides, point.seed
    )
    return PointTask(point.point_id, scenario_path, scenario_json, base_dir, json_overrides, set_overrides)


def _core_arguments(
    definition: SweepDefinition, overrides: Mapping[str, Any], seed: int | None = None
) -> tuple[str | None, str | None, str, list[str], list[tuple[str, str]]]:
    base: Any = definition.base_path if definition.base_path is not None else definition.base_table
    values = dict(overrides)
    if seed is not None:
        values["seed"] = seed
    scenario_path, scenario_json, base_dir, set_overrides, json_overrides = core_arguments(base, values)
    # Relative paths in an inline base (e.g. `drive = "my_drive.toml"`) are relative to the sweep;
    # in a base file, to the file.
    if definition.base_path is None:
        base_dir = definition.base_dir
    return scenario_path, scenario_json, base_dir, set_overrides, json_overrides


def _resolve(definition: SweepDefinition, overrides: Mapping[str, Any]) -> dict[str, Any]:
    return json.loads(_core.resolve(*_core_arguments(definition, overrides)))


def _axes(table: Any, name: str) -> dict[str, list[Any]]:
    """A `[grid]` or `[zip]` table as dotted key to non-empty list; nested tables (TOML's
    unquoted `host.queue_depth = [...]`) are flattened."""
    if not isinstance(table, Mapping):
        raise config_error(name, f"must be a table of key = [values], not {_kind(table)}")
    axes = _flatten(table, "", name)
    for key, values in axes.items():
        if not isinstance(values, list) or not values:
            raise config_error(f"{name}.{key}", f"must be a non-empty list of values, not {values!r}")
    return axes


def _flatten(table: Mapping[str, Any], prefix: str, where: str) -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for name, value in table.items():
        if not isinstance(name, str) or not name:
            raise config_error(where, f"keys must be non-empty strings, not {name!r}")
        key = f"{prefix}{name}"
        if not all(key.replace("__", ".").split(".")):
            # `__` stands for a dot in Python keyword overrides, so it cannot end or double a part.
            raise config_error(f"{where}.{key}", "a key has an empty part (a stray `.` or `__`)")
        if isinstance(value, Mapping):
            flat.update(_flatten(value, f"{key}.", where))
        else:
            flat[key] = value
    return flat


def _kind(value: object) -> str:
    return f"a {type(value).__name__} ({value!r})"


def describe_points(points: Sequence[Point]) -> str:
    """One line per point: its id and swept values (for `ssdtwin sweep --dry-run`)."""
    return "\n".join(f"{point.point_id}  {point.describe()}" for point in points)
