"""Plots: each is read back from its image file (size, not blank) and checked on the data it drew."""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ElementTree

import numpy
import pandas
import pytest

import ssdtwin
from conftest import SMALL, cli

BASE = {"flash": {"blocks_per_plane": 16}, "workload": {"io_count": 3_000, "precondition": "none"}}


def assert_png_is_a_picture(path):
    from matplotlib.image import imread

    assert path.stat().st_size > 10_000
    pixels = imread(path)
    assert pixels.shape[0] > 200
    assert pixels.shape[1] > 300
    assert pixels[..., :3].std() > 0.05, "the image is blank"


def assert_svg_is_a_picture(path):
    root = ElementTree.parse(path).getroot()
    assert root.tag.endswith("svg")
    assert len(list(root.iter("{http://www.w3.org/2000/svg}path"))) > 20


@pytest.fixture(scope="module")
def sweep_results(tmp_path_factory):
    directory = tmp_path_factory.mktemp("sweep")
    definition = {
        "base": BASE,
        "grid": {"host.queue_depth": [1, 4, 16], "workload.read_fraction": [0.5, 1.0]},
        "zip": {"flash.channels": [2, 4]},
    }
    ssdtwin.sweep(definition, out=directory, workers=2)
    return directory


def test_importing_ssdtwin_imports_neither_matplotlib_nor_pandas():
    code = "import sys, ssdtwin; print('matplotlib' in sys.modules, 'pandas' in sys.modules)"
    output = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert output.split() == ["False", "False"]


def test_sweep_plot_draws_one_line_per_hue_and_one_panel_per_facet(sweep_results, tmp_path):
    table = ssdtwin.load(sweep_results)
    output = tmp_path / "iops.png"
    figure = ssdtwin.plot(
        sweep_results,
        x="host.queue_depth",
        y="iops",
        hue="workload.read_fraction",
        facet="flash.channels",
        output=output,
    )
    assert_png_is_a_picture(output)
    panels = [axes for axes in figure.axes if axes.lines]
    assert [axes.get_title() for axes in panels] == ["flash.channels = 2", "flash.channels = 4"]
    for axes, channels in zip(panels, [2, 4], strict=True):
        assert len(axes.lines) == 2
        for line, read_fraction in zip(axes.lines, [0.5, 1.0], strict=True):
            rows = table[
                (table["flash.channels"] == channels) & (table["workload.read_fraction"] == read_fraction)
            ]
            rows = rows.sort_values("host.queue_depth")
            assert list(line.get_xdata()) == [1, 4, 16]
            assert numpy.allclose(line.get_ydata(), rows["iops"])
        assert axes.get_xscale() == "log"  # QD 1 to 16 spans a factor 16


def test_sweep_plot_of_categorical_x_draws_unjoined_points_with_min_max_bars(tmp_path):
    table = pandas.DataFrame(
        {
            "point_id": ["a", "b", "c", "d"],
            "workload.block_size": ["4KiB", "4KiB", "16KiB", "16KiB"],
            "seed": [1, 2, 1, 2],
            "status": ["ok", "ok", "ok", "ok"],
            "iops": [100.0, 300.0, 50.0, 70.0],
        }
    )
    output = tmp_path / "bars.svg"
    figure = ssdtwin.plot(table, x="workload.block_size", y="iops", output=output)
    assert_svg_is_a_picture(output)
    axes = figure.axes[0]
    (points,) = [line for line in axes.lines if line.get_marker() == "o"]
    assert list(points.get_ydata()) == [200.0, 60.0]  # means over seeds, x in order of appearance
    assert points.get_linestyle() == "None"  # categories are not joined by a line
    assert [label.get_text() for label in axes.get_xticklabels()] == ["4KiB", "16KiB"]
    (bars,) = axes.collections  # the min-max bar of each category
    spans = sorted((min(segment[:, 1]), max(segment[:, 1])) for segment in bars.get_segments())
    assert spans == [(50.0, 70.0), (100.0, 300.0)]


