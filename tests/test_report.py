"""The Report object: attribute access, copies, JSON round trip, flattening."""

from __future__ import annotations

import json
import pickle

import pytest

import ssdtwin
from conftest import SMALL


@pytest.fixture(scope="module")
def report() -> ssdtwin.Report:
    return ssdtwin.run(**SMALL)


def test_top_level_fields_are_attributes(report):
    data = report.to_dict()
    assert report.iops == data["iops"]
    assert report.latency_us["read"]["p99_99"] == data["latency_us"]["read"]["p99_99"]
    assert report.config == data["config"]
    assert report.config["workload"]["io_count"] == SMALL["workload.io_count"]
    with pytest.raises(AttributeError, match="no field"):
        _ = report.not_a_field


def test_to_dict_is_a_copy(report):
    data = report.to_dict()
    data["latency_us"]["read"]["p99_99"] = -1.0
    data["config"]["flash"]["channels"] = -1
    assert report.latency_us["read"]["p99_99"] != -1.0
    assert report.to_dict()["config"]["flash"]["channels"] != -1


def test_json_round_trip(report):
    text = report.to_json()
    assert json.loads(text) == report.to_dict()
    assert ssdtwin.Report.from_json(text) == report
    assert ssdtwin.Report(json.loads(report.to_json(indent=None))) == report
    assert "\n" in report.to_json(indent=2)
    assert "\n" not in report.to_json(indent=None)


def test_flat_has_dotted_scalar_keys_and_no_config(report):
    flat = report.flat()
    for key in ("iops", "waf", "host_ios", "latency_us.read.p99_99", "latency_us.all.mean", "flash.reads"):
        assert key in flat, key
    assert not any(key == "config" or key.startswith("config.") for key in flat)
    assert all(value is None or isinstance(value, bool | int | float | str) for value in flat.values())
    assert flat["latency_us.write.max"] == report.latency_us["write"]["max"]


def test_flat_covers_every_scalar_of_the_report(report):
    def count_scalars(value):
        if isinstance(value, dict):
            return sum(count_scalars(item) for item in value.values())
        return 0 if isinstance(value, list) else 1

    data = report.to_dict()
    del data["config"]
    assert len(report.flat()) == count_scalars(data)


def test_repr_shows_iops_and_mean_latency(report):
    text = repr(report)
    assert text.startswith("Report(")
    assert "iops=" in text
    assert "mean_latency_us=" in text


def test_report_pickles(report):
    assert pickle.loads(pickle.dumps(report)) == report


def test_fields_the_core_adds_later_appear_as_attributes():
    report = ssdtwin.Report({"iops": 1.0, "power_w": {"nand_peak": 2.5}, "config": {}})
    assert report.power_w["nand_peak"] == 2.5
    assert report.flat() == {"iops": 1.0, "power_w.nand_peak": 2.5}
