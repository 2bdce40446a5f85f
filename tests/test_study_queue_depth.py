"""The queue-depth study (studies/queue_depth), reduced: the directions the self-heating paper
reports for its Figure 7 (papers/000, section 4.1)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import ssdtwin

STUDY = Path(__file__).parent.parent / "studies" / "queue_depth" / "sweep.toml"


def test_queue_depth_study_iops_saturate_and_latency_rises(tmp_path):
    study = tomllib.loads(STUDY.read_text())
    assert study["base"]["drive"] == "iiot_64gb"
    assert study["grid"]["host.queue_depth"] == [1, 2, 4, 8, 16, 32, 64]
    study["base"]["workload"]["io_count"] = 10_000  # reduced from the study's 50,000
    study["grid"]["host.queue_depth"] = [1, 2, 8, 32, 64]
    results = ssdtwin.sweep(study, out=tmp_path, workers=2).set_index("host.queue_depth")
    iops = results["iops"]
    latency = results["latency_us.all.mean"]
    # IOPS rise with queue depth up to saturation ...
    assert iops[1] < iops[2] < iops[8] < iops[32]
    # ... and saturate: doubling QD past the knee gains (almost) nothing, far less than at low QD.
    assert iops[64] / iops[32] < 1.05
    assert iops[2] / iops[1] > 1.3
    # The paper's range: about 9 kIOPS at QD 1, up to 48 kIOPS.
    assert 6_000 < iops[1] < 12_000
    assert 30_000 < iops[64] < 60_000
    # Latency rises with queue depth throughout.
    assert latency.is_monotonic_increasing
    assert latency[64] > 5 * latency[1]
