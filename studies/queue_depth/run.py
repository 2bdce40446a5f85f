"""The queue_depth study (the self-heating paper, papers/000, section 4.2, Figure 7).

    python studies/queue_depth/run.py      # both sweeps, the README tables, measured.json

Runs `sweep.toml` (the 64 GB drive in GC steady state, QD 1 to 64) and the same sweep on a full
drive that has not yet collected garbage (`precondition = "fill"`, WAF 1), the isolating run of
the README, with `ssdtwin.sweep` (results in results/ here, not committed); prints the tables and
writes `measured.json`, the figures `claims.toml` compares with the paper.
"""

from __future__ import annotations

import json
import shutil
import tomllib
from pathlib import Path
from typing import Any

import ssdtwin

HERE = Path(__file__).resolve().parent

COLUMNS = [
    ("QD", "host.queue_depth", "{}"),
    ("IOPS", "iops", "{:,.0f}"),
    ("MiB/s", "bandwidth_mib_s", "{:.1f}"),
    ("mean latency (µs)", "latency_us.all.mean", "{:,.0f}"),
    ("read mean (µs)", "latency_us.read.mean", "{:,.0f}"),
    ("write mean (µs)", "latency_us.write.mean", "{:,.1f}"),
    ("read p99.99 (µs)", "latency_us.read.p99_99", "{:,.0f}"),
    ("die utilisation", "queues.die_utilization", "{:.2f}"),
    ("HoL events", "queues.hol_events", "{:.0f}"),
    ("WAF", "waf", "{:.2f}"),
]


def run(
    precondition: str = "steady",
    io_count: int | None = None,
    depths: list[int] | None = None,
    out: Path | None = None,
) -> Any:
    """The sweep with `precondition` (and optionally fewer commands or queue depths and another
    output directory, for the tests); returns its table indexed by queue depth."""
    study = tomllib.loads((HERE / "sweep.toml").read_text())
    study["base"]["workload"]["precondition"] = precondition
    if io_count is not None:
        study["base"]["workload"]["io_count"] = io_count
    if depths is not None:
        study["grid"]["host.queue_depth"] = depths
    out = out or HERE / "results" / precondition
    shutil.rmtree(out, ignore_errors=True)
    table = ssdtwin.sweep(study, out=out, workers=2, progress=False)
    return table.set_index("host.queue_depth", drop=False).sort_index()


def measured(steady: Any) -> dict[str, float]:
    """The figures claims.toml compares with the paper."""
    iops = steady["iops"]
    latency = steady["latency_us.all.mean"]
    return {
        "iops_k_qd1": iops[1] / 1000,
        "iops_k_qd64": iops[64] / 1000,
        "iops_qd64_over_qd8": iops[64] / iops[8],
        "latency_rise_qd1_to_qd64": latency[64] / latency[1] - 1,
    }


def _markdown(table: Any) -> str:
    lines = ["| " + " | ".join(header for header, _, _ in COLUMNS) + " |"]
    lines.append("|" + "|".join("---:" for _ in COLUMNS) + "|")
    for _, row in table.iterrows():
        lines.append("| " + " | ".join(spec.format(row[key]) for _, key, spec in COLUMNS) + " |")
    return "\n".join(lines)


def main() -> None:
    steady = run("steady")
    print(_markdown(steady))
    print()
    print(_markdown(run("fill")))
    values: dict[str, Any] = measured(steady)
    (HERE / "measured.json").write_text(json.dumps(values, indent=2, sort_keys=True) + "\n")
    print(json.dumps(values, indent=2, sort_keys=True))


if __name__ == "__main__":
    main()
