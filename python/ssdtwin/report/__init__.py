"""The report of a run and its renderings.

    fields.py     the report dict's fields: `lookup`, `WALL_CLOCK_FIELDS`, `without_wall_clock`,
                  `TIMESERIES_COLUMNS` (the bottom of this package)
    report.py     the `Report` class (`ssdtwin.run` returns one)
    text.py       the summary `ssdtwin run` prints
    steady.py     steadiness in words: warm-up, IOPS per window, the SNIA check, `ssdtwin run`'s warnings
    fio.py        fio's JSON layout (`ssdtwin run --output-format fio-json`)
    figure.py     the figures of the HTML pages as plain data, drawn by html/ (Plotly) and plots/ (PNG)
    html/         the self-contained HTML pages: a run, runs compared, a sweep
    plots/        matplotlib plots; the only modules of ssdtwin that import matplotlib

The renderings take the report dict; only `Report` knows them (its `to_html`), so the imports
point one way: report.py -> html/ -> figure.py, fields.py. Below this package is `ssdtwin.sweep`:
the renderings of a sweep read its results directory (`ssdtwin.sweep.store`), and `Report.flat()`
is a row of its results table.
"""

from ssdtwin.report.fields import TIMESERIES_COLUMNS, WALL_CLOCK_FIELDS, lookup, without_wall_clock
from ssdtwin.report.report import Report
from ssdtwin.sweep.store import Scalar

__all__ = ["TIMESERIES_COLUMNS", "WALL_CLOCK_FIELDS", "Report", "Scalar", "lookup", "without_wall_clock"]
