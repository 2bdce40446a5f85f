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

MODELS_ON = {
    "workload.precondition": "fill",  # reads of written pages: bit errors to count
    "reliability.enabled": True,
    "reliability.pe_cycles": 30_000,  # worn and aged far past the ECC's reach: every step taken
    "reliability.retention_age": "10y",
    "reliability.retention_temp_c": 70,
    "buffer.capacity": "4MiB",
    "ftl.mapping_cache": "cached",
    "plp.enabled": True,
    "power_loss.at": ["2ms"],
}
"""Overrides that turn on reliability, the write buffer, the cached mapping table, PLP and a power
cut (the HTML report's model sections)."""

OPTIONAL_SECTIONS = (
    "thermal",
    "throttle",
    "reliability",
    "buffer",
    "plp",
    "power-loss",
    "mapping-cache",
    "suspend",
)
"""HTML report sections of models a run may have on or off."""


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
