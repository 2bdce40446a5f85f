"""A raw NBD client for the `ssdtwin serve --nbd` tests: the handshake's options, requests and
simple replies over a Unix socket, byte by byte as the protocol lays them out."""

from __future__ import annotations

import socket
import struct

from nbd_server import Server

OPTION_MAGIC = b"IHAVEOPT"
REPLY_MAGIC = 0x3E889045565A9
REQUEST_MAGIC = 0x25609513
SIMPLE_REPLY_MAGIC = 0x67446698
OPT_EXPORT_NAME, OPT_ABORT, OPT_LIST, OPT_STARTTLS, OPT_INFO, OPT_GO = 1, 2, 3, 5, 6, 7
OPT_STRUCTURED_REPLY = 8
REP_ACK, REP_SERVER, REP_INFO = 1, 2, 3
REP_ERROR = 1 << 31
REP_ERR_UNSUP, REP_ERR_POLICY, REP_ERR_INVALID, REP_ERR_UNKNOWN = (
    REP_ERROR + 1,
    REP_ERROR + 2,
    REP_ERROR + 3,
    REP_ERROR + 6,
)
INFO_EXPORT, INFO_BLOCK_SIZE = 0, 3
CMD_READ, CMD_WRITE, CMD_DISC, CMD_FLUSH, CMD_TRIM, CMD_WRITE_ZEROES = 0, 1, 2, 3, 4, 6
EINVAL, ENOSPC, EOVERFLOW = 22, 28, 75


def receive(sock: socket.socket, count: int) -> bytes:
    data = b""
    while len(data) < count:
        chunk = sock.recv(count - len(data))
        if not chunk:
            raise ConnectionError(f"closed after {len(data)} of {count} bytes")
        data += chunk
    return data


def closed(sock: socket.socket) -> bool:
    """The server closed the connection (reads end)."""
    sock.settimeout(10)
    try:
        return sock.recv(1) == b""
    except ConnectionResetError:
        return True


def greet(server: Server, flags: int = 3) -> socket.socket:
    """Connects and exchanges the greeting and client flags (fixed newstyle, no zeroes)."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(10)
    sock.connect(str(server.socket))
    greeting = receive(sock, 18)
    assert greeting[:16] == b"NBDMAGIC" + OPTION_MAGIC
    assert struct.unpack(">H", greeting[16:])[0] == 3  # fixed newstyle, no zeroes
    sock.sendall(struct.pack(">I", flags))
    return sock


def option(sock: socket.socket, number: int, data: bytes = b"") -> None:
    sock.sendall(OPTION_MAGIC + struct.pack(">II", number, len(data)) + data)


def option_reply(sock: socket.socket) -> tuple[int, int, bytes]:
    magic, number, kind, length = struct.unpack(">QIII", receive(sock, 20))
    assert magic == REPLY_MAGIC
    return number, kind, receive(sock, length)


def go_data(name: bytes = b"", requests: tuple[int, ...] = ()) -> bytes:
    return (
        struct.pack(">I", len(name))
        + name
        + struct.pack(">H", len(requests))
        + b"".join(struct.pack(">H", request) for request in requests)
    )


def connect(server: Server, name: bytes = b"") -> tuple[socket.socket, int]:
    """A connection to export `name` in transmission (through NBD_OPT_GO) and the export size."""
    sock = greet(server)
    option(sock, OPT_GO, go_data(name, requests=(INFO_BLOCK_SIZE,)))
    size = None
    while True:
        number, kind, data = option_reply(sock)
        assert number == OPT_GO
        if kind == REP_ACK:
            break
        assert kind == REP_INFO
        if struct.unpack(">H", data[:2])[0] == INFO_EXPORT:
            size = struct.unpack(">Q", data[2:10])[0]
    assert size is not None
    return sock, size


def request(sock: socket.socket, kind: int, offset: int, length: int, handle: int, flags: int = 0, data=b""):
    sock.sendall(struct.pack(">IHHQQI", REQUEST_MAGIC, flags, kind, handle, offset, length) + data)


def reply(sock: socket.socket, data_length: int = 0) -> tuple[int, int, bytes]:
    magic, error, handle = struct.unpack(">IIQ", receive(sock, 16))
    assert magic == SIMPLE_REPLY_MAGIC
    return error, handle, receive(sock, data_length) if error == 0 else b""
