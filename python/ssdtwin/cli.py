"""The `ssdtwin` command line (the README, "Running scenarios").

    ssdtwin run [SCENARIO.toml] [--set KEY=VALUE ...] [--json FILE|-] [--timeseries FILE.parquet] [--quiet]
                [--output-format summary|json|fio-json] [--from DRIVE.snap] [--html FILE.html]
    ssdtwin precondition [SCENARIO.toml] [--set KEY=VALUE ...] [-o DRIVE.snap]
    ssdtwin sweep SWEEP.toml [--backend local|dask] [--scheduler ADDRESS] [--out DIR] [--resume] [--workers N]
                  [--no-reuse] [--html FILE.html]
    ssdtwin report RUN.json [--timeseries FILE.parquet] -o FILE.html        # one run's page
    ssdtwin report A.json B.json ... -o FILE.html                           # runs compared
    ssdtwin report DIR -o FILE.html [--point-pages static|interactive|none] # a sweep, a page per point
    ssdtwin plot DIR --x KEY --y KEY [--hue KEY] [--facet KEY] -o FIG.png|svg|pdf
    ssdtwin plot --cdf read|write|all REPORT.json... (or DIR) -o FIG.png
    ssdtwin plot TIMESERIES.parquet [--columns A,B | --thermal] -o FIG.png
    ssdtwin serve [SCENARIO.toml] --nbd (--socket PATH | --listen HOST:PORT) [--pace virtual|real]
                  [--json FILE] [--record-trace FILE.csv] [--store-cap SIZE] [--once] [--power-loss-at TIME]
                  [--set KEY=VALUE ...]
    ssdtwin schema
    ssdtwin presets
    ssdtwin --version

A problem with the user's input (scenario, file, `--set`) prints one `error: ...` line on stderr
and exits with status 2; Ctrl-C exits with status 130; a sweep with failed points exits with status 1.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any, NoReturn

import click
from rich import box
from rich.console import Console
from rich.progress import BarColumn, Progress, TaskID, TaskProgressColumn, TextColumn, TimeRemainingColumn
from rich.table import Table

from ssdtwin import ConfigError, Report, SimulationError, __version__, _atomic, _core, presets, schema
from ssdtwin._arguments import core_arguments
from ssdtwin.fio_output import to_fio_json
from ssdtwin.report import lookup

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
    "--from",
    "snapshot",
    metavar="DRIVE.snap",
    help="Start from this drive snapshot (`ssdtwin precondition`) instead of preconditioning.",
)
@click.option(
    "--output-format",
    type=click.Choice(["summary", "json", "fio-json"]),
    default="summary",
    show_default=True,
    help="summary: a table (and the report to --json FILE); json: the report as JSON; fio-json: fio's "
    "JSON layout, one entry per job. JSON goes to --json FILE, or to stdout.",
)
@click.option(
    "--html",
    "html_path",
    metavar="FILE.html",
    help="Also write the run's page: one self-contained HTML file with its plots and time series.",
)
def run_command(
    scenario: str | None,
    set_overrides: tuple[str, ...],
    json_path: str | None,
    timeseries_path: str | None,
    quiet: bool,
    snapshot: str | None,
    output_format: str,
    html_path: str | None,
) -> None:
    """Simulate SCENARIO.toml (or the built-in default scenario) and print a summary."""
    report = Report(json.loads(_simulate(scenario, set_overrides, quiet, "simulation stopped", snapshot)))

    if timeseries_path is not None:
        try:
            with _atomic.replacing(timeseries_path) as temporary:
                report.timeseries.to_parquet(temporary, index=False)
        except OSError as error:
            fail(f"cannot write {timeseries_path}: {error.strerror or error}")
    if html_path is not None:
        try:
            report.to_html(html_path)
        except OSError as error:
            fail(f"cannot write {html_path}: {error.strerror or error}")
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
            _atomic.write_text(json_path, text + "\n")
        except OSError as error:
            fail(f"cannot write {json_path}: {error.strerror or error}")
    print_summary(report, Console())


@main.command("precondition")
@click.argument("scenario", required=False, metavar="[SCENARIO.toml]")
@click.option("--set", "set_overrides", multiple=True, metavar="KEY=VALUE", help="Override a scenario key.")
@click.option("-o", "--output", default="drive.snap", show_default=True, metavar="DRIVE.snap")
@click.option("--quiet", "-q", is_flag=True, help="Show no progress bar.")
def precondition_command(
    scenario: str | None, set_overrides: tuple[str, ...], output: str, quiet: bool
) -> None:
    """Precondition the scenario's drive once and save it as a snapshot for `run --from`."""
    _simulate(scenario, set_overrides, quiet, "preconditioning stopped", None, output)
    click.echo(f"wrote {output}")