def test_sweep_plot_of_a_policy_name_per_hue_puts_the_points_side_by_side(tmp_path):
    table = pandas.DataFrame(
        {
            "point_id": ["a", "b", "c", "d"],
            "ftl.gc_policy": ["greedy", "fifo", "greedy", "fifo"],
            "host.queue_depth": [1, 1, 32, 32],
            "seed": [1, 1, 1, 1],
            "status": ["ok"] * 4,
            "ssdtwin_version": ["0"] * 4,
            "waf": [2.0, 3.0, 2.5, 3.5],
        }
    )
    figure = ssdtwin.plot(table, x="ftl.gc_policy", y="waf", hue="host.queue_depth")
    axes = figure.axes[0]
    series = [line for line in axes.lines if line.get_marker() == "o"]
    legend = [text.get_text() for text in axes.get_legend().get_texts()]
    assert legend == ["host.queue_depth = 1", "host.queue_depth = 32"]
    assert all(line.get_linestyle() == "None" for line in series)
    assert [list(line.get_ydata()) for line in series] == [[2.0, 3.0], [2.5, 3.5]]
    first, second = (list(line.get_xdata()) for line in series)
    assert first[0] < 0 < second[0] < 0.5  # each category's points side by side around its tick


def test_sweep_plot_groups_by_the_one_other_swept_key_instead_of_averaging(tmp_path):
    table = pandas.DataFrame(
        {
            "point_id": ["a", "b", "c", "d"],
            "ftl.gc_policy": ["greedy", "fifo", "greedy", "fifo"],
            "host.queue_depth": [1, 1, 32, 32],
            "seed": [1, 1, 1, 1],
            "status": ["ok"] * 4,
            "ssdtwin_version": ["0"] * 4,
            "waf": [2.0, 3.0, 2.5, 3.5],
        }
    )
    figure = ssdtwin.plot(table, x="ftl.gc_policy", y="waf")
    series = [line for line in figure.axes[0].lines if line.get_marker() == "o"]
    legend = [text.get_text() for text in figure.axes[0].get_legend().get_texts()]
    assert legend == ["host.queue_depth = 1", "host.queue_depth = 32"]
    assert [list(line.get_ydata()) for line in series] == [[2.0, 3.0], [2.5, 3.5]]  # no mean of 1 and 32


def test_sweep_plot_refuses_to_average_over_two_other_swept_keys(sweep_results):
    with pytest.raises(ValueError, match=r"also varies workload\.read_fraction, flash\.channels") as error:
        ssdtwin.plot(sweep_results, x="host.queue_depth", y="iops")
    assert "--hue" in str(error.value)
    assert "--facet" in str(error.value)
    process = cli("plot", str(sweep_results), "--x", "host.queue_depth", "--y", "waf", "-o", "x.png")
    assert process.returncode == 2
    assert "flash.channels" in process.stderr
    assert "Traceback" not in process.stderr


def test_sweep_plot_skips_failed_points_and_names_unknown_columns(tmp_path):
    table = pandas.DataFrame(
        {"host.queue_depth": [1, 2, 4], "status": ["ok", "failed", "ok"], "iops": [1.0, float("nan"), 3.0]}
    )
    (line,) = ssdtwin.plot(table, x="host.queue_depth", y="iops").axes[0].lines
    assert list(line.get_xdata()) == [1, 4]
    with pytest.raises(ValueError, match="y column 'iopz' is not in the results"):
        ssdtwin.plot(table, x="host.queue_depth", y="iopz")
    with pytest.raises(ValueError, match="suffix"):
        ssdtwin.plot(table, x="host.queue_depth", y="iops", output=tmp_path / "figure.bmp")


def test_latency_cdf_plot_draws_the_reports_cdf_and_tail(tmp_path):
    reports = [ssdtwin.run(**SMALL, host__queue_depth=depth) for depth in (1, 32)]
    output = tmp_path / "cdf.png"
    figure = ssdtwin.plot_latency_cdf(reports, kind="read", labels=["QD 1", "QD 32"], output=output)
    assert_png_is_a_picture(output)
    cdf_axes, tail_axes = figure.axes
    assert [line.get_label() for line in cdf_axes.lines] == ["QD 1", "QD 32"]
    for line, tail, report in zip(cdf_axes.lines, tail_axes.lines, reports, strict=True):
        cdf = report.latency_cdf["read"]
        assert list(line.get_xdata()) == cdf["latency_us"]
        assert list(line.get_ydata()) == cdf["fraction"]
        assert numpy.allclose(tail.get_ydata(), 1 - numpy.array(cdf["fraction"][:-1]))
    assert tail_axes.get_yscale() == "log"
    # Deeper queues wait longer: the QD 32 curve lies to the right of QD 1's at the median.
    medians = [report.latency_us["read"]["p50"] for report in reports]
    assert medians[1] > medians[0]


