"""Coverage-guided fuzzing of sweep files (libFuzzer through atheris, on the Python code that
parses them): TOML text -> `load_sweep` -> `expand` (which resolves each point through the core).
A clean `ConfigError` or `OSError` (a `base` file that does not exist) is the expected outcome of
a bad file; any other exception is a finding. Run by `scripts/fuzz.sh`; `--replay DIR` runs each
file of DIR once instead (the seeds and regressions, in CI)."""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

MAX_EXPANDED = 16
"""Sweeps with more points are only checked, not expanded (each point is a core call)."""


def one_input(data: bytes) -> None:
    from ssdtwin._core import ConfigError
    from ssdtwin.sweep import expand, load_sweep, point_count

    try:
        table = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError):
        return
    try:
        definition = load_sweep(table)
        axes = (definition.grid, definition.zip, definition.points, definition.seeds)
        if point_count(*axes) <= MAX_EXPANDED:
            expand(definition)
    except (ConfigError, OSError):
        pass


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--replay":
        for path in sorted(Path(sys.argv[2]).glob("*.toml")):
            one_input(path.read_bytes())
        return
    import atheris

    with atheris.instrument_imports():
        import ssdtwin.sweep  # noqa: F401

    atheris.Setup(sys.argv, one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