def _simulate(
    scenario: str | None, set_overrides: tuple[str, ...], quiet: bool, stopped: str, *options: str | None
) -> str:
    """`_core.run` on SCENARIO with `--set` overrides and `options` (snapshot to start from, snapshot
    to save), behind a progress bar; a bad input, a stalled drive (`stopped: ...`) or Ctrl-C ends
    the command with the CLI's message and exit status."""
    try:
        arguments = core_arguments(scenario, {}, list(set_overrides))
        with progress_bar(enabled=not quiet and sys.stderr.isatty()) as progress:
            return _core.run(*arguments, progress, *options)
    except ConfigError as error:
        fail(str(error).rstrip())
    except SimulationError as error:
        fail(f"{stopped}: {error}")
    except OSError as error:
        fail(f"{error.strerror or error}: {error.filename}" if error.filename else str(error))
    except KeyboardInterrupt:
        click.echo("interrupted", err=True)
        sys.exit(EXIT_INTERRUPTED)


@main.command("serve")
@click.argument("scenario", required=False, metavar="[SCENARIO.toml]")
@click.option("--nbd", is_flag=True, required=True, help="Serve over the Network Block Device protocol.")
@click.option("--socket", "socket_path", metavar="PATH", help="Listen on this Unix socket.")
@click.option("--listen", metavar="HOST:PORT", help="Listen on this TCP address, e.g. 127.0.0.1:10809.")
@click.option(
    "--pace",
    type=click.Choice(["virtual", "real"]),
    default="virtual",
    show_default=True,
    help="virtual: reply as soon as the model has completed a request; real: reply at its simulated "
    "completion time on the wall clock.",
)
@click.option("--json", "json_path", metavar="FILE|-", help="Write the session's report as JSON at the end.")
@click.option(
    "--record-trace",
    metavar="FILE.csv",
    help="Record the requests as an MSR Cambridge trace (replay: ssdtwin run with workload.kind=trace).",
)
@click.option("--store-cap", default="4GiB", show_default=True, help="Most written data kept in memory.")
@click.option("--once", is_flag=True, help="End when the last client has disconnected.")
@click.option(
    "--power-loss-at",
    metavar="TIME",
    help="Cut the power once the simulation reaches TIME (e.g. 5ms): the writes the power-loss "
    "protection cannot save are lost and logged, connections drop, the drive serves again.",
)
@click.option("--set", "set_overrides", multiple=True, metavar="KEY=VALUE", help="Override a scenario key.")
@click.option("--quiet", "-q", is_flag=True, help="Print no summary at the end.")
def serve_command(
    scenario: str | None,
    nbd: bool,
    socket_path: str | None,
    listen: str | None,
    pace: str,
    json_path: str | None,
    record_trace: str | None,
    store_cap: str,
    once: bool,
    power_loss_at: str | None,
    set_overrides: tuple[str, ...],
    quiet: bool,
) -> None:
    """Serve the drive of SCENARIO.toml (or the default scenario) as a Network Block Device; Ctrl-C
    (or --once, when the last client leaves) ends the session and writes its report."""
    del nbd  # the only protocol; required so the command line says what it serves
    if socket_path is None and listen is None:
        fail("give --socket PATH or --listen HOST:PORT")
    # Ctrl-C and SIGTERM end the session with its report, also when SIGINT came in ignored (a
    # server started in the background by a shell).
    for number in (signal.SIGINT, signal.SIGTERM):
        signal.signal(number, signal.default_int_handler)
    try:
        arguments = core_arguments(scenario, {}, list(set_overrides))
        text = _core.serve_nbd(
            *arguments,
            socket=socket_path,
            listen=listen,
            pace=pace,
            store_cap=store_cap,
            once=once,
            record_trace=record_trace,
            power_loss_at=power_loss_at,
        )
    except ConfigError as error:
        fail(str(error).rstrip())
    except SimulationError as error:
        fail(f"session stopped: {error}")
    except OSError as error:
        fail(f"{error.strerror or error}: {error.filename}" if error.filename else str(error))
    except ValueError as error:
        fail(str(error))
    except KeyboardInterrupt:
        click.echo("interrupted", err=True)
        sys.exit(EXIT_INTERRUPTED)
    report = Report(json.loads(text))
    if json_path == "-":
        click.echo(report.to_json())
        return
    if json_path is not None:
        try:
            with open(json_path, "w", encoding="utf-8") as file:
                file.write(report.to_json() + "\n")
        except OSError as error:
            fail(f"cannot write {json_path}: {error.strerror or error}")
    if not quiet:
        print_summary(report, Console(stderr=True))


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