def test_report_latency_cdf_is_compact_and_holds_the_percentiles():
    report = ssdtwin.run(**SMALL)
    for kind in ("read", "write", "all"):
        cdf = report.latency_cdf[kind]
        summary = report.latency_us[kind]
        assert 0 < len(cdf["latency_us"]) <= 200
        assert cdf["fraction"][-1] == 1.0
        assert cdf["latency_us"][-1] == summary["max"]
        assert numpy.all(numpy.diff(cdf["latency_us"]) > 0)
        for quantile, name in [(0.5, "p50"), (0.99, "p99"), (0.9999, "p99_99")]:
            first = next(index for index, share in enumerate(cdf["fraction"]) if share >= quantile)
            assert cdf["latency_us"][first] == summary[name]
    assert "latency_cdf.read.fraction" not in report.flat()  # lists stay out of the results table


def test_latency_cdf_of_a_sweep_directory_draws_one_curve_per_point(sweep_results, tmp_path):
    figure = ssdtwin.plot_latency_cdf(sweep_results, kind="all", output=tmp_path / "cdf.svg")
    assert_svg_is_a_picture(tmp_path / "cdf.svg")
    labels = [line.get_label() for line in figure.axes[0].lines]
    assert len(labels) == 12
    assert "host.queue_depth=4, workload.read_fraction=1.0, flash.channels=2" in labels


def timeseries_frame() -> pandas.DataFrame:
    """A table with the time-series contract of `ssdtwin run --timeseries`."""
    time = numpy.linspace(0.0, 1.0, 101)
    frame = {"time_s": time, "iops": 1e4 + 1e3 * numpy.sin(8 * time), "bandwidth_mib_s": 40 + time}
    for index, component in enumerate(["nand", "io_bus", "controller", "dram", "other"]):
        frame[f"power_w.{component}"] = 0.1 * (index + 1) + 0.05 * numpy.cos(5 * time + index)
    frame["power_w.total"] = sum(
        frame[f"power_w.{name}"] for name in ["nand", "io_bus", "controller", "dram", "other"]
    )
    return pandas.DataFrame(frame)


def test_timeseries_plot_defaults_to_the_power_columns(tmp_path):
    frame = timeseries_frame()
    output = tmp_path / "power.png"
    figure = ssdtwin.plot_timeseries(frame, output=output)
    assert_png_is_a_picture(output)
    (axes,) = figure.axes
    assert [line.get_label() for line in axes.lines] == [
        "nand",
        "io_bus",
        "controller",
        "dram",
        "other",
        "total",
    ]
    assert numpy.array_equal(axes.lines[-1].get_ydata(), frame["power_w.total"])
    assert numpy.array_equal(axes.lines[0].get_xdata(), frame["time_s"])


def test_timeseries_plot_of_chosen_columns_from_parquet(tmp_path):
    path = tmp_path / "run.parquet"
    timeseries_frame().to_parquet(path)
    figure = ssdtwin.plot_timeseries(path, columns=["iops", "power_w.nand"])
    assert [axes.get_ylabel() for axes in figure.axes] == ["iops", "power_w"]  # one panel per quantity
    assert numpy.array_equal(figure.axes[0].lines[0].get_ydata(), timeseries_frame()["iops"])
    without_power = timeseries_frame()[["time_s", "iops", "bandwidth_mib_s"]]
    assert len(ssdtwin.plot_timeseries(without_power).axes) == 2  # every non-time column
    with pytest.raises(ValueError, match="no column 'temperature'"):
        ssdtwin.plot_timeseries(path, columns=["temperature"])


def test_cli_plots_a_sweep_a_cdf_and_a_timeseries(sweep_results, tmp_path):
    process = cli(
        "plot",
        str(sweep_results),
        "--x",
        "host.queue_depth",
        "--y",
        "iops",
        "--hue",
        "workload.read_fraction",
        "--facet",
        "flash.channels",
        "-o",
        str(tmp_path / "a.png"),
    )
    assert process.returncode == 0, process.stderr
    assert_png_is_a_picture(tmp_path / "a.png")
    process = cli("plot", "--cdf", "read", str(sweep_results), "-o", str(tmp_path / "b.svg"))
    assert process.returncode == 0, process.stderr
    assert_svg_is_a_picture(tmp_path / "b.svg")
    timeseries_frame().to_parquet(tmp_path / "run.parquet")
    process = cli(
        "plot",
        str(tmp_path / "run.parquet"),
        "--columns",
        "iops,power_w.total",
        "-o",
        str(tmp_path / "c.png"),
    )
    assert process.returncode == 0, process.stderr
    assert_png_is_a_picture(tmp_path / "c.png")
    process = cli("plot", str(sweep_results), "--x", "host.queue_depth", "-o", str(tmp_path / "d.png"))
    assert process.returncode == 2
    assert "--y" in process.stderr


