"""Reads and checks the validation page's inputs (scripts/validation.py renders the page): every
`studies/<name>/claims.toml` with its `measured.json`, and `docs/validation_unaddressed.toml`.
Each problem is reported with its file and key; `load` raises ValidationError listing them all.
The status rules are `compute_status`'s (the format: docs/validation.md, "How to read the status").
"""

from __future__ import annotations

import json
import math
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from validation_drives import load_drives

ROOT = Path(__file__).resolve().parent.parent

UNADDRESSED = Path("docs/validation_unaddressed.toml")

# The four papers (/work/shared/papers/README.md; their references in docs/references.md).
PAPERS = {
    "000": (
        "SELFHEAT",
        "Zambelli et al., Mitigating Self-Heating in Solid State Drives for IIoT Edge Gateways (2020)",
    ),
    "001": (
        "SUSPEND",
        "Zambelli et al., Assessing the Role of Program Suspend Operation in 3D NAND Flash Based SSDs (2021)",
    ),
    "003": ("DAWID", "Nam et al., Overcoming Capacitance Constraints in SSD (Dawid)"),
    "004": ("CHO", "Cho et al., Influence of Number of Channels and FTL on SSD Power Consumption"),
}
# The self-heating paper runs two drives: its studies may name either preset or both.
MULTI_DRIVE_PAPERS = {"000": {"iiot_64gb", "iiot_512gb"}}
DRIVE_STATES = ("fresh", "steady")
KINDS = ("number", "direction")
DIRECTIONS = ("up", "down")
STATUS_VALUES = ("auto", "not reproduced")

STUDY_KEYS = {"study", "paper", "preset", "drive_state", "fitted", "claim"}
CLAIM_KEYS = {"id", "figure", "paper_says", "kind", "measured", "status", "cause"}
NUMBER_KEYS = {"paper_value", "unit"}
DIRECTION_KEYS = {"direction"}
UNADDRESSED_KEYS = {"id", "paper", "figure", "paper_says", "why"}

WITHIN = "within 25%"
DIRECTION_ONLY = "direction only"
DIRECTION_BIG = "direction (≥5%)"
DIRECTION_SMALL = "direction (<5%)"
MISSED = "missed"
NOT_REPRODUCED = "not reproduced"
NOT_ADDRESSED = "not addressed"
# The statuses that need no cause: the paper's number within 25%, or its direction by 5% or more.
REPRODUCED = (WITHIN, DIRECTION_BIG)


class ValidationError(Exception):
    """The claims files are inconsistent; `errors` lists each problem, naming file and key."""

    def __init__(self, errors: list[str]) -> None:
        super().__init__("\n".join(errors))
        self.errors = errors


@dataclass
class Claim:
    id: str
    paper: str
    figure: str
    paper_says: str
    study: str = ""  # empty: not addressed
    kind: str = ""
    paper_value: float | None = None
    unit: str = ""
    direction: str = ""
    measured_key: str = ""
    measured: float | None = None
    status: str = NOT_ADDRESSED
    cause: str = ""  # for a claim not addressed: why


@dataclass
class Study:
    name: str
    paper: str
    preset: str
    drive_state: str
    fitted: str
    claims: list[Claim] = field(default_factory=list)


@dataclass
class Data:
    studies: list[Study]
    unaddressed: list[Claim]
    untied: list[str]  # study directories without a claims.toml
    drives: list[Any] = field(default_factory=list)  # validation_drives.Drive: the public drives


def compute_status(kind: str, measured: float, paper_value: float | None = None, direction: str = "") -> str:
    """The status the format's rules give a measured value (docs/validation.md, "How to read")."""
    if kind == "number":
        assert paper_value
        ratio = measured / paper_value
        if abs(ratio - 1) <= 0.25:
            return WITHIN
        return DIRECTION_ONLY if ratio > 0 else MISSED
    sign = 1 if direction == "up" else -1
    if measured * sign <= 0:
        return MISSED
    return DIRECTION_BIG if abs(measured) >= 0.05 else DIRECTION_SMALL


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _load_toml(path: Path, root: Path, errors: list[str]) -> dict[str, Any] | None:
    try:
        with path.open("rb") as file:
            return tomllib.load(file)
    except tomllib.TOMLDecodeError as error:
        errors.append(f"{path.relative_to(root)}: not valid TOML: {error}")
        return None