# ------------------------------------------------------------------ sweeps and plots
EXIT_POINTS_FAILED = 1
"""Exit status of a sweep that finished with failed points."""


@main.command("sweep")
@click.argument("sweep_file", metavar="SWEEP.toml")
@click.option(
    "--backend",
    type=click.Choice(["local", "dask"]),
    default="local",
    show_default=True,
    help="Where points run.",
)
@click.option(
    "--scheduler", metavar="ADDRESS", help="Dask scheduler, e.g. tcp://host:8786 (default: a local cluster)."
)
@click.option("--out", metavar="DIR", help="Output directory (default: the sweep's `out`).")
@click.option("--resume", is_flag=True, help="Continue a sweep in DIR: run only points without a report.")
@click.option("--workers", type=click.IntRange(min=1), help="Worker processes (default: all cores).")
@click.option("--dry-run", is_flag=True, help="Validate and list the points; run nothing.")
@click.option("--quiet", "-q", is_flag=True, help="Show no progress bar.")
@click.option(
    "--no-reuse",
    is_flag=True,
    help="Precondition every point itself: no drive snapshots in DIR/snapshots (saves disk).",
)
@click.option(
    "--html",
    "html_path",
    metavar="FILE.html",
    help="Also write the sweep's page (and a page per point beside it), as `ssdtwin report DIR` does.",
)
def sweep_command(
    sweep_file: str,
    backend: str,
    scheduler: str | None,
    out: str | None,
    resume: bool,
    workers: int | None,
    dry_run: bool,
    quiet: bool,
    no_reuse: bool,
    html_path: str | None,
) -> None:
    """Run every point of SWEEP.toml and store the results table in its output directory."""
    from ssdtwin import sweep as run_sweep

    module = sys.modules["ssdtwin.sweep"]
    try:
        definition = module.load_sweep(sweep_file)
        directory = module.output_directory(definition, out)
        if dry_run:
            click.echo(module.describe_points(module.expand(definition)))
            return
        results = run_sweep(
            sweep_file,
            backend=backend,  # type: ignore[arg-type]
            scheduler=scheduler,
            out=directory,
            resume=resume,
            workers=workers,
            progress=None if not quiet else False,
            reuse=False if no_reuse else None,
        )
    except module.SweepFailures as failures:
        print_sweep_table(failures.results, _table_console())
        if html_path is not None:
            _write_sweep_page(failures.directory, html_path, "static")
        click.echo(f"error: {failures}", err=True)
        sys.exit(EXIT_POINTS_FAILED)
    except ConfigError as error:
        fail(str(error).rstrip())
    except (OSError, ValueError) as error:
        filename = getattr(error, "filename", None)
        fail(f"{getattr(error, 'strerror', None) or error}: {filename}" if filename else str(error))
    except KeyboardInterrupt:
        click.echo("interrupted: finished points are kept; continue with --resume", err=True)
        sys.exit(EXIT_INTERRUPTED)
    print_sweep_table(results, _table_console())
    click.echo(f"{len(results)} points, all ok: {directory / 'results.parquet'}")
    click.echo(module.describe_drives(directory))
    if html_path is not None:
        _write_sweep_page(directory, html_path, "static")


