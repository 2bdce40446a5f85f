"""The SLC write cache in the Python report (issue 32): the report's `slc_cache` block, its
time-series columns, the text summary's line and the HTML page's section show the core's counters;
with the cache off none of them appear."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

import ssdtwin
import ssdtwin.html
from conftest import SMALL
from ssdtwin.report.text import print_summary

ON = {
    **SMALL,
    # Room beside the logical capacity for the static region's blocks in SLC mode.
    "flash.blocks_per_plane": 64,
    "workload.read_fraction": 0.0,
    "workload.io_count": 4000,
    "power.enabled": True,
    "slc_cache.enabled": True,
    "slc_cache.static_size": "8MiB",
}


@pytest.fixture(scope="module")
def report() -> ssdtwin.Report:
    return ssdtwin.run(None, **ON)


def summary(report: ssdtwin.Report) -> str:
    out = io.StringIO()
    print_summary(report, Console(file=out, width=300))
    return out.getvalue()


def test_the_block_counts_16000_kib_of_writes_as_8_mib_in_slc_and_the_rest_direct(report):
    block = report.to_dict()["slc_cache"]
    # 4000 random 4 KiB writes = 15.6 MiB; the cache takes whole 32 KiB programs up to 8 MiB.
    assert block["slc_written_gib"] * 1024 == pytest.approx(8.0, abs=1 / 32)
    total = (block["slc_written_gib"] + block["direct_written_gib"]) * 2**30
    assert total == pytest.approx(4000 * 4096, abs=64 * 4096)  # programs still open at the end
    assert block["cliff_entries"] == 1


def test_the_time_series_has_the_cache_size_and_use(report):
    frame = report.timeseries
    assert frame["slc.size_gib"].iloc[0] * 1024 == pytest.approx(8.0)
    assert frame["slc.used_gib"].max() * 1024 == pytest.approx(8.0, abs=1 / 32)


def test_the_summary_line_and_the_html_section_show_the_counters(report):
    block = report.to_dict()["slc_cache"]
    text = summary(report)
    assert f"{block['slc_written_gib']:.2f} GiB written in SLC" in text
    assert f"{block['direct_written_gib']:.2f} direct" in text
    assert f"{block['slc_blocks']:,} blocks in SLC mode at the end" in text
    page = ssdtwin.html.run_page(report, interactive=False)
    section = page.split('<section id="section-slc-cache">', 1)[1].split("</section>", 1)[0]
    assert f'data-value="{block["cliff_entries"]}"' in section
    assert "Blocks in SLC mode" in section
    assert f'data-value="{block["static_slc_blocks"]}"' in section
    assert f"{block['slc_mean_pe']:.3g} / {block['slc_max_pe']}" in section


def test_with_the_cache_off_nothing_of_it_appears():
    plain = ssdtwin.run(None, **{**ON, "slc_cache.enabled": False})
    assert "slc_cache" not in plain.to_dict()
    assert "slc.used_gib" not in plain.timeseries.columns
    assert "SLC cache" not in summary(plain)
    assert 'id="section-slc-cache"' not in ssdtwin.html.run_page(plain, interactive=False)
