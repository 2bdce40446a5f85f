"""`ssdtwin serve --nbd` with real NBD clients from Debian's packages (installed by
scripts/install-nbd-clients.sh): nbdinfo sees the export, fio writes and verifies, qemu-img copies
an image in and out unchanged, qemu-io reads back its pattern, and the session's report is that of
the same workload through `ssdtwin run`."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from pathlib import Path

import pytest

from conftest import cli
from nbd_server import SMALL_DRIVE, Server, need


def run(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    process = subprocess.run(args, capture_output=True, text=True, timeout=timeout, check=False)
    assert process.returncode == 0, f"{args}: {process.stdout}\n{process.stderr}"
    return process


def fio_json(text: str) -> dict:
    """fio's JSON output, after the lines its nbd engine prints first."""
    return json.loads(text[text.index("{") :])


def test_nbdinfo_shows_the_export_with_its_size_and_block_sizes(tmp_path):
    need("nbdinfo")
    with Server(tmp_path, *SMALL_DRIVE) as server:
        info = json.loads(run("nbdinfo", "--json", server.uri).stdout)
        listed = run("nbdinfo", "--list", server.uri).stdout
        report = server.stop()
    (export,) = info["exports"]
    unit = 4096  # the default scenario's ftl.mapping_unit
    assert report["config"]["ftl"]["mapping_unit"] == "4KiB"
    assert export["export-size"] == report["simulator"]["logical_units"] * unit
    assert export["block_size_minimum"] == 1  # any byte range is served
    assert export["block_size_preferred"] == unit
    assert export["block_size_maximum"] == 4 * 1024 * 1024
    for capability in ("can_flush", "can_fua", "can_trim", "can_zero", "can_multi_conn"):
        assert export[capability] is True, capability
    assert export["is_read_only"] is False
    assert 'export="ssdtwin"' in listed


def test_fio_random_writes_verify_over_nbd(tmp_path):
    need("fio")
    with Server(tmp_path, *SMALL_DRIVE) as server:
        fio = run(
            "fio",
            "--name=verify",
            "--ioengine=nbd",
            f"--uri={server.uri}",
            "--rw=randwrite",
            "--bs=4k",
            "--iodepth=32",
            "--size=64m",
            "--verify=crc32c",
            "--verify_fatal=1",
            "--do_verify=1",
            "--verify_state_save=0",
            "--output-format=json",
        )
        report = server.stop()
    job = fio_json(fio.stdout)["jobs"][0]
    assert job["error"] == 0
    writes = 64 * 1024 * 1024 // 4096
    assert job["write"]["total_ios"] == writes
    assert job["read"]["total_ios"] == writes  # every block read back and checked
    # Each request became one command of the model.
    assert report["latency_us"]["write"]["count"] == writes
    assert report["latency_us"]["read"]["count"] == writes


def test_several_clients_at_once_each_get_their_own_data_back(tmp_path):
    need("fio")
    with Server(tmp_path, *SMALL_DRIVE) as server:
        fio = run(
            "fio",
            "--name=clients",
            "--ioengine=nbd",
            f"--uri={server.uri}",
            "--numjobs=3",
            "--offset_increment=64m",
            "--rw=randwrite",
            "--bs=4k",
            "--iodepth=8",
            "--size=16m",
            "--verify=crc32c",
            "--verify_fatal=1",
            "--verify_state_save=0",
            "--output-format=json",
        )
        log = server.log_text()
        report = server.stop()
    jobs = fio_json(fio.stdout)["jobs"]
    assert len(jobs) == 3
    assert all(job["error"] == 0 for job in jobs)
    writes = 3 * 16 * 1024 * 1024 // 4096
    assert sum(job["write"]["total_ios"] for job in jobs) == writes
    assert report["latency_us"]["write"]["count"] == writes
    assert report["latency_us"]["read"]["count"] == writes
    # The three jobs' connections were open together.
    open_now, most = 0, 0
    for line in log.splitlines():
        if line.endswith(": connected"):
            open_now += 1
        elif line.endswith((": closed", ": disconnected")):
            open_now -= 1
        most = max(most, open_now)
    assert most >= 3, log


