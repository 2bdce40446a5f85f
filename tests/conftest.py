"""Shared fixtures: a small scenario that runs in a fraction of a second, and the CLI in a
subprocess."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

SMALL = {"flash.blocks_per_plane": 16, "workload.io_count": 20_000, "workload.precondition": "none"}
"""Overrides that shrink the default scenario so each run takes a fraction of a second."""

SMALL_SET = [item for key, value in SMALL.items() for item in ("--set", f"{key}={value}")]
"""`SMALL` as `--set` options of `ssdtwin run`."""


@pytest.fixture
def small() -> dict[str, object]:
    return dict(SMALL)


def cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Runs `python -m ssdtwin ARGS...` and returns the finished process (output as text)."""
    return subprocess.run(
        [sys.executable, "-m", "ssdtwin", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


ROOT = Path(__file__).resolve().parent.parent
"""The repository's root."""


def load_script(path: str | Path, name: str | None = None) -> ModuleType:
    """Imports the Python file `path` (relative to the repository's root), e.g. a study's
    `run.py`, as a module."""
    full = ROOT / path
    spec = importlib.util.spec_from_file_location(name or full.parent.name + "_" + full.stem, full)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
