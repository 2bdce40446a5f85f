"""Atomic output files: every file the package writes (reports, tables, pages, plots, sweep
points) appears whole or not at all. The data goes to a temporary file beside the target, is
flushed to disk, then renamed over the target (`os.replace`, atomic on POSIX within one folder),
so a process killed at any moment leaves the old file or the new one, never part of one; the
temporary file of a killed writer is named `.<name>.<random>.tmp` and is ignored by readers.
The file gets the mode an `open()` would give it, 0666 less the process's umask (the temporary
file is made 0600, as `tempfile.mkstemp` makes it, and is opened up before the rename)."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

TEMPORARY_SUFFIX = ".tmp"


@contextlib.contextmanager
def replacing(path: str | os.PathLike[str]) -> Iterator[Path]:
    """Yields a temporary path in `path`'s folder to write to; on success it replaces `path`,
    on an exception it is removed and `path` is untouched."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    descriptor, name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=TEMPORARY_SUFFIX)
    os.close(descriptor)
    temporary = Path(name)
    try:
        yield temporary
        with open(temporary, "rb+") as file:
            os.fchmod(file.fileno(), 0o666 & ~current_umask())
            os.fsync(file.fileno())
        os.replace(temporary, target)
    finally:
        temporary.unlink(missing_ok=True)


def current_umask() -> int:
    """The process's umask, read without changing it where the system tells it (Linux's
    /proc/self/status); elsewhere set and restored at once."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_text(path: str | os.PathLike[str], text: str) -> Path:
    """Writes `text` (UTF-8) to `path` atomically and returns the path."""
    with replacing(path) as temporary:
        temporary.write_text(text, encoding="utf-8")
    return Path(path)


def remove_stale(folder: str | os.PathLike[str]) -> int:
    """Removes the temporary files that killed writers left in `folder`; returns how many."""
    directory = Path(folder)
    if not directory.is_dir():
        return 0
    stale = [path for path in directory.glob(f".*{TEMPORARY_SUFFIX}") if path.is_file()]
    for path in stale:
        path.unlink(missing_ok=True)
    return len(stale)
