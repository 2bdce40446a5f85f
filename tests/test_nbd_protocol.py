"""`ssdtwin serve --nbd` against malformed and unusual input over raw sockets: the handshake's
options (supported, unsupported, malformed), requests out of range, oversized or unknown, clients
that vanish in mid-request, and power cuts. Each gets the NBD error the protocol names or a
closed connection and a log line; the server keeps serving and its memory does not grow."""

from __future__ import annotations

import re
import socket
import struct

import pytest

from nbd_server import SMALL_DRIVE, Server
from nbd_wire import (
    CMD_DISC,
    CMD_FLUSH,
    CMD_READ,
    CMD_TRIM,
    CMD_WRITE,
    CMD_WRITE_ZEROES,
    EINVAL,
    ENOSPC,
    EOVERFLOW,
    INFO_BLOCK_SIZE,
    OPT_ABORT,
    OPT_EXPORT_NAME,
    OPT_GO,
    OPT_INFO,
    OPT_LIST,
    OPT_STARTTLS,
    OPT_STRUCTURED_REPLY,
    OPTION_MAGIC,
    REP_ACK,
    REP_ERR_INVALID,
    REP_ERR_POLICY,
    REP_ERR_UNKNOWN,
    REP_ERR_UNSUP,
    REP_INFO,
    REP_SERVER,
    REQUEST_MAGIC,
    closed,
    connect,
    go_data,
    greet,
    option,
    option_reply,
    receive,
    reply,
    request,
)


def unread_acknowledgements(sock: socket.socket) -> list[int]:
    """Handles of the successful replies the server sent before a power cut dropped the
    connection and the client had not read yet: acknowledged by the drive all the same."""
    handles = []
    try:
        while True:
            error, handle, _ = reply(sock)
            if error == 0:
                handles.append(handle)
    except (ConnectionError, OSError, AssertionError):
        return handles


def test_options_get_their_replies_and_unsupported_ones_are_refused(tmp_path):
    with Server(tmp_path, *SMALL_DRIVE) as server:
        sock = greet(server)
        option(sock, OPT_LIST)
        # The default export, then one per priority class (the same drive, a queue of that class).
        for name in (b"ssdtwin", b"urgent", b"high", b"medium", b"low"):
            assert option_reply(sock) == (OPT_LIST, REP_SERVER, struct.pack(">I", len(name)) + name)
        assert option_reply(sock) == (OPT_LIST, REP_ACK, b"")
        option(sock, OPT_LIST, b"junk")
        assert option_reply(sock)[1] == REP_ERR_INVALID
        for unsupported in (OPT_STRUCTURED_REPLY, 99, 0xFFFFFFFF):
            option(sock, unsupported, b"abc")
            assert option_reply(sock)[:2] == (unsupported, REP_ERR_UNSUP)
        option(sock, OPT_STARTTLS)
        assert option_reply(sock)[1] == REP_ERR_POLICY
        option(sock, OPT_INFO, go_data(b"no-such-export"))
        assert option_reply(sock)[1] == REP_ERR_UNKNOWN
        for malformed in (
            b"",
            b"\x00\x00",
            struct.pack(">I", 1000) + b"ab",
            go_data(b"a\x00b"),
            go_data() + b"x",
        ):
            option(sock, OPT_GO, malformed)
            assert option_reply(sock)[1] == REP_ERR_INVALID, malformed
        option(sock, OPT_INFO, go_data(b"ssdtwin", (INFO_BLOCK_SIZE,)))
        infos = {}
        while (answer := option_reply(sock))[1] == REP_INFO:
            infos[struct.unpack(">H", answer[2][:2])[0]] = answer[2][2:]
        assert answer[1] == REP_ACK
        assert struct.unpack(">III", infos[INFO_BLOCK_SIZE]) == (1, 4096, 4 * 1024 * 1024)
        option(sock, OPT_ABORT)
        assert option_reply(sock) == (OPT_ABORT, REP_ACK, b"")
        sock.close()
        # NBD_OPT_EXPORT_NAME: size, flags, no zero padding (the client asked for none).
        sock = greet(server)
        option(sock, OPT_EXPORT_NAME, b"")
        size, flags = struct.unpack(">QH", receive(sock, 10))
        assert size > 0
        assert flags & 1
        request(sock, CMD_WRITE, 0, 4096, handle=1, data=b"\x5a" * 4096)
        assert reply(sock)[:2] == (0, 1)
        request(sock, CMD_READ, 0, 4096, handle=2)
        assert reply(sock, 4096) == (0, 2, b"\x5a" * 4096)
        request(sock, CMD_DISC, 0, 0, handle=3)
        assert closed(sock)
        server.stop()


