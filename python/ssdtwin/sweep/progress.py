"""The sweep's progress bar on stderr (rich), kept apart so `ssdtwin.sweep` reads as the sweep."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager


@contextmanager
def sweep_progress(total: int, already: int, enabled: bool) -> Iterator[Callable[[bool], None]]:
    """A rich progress bar of points (done, failed, ETA) on stderr; `advance(failed)` per point."""
    if not enabled:
        yield lambda _failed: None
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    display = Progress(
        TextColumn("sweep"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("points  {task.fields[failed]} failed"),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=False,
    )
    failed = 0
    with display:
        task = display.add_task("sweep", total=total, completed=already, failed=0)

        def advance(point_failed: bool) -> None:
            nonlocal failed
            failed += point_failed
            display.update(task, advance=1, failed=failed)

        yield advance
