"""The public surface of the package, pinned: `ssdtwin.__all__`, the signature of each public
function, `Report`'s public members and the command tree of `ssdtwin` (every command, its
parameters' names, options and defaults). The expected values are written out here, so moving code
between modules cannot change what users call without this test failing."""

from __future__ import annotations

import inspect

import click

import ssdtwin
from ssdtwin.cli import main

PUBLIC_NAMES = [
    "ConfigError",
    "ProgressCallback",
    "Report",
    "ScenarioLike",
    "SimulationError",
    "SweepFailures",
    "__version__",
    "default_scenario",
    "load",
    "plot",
    "plot_latency_cdf",
    "plot_thermal",
    "plot_timeseries",
    "precondition",
    "presets",
    "resolve",
    "run",
    "schema",
    "sweep",
]

SIGNATURES = {
    "run": "(scenario: 'ScenarioLike' = None, *, progress: 'ProgressCallback | None' = None, "
    "snapshot: 'str | os.PathLike[str] | None' = None, **overrides: 'Any') -> 'Report'",
    "resolve": "(scenario: 'ScenarioLike' = None, **overrides: 'Any') -> 'dict[str, Any]'",
    "precondition": "(scenario: 'ScenarioLike' = None, output: 'str | os.PathLike[str]' = 'drive.snap', *, "
    "progress: 'ProgressCallback | None' = None, **overrides: 'Any') -> 'Path'",
    "sweep": "(sweep: 'SweepLike', *, backend: 'Backend' = 'local', scheduler: 'str | None' = None, "
    "out: 'str | os.PathLike[str] | None' = None, resume: 'bool' = False, workers: 'int | None' = None, "
    "progress: 'bool | None' = None, reuse: 'bool | None' = None) -> 'pandas.DataFrame'",
    "load": "(directory: 'str | os.PathLike[str]') -> 'pandas.DataFrame'",
    "plot": "(results: 'pandas.DataFrame | PathLike', x: 'str', y: 'str', hue: 'str | None' = None, "
    "facet: 'str | None' = None, output: 'PathLike | None' = None, *, "
    "logx: 'bool | None' = None) -> 'Figure'",
    "plot_latency_cdf": "(reports: 'ReportLike | Sequence[ReportLike]', kind: 'str' = 'all', "
    "labels: 'Sequence[str] | None' = None, output: 'PathLike | None' = None) -> 'Figure'",
    "plot_thermal": "(timeseries: 'pandas.DataFrame | PathLike', output: 'PathLike | None' = None, "
    "nodes: 'Sequence[str] | None' = None) -> 'Figure'",
    "plot_timeseries": "(timeseries: 'pandas.DataFrame | PathLike', columns: 'Sequence[str] | None' = None, "
    "output: 'PathLike | None' = None) -> 'Figure'",
    "presets": "() -> 'dict[str, str]'",
    "schema": "() -> 'dict[str, Any]'",
    "default_scenario": "() -> 'str'",
}

REPORT_MEMBERS = ["fields", "flat", "from_json", "timeseries", "to_dict", "to_html", "to_json"]
REPORT_SIGNATURES = {
    "from_json": "(text: 'str') -> 'Report'",
    "to_dict": "(self) -> 'dict[str, Any]'",
    "to_json": "(self, indent: 'int | None' = 2) -> 'str'",
    "to_html": "(self, path: 'str | os.PathLike[str] | None' = None, *, "
    "timeseries: 'pandas.DataFrame | str | os.PathLike[str] | None' = None, title: 'str | None' = None, "
    "interactive: 'bool' = True) -> 'str'",
    "flat": "(self) -> 'dict[str, Scalar]'",
}

