"""Temperatures and throttling end to end: the report's blocks, the time series' columns, the
thermal plot, the CLI's summary and errors (docs/models/thermal.md)."""

from __future__ import annotations

import matplotlib.image
import numpy
import pandas
import pytest

import ssdtwin
from conftest import SMALL, SMALL_SET, cli

THERMAL = {**SMALL, "thermal.enabled": True, "power.sample_interval": "1ms"}


@pytest.fixture(scope="module")
def report() -> ssdtwin.Report:
    # The run lasts milliseconds: it starts at 37 °C, above both thresholds, so nvme throttles at once.
    hot = {"thermal.initial": 37, "throttle.policy": "nvme", "throttle.tmt1_c": 35.5, "throttle.tmt2_c": 36.5}
    return ssdtwin.run(None, **THERMAL, **hot)


def test_the_report_has_temperatures_and_throttling(report):
    thermal = report.thermal
    nodes = {"controller", "dram", "pcb"} | {
        f"nand_{i}" for i in range(report.config["thermal"]["nand_packages"])
    }
    assert set(thermal["max_c"]) == nodes
    assert all(thermal["max_c"][node] >= thermal["final_c"][node] for node in nodes)
    assert thermal["composite_max_c"] == pytest.approx(thermal["max_c"]["controller"])
    assert thermal["energy_in_j"] == pytest.approx(report.energy_j["total"], rel=1e-9)
    throttle = report.throttle
    assert throttle["policy"] == "nvme"
    assert throttle["events"] >= 1
    total = sum(throttle["state_time_s"].values())
    # The thermal model runs to the end of the run's flash work: the host's run and the drain.
    end = report.simulated_time_s + (report.to_dict().get("drain") or {}).get("time_s", 0.0)
    assert total == pytest.approx(end, rel=1e-9)
    flat = report.flat()  # one row of a sweep's results table
    assert flat["thermal.max_c.controller"] == thermal["max_c"]["controller"]
    assert flat["throttle.events"] == throttle["events"]


def test_the_time_series_has_a_temperature_per_node_and_the_throttle_state(report):
    frame = report.timeseries
    assert isinstance(frame, pandas.DataFrame)
    temperatures = [column for column in frame.columns if column.startswith("temp_c.")]
    assert "temp_c.controller" in temperatures
    assert "temp_c.nand_0" in temperatures
    assert set(frame["throttle_state"].unique()) <= {0.0, 1.0, 2.0}
    assert frame["throttle_state"].max() >= 1.0, "the thresholds were crossed"
    assert frame["temp_c.controller"].iloc[-1] == pytest.approx(report.thermal["final_c"]["controller"])


def test_the_thermal_plot_draws_each_temperature_the_iops_and_the_throttled_time(report, tmp_path):
    output = tmp_path / "thermal.png"
    frame = report.timeseries
    figure = ssdtwin.plot_thermal(frame, output=output)
    temperatures, iops = figure.axes
    # Each row covers its time_s to the next row's (the last as long as the one before it).
    starts = frame["time_s"].to_numpy()
    ends = numpy.append(starts[1:], 2 * starts[-1] - starts[-2])
    nodes = [column.removeprefix("temp_c.") for column in frame.columns if column.startswith("temp_c.")]
    lines = {line.get_label(): line for line in temperatures.get_lines()}
    assert sorted(lines) == sorted(nodes)
    for node, line in lines.items():
        numpy.testing.assert_array_equal(line.get_xdata(), ends)  # drawn at the interval's end
        numpy.testing.assert_array_equal(line.get_ydata(), frame[f"temp_c.{node}"].to_numpy())
    (step,) = iops.get_lines()
    assert step.get_drawstyle() == "steps-post"
    numpy.testing.assert_array_equal(step.get_xdata(), [*starts, ends[-1]])
    numpy.testing.assert_array_equal(step.get_ydata(), [*frame["iops"], frame["iops"].iloc[-1]])
    # One shaded span per run of rows in one throttle state above 0, on both panels.
    states = frame["throttle_state"].to_numpy()
    runs = []
    for index, state in enumerate(states):
        if state > 0 and index > 0 and states[index - 1] == state:
            runs[-1][1] = ends[index]
        elif state > 0:
            runs.append([starts[index], ends[index]])
    assert runs  # the run throttled
    for axes in (temperatures, iops):
        spans = [[patch.get_x(), patch.get_x() + patch.get_width()] for patch in axes.patches]
        numpy.testing.assert_allclose(spans, runs, rtol=1e-12, err_msg=axes.get_ylabel())
    assert temperatures.get_ylabel() == "temperature [°C]"
    assert iops.get_ylabel() == "IOPS"
    # The PNG is that figure at 120 dpi, and the IOPS panel is mostly shaded (throttled throughout).
    image = matplotlib.image.imread(output)
    width, height = figure.get_size_inches() * 120
    assert image.shape[:2] == (round(height), round(width))
    assert len(numpy.unique(image.reshape(-1, image.shape[2]), axis=0)) > 50  # not one colour
    box = iops.get_position()
    panel = image[
        round((1 - box.y1) * height) + 5 : round((1 - box.y0) * height) - 5,
        round(box.x0 * width) + 5 : round(box.x1 * width) - 5,
        :3,
    ]
    assert (panel.min(axis=2) < 0.95).mean() > 0.8, "the throttled time is not shaded"


