"""`ssdtwin serve --nbd` as a multi-queue host: each connection is a submission queue whose
priority class is chosen by the export it asks for (`urgent`, `high`, `medium`, `low`; the default
export `ssdtwin` has the class of `--class`), arbitrated by `host.arbitration` as flows are; each
queue is a job of the report. And the real pace's transport: measured, partly subtracted,
reported, with no reply written before its request's simulated arrival. Latencies compared are the
model's (simulated), never wall-clock times."""

from __future__ import annotations

import re
import subprocess
import sys
import threading

from nbd_server import Server
from nbd_wire import (
    CMD_READ,
    CMD_WRITE,
    OPT_GO,
    REP_ERR_UNKNOWN,
    connect,
    go_data,
    greet,
    option,
    option_reply,
    reply,
    request,
)

FILLED_DRIVE = [
    "--set",
    "flash.channels=2",
    "--set",
    "flash.dies_per_chip=2",
    "--set",
    "flash.blocks_per_plane=64",
    "--set",
    "workload.precondition=fill",
    "--set",
    "controller.die_queue_depth=2",
    "--set",
    "host.queue_depth=64",
]
"""A small filled drive of 4 dies: every read goes to flash; short die queues (8 commands in the
dies for 64 in flight) make commands wait for the arbiter."""


def closed_loops(server: Server, exports: list[bytes], depth: int, count: int) -> None:
    """One connection per export, each keeping `depth` 4 KiB reads in flight until it has sent
    `count`, all at once."""
    socks = [connect(server, name)[0] for name in exports]
    failures: list[BaseException] = []

    def loop(number: int) -> None:
        sock = socks[number]
        try:
            sent = 0
            for _ in range(depth):
                request(sock, CMD_READ, ((sent * 7919 + number * 104729) % 100_000) * 4096, 4096, sent)
                sent += 1
            for _ in range(count):
                error, _, _ = reply(sock, 4096)
                assert error == 0
                if sent < count:
                    request(sock, CMD_READ, ((sent * 7919 + number * 104729) % 100_000) * 4096, 4096, sent)
                    sent += 1
        except BaseException as error:  # reported by the test's thread
            failures.append(error)

    threads = [threading.Thread(target=loop, args=(number,)) for number in range(len(socks))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert not failures, failures
    for sock in socks:
        sock.close()


def read_means(report: dict) -> dict[str, tuple[str, float]]:
    """Each queue's class and mean read latency [ns] from the report's jobs."""
    jobs = report["workload"]["jobs"]
    return {job["name"]: (job.get("priority"), job["read"]["lat_ns"]["mean"]) for job in jobs}


def test_an_urgent_connection_waits_less_than_a_low_one_under_weighted_round_robin(tmp_path):
    args = [*FILLED_DRIVE, "--set", "host.arbitration=weighted_round_robin"]
    with Server(tmp_path, *args) as server:
        closed_loops(server, [b"urgent", b"low"], depth=32, count=1500)
        report = server.stop()
        log = server.log_text()
    # A connection's queue opens with its first request to reach the model, and both threads
    # send at once: which class gets sq0 is a race, so the queues are found by their class.
    by_class = {priority: (name, mean) for name, (priority, mean) in read_means(report).items()}
    assert sorted(by_class) == ["low", "urgent"], by_class
    urgent, low = by_class["urgent"], by_class["low"]
    # Urgent commands are fetched first whenever the controller takes one: a margin of 1.5x in
    # the direction, not a measured figure.
    assert low[1] > 1.5 * urgent[1], by_class
    assert re.search(rf"queue {urgent[0]} \(urgent\); 1500 requests served", log), log
    assert re.search(rf"queue {low[0]} \(low\); 1500 requests served", log), log


def test_connections_of_one_class_get_equal_service(tmp_path):
    args = [*FILLED_DRIVE, "--set", "host.arbitration=weighted_round_robin", "--class", "high"]
    with Server(tmp_path, *args) as server:
        # The default export has the class of --class.
        closed_loops(server, [b"", b"high"], depth=32, count=1500)
        report = server.stop()
    means = read_means(report)
    assert means["sq0"][0] == means["sq1"][0] == "high", means
    assert abs(means["sq0"][1] / means["sq1"][1] - 1) < 0.25, means


def test_an_unknown_export_is_refused_with_the_exports_served(tmp_path):
    small = ["--set", "flash.blocks_per_plane=16", "--set", "workload.precondition=none"]
    with Server(tmp_path, *small) as server:
        sock = greet(server)
        option(sock, OPT_GO, go_data(b"urgentt"))
        number, kind, message = option_reply(sock)
        assert (number, kind) == (OPT_GO, REP_ERR_UNKNOWN)
        assert b"urgent, high, medium, low" in message
        sock.close()
        server.stop()


SERVE = [sys.executable, "-m", "ssdtwin", "serve", "--nbd"]


def test_a_bad_default_class_is_a_clear_error(tmp_path):
    result = subprocess.run(
        [*SERVE, "--socket", str(tmp_path / "s"), "--class", "fast"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode != 0
    assert "--class `fast`: allowed: urgent, high, medium, low" in result.stderr
    assert "Traceback" not in result.stderr


def test_real_pace_reports_its_transport_and_never_replies_before_arrival(tmp_path):
    small = ["--set", "flash.blocks_per_plane=16", "--set", "workload.precondition=none"]
    with Server(tmp_path, *small, "--pace", "real") as server:
        sock, _ = connect(server)
        for handle in range(300):
            offset = (handle % 64) * 4096
            if handle % 2:
                request(sock, CMD_READ, offset, 4096, handle)
                assert reply(sock, 4096)[:2] == (0, handle)
            else:
                request(sock, CMD_WRITE, offset, 4096, handle, data=bytes([handle % 251]) * 4096)
                assert reply(sock)[:2] == (0, handle)
        sock.close()
        server.stop()
        log = server.log_text()
    match = re.search(
        r"server transport per request .*: mean ([\d.]+) us, p50 ([\d.]+) us over (\d+) requests; "
        r"([\d.]+) us subtracted .* (\d+) written before it",
        log,
    )
    assert match, log
    mean, p50, count, _, early = match.groups()
    assert float(mean) > 0
    assert float(p50) > 0
    assert int(count) == 300
    assert int(early) == 0
