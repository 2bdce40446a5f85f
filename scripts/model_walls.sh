#!/usr/bin/env bash
# What each model costs in wall time on the full-size drive: the project benchmark's read and
# write cases (`ssdtwin-cli bench read|write`: full-size enterprise_tlc, 4 KiB random I/Os at
# QD 64, power on) with every optional model off, then with one model on at a time, all of it
# alternated over ROUNDS rounds so that the machine's drift reaches every row alike. Prints each
# row's median simulated I/Os per wall second and its change against the models-off row.
# model_costs.sh counts instructions on a small drive; this also counts what a model's memory
# costs on the full-size drive (its cache misses). It moves with the machine and its load: compare
# rows of one run, never figures of another day or machine. It reports and gates nothing
# (docs/guide/benchmark.md records its figures).
#
# Usage: bash scripts/model_walls.sh [ROUNDS [MODEL...]]
#   ROUNDS default 3; MODELs any of scripts/model_switches.sh's (default: thermal reliability
#   write_buffer read_cache), each row against the models-off row; IO_COUNT=N I/Os per run,
#   default 3,000,000.
set -euo pipefail
cd "$(dirname "$0")/.."

rounds="${1:-3}"
io_count="${IO_COUNT:-3000000}"
if ! [[ "$rounds" =~ ^[1-9][0-9]*$ ]]; then
    echo "model_walls.sh: ROUNDS must be a positive whole number, got '$rounds'" >&2
    exit 2
fi
shift $(($# > 0 ? 1 : 0))

# shellcheck source=scripts/model_switches.sh
source scripts/model_switches.sh
ORDER=(thermal reliability write_buffer read_cache)
if [ $# -gt 0 ]; then
    check_models "$@"
    ORDER=("$@")
fi
MODELS[off]=""
ORDER=(off "${ORDER[@]}")

cargo build --quiet --release -p ssdtwin_cli
cli=./target/release/ssdtwin-cli
results=$(mktemp)
trap 'rm -f "$results"' EXIT

# One run not counted: the first process after the build (or after another freed gigabytes) pays
# this kind of machine's page faults on fresh memory, which would count against the first row.
"$cli" bench read --io-count "$io_count" >/dev/null
for round in $(seq "$rounds"); do
    for case in read write; do
        for name in "${ORDER[@]}"; do
            sets=()
            for pair in ${MODELS[$name]}; do sets+=(--set "$pair"); done
            rate=$("$cli" bench "$case" --io-count "$io_count" "${sets[@]}" |
                awk '/simulated I\/Os per second/ {print $5}')
            echo "$case $name $rate" >>"$results"
            echo "round $round/$rounds: $case $name $rate" >&2
        done
    done
done

python3 - "$results" "${ORDER[@]}" <<'PYTHON'
import statistics
import sys

path, order = sys.argv[1], sys.argv[2:]
rates = {}
for line in open(path):
    case, name, rate = line.split()
    rates.setdefault((case, name), []).append(int(rate))
print(f"{'model on':<14} {'reads':>11} {'':>7} {'writes':>11} {'':>7}")
for name in order:
    row = f"{name:<14}"
    for case in ("read", "write"):
        median = statistics.median(rates[(case, name)])
        base = statistics.median(rates[(case, "off")])
        change = "" if name == "off" else f"{100 * (median / base - 1):+.1f}%"
        row += f" {median:>11,.0f} {change:>7}"
    print(row)
PYTHON