def test_without_the_thermal_model_there_are_no_thermal_blocks():
    plain = ssdtwin.run(None, **SMALL)
    assert "thermal" not in plain
    assert "throttle" not in plain
    assert not any(column.startswith("temp_c.") for column in plain.timeseries.columns)


def test_the_cli_prints_temperatures_and_names_bad_keys(tmp_path):
    result = cli("run", *SMALL_SET, "--set", "thermal.enabled=true")
    assert result.returncode == 0, result.stderr
    assert "Temperature" in result.stdout
    bad = cli("run", *SMALL_SET, "--set", "thermal.enabled=true", "--set", "throttle.tmt1_c=90")
    assert bad.returncode == 2
    assert "throttle.tmt1_c" in bad.stderr
    missing = cli("run", *SMALL_SET, "--set", "throttle.policy=cst")
    assert missing.returncode == 2
    assert "throttle.policy" in missing.stderr
    assert "thermal.enabled" in missing.stderr


def test_an_infinite_resistance_opens_a_path_from_python():
    # No convection from the package tops: heat leaves through the board alone.
    open_tops = ssdtwin.run(
        None, **THERMAL, **{"thermal.resistance_k_per_w.package_top_to_ambient": float("inf")}
    )
    default = ssdtwin.run(None, **THERMAL)
    assert open_tops.thermal["final_c"]["controller"] > default.thermal["final_c"]["controller"]
    with pytest.raises(ssdtwin.ConfigError) as raised:
        ssdtwin.run(None, **THERMAL, **{"thermal.ambient_c": float("nan")})
    assert raised.value.key == "thermal.ambient_c"


def test_per_package_values_from_python_make_packages_differ():
    # THERMAL runs the default drive's 8 packages. One list entry per package; equal entries and a
    # zero coupling are the default network, report for report.
    default = ssdtwin.run(None, **THERMAL)
    packages = default.config["thermal"]["nand_packages"]
    listed = ssdtwin.run(
        None,
        **THERMAL,
        **{
            "thermal.resistance_k_per_w.nand_to_pcb": [10.0] * packages,
            "thermal.controller_coupling_w_per_k": [0] * packages,
        },
    )
    assert listed.thermal == default.thermal
    # The package coupled to the controller runs hotter than the one on the same copper without.
    coupled = ssdtwin.run(
        None, **THERMAL, **{"thermal.controller_coupling_w_per_k": [0.5] + [0] * (packages - 1)}
    )
    final = coupled.thermal["final_c"]
    assert final["nand_0"] > final[f"nand_{packages - 1}"]
    assert final["controller"] < default.thermal["final_c"]["controller"]
    with pytest.raises(ssdtwin.ConfigError) as raised:
        ssdtwin.run(None, **THERMAL, **{"thermal.resistance_k_per_w.nand_to_pcb": [10, 10]})
    assert raised.value.key == "thermal.resistance_k_per_w.nand_to_pcb"
    assert f"2 values for {packages} NAND packages" in str(raised.value)
    with pytest.raises(ssdtwin.ConfigError) as raised:
        ssdtwin.run(None, **THERMAL, **{"thermal.controller_coupling_w_per_k": [-1] + [0] * (packages - 1)})
    assert raised.value.key == "thermal.controller_coupling_w_per_k[0]"