POINT_PAGE_CHOICES = ("static", "interactive", "none")
"""`--point-pages`: what each sweep point's page carries (`ssdtwin.html.POINT_PAGES`)."""


@main.command("report")
@click.argument("inputs", nargs=-1, required=True, metavar="RUN.json... | DIR")
@click.option("--output", "-o", required=True, metavar="FILE.html", help="The page to write.")
@click.option(
    "--timeseries",
    "timeseries_path",
    metavar="FILE.parquet",
    help="One run: its time series, as written by `ssdtwin run --timeseries`.",
)
@click.option("--title", metavar="TEXT", help="The page's title.")
@click.option(
    "--label",
    "labels",
    multiple=True,
    metavar="NAME",
    help="Compared runs: the name of each, in order (default: the files' names).",
)
@click.option(
    "--point-pages",
    type=click.Choice(list(POINT_PAGE_CHOICES)),
    default="static",
    show_default=True,
    help="A sweep: each point's page with PNG plots and no script (small), with interactive plots "
    "(about 5 MB each), or none.",
)
@click.option(
    "--static",
    "static_only",
    is_flag=True,
    help="PNG plots and no script at all (a smaller page, about 0.3 MB, without zoom and hover).",
)
def report_command(
    inputs: tuple[str, ...],
    output: str,
    timeseries_path: str | None,
    title: str | None,
    labels: tuple[str, ...],
    point_pages: str,
    static_only: bool,
) -> None:
    """Write an HTML page: of one run (RUN.json), of several runs compared (A.json B.json ...), or of
    a sweep (its results DIR, with a page per point in FILE_points/). The page is one self-contained
    file: it opens from disk in any browser, with no network access."""
    from ssdtwin import html

    directories = [path for path in inputs if os.path.isdir(path)]
    missing = [path for path in inputs if not os.path.exists(path)]
    if missing:
        fail(f"no such file or directory: {missing[0]}")
    if directories and len(inputs) > 1:
        fail("a sweep's page takes one results directory; compare runs with their JSON reports")
    if timeseries_path is not None and (directories or len(inputs) > 1):
        fail("--timeseries goes with one run's JSON report")
    if labels and len(labels) != len(inputs):
        fail(f"{len(labels)} --label for {len(inputs)} reports")
    try:
        if directories:
            if static_only:
                fail("--static applies to a run's page; a sweep's points are static unless --point-pages")
            _write_sweep_page(directories[0], output, point_pages, title)
            return
        if len(inputs) == 1 and not labels:
            text = html.run_page(inputs[0], timeseries_path, title=title, interactive=not static_only)
        else:
            text = html.compare_page(list(inputs), labels=list(labels) or None, title=title)
        html.write(text, output)
    except json.JSONDecodeError as error:
        fail(f"not a JSON report: {error}")
    except (OSError, ValueError, TypeError) as error:
        filename = getattr(error, "filename", None)
        fail(f"{getattr(error, 'strerror', None) or error}: {filename}" if filename else str(error))
    click.echo(f"wrote {output}")


def _write_sweep_page(directory: Any, output: str, point_pages: str, title: str | None = None) -> None:
    from ssdtwin import html

    try:
        written = html.sweep_page(directory, output, point_pages=point_pages, title=title)
    except (OSError, ValueError) as error:
        filename = getattr(error, "filename", None)
        fail(f"{getattr(error, 'strerror', None) or error}: {filename}" if filename else str(error))
    points = len(written) - 1
    click.echo(f"wrote {output}" + (f" and {points} point pages" if points else ""))


