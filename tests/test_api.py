"""The public Python API: scenarios as None, paths or dicts; keyword overrides; errors."""

from __future__ import annotations

import math
from pathlib import Path

import jsonschema
import pytest

import ssdtwin
from conftest import SMALL


def test_unknown_key_in_dict_scenario_names_its_path():
    with pytest.raises(ssdtwin.ConfigError) as caught:
        ssdtwin.run({"host": {"queue_dept": 4}})
    error = caught.value
    assert isinstance(error, ValueError)
    assert error.key == "host.queue_dept"
    assert "queue_depth" in error.message  # lists the allowed keys
    assert str(error).startswith("`host.queue_dept`:")


@pytest.mark.parametrize("overrides", [{"host.queue_dept": 4}, {"host__queue_dept": 4}])
def test_unknown_key_in_override_names_its_path(overrides):
    with pytest.raises(ssdtwin.ConfigError) as caught:
        ssdtwin.run(**overrides)
    assert caught.value.key == "host.queue_dept"


def test_out_of_range_value_names_key_and_value():
    with pytest.raises(ssdtwin.ConfigError) as caught:
        ssdtwin.run(**SMALL, host__queue_depth=0)
    assert caught.value.key == "host.queue_depth"
    assert "0" in caught.value.message
    assert "65535" in caught.value.message  # the allowed range


def test_wrong_type_in_scenario_value_names_key():
    with pytest.raises(ssdtwin.ConfigError) as caught:
        ssdtwin.run({"host": {"queue_depth": "deep"}})
    assert caught.value.key == "host.queue_depth"


def test_none_value_names_key():
    with pytest.raises(ssdtwin.ConfigError) as caught:
        ssdtwin.run(flash__channels=None)
    assert caught.value.key == "flash.channels"


def test_nan_value_names_key():
    with pytest.raises(ssdtwin.ConfigError) as caught:
        ssdtwin.run(workload__read_fraction=math.nan)
    assert caught.value.key == "workload.read_fraction"


@pytest.mark.parametrize("scenario", [42, 1.5, b"scenario.toml", ["drive"]])
def test_scenario_of_wrong_type_is_a_type_error(scenario):
    with pytest.raises(TypeError, match="scenario must be"):
        ssdtwin.run(scenario)


def test_override_value_that_is_not_json_data_is_a_type_error_naming_the_key():
    with pytest.raises(TypeError, match=r"override `flash\.channels`"):
        ssdtwin.run(flash__channels=object())


def test_scenario_value_that_is_not_json_data_is_a_type_error_naming_the_key():
    with pytest.raises(TypeError, match=r"scenario `host\.queue_depth`"):
        ssdtwin.run({"host": {"queue_depth": {1, 2}}})


def test_progress_that_is_not_callable_is_a_type_error():
    with pytest.raises(TypeError, match="progress"):
        ssdtwin.run(**SMALL, progress=5)


def test_same_key_with_dots_and_underscores_is_a_type_error():
    with pytest.raises(TypeError, match="twice"):
        ssdtwin.run(**{"flash.channels": 8}, flash__channels=4)


def test_missing_scenario_file_is_file_not_found(tmp_path):
    missing = tmp_path / "missing.toml"
    with pytest.raises(FileNotFoundError) as caught:
        ssdtwin.run(missing)
    assert caught.value.filename == str(missing)


def test_double_underscore_override_equals_dotted_override():
    dotted = ssdtwin.run(**SMALL, **{"flash.channels": 8, "host.queue_depth": 4})
    underscored = ssdtwin.run(**SMALL, flash__channels=8, host__queue_depth=4)
    assert dotted.config == underscored.config
    assert dotted.config["flash"]["channels"] == 8
    assert dotted.config["host"]["queue_depth"] == 4


