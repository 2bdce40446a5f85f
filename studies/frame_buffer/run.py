"""The frame_buffer study (the self-heating paper, papers/000, section 4.2, Figures 9 and 10).

    python studies/frame_buffer/run.py     # the sweep, the README table, measured.json

Runs `sweep.toml` with `ssdtwin.sweep` (results in results/ here, not committed), prints the
README's table and writes `measured.json`, the figures `claims.toml` compares with the paper.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import ssdtwin

HERE = Path(__file__).resolve().parent

COLUMNS = [
    ("QD", "host.queue_depth", "{}"),
    ("frame buffer", "controller.frame_buffer", "{}"),
    ("IOPS", "iops", "{:,.0f}"),
    ("mean latency [us]", "latency_us.all.mean", "{:,.0f}"),
    ("p99.99 [us]", "latency_us.all.p99_99", "{:,.0f}"),
    ("HoL events", "queues.hol_events", "{:.0f}"),
    ("writes held for GC", "queues.gc_write_holds", "{:.0f}"),
    ("die utilisation", "queues.die_utilization", "{:.3f}"),
    ("NAND avg [W]", "power_w.nand_avg", "{:.3f}"),
    ("NAND peak [W]", "power_w.nand_peak", "{:.3f}"),
    ("WAF", "waf", "{:.2f}"),
]


def measured(table: Any) -> dict[str, float]:
    """The figures claims.toml compares with the paper: the smallest frame buffer (8) against the
    largest (256), at QD 8 (the paper's section 4.1 depth) for the directions; the latency ends
    at QD 4, the lowest depth."""
    row = {(r["host.queue_depth"], r["controller.frame_buffer"]): r for _, r in table.iterrows()}
    small, large = row[8, 8], row[8, 256]
    return {
        "nand_avg_change_fb8_vs_fb256_qd8": small["power_w.nand_avg"] / large["power_w.nand_avg"] - 1,
        "nand_avg_mw_fb8_qd8": 1000 * small["power_w.nand_avg"],
        "iops_change_fb8_vs_fb256_qd8": small["iops"] / large["iops"] - 1,
        "hol_change_fb8_vs_fb256_qd8": small["queues.hol_events"] / max(large["queues.hol_events"], 1) - 1,
        "latency_change_fb8_vs_fb256_qd8": small["latency_us.all.mean"] / large["latency_us.all.mean"] - 1,
        "latency_us_fb8_qd4": row[4, 8]["latency_us.all.mean"],
        "latency_us_fb256_qd4": row[4, 256]["latency_us.all.mean"],
    }


def main() -> None:
    table = ssdtwin.sweep(str(HERE / "sweep.toml"), workers=2, progress=False)
    table = table.sort_values(["host.queue_depth", "controller.frame_buffer"])
    lines = ["| " + " | ".join(header for header, _, _ in COLUMNS) + " |"]
    lines.append("|" + "|".join("---:" for _ in COLUMNS) + "|")
    for _, row in table.iterrows():
        lines.append("| " + " | ".join(spec.format(row[key]) for _, key, spec in COLUMNS) + " |")
    print("\n".join(lines))
    values = measured(table)
    (HERE / "measured.json").write_text(json.dumps(values, indent=2, sort_keys=True) + "\n")
    print(json.dumps(values, indent=2, sort_keys=True))


if __name__ == "__main__":
    main()
