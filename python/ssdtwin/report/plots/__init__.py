"""Plots with matplotlib: a sweep's results, latency CDFs, a run's time series, and the PNG copies
of the HTML pages' figures. These are the only modules of ssdtwin that import matplotlib, and only
inside their functions, so `import ssdtwin` stays light.

    sweep.py        `plot` (a sweep's results), `plot_latency_cdf`
    timeseries.py   `plot_timeseries`, `plot_thermal`
    png.py          a `ssdtwin.report.figure.Figure` as a PNG (the HTML pages' static images)
"""

from ssdtwin.report.plots.sweep import plot, plot_latency_cdf
from ssdtwin.report.plots.timeseries import plot_thermal, plot_timeseries

__all__ = ["plot", "plot_latency_cdf", "plot_thermal", "plot_timeseries"]