@main.command("plot")
@click.argument("results", nargs=-1, required=True, metavar="RESULTS...")
@click.option("--x", "x", metavar="KEY", help="Sweep plot: the column on the x axis, e.g. host.queue_depth.")
@click.option("--y", "y", metavar="KEY", help="Sweep plot: the column on the y axis, e.g. iops.")
@click.option("--hue", metavar="KEY", help="Sweep plot: one line per value of this column.")
@click.option("--facet", metavar="KEY", help="Sweep plot: one panel per value of this column.")
@click.option(
    "--cdf",
    "cdf_kind",
    type=click.Choice(["read", "write", "all"]),
    help="Plot the latency CDF of JSON reports (or of every point of sweep directories).",
)
@click.option("--columns", metavar="A,B,...", help="Time-series plot: the columns (default: power_w.*).")
@click.option(
    "--thermal",
    is_flag=True,
    help="Time-series plot: the temp_c.* temperatures and IOPS, throttled periods shaded "
    "(a run with the thermal model on).",
)
@click.option("--output", "-o", required=True, metavar="FILE", help="The image: .png, .svg or .pdf.")
def plot_command(
    results: tuple[str, ...],
    x: str | None,
    y: str | None,
    hue: str | None,
    facet: str | None,
    cdf_kind: str | None,
    columns: str | None,
    thermal: bool,
    output: str,
) -> None:
    """Plot a sweep's results (DIR --x --y), latency CDFs (--cdf) or a time series (FILE.parquet,
    with --thermal its temperatures and throttling)."""
    from ssdtwin import plot, plot_latency_cdf, plot_thermal, plot_timeseries

    if thermal and (cdf_kind is not None or columns is not None):
        fail(f"--thermal does not combine with {'--cdf' if cdf_kind is not None else '--columns'}")
    try:
        if cdf_kind is not None:
            plot_latency_cdf(list(results), kind=cdf_kind, output=output)
        elif thermal:
            if len(results) != 1 or not _is_timeseries(results[0]):
                fail("--thermal plots one time series: a FILE.parquet with a time_s column")
            plot_thermal(results[0], output=output)
        elif len(results) == 1 and _is_timeseries(results[0]):
            chosen = [column.strip() for column in columns.split(",")] if columns else None
            plot_timeseries(results[0], columns=chosen, output=output)
        else:
            if len(results) != 1:
                fail("a sweep plot takes one results directory")
            if x is None or y is None:
                fail("a sweep plot needs --x and --y, e.g. --x host.queue_depth --y iops")
            plot(results[0], x=x, y=y, hue=hue, facet=facet, output=output)
    except (OSError, ValueError, TypeError) as error:
        filename = getattr(error, "filename", None)
        fail(f"{getattr(error, 'strerror', None) or error}: {filename}" if filename else str(error))
    click.echo(f"wrote {output}")


def _is_timeseries(path: str) -> bool:
    """Whether `path` is a Parquet time series (it has a `time_s` column)."""
    if not path.endswith(".parquet") or not os.path.isfile(path):
        return False
    import pyarrow.parquet

    return "time_s" in pyarrow.parquet.read_schema(path).names


def print_sweep_table(results: Any, console: Console, limit: int = 60) -> None:
    """The swept keys, status and headline figures of each point (the first `limit` points)."""
    fixed = {"point_id", "seed", "status", "error"}
    end = list(results.columns).index("ssdtwin_version") if "ssdtwin_version" in results.columns else None
    swept = [column for column in list(results.columns)[:end] if column not in fixed]
    figures = [("iops", "{:,.0f}"), ("latency_us.all.mean", "{:,.1f}"), ("latency_us.all.p99", "{:,.1f}")]
    table = Table(box=box.SIMPLE)
    for column in [*swept, "seed", "status", *(name for name, _ in figures)]:
        table.add_column(column, justify="left" if column == "status" else "right")
    for row in results.head(limit).to_dict("records"):
        cells = [str(row[column]) for column in [*swept, "seed", "status"]]
        cells += [_format(None if _missing(row.get(name)) else row.get(name), spec) for name, spec in figures]
        table.add_row(*cells)
    console.print(table)
    if len(results) > limit:
        console.print(f"... and {len(results) - limit} more points")


def _table_console() -> Console:
    """A console for result tables: as wide as the terminal, or wide enough for a file."""
    return Console() if sys.stdout.isatty() else Console(width=160)


