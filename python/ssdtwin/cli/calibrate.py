"""`ssdtwin calibrate`: the measurement protocol, and a preset fitted to its fio JSON output
(docs/calibration.md).

    ssdtwin calibrate --protocol -o measure.fio [--device /dev/nvme0n1] [--size 100%] [--runtime 60]
    ssdtwin calibrate measure.json [more.json ...] --base PRESET -o mydrive.toml [--workers N]
                      [--holdout NAME ...] [--html FILE.html] [--quiet]
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import click

from ssdtwin._util.atomic import write_text
from ssdtwin.calibrate import pages
from ssdtwin.calibrate.measure import CalibrationError
from ssdtwin.calibrate.protocol import check_size, protocol_text
from ssdtwin.calibrate.run import calibrate
from ssdtwin.cli._common import EXIT_INTERRUPTED, error_text, fail


@contextmanager
def _progress(enabled: bool) -> Iterator[tuple[Callable[[str], None], Callable[[], None]]]:
    """A rich line on stderr: the fit's stage, simulations run, time elapsed."""
    if not enabled:
        yield (lambda _stage: None), (lambda: None)
        return
    from rich.console import Console
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    display = Progress(
        SpinnerColumn(),
        TextColumn("calibrate  {task.description:<48}"),
        TextColumn("{task.completed:>6.0f} simulations"),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=True,
    )
    with display:
        task = display.add_task("reading", total=None)
        yield (
            lambda stage: display.update(task, description=stage),
            lambda: display.update(task, advance=1),
        )


@click.command("calibrate")
@click.argument("measurements", nargs=-1, type=click.Path(dir_okay=False))
@click.option("--protocol", is_flag=True, help="Write the measurement protocol's fio job file to -o.")
@click.option(
    "--output", "-o", required=True, help="The fitted preset (.toml), or with --protocol the fio job file."
)
@click.option("--base", help="The preset the fit starts from: a name (ssdtwin presets) or a .toml path.")
@click.option("--workers", type=click.IntRange(min=1), help="Simulations in parallel [default: CPU count].")
@click.option(
    "--holdout", "holdout", multiple=True, help="A measured job kept out of the fit, to test its prediction."
)
@click.option("--html", "html_path", help="The report's HTML page [default: OUTPUT with .html].")
@click.option(
    "--device", default="/dev/nvme0n1", show_default=True, help="--protocol: the device fio writes."
)
@click.option(
    "--size", default="100%", show_default=True, help="--protocol: the region of the device (fio size)."
)
@click.option(
    "--runtime",
    type=click.IntRange(min=1),
    default=60,
    show_default=True,
    help="--protocol: seconds per job.",
)
@click.option("--quiet", "-q", is_flag=True, help="No progress line.")
def calibrate_command(
    measurements: tuple[str, ...],
    protocol: bool,
    output: str,
    base: str | None,
    workers: int | None,
    holdout: tuple[str, ...],
    html_path: str | None,
    device: str,
    size: str,
    runtime: int,
    quiet: bool,
) -> None:
    """Fit a drive preset to fio measurements of a real drive, or (--protocol) write the fio job
    file that measures it."""
    try:
        if protocol:
            if measurements or base:
                fail("--protocol writes the fio job file: give no measurement file and no --base")
            write_text(output, protocol_text(device, check_size(size), runtime))
            click.echo(
                f"fio job file written: {output} "
                f"(run: fio --output-format=json --output=measure.json {output})"
            )
            return
        if not measurements:
            fail("give the fio JSON output(s) to fit (or --protocol to write the fio job file)")
        if base is None:
            fail(
                "--base PRESET is required: the preset the fit starts from (ssdtwin presets, or a .toml path)"
            )
        with _progress(not quiet and sys.stderr.isatty()) as (stage, on_run):
            result = calibrate(
                measurements, base, output, workers=workers, holdout=holdout, stage=stage, on_run=on_run
            )
        page_path = html_path or str(Path(output).with_suffix(".html"))
        write_text(page_path, pages.page(result, output))
        click.echo(pages.text(result, output) + f"report page: {page_path}")
    except (CalibrationError, ValueError, OSError) as error:
        fail(error_text(error))
    except KeyboardInterrupt:
        click.echo("interrupted", err=True)
        sys.exit(EXIT_INTERRUPTED)
