"""The `ssdtwin` command line (DESIGN.md section 3.1).

    ssdtwin run [SCENARIO.toml] [--set KEY=VALUE ...] [--json FILE|-] [--timeseries FILE.parquet] [--quiet]
                [--output-format summary|json|fio-json]
    ssdtwin schema
    ssdtwin presets
    ssdtwin --version

A problem with the user's input (scenario, file, `--set`) prints one `error: ...` line on stderr
and exits with status 2; Ctrl-C exits with status 130.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any, NoReturn

import click
from rich import box
from rich.console import Console
from rich.progress import BarColumn, Progress, TaskID, TaskProgressColumn, TextColumn, TimeRemainingColumn
from rich.table import Table

from ssdtwin import ConfigError, Report, SimulationError, __version__, _core, presets, schema
from ssdtwin._arguments import core_arguments
from ssdtwin.fio_output import to_fio_json

EXIT_USAGE = 2
"""Exit status for bad input: a scenario error, a missing file, a malformed `--set`."""
EXIT_INTERRUPTED = 130
"""Exit status after Ctrl-C (128 + SIGINT), as shells report it."""


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="ssdtwin", message="%(prog)s %(version)s")
def main() -> None:
    """ssdtwin: a fast, deterministic NAND-flash SSD simulator."""


@main.command("run")
@click.argument("scenario", required=False, metavar="[SCENARIO.toml]")
@click.option(
    "--set",
    "set_overrides",
    multiple=True,
    metavar="KEY=VALUE",
    help="Override one scenario key, e.g. --set flash.channels=8 (repeatable).",
)
@click.option(
    "--json", "json_path", metavar="FILE|-", help="Write the report as JSON to FILE, or to stdout with -."
)
@click.option(
    "--timeseries",
    "timeseries_path",
    metavar="FILE.parquet",
    help="Write the power, IOPS and bandwidth time series to FILE.parquet.",
)
@click.option("--quiet", "-q", is_flag=True, help="Show no progress bar.")
@click.option(
    "--output-format",
    type=click.Choice(["summary", "json", "fio-json"]),
    default="summary",
    show_default=True,
    help="summary: a table (and the report to --json FILE); json: the report as JSON; fio-json: fio's "
    "JSON layout, one entry per job. JSON goes to --json FILE, or to stdout.",
)
def run_command(
    scenario: str | None,
    set_overrides: tuple[str, ...],
    json_path: str | None,
    timeseries_path: str | None,
    quiet: bool,
    output_format: str,
) -> None:
    """Simulate SCENARIO.toml (or the built-in default scenario) and print a summary."""
    try:
        arguments = core_arguments(scenario, {}, list(set_overrides))
        with progress_bar(enabled=not quiet and sys.stderr.isatty()) as progress:
            report = Report(json.loads(_core.run(*arguments, progress)))
    except ConfigError as error:
        fail(str(error).rstrip())
    except SimulationError as error:
        fail(f"simulation stopped: {error}")
    except OSError as error:
        fail(f"{error.strerror or error}: {error.filename}" if error.filename else str(error))
    except KeyboardInterrupt:
        click.echo("interrupted", err=True)
        sys.exit(EXIT_INTERRUPTED)

    if timeseries_path is not None:
        try:
            report.timeseries.to_parquet(timeseries_path, index=False)
        except OSError as error:
            fail(f"cannot write {timeseries_path}: {error.strerror or error}")
    workload = report.to_dict().get("workload", {})
    for warning in workload.get("warnings", []):
        click.echo(f"warning: {warning}", err=True)
    if workload.get("skipped_lines", 0):
        click.echo(f"warning: skipped {workload['skipped_lines']} malformed trace lines (lenient)", err=True)
    text = json.dumps(to_fio_json(report.to_dict()), indent=2) if output_format == "fio-json" else None
    text = text if text is not None else report.to_json()
    if json_path is None and output_format != "summary":
        json_path = "-"
    if json_path == "-":
        click.echo(text)
        return
    if json_path is not None:
        try:
            with open(json_path, "w", encoding="utf-8") as file:
                file.write(text + "\n")
        except OSError as error:
            fail(f"cannot write {json_path}: {error.strerror or error}")
    print_summary(report, Console())


@main.command("schema")
def schema_command() -> None:
    """Print the JSON schema of the scenario file."""
    click.echo(json.dumps(schema(), indent=2))


@main.command("presets")
def presets_command() -> None:
    """List the built-in drive presets, one line each."""
    drives = presets()
    width = max(map(len, drives), default=0)
    for name, description in drives.items():
        click.echo(f"{name:<{width}}  {description}")


def fail(message: str) -> NoReturn:
    """Reports bad input on one line and exits with status 2."""
    click.echo(f"error: {message}", err=True)
    sys.exit(EXIT_USAGE)


class ProgressBar:
    """The progress callable of `_core.run`, drawing one rich bar per phase on stderr."""

    def __init__(self, display: Progress) -> None:
        self.display = display
        self.phase = ""
        self.task: TaskID = display.add_task("starting", total=1.0, host_ios=0, simulated_time_s=0.0)

    def __call__(self, phase: str, fraction: float, host_ios: int, simulated_time_s: float) -> None:
        if phase != self.phase:
            # A new phase has its own pace: restart the bar so the ETA is estimated afresh.
            self.phase = phase
            self.display.reset(self.task, total=1.0, description=phase)
        self.display.update(
            self.task, completed=fraction, host_ios=host_ios, simulated_time_s=simulated_time_s
        )


@contextmanager
def progress_bar(enabled: bool) -> Iterator[ProgressBar | None]:
    """A progress bar on stderr while the block runs, or None when `enabled` is false."""
    if not enabled:
        yield None
        return
    display = Progress(
        TextColumn("{task.description:<12}"),
        BarColumn(),
        TaskProgressColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        TextColumn("{task.fields[host_ios]:>12,} I/Os  {task.fields[simulated_time_s]:.3f} s simulated"),
        console=Console(stderr=True),
        transient=True,
    )
    with display:
        yield ProgressBar(display)


def print_summary(report: Report, console: Console) -> None:
    """The readable summary of `ssdtwin run`: headline figures, latency percentiles, flash counters."""
    data = report.to_dict()
    config = data.get("config", {})
    version = data.get("ssdtwin_version", "")
    console.print(
        f"ssdtwin {version}: drive {config.get('drive', '?')}, seed {data.get('seed')}", markup=False
    )
    overview = Table(show_header=False, box=box.SIMPLE)
    overview.add_column("figure")
    overview.add_column("value", justify="right")
    for label, value in [
        ("Host I/Os", _format(_lookup(data, "host_ios"), "{:,}")),
        ("IOPS", _format(_lookup(data, "iops"), "{:,.0f}")),
        ("Bandwidth", _format(_lookup(data, "bandwidth_mib_s"), "{:,.1f} MiB/s")),
        ("Simulated time", _format(_lookup(data, "simulated_time_s"), "{:.6g} s")),
        ("Wall time", _format(_lookup(data, "wall_time_s"), "{:.3f} s")),
        ("WAF", _format(_lookup(data, "waf"), "{:.3f}")),
        ("HoL events", _format(_lookup(data, "queues.hol_events"), "{:,}")),
        ("Die utilisation", _format(_lookup(data, "queues.die_utilization"), "{:.1%}")),
    ]:
        overview.add_row(label, value)
    console.print(overview)

    latency = Table(title="Latency (us)", title_justify="left", box=box.SIMPLE)
    columns = [("count", "count", "{:,}"), ("mean", "mean", "{:,.1f}"), ("p50", "p50", "{:,.1f}")]
    columns += [("p99", "p99", "{:,.1f}"), ("p99.99", "p99_99", "{:,.1f}"), ("max", "max", "{:,.1f}")]
    latency.add_column("")
    for header, _, _ in columns:
        latency.add_column(header, justify="right")
    for kind in ("read", "write", "all"):
        row = [_format(_lookup(data, f"latency_us.{kind}.{field}"), spec) for _, field, spec in columns]
        latency.add_row(kind, *row)
    console.print(latency)

    power = Table(title="Power (W)", title_justify="left", box=box.SIMPLE)
    power.add_column("")
    for header in ("NAND", "I/O bus", "controller", "DRAM", "other", "total"):
        power.add_column(header, justify="right")
    parts = ("nand", "io_bus", "controller", "dram", "other", "total")
    power.add_row("average", *[_format(_lookup(data, f"power_w.{part}_avg"), "{:.3f}") for part in parts])
    peaks = [_format(_lookup(data, "power_w.nand_peak"), "{:.3f}")] + ["-"] * 4
    power.add_row("peak", *peaks, _format(_lookup(data, "power_w.total_peak"), "{:.3f}"))
    console.print(power)

    flash = Table(title="Flash operations", title_justify="left", show_header=False, box=box.SIMPLE)
    flash.add_column("counter")
    flash.add_column("value", justify="right")
    for name, value in data.get("flash", {}).items():
        flash.add_row(name.replace("_", " "), _format(value, "{:,}"))
    console.print(flash)


def _lookup(data: Mapping[str, Any], path: str) -> Any:
    """The field at dotted `path`, or None when the report has no such field."""
    value: Any = data
    for part in path.split("."):
        if not isinstance(value, Mapping) or part not in value:
            return None
        value = value[part]
    return value


def _format(value: Any, spec: str) -> str:
    if value is None:
        return "-"
    try:
        return spec.format(value)
    except (TypeError, ValueError):
        return str(value)
