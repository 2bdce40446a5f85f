#!/usr/bin/env bash
# The project benchmark: simulated host I/Os per wall-clock second and peak memory for
# (a) 4 KiB random writes, QD 64, steady-state enterprise_tlc drive with GC running, and
# (b) 4 KiB random reads, QD 64, filled enterprise_tlc drive,
# (c) 4 KiB random 50/50 reads and writes, one queue at QD 64, filled drive, and
# (d) the same work as four flows of QD 16 each under weighted round robin (the multi-queue
#     path: submission queues and arbitration), to compare with (c). Each case runs in its own process.
# Then the sweep scaling: a 20-point sweep with one worker and with two, and the speedup
# (scripts/bench_sweep.py; needs the package, e.g. the .venv scripts/test.sh builds).
# It reports figures and gates nothing: wall time moves with what else the machine runs.
# Usage: bash scripts/bench.sh [IO_COUNT]   (default 2,000,000 host I/Os per case)
#        SWEEP_REPEATS=N (default 3) pairs of sweeps; PYTHON=... the Python with ssdtwin installed
set -euo pipefail
cd "$(dirname "$0")/.."
io_count="${1:-2000000}"
cargo build --quiet --release -p ssdtwin_cli
for case in write read mixed flows; do
    echo
    ./target/release/ssdtwin-cli bench "$case" --io-count "$io_count"
done
echo
python="${PYTHON:-.venv/bin/python}"
if ! "$python" -c "import ssdtwin" 2>/dev/null; then
    echo "bench.sh: no ssdtwin package for $python (bash scripts/test.sh builds .venv; or set PYTHON)" >&2
    exit 1
fi
"$python" scripts/bench_sweep.py --repeats "${SWEEP_REPEATS:-3}"