def test_dict_scenario_with_a_drive_preset():
    report = ssdtwin.run({"drive": "iiot_64gb", "host": {"queue_depth": 8}}, **SMALL)
    assert report.config["drive"] == "iiot_64gb"
    assert report.config["host"]["queue_depth"] == 8
    assert report.config["flash"]["channels"] == 1  # from the preset
    assert report.config["host"]["pcie_generation"] == 2  # from the preset


def test_overrides_win_over_dict_scenario_and_preset():
    report = ssdtwin.run({"drive": "iiot_64gb", "flash": {"channels": 2}}, **SMALL, flash__channels=4)
    assert report.config["flash"]["channels"] == 4


def test_toml_file_scenario_with_a_drive_file_beside_it(tmp_path, monkeypatch):
    (tmp_path / "my_drive.toml").write_text("[flash]\nchannels = 3\ndies_per_chip = 2\n")
    scenario = tmp_path / "scenario.toml"
    scenario.write_text('seed = 7\ndrive = "my_drive.toml"\n[host]\nqueue_depth = 5\n')
    monkeypatch.chdir(Path(__file__).parent)  # the drive path is relative to the scenario file
    for path in (scenario, str(scenario)):
        report = ssdtwin.run(path, **SMALL)
        assert report.seed == 7
        assert report.config["flash"]["channels"] == 3
        assert report.config["host"]["queue_depth"] == 5


def test_numpy_like_numbers_and_paths_are_accepted(tmp_path):
    class Count(int):  # stands in for numpy.int64 etc.: a numbers.Integral that is not JSON data
        pass

    (tmp_path / "drive.toml").write_text("[flash]\nchannels = 2\n")
    config = ssdtwin.resolve({"drive": tmp_path / "drive.toml"}, host__queue_depth=Count(6))
    assert config["flash"]["channels"] == 2
    assert config["host"]["queue_depth"] == 6


def test_resolve_validates_without_running():
    config = ssdtwin.resolve(**SMALL, flash__channels=8)
    assert config["flash"]["channels"] == 8
    assert config["workload"]["io_count"] == SMALL["workload.io_count"]
    with pytest.raises(ssdtwin.ConfigError) as caught:
        ssdtwin.resolve(flash__channels=0)
    assert caught.value.key == "flash.channels"


@pytest.mark.parametrize("drive", [None, *sorted(ssdtwin.presets())])
def test_a_resolved_scenario_resolves_again_to_itself(drive):
    """A resolved scenario is a scenario: resolving it again changes nothing (an unset optional key,
    such as `plp.protected_ratio`, is left out rather than written as null, which is refused)."""
    scenario = ssdtwin.resolve(None if drive is None else {"drive": drive})
    assert ssdtwin.resolve(scenario) == scenario


def test_a_resolved_scenario_with_flows_resolves_again_to_itself():
    """Flows leave most of their keys unset (they take `[workload]`'s): unset stays unset."""
    flows = [{"name": "reader", "read_fraction": 1.0}, {"queue_depth": 4, "io_count": 100}]
    scenario = ssdtwin.resolve({"workload": {"flows": flows}})
    assert scenario["workload"]["flows"][0] == {"name": "reader", "read_fraction": 1.0, "priority": "medium"}
    assert ssdtwin.resolve(scenario) == scenario


def test_default_scenario_is_what_run_without_scenario_simulates():
    text = ssdtwin.default_scenario()
    assert 'drive = "enterprise_tlc"' in text
    assert ssdtwin.resolve()["drive"] == "enterprise_tlc"


def test_presets_lists_the_shipped_drives():
    presets = ssdtwin.presets()
    assert {"enterprise_tlc", "iiot_64gb", "iiot_512gb", "cho_512gb"} <= set(presets)
    assert all(description for description in presets.values())