def _load_measured(path: Path, root: Path, errors: list[str]) -> dict[str, float] | None:
    where = path.relative_to(root)
    if not path.is_file():
        errors.append(f"{where}: missing (the study's run script writes it; claims.toml names its keys)")
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        errors.append(f"{where}: not valid JSON: {error}")
        return None
    if not isinstance(data, dict):
        errors.append(f"{where}: must be a flat JSON object {{key: number}}")
        return None
    for key, value in data.items():
        if not _is_number(value):
            errors.append(f"{where}: key {key!r}: {value!r} is not a finite number")
    return data


def _require_str(table: dict, key: str, where: str, errors: list[str], allowed: tuple = ()) -> str:
    value = table.get(key)
    if not isinstance(value, str) or not value.strip():
        errors.append(f"{where}: key {key!r} is missing or not a non-empty string")
        return ""
    if allowed and value not in allowed:
        errors.append(f"{where}: key {key!r} = {value!r}: allowed are {', '.join(map(repr, allowed))}")
    return value


def _unknown_keys(table: dict, known: set[str], where: str, errors: list[str]) -> None:
    for key in sorted(set(table) - known):
        errors.append(f"{where}: unknown key {key!r} (allowed: {', '.join(sorted(known))})")


def _load_claim(
    raw: Any, study: Study, measured: dict[str, float] | None, where: str, errors: list[str]
) -> Claim | None:
    if not isinstance(raw, dict):
        errors.append(f"{where}: must be a table ([[claim]])")
        return None
    kind = _require_str(raw, "kind", where, errors, KINDS)
    extra = NUMBER_KEYS if kind == "number" else DIRECTION_KEYS if kind == "direction" else set()
    _unknown_keys(raw, CLAIM_KEYS | extra, where, errors)
    claim = Claim(
        id=_require_str(raw, "id", where, errors),
        paper=study.paper,
        figure=_require_str(raw, "figure", where, errors),
        paper_says=_require_str(raw, "paper_says", where, errors),
        study=study.name,
        kind=kind,
        measured_key=_require_str(raw, "measured", where, errors),
    )
    if claim.id and not claim.id.startswith(f"{study.paper}-"):
        errors.append(f"{where}: id {claim.id!r} must start with the paper's number, {study.paper + '-'!r}")
    status = _require_str(raw, "status", where, errors, STATUS_VALUES)
    cause = raw.get("cause", "")
    if not isinstance(cause, str):
        errors.append(f"{where}: key 'cause' must be a string")
        cause = ""
    claim.cause = cause.strip()
    if kind == "number":
        value = raw.get("paper_value")
        if not _is_number(value) or value == 0:
            errors.append(f"{where}: key 'paper_value' is missing or not a non-zero number (kind = 'number')")
        else:
            claim.paper_value = float(value)
        claim.unit = _require_str(raw, "unit", where, errors)
    elif kind == "direction":
        claim.direction = _require_str(raw, "direction", where, errors, DIRECTIONS)
    if measured is not None and claim.measured_key:
        if claim.measured_key not in measured:
            errors.append(
                f"{where}: measured key {claim.measured_key!r} is not in studies/{study.name}/measured.json"
            )
        elif _is_number(measured[claim.measured_key]):
            claim.measured = float(measured[claim.measured_key])
    if claim.measured is None or kind not in KINDS or status not in STATUS_VALUES:
        return claim
    if claim.paper_value is None if kind == "number" else claim.direction not in DIRECTIONS:
        return claim
    auto = compute_status(kind, claim.measured, claim.paper_value, claim.direction)
    claim.status = NOT_REPRODUCED if status == NOT_REPRODUCED else auto
    if claim.status not in REPRODUCED and not claim.cause:
        errors.append(
            f"{where}: claim {claim.id!r} is {claim.status!r}: key 'cause' is required "
            "(the named mechanism and the isolating run that shows it)"
        )
    return claim


def _load_study(directory: Path, root: Path, presets: set[str], errors: list[str]) -> Study | None:
    path = directory / "claims.toml"
    where = str(path.relative_to(root))
    raw = _load_toml(path, root, errors)
    if raw is None:
        return None
    _unknown_keys(raw, STUDY_KEYS, where, errors)
    study = Study(
        name=_require_str(raw, "study", where, errors),
        paper=_require_str(raw, "paper", where, errors, tuple(PAPERS)),
        preset=_require_str(raw, "preset", where, errors),
        drive_state=_require_str(raw, "drive_state", where, errors, DRIVE_STATES),
        fitted=_require_str(raw, "fitted", where, errors),
    )
    if study.name and study.name != directory.name:
        errors.append(
            f"{where}: key 'study' = {study.name!r} must be the directory's name, {directory.name!r}"
        )
    study.name = directory.name
    for part in study.preset.split("+") if study.preset else []:
        if part not in presets:
            errors.append(
                f"{where}: key 'preset': {part!r} is not a preset of configs/drives "
                f"({', '.join(sorted(presets))})"
            )
    claims = raw.get("claim", [])
    if not isinstance(claims, list) or not claims:
        errors.append(f"{where}: no [[claim]] entries (a study tied to no claim needs no claims.toml)")
        return study
    measured = _load_measured(directory / "measured.json", root, errors)
    for index, item in enumerate(claims):
        claim = _load_claim(item, study, measured, f"{where}: claim[{index}]", errors)
        if claim is not None:
            study.claims.append(claim)
    return study


