"""The documentation's commands work as written.

Every `ssdtwin ...` command in a shell code block of README.md and docs/**/*.md is extracted.
Each repository file such a command names must exist, and every command not on the commented
NOT_RUN list is run as written, with the CLI of this interpreter (`python -m ssdtwin`), and must
exit with status 0. A document's commands run in order, in one scratch directory per document:
the repository files they name are copied there at their own relative paths (so outputs such as
a sweep's results land in the scratch directory, never in the repository), and the files the
documents use as the reader's own (`scenario.toml`, `run.json`, ...) are stand-ins made there
first (STAND_INS). The small traces the documents replay are those of traces/, checked against
the script that writes them.
"""

from __future__ import annotations

import importlib.util
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DOCUMENTS = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
SHELL_LANGUAGES = {"", "bash", "sh", "shell", "console"}
# A command argument whose first path component is one of these names a repository file.
REPOSITORY_FOLDERS = {
    "configs",
    "crates",
    "docs",
    "examples",
    "python",
    "scripts",
    "studies",
    "tests",
    "traces",
}

# Repository paths a documented command names that are not in the repository because an earlier
# documented command writes them (and .gitignore keeps them out), with that command.
GENERATED = {
    "studies/queue_depth/results": "ssdtwin sweep studies/queue_depth/sweep.toml",
}

# Documented commands that are not run here, each with the reason. Everything else is run.
NOT_RUN = {
    # NBD sessions run until a signal or their last client: tests/test_nbd_protocol.py and
    # tests/test_nbd_clients.py start the server and drive it with real clients.
    "ssdtwin serve --nbd --socket /tmp/ssd.sock --json session.json &": "serves until killed",
    "ssdtwin serve --nbd --socket /tmp/ssd.sock --json session.json": "serves until killed",
    "ssdtwin serve scenario.toml --nbd --listen 127.0.0.1:10809 --pace real": "serves until killed",
    "ssdtwin serve --nbd --socket /tmp/ssd.sock --set drive=iiot_64gb --record-trace session.csv --once": (
        "serves until its last client leaves"
    ),
    # Needs a running Dask scheduler at that address; the local Dask cluster is run (the line
    # before it in docs/guide/sweeps.md) and compared with the local pool in tests/test_sweep.py.
    "ssdtwin sweep SWEEP.toml --backend dask --scheduler tcp://10.0.0.5:8786": "needs a Dask cluster",
    # A fit needs fio's output of the protocol run on a real drive: tests/test_calibrate.py runs
    # the command on fio JSON that ssdtwin writes for a drive of known parameters.
    "ssdtwin calibrate measure.json --base enterprise_tlc -o mydrive.toml": "needs a real drive's fio output",
    "ssdtwin run --set drive=mydrive.toml": "needs the fitted preset of the command before",
}

# Documented commands that are alternatives to the sweep before them, not a next step: a sweep
# refuses an output directory that holds another run's results, so the stand-in sweep's
# output directory is removed before each of these.
FRESH_OUTPUT = {
    "ssdtwin sweep SWEEP.toml --no-reuse": "results/sweep",
    "ssdtwin sweep SWEEP.toml --backend dask": "results/sweep",
}

