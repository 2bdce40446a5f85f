"""Writes studies/channels_ftl/measured.json (the figures claims.toml compares with Cho et al.,
papers/004), results.csv (the README's table) and the plots from the study's sweep results.

    cd studies/channels_ftl
    ssdtwin sweep sweep.toml
    ssdtwin sweep isolate_log_blocks.toml
    ssdtwin sweep isolate_write_through.toml
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


def measure(
    study: pandas.DataFrame, log_blocks: pandas.DataFrame, write_through: pandas.DataFrame
) -> dict[str, float]:
    """The measured values of claims.toml, from the three sweeps' result tables."""
    at = {(row["ftl.mapping"], int(row["flash.channels"])): row for _, row in study.iterrows()}

    def column(mapping: str, name: str) -> list[float]:
        return [float(at[mapping, channels][name]) for channels in CHANNELS]

    def ratio(top: str, bottom: str, name: str) -> float:
        """Mean over the channel counts of top / bottom."""
        pairs = zip(column(top, name), column(bottom, name), strict=True)
        return sum(a / b for a, b in pairs) / len(CHANNELS)

    copies = {mapping: float(at[mapping, 2]["ftl.valid_page_copies"]) for mapping in MAPPINGS}
    erases = {mapping: float(at[mapping, 2]["ftl.erases.total"]) for mapping in MAPPINGS}
    writes = float(at["page", 2]["latency_us.write.count"])  # host writes (updates) of the measured run
    measured = {
        f"fig3_channel_spread_pct_{mapping}": spread_pct(column(mapping, "latency_us.all.mean"))
        for mapping in MAPPINGS
    }
    measured |= {
        "fig3_block_over_page_response_x": ratio("block", "page", "latency_us.all.mean"),
        "fig3_bast_over_page_response_x": ratio("bast", "page", "latency_us.all.mean"),
        "fig4_channel_spread_pct_nand_power": max(
            spread_pct(column(mapping, "power_w.nand_avg")) for mapping in MAPPINGS
        ),
        "fig4_block_over_page_nand_power_x": ratio("block", "page", "power_w.nand_avg"),
        "fig4_bast_over_page_nand_power_x": ratio("bast", "page", "power_w.nand_avg"),
        "table2_block_over_bast_copies_x": copies["block"] / copies["bast"],
        "table2_block_over_bast_erases_x": erases["block"] / erases["bast"],
        "table2_page_vs_bast_copies_rel": copies["page"] / copies["bast"] - 1.0,
        "sec4c_block_copies_per_update": copies["block"] / writes,
        "sec4c_block_erases_per_update": erases["block"] / writes,
        "sec4c_bast_copies_per_update": copies["bast"] / writes,
        "sec4c_bast_erases_per_update": erases["bast"] / writes,
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
        pool_copies = copies["block"] / float(row["ftl.valid_page_copies"])
        pool_erases = erases["block"] / float(row["ftl.erases.total"])
        measured[f"isolate_table2_block_over_bast_copies_x_log{pool}"] = pool_copies
        measured[f"isolate_table2_block_over_bast_erases_x_log{pool}"] = pool_erases
    return {key: round(value, 6) for key, value in measured.items()}


def plot(study: pandas.DataFrame) -> None:
    """response.png (Figure 3), nand_power.png (Figure 4) and total_power.png against the channel
    count, one line per FTL (`ssdtwin plot` refuses the zipped channels x ways sweep)."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot

    for name, column, label, log in (
        ("response.png", "latency_us.all.mean", "mean response time [us]", True),
        ("nand_power.png", "power_w.nand_avg", "NAND average power [W]", False),
        ("total_power.png", "power_w.total_avg", "total average power [W]", False),
    ):
        figure, axes = pyplot.subplots(figsize=(6, 4))
        for mapping in MAPPINGS:
            points = study[study["ftl.mapping"] == mapping].sort_values("flash.channels")
            axes.plot(points["flash.channels"], points[column], marker="o", label=mapping)
        axes.set_xscale("log", base=2)
        axes.set_xticks(list(CHANNELS), [f"{c} x {16 // c}" for c in CHANNELS])
        if log:
            axes.set_yscale("log")
        axes.set_xlabel("channels x ways (16 chips)")
        axes.set_ylabel(label)
        axes.legend(title="ftl.mapping")
        figure.tight_layout()
        figure.savefig(HERE / name, dpi=100)
        pyplot.close(figure)


def main() -> None:
    results = HERE / "results"
    study = ssdtwin.load(results)
    log_blocks = ssdtwin.load(results / "isolate_log_blocks")
    write_through = ssdtwin.load(results / "isolate_write_through")
    measured = measure(study, log_blocks, write_through)
    (HERE / "measured.json").write_text(json.dumps(measured, indent=2, sort_keys=True) + "\n")
    table = study[list(TABLE)].rename(columns=TABLE).sort_values(["ftl", "channels"])
    table.to_csv(HERE / "results.csv", index=False, float_format="%.6g")
    plot(study)
    print(json.dumps(measured, indent=2, sort_keys=True))


if __name__ == "__main__":
    main()
