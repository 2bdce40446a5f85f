"""`ssdtwin.html`: the HTML pages (docs/html_report.md), kept under this documented name; they
live in `ssdtwin.report.html`."""

from ssdtwin.report.html import POINT_PAGES, compare_page, iframe, run_page, sweep_page, write

__all__ = ["POINT_PAGES", "compare_page", "iframe", "run_page", "sweep_page", "write"]
