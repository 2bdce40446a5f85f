"""The `ssdtwin` command line, run as `python -m ssdtwin` in a subprocess."""

from __future__ import annotations

import io
import json

from click.testing import CliRunner
from rich.console import Console

import ssdtwin
from conftest import SMALL_SET, cli
from ssdtwin import _core
from ssdtwin.cli import _common, main
from ssdtwin.report.text import print_summary

THERMAL = {
    "max_c": {"controller": 82.46, "nand_0": 71.0, "dram": 55.25, "pcb": 50.0},
    "final_c": {"controller": 78.04, "nand_0": 69.5, "dram": 54.0, "pcb": 49.9},
    "composite_max_c": 79.31,
    "composite_final_c": 76.2,
    "time_above_s": {"80": 0.25, "75": 1.5},
}
THROTTLE = {
    "policy": "nvme",
    "events": 7,
    "time_s": 0.75,
    "state_time_s": {"off": 2.25, "light": 0.5, "heavy": 0.25},
    "entries": {"light": 4, "heavy": 3},
}


def summary(**blocks: object) -> str:
    """The text `print_summary` prints for a small report with `blocks` added."""
    data = {"iops": 1000.0, "power_w": {"nand_peak": 2.5}, "flash": {"reads": 10}, "config": {}, **blocks}
    console = Console(file=io.StringIO(), width=120)
    print_summary(ssdtwin.Report(data), console)
    return console.file.getvalue()


def test_version():
    process = cli("--version")
    assert process.returncode == 0
    assert process.stdout.strip() == f"ssdtwin {ssdtwin.__version__}"


def test_presets_lists_each_preset_on_one_line():
    process = cli("presets")
    assert process.returncode == 0, process.stderr
    lines = process.stdout.splitlines()
    names = [line.split()[0] for line in lines]
    assert {"enterprise_tlc", "iiot_64gb", "iiot_512gb", "cho_512gb"} <= set(names)
    assert len(lines) == len(ssdtwin.presets())


def test_schema_is_valid_json():
    process = cli("schema")
    assert process.returncode == 0, process.stderr
    schema = json.loads(process.stdout)
    assert "queue_depth" in json.dumps(schema)


def test_run_json_to_stdout_reflects_set():
    process = cli("run", *SMALL_SET, "--set", "flash.channels=8", "--json", "-")
    assert process.returncode == 0, process.stderr
    report = json.loads(process.stdout)  # nothing but JSON on stdout
    assert report["config"]["flash"]["channels"] == 8
    assert report["config"]["workload"]["precondition"] == "none"
    assert "Traceback" not in process.stderr


def test_run_prints_a_summary_and_writes_the_json_file(tmp_path):
    out = tmp_path / "report.json"
    process = cli("run", *SMALL_SET, "--json", str(out), "--quiet")
    assert process.returncode == 0, process.stderr
    headings = ["IOPS", "Bandwidth", "WAF", "Head-of-line blocked admissions", "Die utilisation", "Latency"]
    headings += ["p99.99", "reads"]
    for heading in headings:
        assert heading in process.stdout, heading
    assert json.loads(out.read_text())["config"]["flash"]["blocks_per_plane"] == 16


def test_run_scenario_file(tmp_path):
    scenario = tmp_path / "scenario.toml"
    scenario.write_text('seed = 3\ndrive = "cho_512gb"\n')
    process = cli("run", str(scenario), *SMALL_SET, "--json", "-")
    assert process.returncode == 0, process.stderr
    report = json.loads(process.stdout)
    assert report["seed"] == 3
    assert report["config"]["drive"] == "cho_512gb"


def test_bad_set_key_is_one_error_line_and_exit_2():
    process = cli("run", "--set", "host.queue_dept=4", "--json", "-")
    assert process.returncode == 2
    assert process.stderr.startswith("error: ")
    assert "host.queue_dept" in process.stderr
    assert "Traceback" not in process.stderr
    assert process.stdout == ""


def test_malformed_set_is_an_error():
    process = cli("run", "--set", "flash.channels")
    assert process.returncode == 2
    assert process.stderr.startswith("error: ")
    assert "key.path=value" in process.stderr
    assert "Traceback" not in process.stderr


def test_out_of_range_set_names_the_key():
    process = cli("run", "--set", "flash.channels=0")
    assert process.returncode == 2
    assert "flash.channels" in process.stderr
    assert "Traceback" not in process.stderr


def test_missing_scenario_file_is_an_error(tmp_path):
    process = cli("run", str(tmp_path / "nope.toml"))
    assert process.returncode == 2
    assert process.stderr.startswith("error: ")
    assert "nope.toml" in process.stderr
    assert "Traceback" not in process.stderr


def test_ctrl_c_exits_130(monkeypatch):
    def interrupted(*_args):
        raise KeyboardInterrupt

    monkeypatch.setattr(_core, "run", interrupted)
    result = CliRunner().invoke(main, ["run", "--quiet"])
    assert result.exit_code == 130


def test_progress_bar_follows_the_phases():
    class Display:  # records what a rich Progress would be told
        def __init__(self):
            self.calls = []

        def add_task(self, *_args, **_fields):
            return 0

        def reset(self, _task, **fields):
            self.calls.append(("reset", fields["description"]))

        def update(self, _task, **fields):
            self.calls.append(("update", fields["completed"]))

    display = Display()
    bar = _common.ProgressBar(display)
    for phase, fraction in [("precondition", 0.5), ("precondition", 1.0), ("run", 0.25)]:
        bar(phase, fraction, 0, 0.0)
    assert display.calls == [
        ("reset", "precondition"),
        ("update", 0.5),
        ("update", 1.0),
        ("reset", "run"),
        ("update", 0.25),
    ]


