"""The "Public drives" section of docs/validation.md (issue 30, point 5): presets of public
data-center drives against their published figures. Reads `studies/public_drives/drives.toml`
(each published figure with its source, and the cause of every miss beyond 15%) and
`studies/public_drives/measured.json` (the simulated figures, written by the study's run.py).

Standard library only, like scripts/validation.py, which calls `load_drives` and `render_drives`.
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

STUDY = Path("studies/public_drives")
LIMIT = 0.15  # |simulated / published - 1| beyond this needs a cause
DRIVE_KEYS = {"name", "interface", "nand", "not_found", "figure"}
FIGURE_KEYS = {"key", "name", "value", "unit", "source", "cause"}


@dataclass
class Figure:
    key: str
    name: str
    value: float
    unit: str
    source: str
    cause: str
    measured: float

    @property
    def error(self) -> float:
        return self.measured / self.value - 1


@dataclass
class Drive:
    preset: str
    name: str
    interface: str
    nand: str
    not_found: str
    figures: list[Figure] = field(default_factory=list)


def _text(table: dict, key: str, where: str, errors: list[str], required: bool = True) -> str:
    value = table.get(key, "")
    if not isinstance(value, str) or (required and not value.strip()):
        errors.append(f"{where}: key {key!r} must be a non-empty string")
        return ""
    return value


def _figure(raw: dict, drive: str, where: str, measured: dict, errors: list[str]) -> Figure | None:
    for key in sorted(set(raw) - FIGURE_KEYS):
        errors.append(f"{where}: unknown key {key!r} (allowed: {', '.join(sorted(FIGURE_KEYS))})")
    key = _text(raw, "key", where, errors)
    where = f"{where} ({key or '?'})"
    name = _text(raw, "name", where, errors)
    unit = _text(raw, "unit", where, errors)
    source = _text(raw, "source", where, errors)
    cause = _text(raw, "cause", where, errors, required=False)
    value = raw.get("value")
    if isinstance(value, bool) or not isinstance(value, int | float) or value == 0:
        errors.append(f"{where}: key 'value' must be a non-zero number (the published figure)")
        return None
    if source and len(source) < 20:
        errors.append(f"{where}: key 'source' {source!r} is too short to find (title, publisher, date)")
    if not key:
        return None
    measured_key = f"{drive}.{key}"
    if measured_key not in measured:
        errors.append(
            f"{where}: {measured_key!r} is not in {STUDY}/measured.json (run studies/public_drives/run.py)"
        )
        return None
    figure = Figure(key, name, float(value), unit, source, cause, float(measured[measured_key]))
    if abs(figure.error) > LIMIT and len(cause.strip()) < 40:
        errors.append(
            f"{where}: simulated {figure.measured:g} misses the published {figure.value:g} by "
            f"{figure.error:+.0%} (beyond 15%): key 'cause' must name the part of the model and the "
            "run that isolates it"
        )
    return figure


def load_drives(root: Path, presets: set[str], errors: list[str]) -> list[Drive]:
    """The drives of `root`/studies/public_drives/drives.toml (none when the file is absent);
    appends every problem found to `errors`."""
    path = root / STUDY / "drives.toml"
    if not path.is_file():
        return []
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as error:
        errors.append(f"{STUDY}/drives.toml: {error}")
        return []
    measured_path = root / STUDY / "measured.json"
    try:
        measured = json.loads(measured_path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as error:
        errors.append(f"{STUDY}/measured.json: cannot read it ({error}): run studies/public_drives/run.py")
        return []
    drives = []
    for preset, table in (raw.get("drive") or {}).items():
        where = f"{STUDY}/drives.toml: [drive.{preset}]"
        if preset not in presets:
            known = ", ".join(sorted(presets))
            errors.append(f"{where}: {preset!r} is not a preset of configs/drives ({known})")
        for key in sorted(set(table) - DRIVE_KEYS):
            errors.append(f"{where}: unknown key {key!r} (allowed: {', '.join(sorted(DRIVE_KEYS))})")
        drive = Drive(
            preset,
            _text(table, "name", where, errors),
            _text(table, "interface", where, errors),
            _text(table, "nand", where, errors),
            _text(table, "not_found", where, errors, required=False),
        )
        rows = table.get("figure") or []
        if not rows:
            errors.append(f"{where}: no [[drive.{preset}.figure]]")
        for index, row in enumerate(rows):
            figure = _figure(row, preset, f"{where} figure {index + 1}", measured, errors)
            if figure is not None:
                drive.figures.append(figure)
        drives.append(drive)
    return drives


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _value(value: float) -> str:
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:.3g}"


INTRO = """\
## Public drives

<!-- Generated from studies/public_drives/drives.toml (published figures, sources, causes) and
studies/public_drives/measured.json (written by studies/public_drives/run.py). -->

Presets of public data-center drives built from their published specifications, each run by
`studies/public_drives/run.py` in the conditions its specification states. Error = simulated /
published - 1; beyond ±15% the cause names the part of the model responsible and the run that
isolates it. Each preset is one set of parameters: nothing in it is fitted to a figure below
(its TOML marks every value's source, public or inferred)."""


def render_drives(drives: list[Drive]) -> list[str]:
    """The section's lines (none when there are no drives)."""
    if not drives:
        return []
    lines = [INTRO, ""]
    for drive in drives:
        within = sum(abs(figure.error) <= LIMIT for figure in drive.figures)
        lines += [
            f"### {drive.name} (`{drive.preset}`)",
            "",
            f"{_cell(drive.interface)}; {_cell(drive.nand)}. {within} of {len(drive.figures)} "
            "published figures within 15%."
            + (f" Not found in the sources: {_cell(drive.not_found)}." if drive.not_found else ""),
            "",
            "| figure | published | simulated | error | source | cause (beyond 15%) |",
            "|---|---|---|---|---|---|",
        ]
        for figure in drive.figures:
            cause = _cell(figure.cause) if abs(figure.error) > LIMIT else "within 15%"
            lines.append(
                f"| {_cell(figure.name)} | {_value(figure.value)} {figure.unit} | "
                f"{_value(figure.measured)} {figure.unit} | {figure.error:+.0%} | "
                f"{_cell(figure.source)} | {cause} |"
            )
        lines.append("")
    return lines
