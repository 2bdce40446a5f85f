"""What the commands share: exit statuses, the one-line error, the progress bar of a run, the
console for result tables, and running the core on the command line's scenario."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import NoReturn

import click
from rich.console import Console
from rich.progress import BarColumn, Progress, TaskID, TaskProgressColumn, TextColumn, TimeRemainingColumn

from ssdtwin import _core
from ssdtwin._core import ConfigError, SimulationError
from ssdtwin._util import capacity
from ssdtwin._util.arguments import CoreArguments, core_arguments

EXIT_USAGE = 2
"""Exit status for bad input: a scenario error, a missing file, a malformed `--set`."""
EXIT_INTERRUPTED = 130
"""Exit status after Ctrl-C (128 + SIGINT), as shells report it."""
EXIT_POINTS_FAILED = 1
"""Exit status of a sweep that finished with failed points."""


def fail(message: str) -> NoReturn:
    """Reports bad input on one line and exits with status 2."""
    click.echo(f"error: {message}", err=True)
    sys.exit(EXIT_USAGE)


def error_text(error: OSError | ValueError) -> str:
    """An error's message, with the file it names."""
    filename = getattr(error, "filename", None)
    return f"{getattr(error, 'strerror', None) or error}: {filename}" if filename else str(error)


def table_console() -> Console:
    """A console for result tables: as wide as the terminal, or wide enough for a file."""
    return Console() if sys.stdout.isatty() else Console(width=160)


def scenario_arguments(scenario: str | None, set_overrides: tuple[str, ...]) -> CoreArguments:
    """The core's arguments for SCENARIO and `--set` overrides; before a drive large enough to take
    gigabytes of memory, one `warning:` line on stderr with its size and how to shrink it."""
    arguments = core_arguments(scenario, {}, list(set_overrides))
    warning = capacity.large_drive_warning(_core_resolve(arguments))
    if warning is not None:
        click.echo(f"warning: {warning}", err=True)
    return arguments


def _core_resolve(arguments: CoreArguments) -> dict[str, object]:
    import json

    return dict(json.loads(_core.resolve(*arguments)))


def simulate(
    scenario: str | None, set_overrides: tuple[str, ...], quiet: bool, stopped: str, *options: str | None
) -> str:
    """`_core.run` on SCENARIO with `--set` overrides and `options` (snapshot to start from, snapshot
    to save), behind a progress bar; a bad input, a stalled drive (`stopped: ...`) or Ctrl-C ends
    the command with the CLI's message and exit status."""
    try:
        arguments = scenario_arguments(scenario, set_overrides)
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
