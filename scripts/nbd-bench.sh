#!/usr/bin/env bash
# NBD server speed (docs/guide/nbd.md, Speed): fio 4 KiB random writes at
# iodepth 32 over a Unix socket, --pace virtual, the server pinned to CPU 0 and fio to CPU 1, the
# default drive at 16 blocks per plane. Prints fio's requests per second (end to end).
# Usage: bash scripts/nbd-bench.sh [SECONDS]   (default 10). Needs fio (scripts/install-nbd-clients.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-10}"
cargo build --quiet --release -p ssdtwin_cli
work=$(mktemp -d)
trap 'kill "$server" 2>/dev/null || true; rm -rf "$work"' EXIT
socket="$work/drive.sock"
taskset -c 0 ./target/release/ssdtwin-cli serve --nbd --socket "$socket" \
    --set flash.blocks_per_plane=16 --json "$work/report.json" 2>"$work/server.log" &
server=$!
for _ in $(seq 100); do [ -S "$socket" ] && break; sleep 0.1; done
taskset -c 1 fio --name=nbd-bench --ioengine=nbd --uri="nbd+unix:///?socket=$socket" \
    --rw=randwrite --bs=4k --iodepth=32 --time_based --runtime="$seconds" --size=256m \
    --output-format=json --output="$work/fio.json" >/dev/null
python3 -c "
import json, sys
job = json.load(open('$work/fio.json'))['jobs'][0]['write']
print(f\"fio randwrite 4 KiB iodepth 32, {sys.argv[1]} s: {job['iops']:,.0f} requests/s end to end, {job['total_ios']:,} requests\")
" "$seconds"