def test_a_qemu_image_copied_in_and_out_is_unchanged(tmp_path):
    need("qemu-img", "qemu-io")
    image = tmp_path / "in.img"
    with open(image, "wb") as file:
        for index in range(24):
            # Data and holes of zeros, so copies use both writes and write-zeroes requests.
            file.write(os.urandom(1 << 20) if index % 3 else bytes(1 << 20))
    back = tmp_path / "out.img"
    with Server(tmp_path, *SMALL_DRIVE) as server:
        run("qemu-img", "convert", "-n", "-f", "raw", "-O", "raw", str(image), server.uri)
        run("qemu-img", "dd", "-f", "raw", "-O", "raw", f"if={server.uri}", f"of={back}", "bs=1M", "count=24")
        pattern = run(
            "qemu-io",
            "-f",
            "raw",
            "-c",
            "write -P 0xab 100M 3M",
            "-c",
            "read -P 0xab 100M 3M",
            "-c",
            "discard 100M 1M",
            "-c",
            "read -P 0 100M 1M",
            "-c",
            "read -P 0xab 101M 2M",
            server.uri,
        )
        report = server.stop()
    digest = lambda path: hashlib.sha256(Path(path).read_bytes()).hexdigest()  # noqa: E731
    assert digest(back) == digest(image)
    assert "Pattern verification failed" not in pattern.stdout + pattern.stderr
    assert report["latency_us"]["write"]["count"] > 0
    assert report["latency_us"]["read"]["count"] > 0


def test_the_report_after_fio_matches_ssdtwin_run_of_the_same_workload(tmp_path):
    need("fio")
    # A 1.5 GB drive in steady state, so garbage collection runs (WAF about 2) during the writes.
    ios = 60_000
    drive = [
        *("--set", "flash.channels=2"),
        *("--set", "flash.blocks_per_plane=16"),
        *("--set", "workload.precondition=steady"),
    ]
    with Server(tmp_path, *drive) as server:
        run(
            "fio",
            "--name=writes",
            "--ioengine=nbd",
            f"--uri={server.uri}",
            "--rw=randwrite",
            "--bs=4k",
            "--iodepth=32",
            f"--number_ios={ios}",
            "--norandommap",
            "--randrepeat=0",
        )
        session = server.stop()
    job = tmp_path / "writes.fio"
    job.write_text(f"[writes]\nrw=randwrite\nbs=4k\niodepth=32\nnumber_ios={ios}\nnorandommap\n")
    process = cli(
        "run",
        *drive,
        "--set",
        "workload.kind=fio",
        "--set",
        f"workload.fio.job={job}",
        "--json",
        str(tmp_path / "run.json"),
        "--quiet",
        timeout=300,
    )
    assert process.returncode == 0, process.stderr
    simulated = json.loads((tmp_path / "run.json").read_text())
    for name, report in (("session", session), ("run", simulated)):
        print(name, report["iops"], report["latency_us"]["write"]["mean"], report["waf"])
    assert simulated["waf"] > 1.5
    assert session["host_ios"] == simulated["host_ios"] == ios
    for figure in (
        lambda r: r["iops"],
        lambda r: r["latency_us"]["write"]["mean"],
        lambda r: r["waf"],
    ):
        assert abs(figure(session) - figure(simulated)) <= 0.05 * figure(simulated), (
            figure(session),
            figure(simulated),
        )


def test_real_pace_replies_no_earlier_than_the_simulated_latency(tmp_path):
    need("fio")
    with Server(tmp_path, *SMALL_DRIVE, "--pace", "real") as server:
        fio = run(
            "fio",
            "--name=reads",
            "--ioengine=nbd",
            f"--uri={server.uri}",
            "--rw=randread",
            "--bs=4k",
            "--iodepth=1",
            "--number_ios=300",
            "--size=64m",
            "--output-format=json",
        )
        report = server.stop()
    job = fio_json(fio.stdout)["jobs"][0]
    wall_mean_us = job["read"]["clat_ns"]["mean"] / 1000
    simulated_mean_us = report["latency_us"]["read"]["mean"]
    assert report["latency_us"]["read"]["count"] == 300
    # Each reply waited for its simulated completion, so the client saw at least that long.
    assert wall_mean_us >= simulated_mean_us, (wall_mean_us, simulated_mean_us)


