#!/usr/bin/env bash
# The project's one test command. Run from the repository root on a fresh machine: it builds
# everything it needs (a .venv with the package and its test tools) and runs every check.
set -euo pipefail

# The tests need no variable (a missing tool fails, a skip fails: tests/conftest.py), but tools
# read CI=1 as CI does, so the command behaves the same on a laptop as in CI.
export CI=1

step() { printf '\n==> %s\n' "$*"; }

cd "$(dirname "$0")/.."

step "python3.11 -m venv .venv"
if [ ! -x .venv/bin/python ]; then
    python3.11 -m venv .venv
fi

step 'pip install ".[test]" (release build of the Rust core)'
.venv/bin/python -m pip install --quiet ".[test]"

step "headless Chromium for the HTML-report tests (scripts/install-chromium.sh)"
bash scripts/install-chromium.sh

step "NBD clients for the serve --nbd tests: fio, nbdinfo, nbdfuse, qemu-img, fuse2fs (scripts/install-nbd-clients.sh)"
bash scripts/install-nbd-clients.sh

step "cargo fmt --all --check"
cargo fmt --all --check

step "cargo test --workspace"
cargo test --workspace

step "instructions per simulated I/O against the committed baseline (scripts/instructions.sh)"
bash scripts/instructions.sh

step "cargo clippy --workspace --all-targets -- -D warnings"
cargo clippy --workspace --all-targets -- -D warnings

step "ruff check python tests crates/ssdtwin_fuzz/python"
.venv/bin/ruff check python tests crates/ssdtwin_fuzz/python

step "ruff format --check python tests crates/ssdtwin_fuzz/python"
.venv/bin/ruff format --check python tests crates/ssdtwin_fuzz/python

step "short fuzz run: every target for 12 s (scripts/fuzz.sh; the campaign is 1 M executions each)"
bash scripts/fuzz.sh --seconds 12

step "documentation site: mkdocs build --strict (scripts/docs.sh)"
bash scripts/docs.sh

step "pytest -q tests"
.venv/bin/pytest -q tests
