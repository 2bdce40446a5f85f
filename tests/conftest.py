"""Shared fixtures: a small scenario that runs in a fraction of a second, and the CLI in a
subprocess."""

from __future__ import annotations

import subprocess
import sys

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