def test_broken_handshakes_close_the_connection_and_the_server_goes_on(tmp_path):
    with Server(tmp_path, *SMALL_DRIVE) as server:
        sock = greet(server, flags=0x80)  # unknown client flag
        assert closed(sock)
        sock = greet(server)
        sock.sendall(b"NOTMAGIC" + struct.pack(">II", OPT_GO, 0))
        assert closed(sock)
        sock = greet(server)
        sock.sendall(OPTION_MAGIC + struct.pack(">II", OPT_GO, 1 << 30))  # option data of 1 GiB
        assert option_reply(sock)[1] == (1 << 31) + 9  # NBD_REP_ERR_TOO_BIG
        assert closed(sock)
        sock = greet(server)
        option(sock, OPT_EXPORT_NAME, b"unknown")
        assert closed(sock)
        for partial in (b"", b"NBD", OPTION_MAGIC + b"\x00\x00"):
            sock = greet(server)
            sock.sendall(partial)
            sock.close()
        sock, _ = connect(server)
        request(sock, CMD_FLUSH, 0, 0, handle=9)
        assert reply(sock) == (0, 9, b"")
        sock.close()
        log = server.log_text()
        report = server.stop()
    assert "unknown client flags" in log
    assert "is not IHAVEOPT" in log
    assert "unknown export `unknown`" in log
    assert report["host_ios"] == 0


def test_bad_requests_get_nbd_errors_and_the_connection_stays_usable(tmp_path):
    with Server(tmp_path, *SMALL_DRIVE) as server:
        sock, size = connect(server)
        cases = [
            (CMD_READ, size, 4096, 0, EINVAL),  # beyond the end
            (CMD_READ, (1 << 64) - 512, 4096, 0, EINVAL),  # offset + length overflows
            (CMD_READ, 0, 8 * 1024 * 1024, 0, EOVERFLOW),  # longer than the maximum block
            (CMD_TRIM, size - 512, 1024, 0, ENOSPC),
            (CMD_FLUSH, 0, 4096, 0, EINVAL),
            (CMD_READ, 0, 4096, 1, EINVAL),  # FUA on a read
            (77, 0, 4096, 0, EINVAL),  # unknown command
        ]
        for handle, (kind, offset, length, flags, error) in enumerate(cases):
            request(sock, kind, offset, length, handle, flags)
            assert reply(sock) == (error, handle, b""), (kind, offset, length)
        # A refused write still has its payload read, so the stream stays in step.
        request(sock, CMD_WRITE, size - 512, 1024, 51, data=b"\x01" * 1024)
        assert reply(sock) == (ENOSPC, 51, b"")
        # TRIM and WRITE_ZEROES read back zeros.
        request(sock, CMD_WRITE, 8192, 8192, 60, data=b"\x77" * 8192)
        assert reply(sock)[0] == 0
        request(sock, CMD_TRIM, 8192, 4096, 61)
        assert reply(sock)[0] == 0
        request(sock, CMD_WRITE_ZEROES, 12288 + 512, 1024, 62, flags=2)  # NO_HOLE: written
        assert reply(sock)[0] == 0
        request(sock, CMD_READ, 8192, 8192, 63)
        expected = b"\x00" * 4096 + b"\x77" * 512 + b"\x00" * 1024 + b"\x77" * 2560
        assert reply(sock, 8192) == (0, 63, expected)
        request(sock, CMD_WRITE, 0, 4096, 64, flags=1, data=b"\x33" * 4096)  # FUA
        assert reply(sock)[:2] == (0, 64)
        request(sock, CMD_DISC, 0, 0, 65)
        assert closed(sock)
        report = server.stop()
    # Only the valid reads and writes reached the model: 8 KiB + 1 KiB + 4 KiB written, 8 KiB
    # read. The 1 KiB write covers part of a unit written before: the core's read-modify-write
    # took the unit's old data (from DRAM or flash), not a host read of its own.
    assert report["latency_us"]["write"]["count"] == 3
    assert report["latency_us"]["read"]["count"] == 1
    rmw = report["ftl"]["read_modify_writes"]
    assert rmw["partial_units"] == 1
    assert rmw["flash_reads"] + rmw["in_dram"] == 1
    # The TRIM deallocated its one mapping unit (4 KiB) in the model.
    assert report["ftl"]["trimmed_units"] == 1


