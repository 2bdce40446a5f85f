"""The results directory of a sweep (docs/guide/sweeps.md).

    DIR/sweep.toml               the sweep as run, with the `ssdtwin_version` that ran it
    DIR/reports/<point_id>.json  the full report of each finished point
    DIR/errors/<point_id>.json   the error of each failed point
    DIR/results.parquet          one row per point, rebuilt from the two folders above
    DIR/drives.json              each distinct drive: its keys, points, times preconditioned
    DIR/snapshots/<drive>.snap   a drive shared by several points, preconditioned once (deleted
                                 when all its points have their report; `ssdtwin.sweep.drives`)

Each file is written atomically (`ssdtwin._util.atomic`: a temporary file in the same folder, then
`os.replace`), so a sweep killed at any moment, even by SIGKILL, leaves only whole files behind: a
point either has its complete report or is run again by `--resume`, which also removes the
temporary files a killed writer left (and a half-written snapshot, `<drive>.snap.partial`). The
Parquet table is derived data, rebuilt from the per-point files at the end of a sweep and on
resume; its columns are `point_id`, the swept keys, `seed`, `status` ("ok", "failed" or
"pending"), `error`, then every scalar report field flattened with dots (`Report.flat()`). It is
plain Parquet, queryable as is with DuckDB (`SELECT * FROM 'DIR/results.parquet'`).

pandas and pyarrow are imported only when a table is built or read.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ssdtwin._util import atomic

if TYPE_CHECKING:
    import pandas

SWEEP_FILE = "sweep.toml"
TABLE_FILE = "results.parquet"
REPORTS_FOLDER = "reports"
ERRORS_FOLDER = "errors"
SNAPSHOTS_FOLDER = "snapshots"
DRIVES_FILE = "drives.json"
PARTIAL_SNAPSHOT_SUFFIX = ".snap.partial"

FIXED_COLUMNS = ("point_id", "seed", "status", "error")
"""The columns of a results table before the report's fields that are not swept keys."""

Scalar = bool | int | float | str | None
"""A cell of the results table."""

STATUS_OK = "ok"
STATUS_FAILED = "failed"
STATUS_PENDING = "pending"


class ResultsStore:
    """The files of one sweep's output directory."""

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)
        self.reports = self.directory / REPORTS_FOLDER
        self.errors = self.directory / ERRORS_FOLDER
        self.snapshots = self.directory / SNAPSHOTS_FOLDER

    @property
    def table_path(self) -> Path:
        return self.directory / TABLE_FILE

    @property
    def sweep_path(self) -> Path:
        return self.directory / SWEEP_FILE

    def has_results(self) -> bool:
        """Whether a sweep already wrote here (a sweep file, a table or a point)."""
        if self.sweep_path.exists() or self.table_path.exists():
            return True
        return any(folder.is_dir() and any(folder.glob("*.json")) for folder in (self.reports, self.errors))

    def create(self) -> None:
        """Makes the folders; on a resumed sweep, removes the temporary files of writes that a
        killed run left unfinished (their points have no report and run again)."""
        for folder in (self.directory, self.reports, self.errors):
            folder.mkdir(parents=True, exist_ok=True)
            atomic.remove_stale(folder)
        if self.snapshots.is_dir():
            for partial in self.snapshots.glob(f"*{PARTIAL_SNAPSHOT_SUFFIX}"):
                partial.unlink(missing_ok=True)

    def report_path(self, point_id: str) -> Path:
        return self.reports / f"{point_id}.json"

    def error_path(self, point_id: str) -> Path:
        return self.errors / f"{point_id}.json"

    def snapshot_path(self, drive: str) -> Path:
        """Where the sweep keeps the snapshot of a drive its points share."""
        return self.snapshots / f"{drive}.snap"

    def remove_snapshot(self, path: str | os.PathLike[str]) -> None:
        Path(path).unlink(missing_ok=True)
        if self.snapshots.is_dir() and not any(self.snapshots.iterdir()):
            self.snapshots.rmdir()

    @property
    def drives_path(self) -> Path:
        return self.directory / DRIVES_FILE

    def read_drives(self) -> dict[str, Any]:
        """The drives record of an earlier run in this directory ({} if none)."""
        if not self.drives_path.exists():
            return {}
        return dict(json.loads(self.drives_path.read_text(encoding="utf-8")))

    def write_drives(self, record: Mapping[str, Any]) -> None:
        atomic.write_text(self.drives_path, json.dumps(record, indent=1, sort_keys=True))

    def finished(self) -> set[str]:
        """Ids of the points whose report is written (failed points are not finished)."""
        if not self.reports.is_dir():
            return set()
        return {path.stem for path in self.reports.glob("*.json")}

    def write_report(self, point_id: str, report_json: str) -> None:
        """Stores a finished point's report and forgets an error it had in an earlier attempt."""
        atomic.write_text(self.report_path(point_id), report_json)
        self.error_path(point_id).unlink(missing_ok=True)

    def write_error(self, point_id: str, error: str) -> None:
        atomic.write_text(self.error_path(point_id), json.dumps({"point_id": point_id, "error": error}))

    def write_sweep_file(self, text: str) -> None:
        atomic.write_text(self.sweep_path, text)

    def read_report(self, point_id: str) -> dict[str, Any]:
        """A finished point's report dict (its fields, without the time series)."""
        data = json.loads(self.report_path(point_id).read_text(encoding="utf-8"))
        data.pop("timeseries", None)
        return dict(data)

    def build_table(self, points: Sequence[StoredPoint]) -> pandas.DataFrame:
        """The results table of `points`, in their order, from the per-point files."""
        rows: list[dict[str, Any]] = []
        swept_keys: list[str] = []
        for point in points:
            for key in point.swept:
                # A seed set in `points` is the `seed` column, not a second one.
                if key not in swept_keys and key != "seed":
                    swept_keys.append(key)
        for point in points:
            row: dict[str, Any] = {"point_id": point.point_id}
            row.update({key: _cell(value) for key, value in point.swept.items() if key != "seed"})
            row["seed"] = point.seed
            report_path = self.report_path(point.point_id)
            error_path = self.error_path(point.point_id)
            if report_path.exists():
                row.update(status=STATUS_OK, error=None)
                report = json.loads(report_path.read_text(encoding="utf-8"))
                row.update((key, value) for key, value in report_row(report).items() if key != "seed")
            elif error_path.exists():
                row.update(status=STATUS_FAILED, error=json.loads(error_path.read_text("utf-8"))["error"])
            else:
                row.update(status=STATUS_PENDING, error=None)
            rows.append(row)
        leading = ["point_id", *swept_keys, "seed", "status", "error"]
        return _typed_frame(rows, leading)

    def write_table(self, table: pandas.DataFrame) -> None:
        """Writes the results table atomically."""
        with atomic.replacing(self.table_path) as temporary:
            table.to_parquet(temporary, index=False)


