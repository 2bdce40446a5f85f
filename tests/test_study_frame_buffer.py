"""The frame-buffer study (studies/frame_buffer): the self-heating paper's Figures 9 and 10 on a
reduced run. A smaller frame buffer means more Head-of-Line blocking, higher latency, fewer IOPS."""

from __future__ import annotations

import itertools
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

import ssdtwin

BASE: dict[str, Any] = {
    "drive": "iiot_64gb",
    "flash": {"blocks_per_plane": 128},
    "workload": {
        "read_fraction": 0.5,
        "block_size": "4KiB",
        "pattern": "random",
        "io_count": 30_000,
        "precondition": "steady",
    },
}
QUEUE_DEPTHS = (4, 8, 16)
FRAME_BUFFERS = (8, 16, 32, 256)


@pytest.fixture(scope="module")
def grid() -> dict[tuple[int, int], ssdtwin.Report]:
    keys = [(qd, fb) for qd in QUEUE_DEPTHS for fb in FRAME_BUFFERS]
    with ThreadPoolExecutor(max_workers=2) as pool:
        reports = list(
            pool.map(
                lambda key: ssdtwin.run(
                    BASE, **{"host.queue_depth": key[0], "controller.frame_buffer": key[1]}
                ),
                keys,
            )
        )
    return dict(zip(keys, reports, strict=True))


def test_a_smaller_frame_buffer_blocks_more_and_serves_less(grid):
    for qd in QUEUE_DEPTHS:
        hol = [grid[qd, fb].queues["hol_events"] for fb in FRAME_BUFFERS]
        latency = [grid[qd, fb].latency_us["all"]["mean"] for fb in FRAME_BUFFERS]
        iops = [grid[qd, fb].iops for fb in FRAME_BUFFERS]
        # Ordered from the smallest frame buffer to the largest.
        assert hol == sorted(hol, reverse=True), (qd, hol)
        # At QD 16 the 8-die drive is die-bound in GC steady state (dies 99% busy with the
        # largest buffer), so even the largest frame buffer stops at full die queues (11,219
        # Head-of-Line events against 16,944 for the smallest; no write waits for GC there,
        # `queues.gc_write_holds` is 0); at QD 4 and 8 the frame buffer dominates by over 10x.
        assert hol[0] > (10 if qd < 16 else 1.2) * max(hol[-1], 1), (qd, hol)
        assert latency[0] > 1.5 * latency[-1], (qd, latency)
        assert all(a >= b * 0.98 for a, b in itertools.pairwise(latency)), (qd, latency)
        assert iops[0] < iops[-1] / 1.5, (qd, iops)
        # Fewer dies at work: NAND average power falls with the frame buffer (Figure 9a).
        power = [grid[qd, fb].power_w["nand_avg"] for fb in FRAME_BUFFERS]
        assert power == sorted(power), (qd, power)
        assert power[0] < 0.25 < power[-1], (qd, power)


def test_queue_depth_raises_latency_at_a_fixed_frame_buffer(grid):
    for fb in FRAME_BUFFERS:
        latency = [grid[qd, fb].latency_us["all"]["mean"] for qd in QUEUE_DEPTHS]
        assert latency == sorted(latency), (fb, latency)
