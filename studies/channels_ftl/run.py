"""Runs the channels x FTL study of Cho et al. (papers/004, section IV) and prints its table.

    python studies/channels_ftl/run.py [--io-count N] [--json results.json]

Every point is `scenario.toml` with `flash.channels` in 2, 4, 8, 16 (16 NAND chips in all:
`flash.chips_per_channel = 16 / channels`) and `ftl.mapping` in page, block, bast. The sweep file
format of issue 3 will replace this driver; until then it calls `ssdtwin.run` point by point.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import ssdtwin

SCENARIO = Path(__file__).with_name("scenario.toml")
CHANNELS = (2, 4, 8, 16)
MAPPINGS = ("page", "block", "bast")
CHIPS = 16


def run_point(channels: int, mapping: str, io_count: int | None = None) -> dict[str, Any]:
    """One point of the study: its key figures, flat."""
    overrides: dict[str, Any] = {
        "flash.channels": channels,
        "flash.chips_per_channel": CHIPS // channels,
        "ftl.mapping": mapping,
    }
    if io_count is not None:
        overrides["workload.io_count"] = io_count
    report = ssdtwin.run(SCENARIO, **overrides)
    ftl = report.ftl
    return {
        "channels": channels,
        "mapping": mapping,
        "mean_response_us": report.latency_us["all"]["mean"],
        "read_mean_us": report.latency_us["read"]["mean"],
        "iops": report.iops,
        "valid_page_copies": ftl["valid_page_copies"],
        "erases": ftl["erases"]["total"],
        "full_merges": ftl["merges"]["full"],
        "channel_switches": ftl["channel_switches"],
    }


def run_study(io_count: int | None = None) -> list[dict[str, Any]]:
    """Every (channels, mapping) point, in table order."""
    return [run_point(channels, mapping, io_count) for mapping in MAPPINGS for channels in CHANNELS]


def table(rows: list[dict[str, Any]]) -> str:
    """The rows as the README's Markdown table."""
    lines = [
        "| FTL | channels x ways | mean response [us] | read mean [us] | IOPS | valid-page copies | erases |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        lines.append(
            f"| {row['mapping']} | {row['channels']} x {CHIPS // row['channels']} "
            f"| {row['mean_response_us']:.1f} | {row['read_mean_us']:.1f} | {row['iops']:.1f} "
            f"| {row['valid_page_copies']:,} | {row['erases']:,} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--io-count", type=int, default=None, help="override workload.io_count")
    parser.add_argument("--json", type=Path, default=None, help="also write the rows as JSON")
    arguments = parser.parse_args()
    rows = run_study(arguments.io_count)
    print(table(rows))
    if arguments.json is not None:
        arguments.json.write_text(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