class StoredPoint:
    """What the store needs of a sweep point: its id, swept values and seed."""

    __slots__ = ("point_id", "seed", "swept")

    def __init__(self, point_id: str, swept: Mapping[str, Any], seed: int) -> None:
        self.point_id = point_id
        self.swept = dict(swept)
        self.seed = seed


def load(directory: str | os.PathLike[str]) -> pandas.DataFrame:
    """The results table of a sweep's output directory as a pandas DataFrame, one row per point."""
    import pandas

    store = ResultsStore(directory)
    if not store.directory.is_dir():
        raise FileNotFoundError(2, "no such sweep results directory", str(store.directory))
    if not store.table_path.exists():
        raise FileNotFoundError(
            2,
            "the sweep has no results table yet (it was interrupted?): rerun it with --resume",
            str(store.table_path),
        )
    return pandas.read_parquet(store.table_path)


def report_row(report: Mapping[str, Any]) -> dict[str, Scalar]:
    """Every scalar field of a report dict keyed by its dotted path (`"latency_us.read.p99_99"`),
    without the `config` table (and the time series): one row of the results table, and
    `Report.flat()`."""
    row: dict[str, Scalar] = {}
    _flatten(report, "", row, skip={"config", "timeseries"})
    return row


def _flatten(table: Mapping[str, Any], prefix: str, into: dict[str, Scalar], skip: set[str]) -> None:
    for name, value in table.items():
        key = f"{prefix}{name}"
        if key in skip:
            continue
        if isinstance(value, Mapping):
            _flatten(value, f"{key}.", into, skip)
        elif value is None or isinstance(value, bool | int | float | str):
            into[key] = value


def swept_columns(table: pandas.DataFrame) -> list[str]:
    """The swept keys of a results table: its columns before the report's fields
    (`ssdtwin_version` on), less `point_id`, `seed`, `status` and `error`."""
    columns = list(table.columns)
    end = columns.index("ssdtwin_version") if "ssdtwin_version" in columns else len(columns)
    return [column for column in columns[:end] if column not in FIXED_COLUMNS]


def _cell(value: Any) -> Any:
    """A swept value as a table cell: lists and tables (e.g. `t_read`, `bssplit`) as JSON text."""
    if isinstance(value, list | tuple | Mapping):
        return json.dumps(value)
    return value


def _typed_frame(rows: list[dict[str, Any]], leading: Iterable[str]) -> pandas.DataFrame:
    """A DataFrame of `rows` whose columns have one type each, missing values allowed (failed
    points have no report fields): nullable integers and booleans, floats, strings."""
    import pandas

    columns: list[str] = list(leading)
    for row in rows:
        columns.extend(key for key in row if key not in columns)
    data: dict[str, Any] = {}
    for column in columns:
        values = [row.get(column) for row in rows]
        present = [value for value in values if value is not None]
        if present and all(isinstance(value, bool) for value in present):
            dtype = "boolean"
        elif present and all(isinstance(value, int) and not isinstance(value, bool) for value in present):
            dtype = "Int64"
        elif present and all(
            isinstance(value, int | float) and not isinstance(value, bool) for value in present
        ):
            dtype = "float64"
            values = [float("nan") if value is None else float(value) for value in values]
        else:
            dtype = "string"
            values = [None if value is None else str(value) for value in values]
        data[column] = pandas.array(values, dtype=dtype)
    return pandas.DataFrame(data, columns=columns)
