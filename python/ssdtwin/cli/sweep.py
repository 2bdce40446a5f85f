"""The `sweep` command: run a sweep file's points and print their table."""

from __future__ import annotations

import sys
from typing import Any

import click
from rich import box
from rich.console import Console
from rich.table import Table

from ssdtwin._core import ConfigError
from ssdtwin.cli._common import (
    EXIT_INTERRUPTED,
    EXIT_POINTS_FAILED,
    error_text,
    fail,
    table_console,
)
from ssdtwin.report.fields import format_value
from ssdtwin.sweep import SweepFailures, describe_drives
from ssdtwin.sweep import sweep as run_sweep
from ssdtwin.sweep.plan import describe_points, expand, load_sweep, output_directory
from ssdtwin.sweep.store import swept_columns


@click.command("sweep")
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
    try:
        definition = load_sweep(sweep_file)
        directory = output_directory(definition, out)
        if dry_run:
            click.echo(describe_points(expand(definition)))
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
    except SweepFailures as failures:
        print_sweep_table(failures.results, table_console())
        if html_path is not None:
            write_sweep_page(failures.directory, html_path, "static")
        click.echo(f"error: {failures}", err=True)
        sys.exit(EXIT_POINTS_FAILED)
    except ConfigError as error:
        fail(str(error).rstrip())
    except (OSError, ValueError) as error:
        fail(error_text(error))
    except KeyboardInterrupt:
        click.echo("interrupted: finished points are kept; continue with --resume", err=True)
        sys.exit(EXIT_INTERRUPTED)
    print_sweep_table(results, table_console())
    click.echo(f"{len(results)} points, all ok: {directory / 'results.parquet'}")
    click.echo(describe_drives(directory))
    if html_path is not None:
        write_sweep_page(directory, html_path, "static")


def write_sweep_page(directory: Any, output: str, point_pages: str, title: str | None = None) -> None:
    from ssdtwin.report import html

    try:
        written = html.sweep_page(directory, output, point_pages=point_pages, title=title)
    except (OSError, ValueError) as error:
        fail(error_text(error))
    points = len(written) - 1
    click.echo(f"wrote {output}" + (f" and {points} point pages" if points else ""))


def print_sweep_table(results: Any, console: Console, limit: int = 60) -> None:
    """The swept keys, status and headline figures of each point (the first `limit` points)."""
    swept = swept_columns(results)
    figures = [("iops", "{:,.0f}"), ("latency_us.all.mean", "{:,.1f}"), ("latency_us.all.p99", "{:,.1f}")]
    figures.append(("waf", "{:.3f}"))
    table = Table(box=box.SIMPLE)
    for column in [*swept, "seed", "status", *(name for name, _ in figures)]:
        table.add_column(column, justify="left" if column == "status" else "right")
    for row in results.head(limit).to_dict("records"):
        cells = [str(row[column]) for column in [*swept, "seed", "status"]]
        cells += [
            format_value(None if _missing(row.get(name)) else row.get(name), spec) for name, spec in figures
        ]
        table.add_row(*cells)
    console.print(table)
    if len(results) > limit:
        console.print(f"... and {len(results) - limit} more points")


def _missing(value: Any) -> bool:
    import pandas

    return bool(pandas.isna(value))
