"""The DRAM read cache in the report (issue 32, part 3): its block only when `buffer.read_cache` is
set, one line in the text summary, and a section of the HTML page with its counters."""

from __future__ import annotations

import io

from rich.console import Console

import ssdtwin
import ssdtwin.html
from conftest import SMALL
from ssdtwin.report.text import print_summary

CACHE = {"buffer.read_cache": "1MiB", "buffer.read_ahead": "64KiB"}
SEQUENTIAL_READS = {**SMALL, "workload.precondition": "fill", "workload.read_fraction": 1.0}


def summary(report: ssdtwin.Report) -> str:
    console = Console(file=io.StringIO(), width=160)
    print_summary(report, console)
    return console.file.getvalue()


def test_the_read_cache_block_line_and_section_appear_only_with_the_cache_on():
    overrides = {**SEQUENTIAL_READS, "workload.pattern": "sequential", "workload.io_count": 3000}
    off = ssdtwin.run(None, **overrides)
    on = ssdtwin.run(None, **overrides, **CACHE)
    assert "read_cache" not in off.to_dict()
    assert "Read cache" not in summary(off)
    assert 'id="section-read-cache"' not in ssdtwin.html.run_page(off, interactive=False)
    block = on.to_dict()["read_cache"]
    assert block["lookups"] >= 3000  # every unit read is looked up, the warm-up's too
    assert block["hits"] + block["misses"] == block["lookups"]
    assert block["prefetched"] > 0
    assert block["prefetch_hits"] > 0
    line = next(line for line in summary(on).splitlines() if line.startswith("Read cache"))
    assert f"{block['hits']:,} hits" in line
    assert f"{block['prefetched']:,} units" in line
    page = ssdtwin.html.run_page(on, interactive=False)
    section = page.split('<section id="section-read-cache">', 1)[1].split("</section>", 1)[0]
    assert f'data-value="{block["prefetch_hits"]}"' in section
    assert f'data-value="{block["prefetched_unused"]}"' in section
