"""Sweep scaling benchmark: the wall time of one 20-point sweep with one worker and with two, and
the speedup. Reports only, gates nothing (the test suite asserts what load cannot move: that two
workers run points in two processes at once, tests/test_sweep.py). Wall times move with whatever
else the machine runs, so the runs alternate (1, 2, 1, 2, ...) and the load average is printed
beside each figure.

    python scripts/bench_sweep.py [--repeats N] [--io-count N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

import ssdtwin


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="pairs of sweeps (default 3)")
    parser.add_argument(
        "--io-count", type=int, default=2_000_000, help="host I/Os per point (default 2,000,000: about 0.9 s)"
    )
    arguments = parser.parse_args()
    definition = {
        "base": {
            "flash": {"blocks_per_plane": 16},
            "workload": {"io_count": arguments.io_count, "precondition": "fill"},
        },
        "grid": {"host.queue_depth": [1, 2, 4, 8, 16], "workload.read_fraction": [0.0, 0.3, 0.7, 1.0]},
    }
    with tempfile.TemporaryDirectory(prefix="bench-sweep-") as folder:
        ssdtwin.sweep(
            {**definition, "grid": {"host.queue_depth": [1]}}, out=Path(folder, "warm-up"), progress=False
        )
        walls: dict[int, list[float]] = {1: [], 2: []}
        for repeat in range(arguments.repeats):
            for workers in (1, 2):
                started = time.perf_counter()
                results = ssdtwin.sweep(
                    definition, out=Path(folder, f"{repeat}-{workers}"), workers=workers, progress=False
                )
                wall = time.perf_counter() - started
                assert (results["status"] == "ok").all()
                walls[workers].append(wall)
                print(
                    f"{workers} worker{'s' if workers > 1 else ''}: {wall:6.2f} s "
                    f"(load average {os.getloadavg()[0]:.1f})",
                    flush=True,
                )
            print(f"  speedup {walls[1][-1] / walls[2][-1]:.2f}x", flush=True)
    one, two = statistics.median(walls[1]), statistics.median(walls[2])
    print(
        f"sweep scaling, 20 points of {arguments.io_count:,} I/Os on {os.cpu_count()} cores: median "
        f"{one:.2f} s with one worker, {two:.2f} s with two: {one / two:.2f}x"
    )


if __name__ == "__main__":
    main()