def _missing(value: Any) -> bool:
    import pandas

    return bool(pandas.isna(value))


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
    """The readable summary of `ssdtwin run`: headline figures, latency percentiles, flash counters,
    and temperatures and throttling when the report has them (the thermal model on)."""
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
        ("Host I/Os", _format(lookup(data, "host_ios"), "{:,}")),
        ("IOPS", _format(lookup(data, "iops"), "{:,.0f}")),
        ("Bandwidth", _format(lookup(data, "bandwidth_mib_s"), "{:,.1f} MiB/s")),
        ("Simulated time", _format(lookup(data, "simulated_time_s"), "{:.6g} s")),
        ("Wall time", _format(lookup(data, "wall_time_s"), "{:.3f} s")),
        ("  preconditioning", _format(lookup(data, "simulator.precondition_wall_s"), "{:.3f} s")),
        ("Simulated I/Os per wall s", _format(lookup(data, "simulator.ios_per_wall_s"), "{:,.0f} (run)")),
        ("", _format(lookup(data, "simulator.end_to_end_ios_per_wall_s"), "{:,.0f} (end to end)")),
        ("WAF", _format(lookup(data, "waf"), "{:.3f}")),
        ("HoL events", _format(lookup(data, "queues.hol_events"), "{:,}")),
        ("Die utilisation", _format(lookup(data, "queues.die_utilization"), "{:.1%}")),
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
        row = [_format(lookup(data, f"latency_us.{kind}.{field}"), spec) for _, field, spec in columns]
        latency.add_row(kind, *row)
    console.print(latency)

    power = Table(title="Power (W)", title_justify="left", box=box.SIMPLE)
    power.add_column("")
    for header in ("NAND", "I/O bus", "controller", "DRAM", "other", "total"):
        power.add_column(header, justify="right")
    parts = ("nand", "io_bus", "controller", "dram", "other", "total")
    power.add_row("average", *[_format(lookup(data, f"power_w.{part}_avg"), "{:.3f}") for part in parts])
    peaks = [_format(lookup(data, "power_w.nand_peak"), "{:.3f}")] + ["-"] * 4
    power.add_row("peak", *peaks, _format(lookup(data, "power_w.total_peak"), "{:.3f}"))
    console.print(power)

    flash = Table(title="Flash operations", title_justify="left", show_header=False, box=box.SIMPLE)
    flash.add_column("counter")
    flash.add_column("value", justify="right")
    for name, value in data.get("flash", {}).items():
        flash.add_row(name.replace("_", " "), _format(value, "{:,}"))
    console.print(flash)

    if isinstance(data.get("thermal"), Mapping):
        print_thermal(data["thermal"], console)
    throttle = data.get("throttle")
    if isinstance(throttle, Mapping) and throttle.get("policy", "none") != "none":
        print_throttle(throttle, console)
    print_dram(data, console)
    if isinstance(data.get("reliability"), Mapping):
        print_reliability(data["reliability"], console)


def print_dram(data: Mapping[str, Any], console: Console) -> None:
    """The report's `buffer`, `mapping_cache`, `plp` and `power_loss` blocks, one line each (when present)."""
    lines = []
    if isinstance(data.get("buffer"), Mapping):
        lines.append(
            f"Write buffer: hit ratio {_format(lookup(data, 'buffer.hit_ratio'), '{:.1%}')}, "
            f"{_format(lookup(data, 'buffer.coalesced'), '{:,}')} coalesced, "
            f"peak {_format(lookup(data, 'buffer.peak_units'), '{:,}')} units"
        )
    if isinstance(data.get("mapping_cache"), Mapping):
        lines.append(
            f"Mapping table ({lookup(data, 'mapping_cache.mode')}): hit ratio "
            f"{_format(lookup(data, 'mapping_cache.hit_ratio'), '{:.1%}')}, dirty pages at most "
            f"{_format(lookup(data, 'mapping_cache.max_dirty_pages'), '{:,}')} of "
            f"{_format(lookup(data, 'mapping_cache.protected_pages'), '{:,}')} protected"
        )
    if isinstance(data.get("plp"), Mapping):
        lines.append(
            f"PLP: {_format(lookup(data, 'plp.usable_energy_j'), '{:.3g} J')} usable, "
            f"{_format(lookup(data, 'plp.protected_pages'), '{:,}')} pages protected"
        )
    for event in (data.get("power_loss") or {}).get("events", []):
        at, lost = _format(event.get("at_s"), "{:.6g} s"), _format(event.get("lost_writes"), "{:,}")
        pages = _format(event.get("lost_mapping_pages"), "{:,}")
        flush = _format(event.get("flush_time_s"), "{:.3g} s")
        energy = _format(event.get("energy_used_j"), "{:.3g} J")
        lines.append(
            f"Power cut at {at}: {lost} writes and {pages} translation pages lost, flush {flush}, {energy}"
        )
    for line in lines:
        console.print(line, markup=False)