# command -> [(parameter name, its options, default, required, multiple, choices)]
COMMANDS: dict[str, list[tuple[str, list[str], object, bool, bool, list[str] | None]]] = {
    "": [("version", ["--version"], None, False, False, None)],
    "calibrate": [
        ("measurements", ["measurements"], None, False, False, None),
        ("protocol", ["--protocol"], None, False, False, None),
        ("output", ["--output", "-o"], None, True, False, None),
        ("base", ["--base"], None, False, False, None),
        ("workers", ["--workers"], None, False, False, None),
        ("holdout", ["--holdout"], None, False, True, None),
        ("html_path", ["--html"], None, False, False, None),
        ("device", ["--device"], "/dev/nvme0n1", False, False, None),
        ("size", ["--size"], "100%", False, False, None),
        ("runtime", ["--runtime"], 60, False, False, None),
        ("quiet", ["--quiet", "-q"], None, False, False, None),
    ],
    "plot": [
        ("results", ["results"], None, True, False, None),
        ("x", ["--x"], None, False, False, None),
        ("y", ["--y"], None, False, False, None),
        ("hue", ["--hue"], None, False, False, None),
        ("facet", ["--facet"], None, False, False, None),
        ("cdf_kind", ["--cdf"], None, False, False, ["read", "write", "all"]),
        ("columns", ["--columns"], None, False, False, None),
        ("thermal", ["--thermal"], None, False, False, None),
        ("output", ["--output", "-o"], None, True, False, None),
    ],
    "precondition": [
        ("scenario", ["scenario"], None, False, False, None),
        ("set_overrides", ["--set"], None, False, True, None),
        ("output", ["-o", "--output"], "drive.snap", False, False, None),
        ("quiet", ["--quiet", "-q"], None, False, False, None),
    ],
    "presets": [],
    "report": [
        ("inputs", ["inputs"], None, True, False, None),
        ("output", ["--output", "-o"], None, True, False, None),
        ("timeseries_path", ["--timeseries"], None, False, False, None),
        ("title", ["--title"], None, False, False, None),
        ("labels", ["--label"], None, False, True, None),
        ("point_pages", ["--point-pages"], "static", False, False, ["static", "interactive", "none"]),
        ("static_only", ["--static"], None, False, False, None),
    ],
    "run": [
        ("scenario", ["scenario"], None, False, False, None),
        ("set_overrides", ["--set"], None, False, True, None),
        ("json_path", ["--json"], None, False, False, None),
        ("timeseries_path", ["--timeseries"], None, False, False, None),
        ("quiet", ["--quiet", "-q"], None, False, False, None),
        ("snapshot", ["--from"], None, False, False, None),
        ("output_format", ["--output-format"], "summary", False, False, ["summary", "json", "fio-json"]),
        ("html_path", ["--html"], None, False, False, None),
    ],
    "schema": [],
    "serve": [
        ("scenario", ["scenario"], None, False, False, None),
        ("nbd", ["--nbd"], None, True, False, None),
        ("socket_path", ["--socket"], None, False, False, None),
        ("listen", ["--listen"], None, False, False, None),
        ("pace", ["--pace"], "virtual", False, False, ["virtual", "real"]),
        ("json_path", ["--json"], None, False, False, None),
        ("record_trace", ["--record-trace"], None, False, False, None),
        ("store_cap", ["--store-cap"], "4GiB", False, False, None),
        ("once", ["--once"], None, False, False, None),
        ("power_loss_at", ["--power-loss-at"], None, False, False, None),
        ("default_class", ["--class"], "medium", False, False, None),
        ("set_overrides", ["--set"], None, False, True, None),
        ("quiet", ["--quiet", "-q"], None, False, False, None),
    ],
    "sweep": [
        ("sweep_file", ["sweep_file"], None, True, False, None),
        ("backend", ["--backend"], "local", False, False, ["local", "dask"]),
        ("scheduler", ["--scheduler"], None, False, False, None),
        ("out", ["--out"], None, False, False, None),
        ("resume", ["--resume"], None, False, False, None),
        ("workers", ["--workers"], None, False, False, None),
        ("dry_run", ["--dry-run"], None, False, False, None),
        ("quiet", ["--quiet", "-q"], None, False, False, None),
        ("no_reuse", ["--no-reuse"], None, False, False, None),
        ("html_path", ["--html"], None, False, False, None),
    ],
}


def test_all_lists_exactly_the_public_names() -> None:
    assert ssdtwin.__all__ == PUBLIC_NAMES
    for name in PUBLIC_NAMES:
        assert hasattr(ssdtwin, name), name


def test_each_public_function_keeps_its_signature() -> None:
    actual = {name: str(inspect.signature(getattr(ssdtwin, name))) for name in SIGNATURES}
    assert actual == SIGNATURES


def test_report_keeps_its_public_members_and_their_signatures() -> None:
    members = sorted(name for name in dir(ssdtwin.Report) if not name.startswith("_"))
    assert members == REPORT_MEMBERS
    actual = {name: str(inspect.signature(getattr(ssdtwin.Report, name))) for name in REPORT_SIGNATURES}
    assert actual == REPORT_SIGNATURES
    assert isinstance(ssdtwin.Report.fields, property)
    assert isinstance(ssdtwin.Report.timeseries, property)


def test_errors_and_aliases_keep_their_kinds() -> None:
    assert issubclass(ssdtwin.ConfigError, ValueError)
    assert issubclass(ssdtwin.SimulationError, RuntimeError)
    assert issubclass(ssdtwin.SweepFailures, RuntimeError)
    assert str(ssdtwin.ProgressCallback) == "collections.abc.Callable[[str, float, int, float], object]"
    scenario_like = "str | os.PathLike[str] | collections.abc.Mapping[str, typing.Any] | None"
    assert str(ssdtwin.ScenarioLike) == scenario_like


def _default(parameter: click.Parameter) -> object:
    """A parameter's default, None for "none given" (click spells it UNSET or None, and False for
    flags, by version)."""
    value = parameter.default
    flag = getattr(parameter, "is_flag", False)
    if value is None or "UNSET" in repr(value) or (flag and value is False):
        return None
    return value


def _described(command: click.Command) -> list[tuple[str, list[str], object, bool, bool, list[str] | None]]:
    return [
        (
            parameter.name or "",
            list(parameter.opts),
            _default(parameter),
            parameter.required,
            parameter.multiple,
            list(parameter.type.choices) if isinstance(parameter.type, click.Choice) else None,
        )
        for parameter in command.params
    ]


def test_the_command_tree_keeps_every_command_and_option() -> None:
    assert main.name == "main"
    assert isinstance(main, click.Group)
    actual = {"": _described(main)}
    actual.update({name: _described(command) for name, command in main.commands.items()})
    assert sorted(actual) == sorted(COMMANDS)
    for name, expected in COMMANDS.items():
        assert actual[name] == expected, name


def test_workers_take_a_positive_integer() -> None:
    workers = next(parameter for parameter in main.commands["sweep"].params if parameter.name == "workers")
    assert isinstance(workers.type, click.IntRange)
    assert workers.type.min == 1


def test_the_console_entry_point_is_ssdtwin_cli_main() -> None:
    import tomllib
    from pathlib import Path

    pyproject = Path(__file__).resolve().parent.parent / "pyproject.toml"
    scripts = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]["scripts"]
    assert scripts == {"ssdtwin": "ssdtwin.cli:main"}