def test_summary_shows_temperatures_and_throttling_when_the_report_has_them():
    text = summary(thermal=THERMAL, throttle=THROTTLE)
    assert "Temperature (°C)" in text
    rows = {line.split()[0]: line.split()[1:] for line in text.splitlines() if line.strip()}
    assert rows["controller"] == ["82.5", "78.0"]  # max, final
    assert rows["nand_0"] == ["71.0", "69.5"]
    assert rows["composite"] == ["79.3", "76.2"]
    assert "Time above: 75 °C 1.5 s, 80 °C 0.25 s" in text  # thresholds in numeric order
    assert "Throttling: policy nvme, 7 events, 0.75 s throttled" in text
    assert rows["light"] == ["0.5", "s", "4"]
    assert rows["heavy"] == ["0.25", "s", "3"]
    assert rows["off"] == ["2.25", "s", "-"]


def test_summary_shows_reliability_when_the_report_has_it():
    reliability = {
        "rber_mean": 0.0042,
        "rber_max": 0.0091,
        "retries": 1200,
        "soft_decodes": 3,
        "uncorrectable": 2,
        "errored_commands": 2,
        "reclaims": 5,
    }
    text = summary(reliability=reliability)
    assert (
        "Reliability: RBER mean 0.0042, max 0.0091; 1,200 retries, 3 soft decodes, 2 uncorrectable, "
        "2 commands with an error, 5 blocks reclaimed"
    ) in " ".join(text.split())
    assert "Reliability" not in summary()


def test_summary_counts_trimmed_units_only_when_the_host_trimmed():
    rows = {line.strip().split("  ")[0]: line for line in summary(ftl={"trimmed_units": 2048}).splitlines()}
    assert rows["Trimmed units"].split()[-1] == "2,048"
    assert "Trimmed" not in summary(ftl={"trimmed_units": 0})


def test_summary_without_thermal_blocks_is_unchanged():
    plain = summary()
    assert "Temperature" not in plain
    assert "Throttling" not in plain
    assert plain.rstrip().endswith("reads   10")  # the flash table is still last
    # the thermal model on with no throttle policy: temperatures only
    without_policy = summary(thermal=THERMAL, throttle={**THROTTLE, "policy": "none"})
    assert "Temperature (°C)" in without_policy
    assert "Throttling" not in without_policy
    assert without_policy.startswith(plain)


def test_summary_header_tells_the_drive_size_and_preconditioning_apart():
    default = summary(config=ssdtwin.resolve(), seed=1, simulator={"logical_units": 11_744_051})
    full = summary(config=ssdtwin.resolve({"drive": "enterprise_tlc"}), seed=1)
    # 16 channels x 8 dies x 2 planes x 256 pages of 16 KiB: 64 blocks per plane 64 GiB, 1024 1 TiB;
    # the host sees the units left after 30% over-provisioning, 4 KiB each.
    assert "drive enterprise_tlc (64 GiB raw, 44.8 GiB user), precondition steady, seed 1" in default
    assert "drive enterprise_tlc (1 TiB raw, 717 GiB user), precondition fill, seed 1" in full


def test_summary_explains_head_of_line_blocking():
    text = summary(queues={"hol_events": 60, "gc_write_holds": 7, "die_utilization": 0.4})
    assert "HoL" not in text
    assert "Head-of-line blocked admissions" in text
    assert "could not enter the frame buffer or its die queue" in text
    held = next(line for line in text.splitlines() if "Writes held for GC" in line)
    assert held.split()[-1] == "7", held


def test_summary_lists_mapping_table_traffic_only_with_the_cached_table():
    flash = {"reads": 10, "programs": 5, "mapping_reads": 0, "mapping_programs": 0}
    full = summary(flash=flash, config={"ftl": {"mapping_cache": "full"}})
    assert "reads" in full
    assert "mapping" not in full
    cached = summary(flash=flash | {"mapping_reads": 7}, config={"ftl": {"mapping_cache": "cached"}})
    assert "mapping reads" in cached
    assert "mapping programs" in cached


def test_sweep_table_shows_the_waf_of_each_point():
    import pandas

    from ssdtwin.cli.sweep import print_sweep_table

    results = pandas.DataFrame(
        {
            "point_id": ["00000-a", "00001-b"],
            "ftl.gc_policy": ["greedy", "fifo"],
            "seed": [1, 1],
            "status": ["ok", "ok"],
            "error": [None, None],
            "ssdtwin_version": ["0", "0"],
            "iops": [1000.0, 900.0],
            "waf": [2.4162, 3.5],
        }
    )
    console = Console(file=io.StringIO(), width=160)
    print_sweep_table(results, console)
    lines = console.file.getvalue().splitlines()
    header = next(line for line in lines if "ftl.gc_policy" in line)
    assert header.split()[-1] == "waf"
    assert next(line for line in lines if "greedy" in line).split()[-1] == "2.416"
    assert next(line for line in lines if "fifo" in line).split()[-1] == "3.500"
