#!/usr/bin/env bash
# Soak test (not part of CI): 100 M simulated host I/Os, 70/30 mixed sizes with hot and cold data
# (JESD219) and GC on a mid-size enterprise_tlc drive with power on. Prints resident memory at
# each tenth of the run; fails if it grows more than 2% from the first tenth to the end, or if
# the FTL's invariants do not hold at the end. docs/guide/hardening.md gives the latest figures.
# Usage: bash scripts/soak.sh [IO_COUNT] [--set KEY=VALUE ...]
set -euo pipefail
cd "$(dirname "$0")/.."
io_count="${1:-100000000}"
shift || true
cargo build --quiet --release -p ssdtwin_cli
exec ./target/release/ssdtwin-cli soak --io-count "$io_count" "$@"
