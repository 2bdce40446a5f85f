"""The commands that draw results: `report` (HTML pages) and `plot` (images)."""

from __future__ import annotations

import json
import os

import click

from ssdtwin.cli._common import error_text, fail
from ssdtwin.cli.sweep import write_sweep_page

POINT_PAGE_CHOICES = ("static", "interactive", "none")
"""`--point-pages`: what each sweep point's page carries (`ssdtwin.report.html.POINT_PAGES`)."""


@click.command("report")
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
    from ssdtwin.report import html

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
            write_sweep_page(directories[0], output, point_pages, title)
            return
        if len(inputs) == 1 and not labels:
            text = html.run_page(inputs[0], timeseries_path, title=title, interactive=not static_only)
        else:
            text = html.compare_page(list(inputs), labels=list(labels) or None, title=title)
        html.write(text, output)
    except json.JSONDecodeError as error:
        fail(f"not a JSON report: {error}")
    except (OSError, ValueError, TypeError) as error:
        fail(error_text(error))
    click.echo(f"wrote {output}")


@click.command("plot")
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
    from ssdtwin.report.plots import plot, plot_latency_cdf, plot_thermal, plot_timeseries

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
        fail(error_text(error))
    click.echo(f"wrote {output}")


def _is_timeseries(path: str) -> bool:
    """Whether `path` is a Parquet time series (it has a `time_s` column)."""
    if not path.endswith(".parquet") or not os.path.isfile(path):
        return False
    import pyarrow.parquet

    return "time_s" in pyarrow.parquet.read_schema(path).names