@pytest.mark.parametrize("drive", [None, *sorted(ssdtwin.presets())])
def test_schema_is_a_json_schema_the_resolved_scenarios_validate_against(drive):
    """`ssdtwin.schema()` is a valid JSON Schema (checked by the `jsonschema` library against the
    metaschema it names), the resolved default scenario and each preset's validate against it, and
    values of the wrong type, out of range or under unknown keys do not."""
    schema = ssdtwin.schema()
    validator_class = jsonschema.validators.validator_for(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    validator_class.check_schema(schema)
    validator = validator_class(schema)
    scenario = ssdtwin.resolve(None if drive is None else {"drive": drive})
    assert scenario["drive"] == (drive or "enterprise_tlc")
    assert [error.message for error in validator.iter_errors(scenario)] == []
    assert set(schema["properties"]) == set(scenario)  # every section described, none extra

    def errors(section: str, key: str, value: object) -> list[tuple[list[object], str]]:
        changed = {**scenario, section: {**scenario[section], key: value}}
        return [(list(error.absolute_path), error.validator) for error in validator.iter_errors(changed)]

    assert errors("host", "queue_depth", "eight") == [(["host", "queue_depth"], "type")]
    assert errors("host", "queue_depth", 2.5) == [(["host", "queue_depth"], "type")]
    assert errors("workload", "read_fraction", [0.5]) == [(["workload", "read_fraction"], "type")]
    assert errors("host", "queue_dept", 4) == [(["host"], "additionalProperties")]
    assert [error.validator for error in validator.iter_errors({**scenario, "seed": -1})] == ["minimum"]
    # The core refuses the same wrong-typed value, naming the key.
    with pytest.raises(ssdtwin.ConfigError) as caught:
        ssdtwin.resolve({"drive": scenario["drive"], "host": {"queue_depth": "eight"}})
    assert caught.value.key == "host.queue_depth"


def test_progress_is_called_with_phase_fraction_ios_and_time():
    calls = []
    ssdtwin.run(**SMALL, progress=lambda *args: calls.append(args))
    assert calls, "the progress callable was never called"
    phase, fraction, host_ios, simulated_time_s = calls[-1]
    assert isinstance(phase, str)
    assert 0.0 <= fraction <= 1.0
    assert isinstance(host_ios, int)
    assert isinstance(simulated_time_s, float)


def test_exception_in_progress_stops_the_run_and_propagates():
    class Stop(Exception):
        pass

    def progress(*_args):
        raise Stop("from the callback")

    with pytest.raises(Stop, match="from the callback"):
        ssdtwin.run(**SMALL, progress=progress)


def test_keyboard_interrupt_in_progress_propagates():
    def progress(*_args):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        ssdtwin.run(**SMALL, progress=progress)


def test_version_is_written_into_reports():
    assert ssdtwin.run(**SMALL).ssdtwin_version == ssdtwin.__version__


@pytest.mark.parametrize(
    ("key", "value", "allowed"),
    [
        ("flash.suspend.enter_time", 0.9, "fraction of the operation time from 0 to 0.5"),
        ("flash.suspend.enter_time", "sixty", "duration"),
        ("flash.suspend.resume_extra_time", -0.1, "fraction of the operation time from 0 to 0.5"),
        ("flash.suspend.program_pulses", 0, "1 to 1000"),
        ("flash.suspend.max_per_operation", 5000, "0 (off) to 1000"),
        ("flash.suspend.suspend_reads", 3, "reads_per_suspend"),
        ("controller.read_first_age_limit", 5, "duration"),
    ],
)
def test_bad_suspend_settings_name_key_and_what_is_allowed(key, value, allowed):
    with pytest.raises(ssdtwin.ConfigError) as caught:
        ssdtwin.resolve(**{key: value})
    assert caught.value.key == key
    assert allowed in caught.value.message


def test_enter_time_accepts_a_duration_or_a_fraction():
    assert ssdtwin.resolve(**{"flash.suspend.enter_time": 0.035})["flash"]["suspend"]["enter_time"] == 0.035
    assert ssdtwin.resolve(**{"flash.suspend.enter_time": "70us"})["flash"]["suspend"]["enter_time"] == "70us"