THROTTLE_STATES = [0, 0, 1, 1, 1, 0, 2, 2, 1, 0, 0, 2]
"""Four throttled runs: light (rows 2-4), heavy (6-7), light (8), heavy (11, the last row)."""


def thermal_frame(states: list[int] | None = None) -> pandas.DataFrame:
    """A time series with the thermal contract: `temp_c.<node>` and `throttle_state` columns."""
    states = THROTTLE_STATES if states is None else states
    frame = timeseries_frame().head(len(states)).copy()
    time = frame["time_s"].to_numpy()
    for index, node in enumerate(["controller", "nand_0", "nand_1", "dram", "pcb"]):
        frame[f"temp_c.{node}"] = 40 + 30 * time + 2 * index
    frame["throttle_state"] = numpy.array(states, dtype=numpy.int8)
    return frame


def span_extents(axes) -> list[tuple[float, float]]:
    """(left, right) of each shaded span of `axes`, in data coordinates."""
    extents = []
    for patch in axes.patches:
        box = patch.get_bbox()  # data coordinates for axvspan's rectangle (or polygon)
        extents.append((round(box.x0, 9), round(box.x1, 9)))
    return extents


def test_thermal_plot_draws_each_node_and_shades_each_throttled_run(tmp_path):
    frame = thermal_frame()
    output = tmp_path / "thermal.png"
    figure = ssdtwin.plot_thermal(frame, output=output)
    assert_png_is_a_picture(output)
    temperature_axes, iops_axes = figure.axes
    labels = [line.get_label() for line in temperature_axes.lines]
    assert labels == ["controller", "nand_0", "nand_1", "dram", "pcb"]
    time = frame["time_s"].to_numpy()
    step = time[1] - time[0]
    # A temperature is the value at the end of its row's interval: the next row's time_s.
    assert numpy.allclose(temperature_axes.lines[1].get_xdata(), time + step)
    assert numpy.array_equal(temperature_axes.lines[1].get_ydata(), frame["temp_c.nand_0"])
    assert numpy.array_equal(iops_axes.lines[0].get_ydata()[:-1], frame["iops"])
    # One span per contiguous run, not per row; each run ends where the next row starts, and the
    # last row lasts as long as the one before it.
    expected = [
        (time[2], time[5]),
        (time[6], time[8]),
        (time[8], time[9]),
        (time[11], time[11] + step),
    ]
    expected = [(round(left, 9), round(right, 9)) for left, right in expected]
    for axes in (temperature_axes, iops_axes):
        assert span_extents(axes) == expected
    colours = [patch.get_facecolor() for patch in temperature_axes.patches]
    assert colours[0] == colours[2] != colours[1] == colours[3]  # light and heavy differ
    legend = [text.get_text() for text in temperature_axes.get_legend().get_texts()]
    assert legend == [*labels, "throttled: light", "throttled: heavy"]


def test_thermal_plot_of_chosen_nodes_from_parquet(tmp_path):
    path = tmp_path / "run.parquet"
    thermal_frame([0, 1, 1, 0, 0, 1]).to_parquet(path)
    figure = ssdtwin.plot_thermal(path, nodes=["nand_1", "controller"])
    temperature_axes, iops_axes = figure.axes
    assert [line.get_label() for line in temperature_axes.lines] == ["nand_1", "controller"]
    assert len(temperature_axes.patches) == len(iops_axes.patches) == 2
    legend = [text.get_text() for text in temperature_axes.get_legend().get_texts()]
    assert legend == ["nand_1", "controller", "throttled: light"]  # no heavy: none occurred
    unthrottled = ssdtwin.plot_thermal(thermal_frame([0] * 6))
    assert not unthrottled.axes[0].patches
    assert not unthrottled.axes[1].patches
    # throttle_state as floats (Report.timeseries is all float64) shades the same runs
    as_floats = thermal_frame().astype({"throttle_state": "float64"})
    assert len(ssdtwin.plot_thermal(as_floats).axes[0].patches) == 4