# The files the documents use as the reader's own, made in the scratch directory before a
# document's commands when one of them names the file: (text of the file) or (commands that
# write it, run in order).
STAND_IN_SCENARIO = """\
# a small drive and a short run, standing in for the reader's scenario
seed = 1
drive = "enterprise_tlc"

[flash]
blocks_per_plane = 16

[workload]
io_count = 20_000
precondition = "fill"
"""
STAND_IN_SWEEP = """\
out = "results/sweep"
base = "scenario.toml"

[grid]
"host.queue_depth" = [1, 8]
"""
STAND_INS: dict[str, str | list[str]] = {
    "scenario.toml": STAND_IN_SCENARIO,
    "sweep.toml": STAND_IN_SWEEP,
    "SWEEP.toml": STAND_IN_SWEEP,
    "run.json": [
        "ssdtwin run scenario.toml --set thermal.enabled=true --json run.json --timeseries run.parquet"
    ],
    "run.parquet": [
        "ssdtwin run scenario.toml --set thermal.enabled=true --json run.json --timeseries run.parquet"
    ],
    "a.json": ["ssdtwin run scenario.toml --set host.queue_depth=1 --json a.json"],
    "b.json": ["ssdtwin run scenario.toml --set host.queue_depth=8 --json b.json"],
    "c.json": ["ssdtwin run scenario.toml --set host.queue_depth=32 --json c.json"],
    "results/qd_sweep": ["ssdtwin sweep sweep.toml --out results/qd_sweep"],
}
# Stand-ins that other stand-ins need first.
STAND_IN_NEEDS = {name: ["scenario.toml"] for name in STAND_INS if name != "scenario.toml"}
STAND_IN_NEEDS["results/qd_sweep"].append("sweep.toml")


@dataclass(frozen=True)
class Command:
    document: str  # relative to the repository
    line: int  # first line of the command
    text: str  # as written, continuation lines joined, comment removed
    argv: list[str]

    def __str__(self) -> str:
        return f"{self.document}:{self.line}: {self.text}"


def commands_in(document: Path) -> list[Command]:
    """The `ssdtwin ...` commands in the shell code blocks of `document`."""
    found = []
    language = None  # None outside a code block
    pending, first_line = "", 0
    for number, line in enumerate(document.read_text().splitlines(), start=1):
        if line.lstrip().startswith("```"):
            language = line.strip()[3:].strip() if language is None else None
            continue
        if language not in SHELL_LANGUAGES:
            continue
        if not pending:
            first_line = number
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        logical, pending = (pending + line).strip().removeprefix("$ "), ""
        if logical.split(" ", 1)[0] != "ssdtwin":
            continue
        argv = shlex.split(logical, comments=True)
        found.append(Command(str(document.relative_to(REPO)), first_line, " ".join(argv), argv))
    return found


ALL_COMMANDS = [command for document in DOCUMENTS for command in commands_in(document)]


def repository_paths(command: Command) -> list[str]:
    """The repository paths among the command's arguments (also as the value of `key=value`)."""
    paths = []
    for argument in command.argv[1:]:
        for candidate in {argument, argument.rsplit("=", 1)[-1]}:
            if candidate.split("/", 1)[0] in REPOSITORY_FOLDERS and "/" in candidate:
                paths.append(candidate.rstrip("/"))
    return paths


def test_the_documents_hold_the_commands_of_each_task():
    # The extractor finds what the documents are known to hold: the tour's run, sweep and trace
    # replay in the README, and a replay of each shipped trace on the workloads page.
    texts = {str(command) for command in ALL_COMMANDS}
    readme = [command.text for command in ALL_COMMANDS if command.document == "README.md"]
    assert "ssdtwin run" in readme
    assert "ssdtwin sweep studies/queue_depth/sweep.toml --html sweep.html" in readme
    assert any("workload.trace.path=traces/disksim-small.trace" in text for text in readme)
    workloads = " ".join(c.text for c in ALL_COMMANDS if c.document == "docs/guide/workloads.md")
    for name in TRACE_FORMATS:
        assert f"workload.trace.path=traces/{name}" in workloads, name
    assert len(texts) > 40


def test_every_repository_path_a_documented_command_names_exists():
    missing = [
        f"{command}: {path}"
        for command in ALL_COMMANDS
        for path in repository_paths(command)
        if path not in GENERATED and not (REPO / path).exists()
    ]
    assert missing == []


def test_generated_paths_are_written_by_a_documented_command():
    documented = {command.text for command in ALL_COMMANDS}
    for path, writer in GENERATED.items():
        assert writer in documented, writer
        sweep_file = REPO / writer.split()[-1]
        assert sweep_file.parent / "results" == REPO / path
        assert 'out = "results"' in sweep_file.read_text()


def test_every_command_listed_here_is_still_documented():
    documented = {command.text for command in ALL_COMMANDS}
    assert set(NOT_RUN) - documented == set()
    assert set(FRESH_OUTPUT) - documented == set()


