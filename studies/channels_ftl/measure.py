"""Writes studies/channels_ftl/measured.json (the figures claims.toml compares with Cho et al.,
papers/004) and results.csv (the README's table) from the study's sweep results.

    cd studies/channels_ftl
    ssdtwin sweep sweep.toml && ssdtwin sweep isolate_log_blocks.toml && ssdtwin sweep isolate_write_through.toml
    python measure.py

Each key is computed from `results/` (the study), `results/isolate_log_blocks/` and
`results/isolate_write_through/` (the isolating runs the causes in claims.toml name); none is
written by hand.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas

import ssdtwin

HERE = Path(__file__).resolve().parent
CHANNELS = (2, 4, 8, 16)
MAPPINGS = ("page", "block", "bast")
TABLE = {
    "ftl.mapping": "ftl",
    "flash.channels": "channels",
    "flash.chips_per_channel": "ways",
    "latency_us.all.mean": "mean_response_us",
    "latency_us.read.mean": "read_mean_us",
    "iops": "iops",
    "ftl.valid_page_copies": "valid_page_copies",
    "ftl.erases.total": "erases",
    "ftl.merges.partial": "partial_merges",
    "ftl.merges.full": "full_merges",
    "ftl.channel_switches": "channel_changes",
    "ftl.way_switches": "way_changes",
    "power_w.nand_avg": "nand_avg_w",
    "power_w.nand_peak": "nand_peak_w",
    "power_w.total_avg": "total_avg_w",
}


def spread_pct(values: list[float]) -> float:
    """Largest over smallest, less one, in percent."""
    return (max(values) / min(values) - 1.0) * 100.0


def measure(study: pandas.DataFrame, log_blocks: pandas.DataFrame, write_through: pandas.DataFrame) -> dict[str, float]:
    """The measured values of claims.toml, from the three sweeps' result tables."""
    at = {(row["ftl.mapping"], int(row["flash.channels"])): row for _, row in study.iterrows()}

    def column(mapping: str, name: str) -> list[float]:
        return [float(at[mapping, channels][name]) for channels in CHANNELS]

    def ratio(top: str, bottom: str, name: str) -> float:
        """Mean over the channel counts of top / bottom."""
        pairs = zip(column(top, name), column(bottom, name), strict=True)
        return sum(a / b for a, b in pairs) / len(CHANNELS)

    page, block, bast = (at[mapping, 2] for mapping in MAPPINGS)
    writes = float(page["latency_us.write.count"])  # host writes (updates) of the measured run
    measured = {
        f"fig3_channel_spread_pct_{mapping}": spread_pct(column(mapping, "latency_us.all.mean")) for mapping in MAPPINGS
    }
    measured |= {
        "fig3_block_over_page_response_x": ratio("block", "page", "latency_us.all.mean"),
        "fig3_bast_over_page_response_x": ratio("bast", "page", "latency_us.all.mean"),
        "fig4_channel_spread_pct_nand_power": max(spread_pct(column(m, "power_w.nand_avg")) for m in MAPPINGS),
        "fig4_block_over_page_nand_power_x": ratio("block", "page", "power_w.nand_avg"),
        "fig4_bast_over_page_nand_power_x": ratio("bast", "page", "power_w.nand_avg"),
        "table2_block_over_bast_copies_x": float(block["ftl.valid_page_copies"]) / float(bast["ftl.valid_page_copies"]),
        "table2_block_over_bast_erases_x": float(block["ftl.erases.total"]) / float(bast["ftl.erases.total"]),
        "table2_page_vs_bast_copies_rel": float(page["ftl.valid_page_copies"]) / float(bast["ftl.valid_page_copies"])
        - 1.0,
        "sec4c_block_copies_per_update": float(block["ftl.valid_page_copies"]) / writes,
        "sec4c_block_erases_per_update": float(block["ftl.erases.total"]) / writes,
        "sec4c_bast_copies_per_update": float(bast["ftl.valid_page_copies"]) / writes,
        "sec4c_bast_erases_per_update": float(bast["ftl.erases.total"]) / writes,
    }
    # Isolating run of Figure 3: page mapping with writes acknowledged once programmed.
    through = [float(v) for v in write_through.sort_values("flash.channels")["latency_us.all.mean"]]
    measured["isolate_fig3_channel_spread_pct_page_write_through"] = spread_pct(through)
    # Isolating run of Table II: BAST copies per erase at every pool size and locality, and the
    # pool that brings block/BAST copies nearest the paper's 16.2x at Table I's locality.
    per_erase = log_blocks["ftl.valid_page_copies"] / log_blocks["ftl.erases.total"]
    measured["isolate_table2_bast_copies_per_erase_min"] = float(per_erase.min())
    measured["isolate_table2_bast_copies_per_erase_max"] = float(per_erase.max())
    table1 = log_blocks[log_blocks["workload.sequential_fraction"] == 0.019]
    for _, row in table1.iterrows():
        pool = int(row["ftl.log_blocks"])
        copies = float(block["ftl.valid_page_copies"]) / float(row["ftl.valid_page_copies"])
        erases = float(block["ftl.erases.total"]) / float(row["ftl.erases.total"])
        measured[f"isolate_table2_block_over_bast_copies_x_log{pool}"] = copies
        measured[f"isolate_table2_block_over_bast_erases_x_log{pool}"] = erases
    return {key: round(value, 6) for key, value in measured.items()}


def main() -> None:
    results = HERE / "results"
    study = ssdtwin.load(results)
    measured = measure(study, ssdtwin.load(results / "isolate_log_blocks"), ssdtwin.load(results / "isolate_write_through"))
    (HERE / "measured.json").write_text(json.dumps(measured, indent=2, sort_keys=True) + "\n")
    table = study[list(TABLE)].rename(columns=TABLE).sort_values(["ftl", "channels"])
    table.to_csv(HERE / "results.csv", index=False, float_format="%.6g")
    print(json.dumps(measured, indent=2, sort_keys=True))


if __name__ == "__main__":
    main()
