#!/usr/bin/env bash
# Regenerates the README's screenshots of the HTML report (docs/images/html_report_*.png): a run
# with the thermal model and throttling on, and the queue-depth study's sweep, each rendered by
# headless Chromium and shrunk to a small palette PNG. Needs the package installed in .venv (or
# PYTHON=...) and chromium (scripts/install-chromium.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

python=${PYTHON:-.venv/bin/python}
python="$(cd "$(dirname "$python")" && pwd)/$(basename "$python")"  # absolute, symlink kept (a venv)
root=$(pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$python" -m ssdtwin run --quiet --html "$work/run.html" \
    --set drive=iiot_512gb --set thermal.enabled=true --set throttle.policy=nvme \
    --set workload.read_fraction=0.3 --set workload.io_count=0 --set workload.duration=60s \
    --set workload.precondition=none --set power.sample_interval=50ms >/dev/null
(cd "$work" && "$python" -m ssdtwin sweep "$root/studies/queue_depth/sweep.toml" --quiet --workers 2 \
    --out queue_depth --html sweep.html >/dev/null)

shoot() {  # shoot PAGE HEIGHT PNG: the top HEIGHT pixels of PAGE at 1280 pixels wide
    chromium --headless=new --no-sandbox --disable-gpu --hide-scrollbars --run-all-compositor-stages-before-draw \
        --window-size=1280,"$2" --screenshot="$3" "file://$1" >/dev/null 2>&1
}
shoot "$work/run.html" 2600 "$work/run.png"
shoot "$work/sweep.html" 1900 "$work/sweep.png"

"$python" - "$work" <<'PY'
import sys
from pathlib import Path

from PIL import Image

work = Path(sys.argv[1])
for name in ("run", "sweep"):
    image = Image.open(work / f"{name}.png").convert("RGB")
    width = 960
    image = image.resize((width, round(image.height * width / image.width)), Image.LANCZOS)
    image = image.quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    target = Path("docs/images") / f"html_report_{name}.png"
    image.save(target, optimize=True)
    print(f"{target}: {image.width}x{image.height}, {target.stat().st_size / 1024:.0f} KiB")
PY
