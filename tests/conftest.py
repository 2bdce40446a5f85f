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
    "buffer.read_cache": "1MiB",
    "buffer.read_ahead": "64KiB",
    "ftl.mapping_cache": "cached",
    "plp.enabled": True,
    "power_loss.at": ["2ms"],
}
"""Overrides that turn on reliability, the write buffer, the read cache, the cached mapping table,
PLP and a power cut (the HTML report's model sections)."""

OPTIONAL_SECTIONS = (
    "thermal",
    "throttle",
    "reliability",
    "buffer",
    "read-cache",
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


# --------------------------------------------------------------------------------- no silent skips

ALLOWED_SKIPS: dict[str, str] = {
    # Test id (as pytest prints it) -> why it may skip. Empty: no test may skip or xfail. A test
    # listed here must say in its comment what would make it run, and that must not be a tool the
    # project's scripts could install (those are failures: scripts/install-*.sh install them).
}
"""Skips and xfails that are allowed, each with a comment: every other one fails the run."""


def _refuse_skip(report: pytest.TestReport | pytest.CollectReport) -> None:
    """Turns a skip (or an xfail) of a test not in `ALLOWED_SKIPS` into a failure naming it."""
    if report.nodeid in ALLOWED_SKIPS:
        return
    expected_failure = getattr(report, "wasxfail", None)
    if report.skipped:
        if expected_failure is not None:
            why = f"xfail ({expected_failure or 'no reason given'})"
        elif isinstance(report.longrepr, tuple):
            why = f"skip: {report.longrepr[2]}"
        else:
            why = f"skip: {report.longrepr}"
    elif expected_failure is not None and report.passed:
        why = f"xfail marker on a passing test ({expected_failure or 'no reason given'})"
    else:
        return
    report.outcome = "failed"
    report.longrepr = (
        f"{report.nodeid}: {why}\nNo test may skip or xfail: a missing tool is a failure (scripts/test.sh "
        "installs every tool), and a test that cannot assert must be fixed. An exception goes in "
        "ALLOWED_SKIPS in tests/conftest.py, with a comment saying why."
    )
    if hasattr(report, "wasxfail"):
        del report.wasxfail


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    _refuse_skip(outcome.get_result())


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    outcome = yield
    _refuse_skip(outcome.get_result())
