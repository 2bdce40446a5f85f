"""Power in the report and the time series (DataFrame, Parquet through the CLI)."""

from __future__ import annotations

import pickle

import pandas
import pytest

import ssdtwin
from conftest import SMALL_SET, cli
from ssdtwin.report import TIMESERIES_COLUMNS

INTERVAL = {"power.sample_interval": "200us"}


@pytest.fixture(scope="module")
def report() -> ssdtwin.Report:
    return ssdtwin.run(
        None,
        **{"flash.blocks_per_plane": 16, "workload.io_count": 20_000, "workload.precondition": "none"},
        **INTERVAL,
    )


def test_report_has_the_power_and_energy_fields(report):
    for field in ("nand_avg", "nand_peak", "io_bus_avg", "controller_avg", "dram_avg", "other_avg"):
        assert report.power_w[field] > 0, field
    assert report.power_w["total_peak"] >= report.power_w["nand_peak"]
    assert report.power_w["nand_peak"] >= report.power_w["nand_avg"]
    energy = report.energy_j
    parts = sum(energy[name] for name in ("nand", "io_bus", "controller", "dram", "other"))
    efficiency = report.config["power"]["regulator_efficiency"]
    assert energy["total"] == pytest.approx(parts / efficiency, rel=1e-9)
    assert "timeseries" not in report.to_dict(), "the series stays out of the JSON report"


def test_timeseries_is_a_dataframe_that_integrates_to_the_energy(report):
    frame = report.timeseries
    assert isinstance(frame, pandas.DataFrame)
    assert tuple(frame.columns) == TIMESERIES_COLUMNS
    assert len(frame) > 10
    # The series ends with the run's flash work: the last host completion plus the drain.
    end = report.simulated_time_s + (report.to_dict().get("drain") or {}).get("time_s", 0.0)
    lengths = frame["time_s"].diff().shift(-1).fillna(end - frame["time_s"].iloc[-1])
    assert lengths.iloc[0] == pytest.approx(200e-6)
    integral = (frame["power_w.total"] * lengths).sum()
    assert integral == pytest.approx(report.energy_j["total"], rel=1e-6)
    assert (frame["iops"] * lengths).sum() == pytest.approx(report.host_ios, rel=1e-6)


def test_a_pickled_report_keeps_its_timeseries(report):
    copy = pickle.loads(pickle.dumps(report))
    assert copy == report
    pandas.testing.assert_frame_equal(copy.timeseries, report.timeseries)


def test_a_report_from_json_has_an_empty_timeseries_with_the_columns(report):
    frame = ssdtwin.Report.from_json(report.to_json()).timeseries
    assert frame.empty
    assert tuple(frame.columns) == TIMESERIES_COLUMNS


def test_cli_writes_the_timeseries_to_parquet(tmp_path):
    path = tmp_path / "series.parquet"
    process = cli(
        "run", *SMALL_SET, "--set", "power.sample_interval=200us", "--timeseries", str(path), "--quiet"
    )
    assert process.returncode == 0, process.stderr
    frame = pandas.read_parquet(path)
    assert tuple(frame.columns) == TIMESERIES_COLUMNS
    assert len(frame) > 10
    assert (frame["power_w.total"] > 0).all()
    assert "Power (W)" in process.stdout


def test_power_can_be_turned_off():
    report = ssdtwin.run(
        None, **{"flash.blocks_per_plane": 16, "workload.io_count": 2_000}, power__enabled=False
    )
    assert report.energy_j["total"] == 0
    assert report.timeseries.empty