def test_thermal_plot_names_missing_columns():
    with pytest.raises(ValueError, match=r"temp_c\.<node> columns .*columns: time_s, iops, bandwidth_mib_s"):
        ssdtwin.plot_thermal(timeseries_frame())
    with pytest.raises(ValueError, match=r"'time_s' column; columns: iops, .*temp_c\.controller"):
        ssdtwin.plot_thermal(thermal_frame().drop(columns="time_s"))
    with pytest.raises(ValueError, match=r"no column 'temp_c\.nand_9' .*temp_c\.controller, temp_c\.nand_0"):
        ssdtwin.plot_thermal(thermal_frame(), nodes=["controller", "nand_9"])


def test_timeseries_plot_of_a_thermal_run_still_defaults_to_power():
    (axes,) = ssdtwin.plot_timeseries(thermal_frame()).axes
    assert [line.get_label() for line in axes.lines] == [
        "nand",
        "io_bus",
        "controller",
        "dram",
        "other",
        "total",
    ]


def test_cli_plots_a_thermal_timeseries_and_refuses_one_without_temperatures(tmp_path):
    thermal_frame().to_parquet(tmp_path / "thermal.parquet")
    process = cli("plot", str(tmp_path / "thermal.parquet"), "--thermal", "-o", str(tmp_path / "a.png"))
    assert process.returncode == 0, process.stderr
    assert_png_is_a_picture(tmp_path / "a.png")
    process = cli("plot", str(tmp_path / "thermal.parquet"), "-o", str(tmp_path / "b.png"))
    assert process.returncode == 0, process.stderr  # without --thermal: the power columns, as before
    assert_png_is_a_picture(tmp_path / "b.png")
    timeseries_frame().to_parquet(tmp_path / "plain.parquet")
    process = cli("plot", str(tmp_path / "plain.parquet"), "--thermal", "-o", str(tmp_path / "c.png"))
    assert process.returncode == 2
    assert process.stderr.startswith("error: ")
    assert "temp_c.<node>" in process.stderr
    assert "Traceback" not in process.stderr
    assert not (tmp_path / "c.png").exists()
    process = cli("plot", str(tmp_path), "--thermal", "-o", str(tmp_path / "d.png"))
    assert process.returncode == 2
    assert "time series" in process.stderr
    process = cli(
        "plot",
        str(tmp_path / "thermal.parquet"),
        "--thermal",
        "--columns",
        "iops",
        "-o",
        str(tmp_path / "e.png"),
    )
    assert process.returncode == 2
    assert "--columns" in process.stderr


def test_a_hue_value_keeps_its_colour_across_facets():
    table = pandas.DataFrame(
        {
            "host.queue_depth": [1, 2, 1, 2, 1, 2],
            "workload.block_size": ["4KiB", "4KiB", "16KiB", "16KiB", "16KiB", "16KiB"],
            "flash.channels": [2, 2, 2, 2, 4, 4],
            "iops": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
        }
    )
    figure = ssdtwin.plot(
        table, x="host.queue_depth", y="iops", hue="workload.block_size", facet="flash.channels"
    )
    colours = {line.get_label(): line.get_color() for axes in figure.axes[1:] for line in axes.lines}
    left = {line.get_label(): line.get_color() for line in figure.axes[0].lines}
    assert colours["workload.block_size = 16KiB"] == left["workload.block_size = 16KiB"]
    assert left["workload.block_size = 16KiB"] != left["workload.block_size = 4KiB"]


def test_timeseries_plot_of_a_real_run_written_by_ssdtwin_run(tmp_path):
    # The simulator's own Parquet time series, end to end: run --timeseries, then plot it.
    parquet = tmp_path / "run.parquet"
    settings = [
        item
        for key in (
            "flash.blocks_per_plane=16",
            "workload.io_count=40000",
            'workload.precondition="none"',
            'power.sample_interval="1ms"',
        )
        for item in ("--set", key)
    ]
    process = cli("run", *settings, "--timeseries", str(parquet), "--quiet")
    assert process.returncode == 0, process.stderr
    table = pandas.read_parquet(parquet)
    assert len(table) > 5
    figure = ssdtwin.plot_timeseries(parquet, output=tmp_path / "power.png")
    assert_png_is_a_picture(tmp_path / "power.png")
    drawn = {line.get_label(): line.get_ydata() for axes in figure.axes for line in axes.lines}
    assert numpy.allclose(drawn["total"], table["power_w.total"])  # labelled within the power_w panel
    assert (table["power_w.total"] > 0).all()
