"""`ssdtwin calibrate`: the protocol's fio job file (fio and ssdtwin's own fio parser read it; its
job names are the fit's scheme), and bad input (one `error:` line naming the file, job or key,
exit status 2, never a traceback)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import ssdtwin
from conftest import cli
from ssdtwin.calibrate.protocol import parse_name, protocol_jobs

FIO_JOB = {
    "jobname": "randread_4k_qd1",
    "read": {"iops": 10000.0, "clat_ns": {"mean": 95000.0, "percentile": {"99.000000": 96000}}},
}


def _protocol(tmp_path: Path, *options: str) -> str:
    output = tmp_path / "measure.fio"
    process = cli("calibrate", "--protocol", "-o", str(output), *options)
    assert process.returncode == 0, process.stderr
    return output.read_text(encoding="utf-8")


def test_fio_parses_the_protocol_file(tmp_path: Path) -> None:
    text = _protocol(tmp_path, "--device", str(tmp_path / "disk.img"), "--size", "64m", "--runtime", "5")
    fio = shutil.which("fio")
    assert fio is not None, "fio is installed by scripts/install-nbd-clients.sh"
    import subprocess

    process = subprocess.run(
        [fio, "--parse-only", str(tmp_path / "measure.fio")], capture_output=True, text=True, check=False
    )
    assert process.returncode == 0, process.stderr
    assert "percentile_list=1:5:10:25:50:75:90:95:99:99.5:99.9:99.99" in text
    assert "direct=1" in text
    assert "ioengine=libaio" in text


def test_the_protocol_has_the_grid_and_each_job_name_is_the_fits_scheme(tmp_path: Path) -> None:
    text = _protocol(tmp_path)
    sections = [line[1:-1] for line in text.splitlines() if line.startswith("[") and line != "[global]"]
    assert sections[:3] == ["precondition_fill1", "precondition_fill2", "seqread_128k_qd32"]
    measured = [parse_name(name) for name in sections if not name.startswith("precondition_")]
    assert all(workload is not None for workload in measured), sections
    assert [w.name for w in measured if w is not None] == [w.name for w in protocol_jobs()]
    depths = [w.queue_depth for w in measured if w is not None and w.kind == "randread"]
    assert depths == [1, 2, 4, 8, 16, 32, 64, 128, 256]
    kinds = {w.kind for w in measured if w is not None}
    assert kinds == {"randread", "randwrite", "seqread", "seqwrite", "mix", "steady_randwrite"}
    assert text.count("stonewall") == len(sections)
    assert "runtime=1200s" in text  # the sustained random write: 20 x the default 60 s


def test_ssdtwin_simulates_the_protocol_file_warning_only_of_ordering_and_percentiles(tmp_path: Path) -> None:
    # Every job at once (ssdtwin starts all jobs of a file together), for 200 us each, on 1 %.
    text = _protocol(tmp_path, "--runtime", "1", "--size", "1%")
    short = text.replace("runtime=1s", "runtime=200us").replace("runtime=20s", "runtime=200us")
    (tmp_path / "measure.fio").write_text(short, encoding="utf-8")
    report = ssdtwin.run(
        {
            "drive": "enterprise_tlc",
            "flash": {"blocks_per_plane": 16},
            "workload": {
                "kind": "fio",
                "precondition": "none",
                "fio": {"job": str(tmp_path / "measure.fio"), "ignore_unsupported": True},
            },
        },
    )
    warnings = report.to_dict()["workload"]["warnings"]
    assert len(warnings) == 1, warnings
    ignored = warnings[0].split("ignored: ", 1)[1]
    assert {item.split("`")[1] for item in ignored.split(", ")} == {"stonewall", "percentile_list"}
    names = [job["name"] for job in report.to_dict()["workload"]["jobs"]]
    assert "randread_4k_qd256" in names


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ({"foo": 1}, "not fio JSON output: no top-level `jobs`"),
        ({"jobs": []}, "`jobs` is empty or not a list"),
        ("{not json", "not JSON"),
        ({"jobs": [{"jobname": "my_job", "read": {}}]}, "no job named by the protocol's scheme"),
        (
            {"jobs": [{"jobname": "randread_4k_qd1", "read": {"iops": 5}}]},
            "randread_4k_qd1).read.clat_ns: missing",
        ),
        ({"jobs": [{"jobname": "randread_4k_qd1"}]}, "(randread_4k_qd1).read: missing"),
    ],
)
def test_bad_measurement_files_name_the_file_and_what_is_wrong(
    tmp_path: Path, content: object, expected: str
) -> None:
    path = tmp_path / "measure.json"
    path.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
    process = cli("calibrate", str(path), "--base", "enterprise_tlc", "-o", str(tmp_path / "out.toml"))
    assert process.returncode == 2
    assert process.stderr.startswith(f"error: {path}"), process.stderr
    assert expected in process.stderr
    assert "Traceback" not in process.stderr
    assert not (tmp_path / "out.toml").exists()


def test_an_unknown_base_preset_is_named_with_the_presets(tmp_path: Path) -> None:
    path = tmp_path / "measure.json"
    path.write_text(json.dumps({"jobs": [FIO_JOB]}), encoding="utf-8")
    process = cli("calibrate", str(path), "--base", "no_such_drive", "-o", str(tmp_path / "out.toml"))
    assert process.returncode == 2
    assert "--base no_such_drive" in process.stderr
    assert "enterprise_tlc" in process.stderr
    assert "Traceback" not in process.stderr


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        (["--holdout", "randwrite_4k_qd8"], "--holdout randwrite_4k_qd8: no measured job of that name"),
        (["--holdout", "randread_4k_qd1"], "--holdout leaves no job to fit"),
        ([], "--base PRESET is required"),
    ],
)
def test_bad_options_are_one_error_line(tmp_path: Path, arguments: list[str], expected: str) -> None:
    path = tmp_path / "measure.json"
    path.write_text(json.dumps({"jobs": [FIO_JOB]}), encoding="utf-8")
    base = [] if expected.startswith("--base") else ["--base", "enterprise_tlc"]
    process = cli("calibrate", str(path), *base, *arguments, "-o", str(tmp_path / "out.toml"))
    assert process.returncode == 2
    assert expected in process.stderr
    assert "Traceback" not in process.stderr


def test_a_missing_measurement_file_and_a_bad_size_are_named(tmp_path: Path) -> None:
    missing = tmp_path / "nothing.json"
    process = cli("calibrate", str(missing), "--base", "enterprise_tlc", "-o", str(tmp_path / "out.toml"))
    assert process.returncode == 2
    assert f"error: {missing}: No such file or directory" in process.stderr
    process = cli("calibrate", "--protocol", "-o", str(tmp_path / "m.fio"), "--size", "lots")
    assert process.returncode == 2
    assert "--size 'lots'" in process.stderr