def test_a_recorded_session_replays_with_ssdtwin_run(tmp_path):
    """fio's mixed reads and writes, checked by fio (crc32c: each block read back is the data it
    wrote), recorded by the server: the trace is the commands fio logged itself (`write_iolog`),
    in order, and `ssdtwin run` replaying it gives the session's reads and writes, bytes and
    flash operations."""
    need("fio")
    trace = tmp_path / "session.csv"
    iolog = tmp_path / "fio.iolog"
    with Server(tmp_path, *SMALL_DRIVE, "--record-trace", str(trace)) as server:
        fio = run(
            "fio",
            "--name=mixed",
            "--ioengine=nbd",
            f"--uri={server.uri}",
            "--rw=randrw",
            "--bs=4k",
            "--iodepth=8",
            "--number_ios=2000",
            "--size=64m",
            "--verify=crc32c",
            "--verify_fatal=1",
            "--verify_state_save=0",
            f"--write_iolog={iolog}",
            "--output-format=json",
        )
        session = server.stop()
    job = fio_json(fio.stdout)["jobs"][0]
    assert job["error"] == 0  # every block fio read back held what it had written
    # fio's log of its own I/Os: "TIME FILE ACTION OFFSET LENGTH" lines among open/close/add lines.
    sent = [
        (fields[2].capitalize(), int(fields[3]), int(fields[4]))
        for fields in (line.split() for line in iolog.read_text().splitlines())
        if len(fields) == 5 and fields[2] in ("read", "write")
    ]
    assert len(sent) == job["read"]["total_ios"] + job["write"]["total_ios"]
    # After its last write, fio read back (and checked) each block it had written.
    last_write = max(index for index, command in enumerate(sent) if command[0] == "Write")
    written = {(offset, size) for kind, offset, size in sent if kind == "Write"}
    assert {(offset, size) for _, offset, size in sent[last_write + 1 :]} == written
    lines = trace.read_text().splitlines()
    assert lines[0] == "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime"
    rows = [line.split(",") for line in lines[1:]]
    recorded = [(kind, int(offset), int(size)) for _, _, _, kind, offset, size, _ in rows]
    assert recorded == sent  # the server recorded each command as fio sent it, in order
    assert len(recorded) == session["host_ios"]

    process = cli(
        "run",
        *SMALL_DRIVE,
        "--set",
        "workload.kind=trace",
        "--set",
        f"workload.trace.path={trace}",
        "--set",
        "workload.trace.format=msr",
        "--set",
        "workload.trace.replay=timed",
        "--set",
        "host.queue_depth=8",
        "--set",
        "report.drain=false",  # a session's report is not drained (sim/drain.rs): like with like
        "--json",
        str(tmp_path / "replay.json"),
        "--quiet",
    )
    assert process.returncode == 0, process.stderr
    replay = json.loads((tmp_path / "replay.json").read_text())
    assert replay["host_ios"] == session["host_ios"]
    (replayed,) = replay["workload"]["jobs"]
    for kind, name in (("read", "Read"), ("write", "Write")):
        commands = [size for command, _, size in sent if command == name]
        assert replay["latency_us"][kind]["count"] == session["latency_us"][kind]["count"] == len(commands)
        assert replayed[kind]["io_bytes"] == sum(commands)
        # The trace's timestamps are rounded to 100 ns: the latencies agree to well within 1%.
        assert replay["latency_us"][kind]["mean"] == pytest.approx(
            session["latency_us"][kind]["mean"], rel=0.01
        )
    for operation in ("programs", "erases"):  # the same writes on the same pages
        assert replay["flash"][operation] == session["flash"][operation], operation
    # A read of a unit whose write is still in the frame buffer is served from DRAM, not flash:
    # whether it is depends on arrival times to the nanosecond, which the trace rounds to 100 ns.
    # So flash reads agree to within a few (seen: 461 against 462), not exactly.
    reads = session["flash"]["reads"]
    assert abs(replay["flash"]["reads"] - reads) <= max(2, reads // 100), (replay["flash"]["reads"], reads)
