#!/usr/bin/env bash
# The instruction-count guard: CPU instructions per simulated host I/O on two small fixed cases,
# counted by valgrind's callgrind, so the figure does not depend on the machine or its load.
#
# Each case runs twice, for SHORT and LONG host I/Os, and the difference of the two counts over
# the difference of the I/Os is the cost of one I/O of the measured run: building the drive and
# preconditioning it cancel out. The cases are the benchmark's (scripts/bench.sh) on a small
# drive, 2 channels x 8 dies, 32 blocks of 48 pages per plane, so it runs in seconds under
# valgrind and the write case reaches its garbage-collection steady state (WAF about 2.9):
#   write: 4 KiB random writes, QD 64, steady state, GC running, power on
#   read:  4 KiB random reads, QD 64, filled drive, power on
#
# Usage: bash scripts/instructions.sh            # compare with scripts/instructions.baseline
#        bash scripts/instructions.sh --update   # measure and write the baseline
# Fails when a case costs more than 10% above its baseline. Installs valgrind with apt-get when
# it is missing (as root, like the rest of CI).
set -euo pipefail
cd "$(dirname "$0")/.."

SHORT=50000
LONG=150000
DRIVE=(--set flash.channels=2 --set flash.blocks_per_plane=32 --set flash.pages_per_block=48)
TOLERANCE=1.10
BASELINE=${INSTRUCTIONS_BASELINE:-scripts/instructions.baseline}

if ! command -v valgrind > /dev/null; then
    echo "valgrind is missing: installing it (scripts/apt-install.sh)"
    bash "$(dirname "$0")/apt-install.sh" --no-recommends valgrind
fi
cargo build --quiet --release -p ssdtwin_cli
cli=./target/release/ssdtwin-cli
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# Instructions of one run of case $1 with $2 host I/Os.
count() {
    valgrind --tool=callgrind --callgrind-out-file="$scratch/out" \
        "$cli" bench "$1" --io-count "$2" "${DRIVE[@]}" > /dev/null 2>&1
    awk '/^summary:/ { print $2 }' "$scratch/out"
}

status=0
declare -A measured
for case in write read; do
    short=$(count "$case" "$SHORT")
    long=$(count "$case" "$LONG")
    measured[$case]=$(( (long - short) / (LONG - SHORT) ))
    echo "$case: ${measured[$case]} instructions per simulated I/O"
done

if [ "${1:-}" = "--update" ]; then
    {
        echo "# Instructions per simulated host I/O (scripts/instructions.sh), measured $(date -u +%Y-%m-%d)."
        for case in write read; do echo "$case ${measured[$case]}"; done
    } > "$BASELINE"
    echo "wrote $BASELINE"
    exit 0
fi

for case in write read; do
    baseline=$(awk -v c="$case" '$1 == c { print $2 }' "$BASELINE")
    if [ -z "$baseline" ]; then
        echo "no baseline for $case in $BASELINE: run bash scripts/instructions.sh --update"
        status=1
        continue
    fi
    limit=$(awk -v b="$baseline" -v t="$TOLERANCE" 'BEGIN { printf "%d", b * t }')
    change=$(awk -v m="${measured[$case]}" -v b="$baseline" 'BEGIN { printf "%+.1f%%", (m / b - 1) * 100 }')
    if [ "${measured[$case]}" -gt "$limit" ]; then
        echo "FAIL $case: ${measured[$case]} instructions per I/O, $change over the baseline $baseline (limit +10%)"
        status=1
    else
        echo "ok   $case: ${measured[$case]} against the baseline $baseline ($change)"
    fi
done
exit $status