def test_clients_that_vanish_or_send_garbage_do_not_crash_or_grow_the_server(tmp_path):
    with Server(tmp_path, *SMALL_DRIVE) as server:
        first = None
        for round_number in range(60):
            sock, _ = connect(server)
            if round_number % 3 == 0:
                # A write header announcing 4 MiB, then the client vanishes after 1 KiB.
                request(sock, CMD_WRITE, 0, 4 * 1024 * 1024, 1, data=b"\x01" * 1024)
                sock.close()
            elif round_number % 3 == 1:
                # A write longer than the maximum block: the stream cannot be kept, closed.
                request(sock, CMD_WRITE, 0, 0xFFFFFFFF, 2)
                assert closed(sock)
            else:
                sock.sendall(b"\xde\xad\xbe\xef" * 7)  # a request with a bad magic
                assert closed(sock)
            if round_number == 9:
                first = server.rss_kib()
        sock, _ = connect(server)
        request(sock, CMD_WRITE, 4096, 4096, 7, data=b"\x42" * 4096)
        assert reply(sock)[0] == 0
        request(sock, CMD_READ, 4096, 4096, 8)
        assert reply(sock, 4096) == (0, 8, b"\x42" * 4096)
        sock.close()
        assert server.alive()
        last = server.rss_kib()
        log = server.log_text()
        server.stop()
    assert first is not None
    assert last - first < 16 * 1024, (first, last)
    assert "disconnected in the middle of a write's data" in log
    assert "more than the 4194304 advertised" in log
    assert "is not NBD_REQUEST_MAGIC" in log


def test_a_deep_pipeline_is_answered_in_full_with_bounded_requests_in_flight(tmp_path):
    with Server(tmp_path, *SMALL_DRIVE) as server:
        sock, _ = connect(server)
        count = 3000  # more than the 1024 requests a client may have in flight
        sock.sendall(
            b"".join(
                struct.pack(">IHHQQI", REQUEST_MAGIC, 0, CMD_READ, handle, handle * 4096, 512)
                for handle in range(count)
            )
        )
        handles = set()
        for _ in range(count):
            error, handle, data = reply(sock, 512)
            assert error == 0
            assert data == bytes(512)
            handles.add(handle)
        assert handles == set(range(count))
        sock.close()
        report = server.stop()
    assert report["latency_us"]["read"]["count"] == count


