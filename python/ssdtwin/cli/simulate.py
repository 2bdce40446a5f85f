"""The commands that simulate a drive: `run`, `precondition`, and `serve` (the drive served as a
Network Block Device; its loop is the core's, `_core.serve_nbd`, so there is no Python glue beyond
this command)."""

from __future__ import annotations

import json
import signal
import sys

import click
from rich.console import Console

from ssdtwin import _core
from ssdtwin._core import ConfigError, SimulationError
from ssdtwin._util import atomic
from ssdtwin.cli._common import EXIT_INTERRUPTED, fail, scenario_arguments, simulate
from ssdtwin.report import Report
from ssdtwin.report.fio import to_fio_json
from ssdtwin.report.steady import run_warnings
from ssdtwin.report.text import print_summary


@click.command("run")
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
    """Simulate SCENARIO.toml (or the built-in default scenario) and print a summary.

    A SCENARIO.toml without `drive` changes the built-in default scenario (its 64 GiB drive,
    steady-state preconditioning); one that names a drive runs that preset at its own size."""
    report = Report(json.loads(simulate(scenario, set_overrides, quiet, "simulation stopped", snapshot)))

    if timeseries_path is not None:
        try:
            with atomic.replacing(timeseries_path) as temporary:
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
    for warning in run_warnings(report.to_dict()):
        click.echo(f"warning: {warning}", err=True)
    text = json.dumps(to_fio_json(report.to_dict()), indent=2) if output_format == "fio-json" else None
    text = text if text is not None else report.to_json()
    if json_path is None and output_format != "summary":
        json_path = "-"
    if json_path == "-":
        click.echo(text)
        return
    if json_path is not None:
        try:
            atomic.write_text(json_path, text + "\n")
        except OSError as error:
            fail(f"cannot write {json_path}: {error.strerror or error}")
    print_summary(report, Console())


@click.command("precondition")
@click.argument("scenario", required=False, metavar="[SCENARIO.toml]")
@click.option("--set", "set_overrides", multiple=True, metavar="KEY=VALUE", help="Override a scenario key.")
@click.option("-o", "--output", default="drive.snap", show_default=True, metavar="DRIVE.snap")
@click.option("--quiet", "-q", is_flag=True, help="Show no progress bar.")
def precondition_command(
    scenario: str | None, set_overrides: tuple[str, ...], output: str, quiet: bool
) -> None:
    """Precondition the scenario's drive once and save it as a snapshot for `run --from`."""
    simulate(scenario, set_overrides, quiet, "preconditioning stopped", None, output)
    click.echo(f"wrote {output}")


@click.command("serve")
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
@click.option(
    "--class",
    "default_class",
    default="medium",
    show_default=True,
    metavar="CLASS",
    help="Priority class (urgent, high, medium, low) of a connection to the default export; a "
    "connection to the export named after a class (nbd+unix:///urgent?socket=...) gets that class. "
    "Each connection is a submission queue, arbitrated by host.arbitration.",
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
    default_class: str,
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
        arguments = scenario_arguments(scenario, set_overrides)
        text = _core.serve_nbd(
            *arguments,
            socket=socket_path,
            listen=listen,
            pace=pace,
            store_cap=store_cap,
            once=once,
            record_trace=record_trace,
            power_loss_at=power_loss_at,
            default_class=default_class,
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
            atomic.write_text(json_path, report.to_json() + "\n")
        except OSError as error:
            fail(f"cannot write {json_path}: {error.strerror or error}")
    if not quiet:
        print_summary(report, Console(stderr=True))
