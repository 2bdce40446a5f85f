"""FDP in the Python report (issue 31): the report's `fdp` block and the text summary's line show
the core's per-handle figures; with FDP off neither appears."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

import ssdtwin
from ssdtwin.report.text import print_summary

ON = {
    "workload.read_fraction": 0.0,
    "workload.io_count": 0,
    "workload.precondition": "none",
    "fdp.enabled": True,
    "fdp.handles": 2,
    "workload.flows": [
        {"name": "a", "span": 0.5, "io_count": 3000, "placement": 0},
        {"name": "b", "offset": 0.5, "span": 0.5, "io_count": 1000, "placement": 1},
    ],
}


def summary(report: ssdtwin.Report) -> str:
    out = io.StringIO()
    print_summary(report, Console(file=out, width=300))
    return out.getvalue()


@pytest.fixture(scope="module")
def report() -> ssdtwin.Report:
    return ssdtwin.run(None, **ON)


def test_each_flow_writes_through_its_handle(report):
    handles = report.to_dict()["fdp"]["handles"]
    # 4 KiB writes: 3000 and 1000 of them, each flow on its own placement identifier.
    assert [handle["host_bytes"] for handle in handles] == [3000 * 4096, 1000 * 4096]
    assert sum(handle["media_bytes"] for handle in handles) == report.to_dict()["ftl"]["media_write_bytes"]


def test_the_summary_line_shows_each_handles_waf_and_reclaim_units(report):
    text = summary(report)
    for handle in report.to_dict()["fdp"]["handles"]:
        assert (
            f"handle {handle['placement']} WAF {handle['waf']:.3f} ({handle['reclaim_units_in_use']:,} RUs)"
            in text
        )
    assert "0 invalid placement identifiers" in text


def test_with_fdp_off_nothing_of_it_appears():
    flows = [
        {key: value for key, value in flow.items() if key != "placement"} for flow in ON["workload.flows"]
    ]
    plain = ssdtwin.run(None, **{**ON, "fdp.enabled": False, "workload.flows": flows})
    assert "fdp" not in plain.to_dict()
    assert "FDP:" not in summary(plain)


def test_the_html_page_has_a_row_per_handle_with_its_waf(report):
    import ssdtwin.html

    page = ssdtwin.html.run_page(report.to_dict(), interactive=False)
    section = page[page.index('id="fdp-counters"') :]
    for handle in report.to_dict()["fdp"]["handles"]:
        assert f'data-value="{handle["waf"]!r}"' in section
    assert "fdp.handles" not in page
