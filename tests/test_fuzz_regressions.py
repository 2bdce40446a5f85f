"""Every seed and every kept finding of the sweep-file fuzz target
(`crates/ssdtwin_fuzz/python/fuzz_sweep.py`) through the target once: a bad sweep file raises
`ConfigError` (or `OSError` for a missing base file), never another exception."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import load_script

FUZZ = Path(__file__).resolve().parents[1] / "crates" / "ssdtwin_fuzz"
INPUTS = sorted((FUZZ / "seeds" / "sweep").glob("*.toml")) + sorted(
    (FUZZ / "regressions" / "sweep").glob("*")
)


def _target():
    return load_script("crates/ssdtwin_fuzz/python/fuzz_sweep.py", "fuzz_sweep").one_input


def test_there_are_seeds_and_kept_findings() -> None:
    assert len(INPUTS) >= 4


@pytest.mark.parametrize("path", INPUTS, ids=lambda path: path.name)
def test_sweep_fuzz_input_is_handled(path: Path) -> None:
    _target()(path.read_bytes())