def _load_unaddressed(root: Path, errors: list[str]) -> list[Claim]:
    path = root / UNADDRESSED
    if not path.is_file():
        return []
    raw = _load_toml(path, root, errors)
    if raw is None:
        return []
    _unknown_keys(raw, {"claim"}, str(UNADDRESSED), errors)
    claims = []
    for index, item in enumerate(raw.get("claim", [])):
        where = f"{UNADDRESSED}: claim[{index}]"
        if not isinstance(item, dict):
            errors.append(f"{where}: must be a table ([[claim]])")
            continue
        _unknown_keys(item, UNADDRESSED_KEYS, where, errors)
        claim = Claim(
            id=_require_str(item, "id", where, errors),
            paper=_require_str(item, "paper", where, errors, tuple(PAPERS)),
            figure=_require_str(item, "figure", where, errors),
            paper_says=_require_str(item, "paper_says", where, errors),
            cause=_require_str(item, "why", where, errors).strip(),
        )
        if claim.id and claim.paper and not claim.id.startswith(f"{claim.paper}-"):
            errors.append(
                f"{where}: id {claim.id!r} must start with the paper's number, {claim.paper + '-'!r}"
            )
        claims.append(claim)
    return claims


def _check_papers(studies: list[Study], errors: list[str]) -> None:
    """Per paper: one preset (000: its two drives), one drive state, at most one fitted number."""
    for paper in PAPERS:
        mine = [study for study in studies if study.paper == paper]
        if not mine:
            continue
        names = ", ".join(f"{study.name} ({study.preset}, {study.drive_state})" for study in mine)
        allowed = MULTI_DRIVE_PAPERS.get(paper)
        if allowed is not None:
            for study in mine:
                if not set(study.preset.split("+")) <= allowed:
                    errors.append(
                        f"studies/{study.name}/claims.toml: key 'preset' = {study.preset!r}: paper {paper} "
                        f"runs {' and '.join(sorted(allowed))} (either, or both joined by '+')"
                    )
        elif len({study.preset for study in mine}) > 1:
            errors.append(f"paper {paper}: its studies name different presets: {names}")
        if len({study.drive_state for study in mine}) > 1:
            errors.append(f"paper {paper}: its studies name different drive states: {names}")
        fitted = {study.fitted for study in mine if study.fitted != "none"}
        if len(fitted) > 1:
            listed = "; ".join(f"{study.name}: {study.fitted!r}" for study in mine if study.fitted != "none")
            errors.append(f"paper {paper}: more than one fitted number (at most one per paper): {listed}")


def load(root: Path = ROOT) -> Data:
    """Reads and checks every claims file under `root`; raises ValidationError listing every
    problem found."""
    errors: list[str] = []
    presets = {path.stem for path in (root / "configs" / "drives").glob("*.toml")}
    studies, untied = [], []
    for directory in sorted(path for path in (root / "studies").iterdir() if path.is_dir()):
        if not (directory / "claims.toml").is_file():
            untied.append(directory.name)
            continue
        study = _load_study(directory, root, presets, errors)
        if study is not None:
            studies.append(study)
    unaddressed = _load_unaddressed(root, errors)
    seen: dict[str, str] = {}
    for claim in [claim for study in studies for claim in study.claims] + unaddressed:
        origin = f"studies/{claim.study}/claims.toml" if claim.study else str(UNADDRESSED)
        if claim.id and claim.id in seen:
            errors.append(f"{origin}: claim id {claim.id!r} is also in {seen[claim.id]} (ids are unique)")
        seen.setdefault(claim.id, origin)
    _check_papers(studies, errors)
    drives = load_drives(root, presets, errors)
    if errors:
        raise ValidationError(errors)
    return Data(studies, unaddressed, untied, drives)
