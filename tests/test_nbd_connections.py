"""`ssdtwin serve --nbd` with several connections, each a submission queue of its own: the
virtual pace does not wait on a connection with nothing in flight once it has shown it is not a
closed loop (nbdfuse spreads one stream of requests over its connections in turn), requests of
any byte offset and length are served (a partial mapping unit is a read-modify-write), and the
session's log counts each connection's requests. Waits are counted in the server's log, never
timed."""

from __future__ import annotations

import re
import struct
import threading

from nbd_server import SMALL_DRIVE, Server
from nbd_wire import CMD_DISC, CMD_READ, CMD_WRITE, closed, connect, reply, request


def waits(log: str) -> tuple[int, int]:
    """The session's waits for a client's next request: (ran out of time, ended by another
    connection's request)."""
    match = re.search(r"(\d+) ran out of time, (\d+) ended by another connection's request", log)
    assert match, log
    return int(match.group(1)), int(match.group(2))


def per_connection(log: str) -> list[tuple[int, int]]:
    """Each connection's (reads, writes) from the session's closing lines."""
    return [
        (int(reads), int(writes))
        for reads, writes in re.findall(r"client \d+: (\d+) reads, (\d+) writes, \d+ trims", log)
    ]


def test_one_stream_spread_over_connections_is_answered_without_timed_waits(tmp_path):
    # nbdfuse's pattern: one request at a time, each on the next of its four connections. Each
    # connection, answered, has fewer requests in flight than before; before this was handled,
    # the drive waited 20 ms of wall time for each one's next request: one timed-out wait per
    # request (400 here). Now the next connection's request ends the wait at once, and a
    # connection is timed out at most once.
    count, connections = 400, 4
    with Server(tmp_path, *SMALL_DRIVE) as server:
        socks = [connect(server)[0] for _ in range(connections)]
        for index in range(count):
            sock = socks[index % connections]
            request(sock, CMD_WRITE, index * 4096, 4096, index, data=struct.pack(">I", index) * 1024)
            assert reply(sock) == (0, index, b"")
        # A busy client beside the four idle ones.
        busy, _ = connect(server)
        for index in range(count):
            request(busy, CMD_READ, index * 4096, 4096, index)
            assert reply(busy, 4096) == (0, index, struct.pack(">I", index) * 1024)
        for sock in [*socks, busy]:
            request(sock, CMD_DISC, 0, 0, 0)
            assert closed(sock)
        server.stop()
        log = server.log_text()
    timed_out, ended_by_others = waits(log)
    assert timed_out <= connections + 1, log
    assert ended_by_others >= 1
    assert sorted(per_connection(log)) == sorted([(0, count // connections)] * connections + [(count, 0)])


def test_closed_loops_on_several_connections_keep_their_lockstep(tmp_path):
    # fio's numjobs at iodepth 1: each connection sends its next request as soon as it is
    # answered, while the others have requests in flight. No wait for them may be ended by
    # another connection's request (the drive would run ahead of a closed loop), unless a wait ran
    # out of time first (a stall of this machine longer than 20 ms).
    count, connections = 300, 3
    with Server(tmp_path, *SMALL_DRIVE) as server:
        socks = [connect(server)[0] for _ in range(connections)]
        failures: list[BaseException] = []

        def closed_loop(number: int) -> None:
            sock = socks[number]
            try:
                for index in range(count):
                    offset = (number * count + index) * 4096
                    request(sock, CMD_WRITE, offset, 4096, index, data=bytes([number + 1]) * 4096)
                    assert reply(sock) == (0, index, b"")
            except BaseException as error:  # reported by the test's thread
                failures.append(error)

        threads = [threading.Thread(target=closed_loop, args=(number,)) for number in range(connections)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=120)
        assert not failures, failures
        for sock in socks:
            sock.close()
        server.stop()
        log = server.log_text()
    timed_out, ended_by_others = waits(log)
    assert ended_by_others == 0 or timed_out > 0, log
    assert sorted(per_connection(log)) == [(0, count)] * connections


def test_requests_at_any_byte_offset_read_back_and_partial_units_are_read_modify_writes(tmp_path):
    with Server(tmp_path, *SMALL_DRIVE) as server:
        sock, _ = connect(server)
        # (offset, length): inside one unit, across units with both ends partial, odd bytes.
        writes = [(4096 + 512, 512), (1000, 3 * 4096 + 100 - 1000), (5 * 4096 + 3, 7), (8 * 4096, 4096)]
        image = bytearray(9 * 4096)
        for handle, (offset, length) in enumerate(writes):
            data = bytes((handle * 37 + byte) % 251 + 1 for byte in range(length))
            image[offset : offset + length] = data
            request(sock, CMD_WRITE, offset, length, handle, data=data)
            assert reply(sock) == (0, handle, b"")
        request(sock, CMD_READ, 0, len(image), 10)
        assert reply(sock, len(image)) == (0, 10, bytes(image))
        request(sock, CMD_READ, 4096 + 511, 3, 11)
        assert reply(sock, 3) == (0, 11, bytes(image[4096 + 511 : 4096 + 514]))
        sock.close()
        report = server.stop()
        log = server.log_text()
    # Units written in part: unit 1 by the first write, units 0 and 3 by the second, unit 5 by
    # the third; none by the aligned fourth. The core served each as a read-modify-write.
    assert "4 partial-unit writes (read-modify-writes)" in log
    assert report["ftl"]["read_modify_writes"]["partial_units"] == 4
    # Unit 1 held the first write's data when the second covered it whole; units 0, 3 and 5 were
    # never written: no old data to read, so the model saw only the client's two reads.
    assert report["latency_us"]["read"]["count"] == 2
    assert report["ftl"]["read_modify_writes"]["flash_reads"] == 0
    # The host bytes count the bytes sent, not the whole units.
    assert report["ftl"]["host_write_bytes"] == sum(length for _, length in writes)
    # Each write wrote every unit it touched: 1 + 4 + 1 + 1 units in 4 commands.
    assert report["latency_us"]["write"]["count"] == 4