def print_reliability(reliability: Mapping[str, Any], console: Console) -> None:
    """The report's `reliability` block in one line: RBER, retries, soft decodes, uncorrectable
    reads and the commands that completed with an error."""
    console.print(
        f"Reliability: RBER mean {_format(reliability.get('rber_mean'), '{:.3g}')}, "
        f"max {_format(reliability.get('rber_max'), '{:.3g}')}; "
        f"{_format(reliability.get('retries'), '{:,}')} retries, "
        f"{_format(reliability.get('soft_decodes'), '{:,}')} soft decodes, "
        f"{_format(reliability.get('uncorrectable'), '{:,}')} uncorrectable, "
        f"{_format(reliability.get('errored_commands'), '{:,}')} commands with an error, "
        f"{_format(reliability.get('reclaims'), '{:,}')} blocks reclaimed",
        markup=False,
    )


def print_thermal(thermal: Mapping[str, Any], console: Console) -> None:
    """The report's `thermal` block: each node's maximum and final temperature, the composite
    temperature's, and the time spent above each threshold."""
    table = Table(title="Temperature (°C)", title_justify="left", box=box.SIMPLE)
    table.add_column("")
    table.add_column("max", justify="right")
    table.add_column("final", justify="right")
    maxima, finals = thermal.get("max_c", {}), thermal.get("final_c", {})
    for node in dict.fromkeys([*maxima, *finals]):
        table.add_row(node, _format(maxima.get(node), "{:.1f}"), _format(finals.get(node), "{:.1f}"))
    table.add_row(
        "composite",
        _format(thermal.get("composite_max_c"), "{:.1f}"),
        _format(thermal.get("composite_final_c"), "{:.1f}"),
    )
    console.print(table)
    above = thermal.get("time_above_s", {})
    if above:
        thresholds = sorted(above, key=_threshold_order)
        parts = [f"{threshold} °C {_format(above[threshold], '{:.6g} s')}" for threshold in thresholds]
        console.print(f"Time above: {', '.join(parts)}", markup=False)


def print_throttle(throttle: Mapping[str, Any], console: Console) -> None:
    """The report's `throttle` block: policy, events, time throttled, and time and entries per state."""
    console.print(
        f"Throttling: policy {throttle.get('policy')}, {_format(throttle.get('events'), '{:,}')} events, "
        f"{_format(throttle.get('time_s'), '{:.6g} s')} throttled",
        markup=False,
    )
    table = Table(box=box.SIMPLE)
    table.add_column("state")
    table.add_column("time", justify="right")
    table.add_column("entries", justify="right")
    times, entries = throttle.get("state_time_s", {}), throttle.get("entries", {})
    for state in dict.fromkeys(["off", "light", "heavy", *times, *entries]):
        table.add_row(state, _format(times.get(state), "{:.6g} s"), _format(entries.get(state), "{:,}"))
    console.print(table)


def _threshold_order(threshold: str) -> tuple[float, str]:
    """Thresholds ("75", "80", ...) in numeric order; a key that is no number goes last."""
    try:
        return (float(threshold), threshold)
    except ValueError:
        return (float("inf"), threshold)


def _format(value: Any, spec: str) -> str:
    if value is None:
        return "-"
    try:
        return spec.format(value)
    except (TypeError, ValueError):
        return str(value)