def copy_repository_files(command: Command, scratch: Path) -> None:
    """Copies the files of the folders the command's repository paths name (not their
    subfolders: a study's results stay behind) to the same relative paths under `scratch`."""
    for path in repository_paths(command):
        source = REPO / path
        if path in GENERATED or not source.exists():
            continue
        folder = source if source.is_dir() else source.parent
        target = scratch / folder.relative_to(REPO)
        target.mkdir(parents=True, exist_ok=True)
        for item in folder.iterdir():
            if item.is_file():
                shutil.copy2(item, target / item.name)


def run(argv: list[str], scratch: Path) -> subprocess.CompletedProcess[str]:
    """Runs one `ssdtwin ...` argument list in `scratch` with this interpreter's `ssdtwin`."""
    return subprocess.run(
        [sys.executable, "-m", "ssdtwin", *argv[1:]],
        cwd=scratch,
        capture_output=True,
        text=True,
        timeout=600,
    )


def make_stand_ins(names: set[str], scratch: Path) -> None:
    """Makes the stand-in files `names` (and what they need) in `scratch`."""
    made: set[str] = set()

    def make(name: str) -> None:
        if name in made:
            return
        made.add(name)
        for need in STAND_IN_NEEDS.get(name, []):
            make(need)
        recipe = STAND_INS[name]
        if isinstance(recipe, str):
            (scratch / name).write_text(recipe)
            return
        for text in recipe:
            result = run(shlex.split(text), scratch)
            assert result.returncode == 0, f"stand-in {name}: {text}\n{result.stderr}"

    for name in sorted(names):
        make(name)


RUN_DOCUMENTS = sorted({command.document for command in ALL_COMMANDS if command.text not in NOT_RUN})


@pytest.mark.parametrize("document", RUN_DOCUMENTS)
def test_documented_commands_run_as_written(document, tmp_path):
    commands = [c for c in ALL_COMMANDS if c.document == document and c.text not in NOT_RUN]
    named = {argument for command in commands for argument in command.argv}
    make_stand_ins({name for name in STAND_INS if name in named}, tmp_path)
    failures = []
    for command in commands:
        copy_repository_files(command, tmp_path)
        if command.text in FRESH_OUTPUT:
            shutil.rmtree(tmp_path / FRESH_OUTPUT[command.text], ignore_errors=True)
        result = run(command.argv, tmp_path)
        if result.returncode != 0:
            failures.append(f"{command}\n  exit status {result.returncode}: {result.stderr.strip()[-2000:]}")
    assert failures == []


# The shipped traces: traces/make_traces.py writes them; each file and its format key.
TRACE_FORMATS = {
    "msr-small.csv": "msr",
    "spc-small.csv": "spc",
    "blkparse-small.txt": "blkparse",
    "disksim-small.trace": "disksim",
    "fio-v2-small.iolog": "fio_iolog",
    "fio-v3-small.iolog": "fio_iolog",
}


def make_traces():
    spec = importlib.util.spec_from_file_location("make_traces", REPO / "traces" / "make_traces.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_shipped_traces_are_what_make_traces_writes():
    module = make_traces()
    texts = module.texts()
    assert set(texts) == set(TRACE_FORMATS)
    for name, text in texts.items():
        assert (REPO / "traces" / name).read_text() == text, name
        assert 500 <= text.count("\n") <= 5000, name


def test_each_shipped_trace_replays_to_the_generators_requests():
    import ssdtwin

    requests = make_traces().requests()
    reads = sum(1 for request in requests if request[1])
    for name, format_key in TRACE_FORMATS.items():
        report = ssdtwin.run(
            None,
            **{
                "workload.kind": "trace",
                "workload.trace.format": format_key,
                "workload.trace.path": str(REPO / "traces" / name),
                "workload.precondition": "none",
            },
        )
        assert report.host_ios == len(requests), name
        assert report.latency_us["read"]["count"] == reads, name
        assert report.workload["skipped_lines"] == 0, name
