#!/usr/bin/env bash
# The project benchmark: simulated host I/Os per wall-clock second and peak memory for
# (a) 4 KiB random writes, QD 64, steady-state enterprise_tlc drive with GC running, and
# (b) 4 KiB random reads, QD 64, filled enterprise_tlc drive. Each case runs in its own process.
# Usage: bash scripts/bench.sh [IO_COUNT]   (default 2,000,000 host I/Os per case)
set -euo pipefail
cd "$(dirname "$0")/.."
io_count="${1:-2000000}"
cargo build --quiet --release -p ssdtwin_cli
for case in write read; do
    echo
    ./target/release/ssdtwin-cli bench "$case" --io-count "$io_count"
done