@pytest.mark.parametrize("capacitance_uf", [1000, 10])
def test_a_power_loss_keeps_acknowledged_writes_except_the_reported_lost_ones(tmp_path, capacitance_uf):
    # 1000 uF (the default) holds the energy to save every acknowledged write; 10 uF saves none.
    capacitance = ["--set", f"plp.capacitance={capacitance_uf}"]
    with Server(tmp_path, *SMALL_DRIVE, *capacitance, "--power-loss-at", "400us") as server:
        sock, _ = connect(server)
        pattern = lambda index: struct.pack(">I", index + 1) * 1024  # noqa: E731
        offset = lambda index: index * 7 * 4096  # noqa: E731
        acknowledged, sent = [], 0
        try:
            while sent < 32:
                request(sock, CMD_WRITE, offset(sent), 4096, sent, data=pattern(sent))
                sent += 1
            while sent < 5000:
                error, handle, _ = reply(sock)
                assert error == 0
                acknowledged.append(handle)
                request(sock, CMD_WRITE, offset(sent), 4096, sent, data=pattern(sent))
                sent += 1
        except (ConnectionError, OSError):
            pass  # the power loss dropped the connection
        acknowledged += unread_acknowledgements(sock)
        assert sent < 5000, "the power loss should have cut the session"
        log = server.log_text()
        match = re.search(r"power lost at .*lost LBAs \(4096 B units\): \[([0-9,]*)\]", log)
        assert match, log
        lost = {int(lba) for lba in match.group(1).split(",") if lba}
        # The drive serves again: every acknowledged write reads back, except the lost ones.
        sock, _ = connect(server)
        for index in acknowledged:
            request(sock, CMD_READ, offset(index), 4096, index)
            error, handle, data = reply(sock, 4096)
            assert (error, handle) == (0, index)
            # Each unit was written once: a lost one reads its previous data, zeros.
            expected = bytes(4096) if offset(index) // 4096 in lost else pattern(index)
            assert data == expected, index
        sock.close()
        report = server.stop()
    (event,) = report["power_loss"]["events"]
    assert set(event["lost_lbas"]) == lost
    acknowledged_units = {offset(index) // 4096 for index in acknowledged}
    assert lost <= acknowledged_units, lost - acknowledged_units
    assert len(acknowledged) > 32
    unflushed = int(re.search(r"(\d+) acknowledged writes not on flash", log).group(1))
    assert unflushed > 0
    if capacitance_uf == 10:
        assert lost
    else:
        assert not lost


def test_lost_units_read_their_last_durable_version_after_a_power_cut(tmp_path):
    # Without power-loss protection (10 uF), 4096 units are written (old data) and flushed, so
    # they are on flash; then they are overwritten one by one at queue depth 32 (new data) until
    # the power fails at 14 ms of simulated time (the first stage ends near 9.5 ms, the
    # overwrites near 19 ms). The units the model reports lost read their old data, as a drive
    # returns the last version it programmed; every other acknowledged overwrite reads new data.
    old = lambda unit: struct.pack(">I", unit | 0x40000000) * 1024  # noqa: E731
    new = lambda unit: struct.pack(">I", unit | 0x80000000) * 1024  # noqa: E731
    units, chunk = 4096, 1024
    arguments = ["--set", "plp.capacitance=10", "--power-loss-at", "14ms"]
    with Server(tmp_path, *SMALL_DRIVE, *arguments) as server:
        sock, _ = connect(server)
        for first in range(0, units, chunk):
            data = b"".join(old(unit) for unit in range(first, first + chunk))
            request(sock, CMD_WRITE, first * 4096, chunk * 4096, first, data=data)
            assert reply(sock) == (0, first, b"")
        request(sock, CMD_FLUSH, 0, 0, 1)
        assert reply(sock) == (0, 1, b"")
        assert "power lost" not in server.log_text(), "the cut came before the overwrites"
        acknowledged, sent = [], 0
        try:
            while sent < units:
                if sent >= 32:
                    error, handle, _ = reply(sock)
                    assert error == 0
                    acknowledged.append(handle)
                request(sock, CMD_WRITE, sent * 4096, 4096, sent, data=new(sent))
                sent += 1
        except (ConnectionError, OSError):
            pass  # the power loss dropped the connection
        acknowledged += unread_acknowledgements(sock)
        assert sent < units, "the power loss should have come during the overwrites"
        log = server.log_text()
        match = re.search(r"lost LBAs \(4096 B units\): \[([0-9,]*)\]", log)
        assert match, log
        lost = {int(lba) for lba in match.group(1).split(",") if lba}
        sock, _ = connect(server)
        for unit in acknowledged:
            request(sock, CMD_READ, unit * 4096, 4096, unit)
            assert reply(sock, 4096) == (0, unit, old(unit) if unit in lost else new(unit)), unit
        sock.close()
        server.stop()
    assert lost
    assert lost <= set(acknowledged)
    assert f"{len(lost)} lost units read their last durable version" in log
