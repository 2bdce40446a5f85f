"""Writes the small block traces shipped in traces/, one per trace format ssdtwin reads.

    python traces/make_traces.py            # rewrites the files beside this script

Every file holds the same 1,000 requests, so replaying any of them gives the same commands: a
synthetic OLTP-like mix (not a recorded trace) of 65% reads, 4 KiB to 64 KiB requests aligned to
4 KiB on a 4 GiB traced device, four in five of them in its first 20% (hot data), arriving 0 to
400 us apart. The numbers come from a 64-bit linear congruential generator in integer
arithmetic, so the files are identical on every machine and Python version. Times are whole
microseconds, which every format represents exactly.
"""

from __future__ import annotations

from pathlib import Path

REQUESTS = 1_000
DEVICE_BYTES = 4 << 30
UNIT = 4096
# Request sizes in 4 KiB units and their weights out of 100.
SIZES = ((1, 60), (2, 25), (4, 10), (16, 5))
READ_PERCENT = 65
HOT_PERCENT = 80
HOT_BYTES = DEVICE_BYTES // 5


class Lcg:
    """Knuth's MMIX linear congruential generator; `below(n)` uses the high 32 bits."""

    def __init__(self, seed: int) -> None:
        self.state = seed & (2**64 - 1)

    def below(self, n: int) -> int:
        self.state = (6364136223846793005 * self.state + 1442695040888963407) % 2**64
        return ((self.state >> 32) * n) >> 32


def size_units(pick: int) -> int:
    """The request size [4 KiB units] that `pick` (0 to 99) selects from SIZES."""
    for units, weight in SIZES:
        if pick < weight:
            return units
        pick -= weight
    raise ValueError(f"pick {pick} is past the weights")


def requests(seed: int = 2026) -> list[tuple[int, bool, int, int, int]]:
    """(time_us, is_read, offset_bytes, length_bytes, service_us) for each request, in time order."""
    rng = Lcg(seed)
    out = []
    time_us = 0
    for _ in range(REQUESTS):
        length = size_units(rng.below(100)) * UNIT
        region = HOT_BYTES if rng.below(100) < HOT_PERCENT else DEVICE_BYTES
        offset = rng.below((region - length) // UNIT + 1) * UNIT
        is_read = rng.below(100) < READ_PERCENT
        service_us = 80 + rng.below(900)
        out.append((time_us, is_read, offset, length, service_us))
        # one gap in ten is a burst (0-4 us), the others 20-400 us
        time_us += rng.below(5) if rng.below(10) == 0 else 20 + rng.below(381)
    return out


def seconds(time_us: int, digits: int) -> str:
    """`time_us` as decimal seconds with `digits` fraction digits (exact: digits >= 6)."""
    text = f"{time_us:07d}"
    return f"{int(text[:-6])}.{text[-6:]}{'0' * (digits - 6)}"


def msr(reqs) -> str:
    # Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime; time in 100 ns ticks (Windows
    # filetime, so an absolute date: 2008-02-22 as in the MSR Cambridge traces)
    base = 128_480_000_000_000_000
    lines = [
        f"{base + t * 10},ssdtwin,0,{'Read' if r else 'Write'},{o},{n},{s * 10}" for t, r, o, n, s in reqs
    ]
    return "\n".join(lines) + "\n"


def spc(reqs) -> str:
    # ASU,LBA,Size,Opcode,Timestamp; LBA in 512 B blocks, size in bytes, time in seconds
    lines = [f"0,{o // 512},{n},{'r' if r else 'w'},{seconds(t, 6)}" for t, r, o, n, _ in reqs]
    return "\n".join(lines) + "\n"


def blkparse(reqs) -> str:
    # maj,min cpu seq time pid action RWBS sector + sectors [proc]: a Q (queued) and a C
    # (completed) event per request, merged in time order
    events = []
    for index, (t, r, o, n, s) in enumerate(reqs):
        rwbs = "R" if r else "W"
        events.append((t, 0, index, f"4242  Q  {rwbs} {o // 512} + {n // 512} [fio]"))
        events.append((t + s, 1, index, f"   0  C  {rwbs} {o // 512} + {n // 512} [0]"))
    events.sort()
    lines = [
        f"  8,16   {index % 2} {seq:8d} {seconds(t, 9):>14} {text}"
        for seq, (t, _, index, text) in enumerate(events, start=1)
    ]
    return "\n".join(lines) + "\n"


def disksim(reqs) -> str:
    # time device lba size type: time in ns (MQSim), lba and size in 512 B sectors, 1 read 0 write
    lines = [f"{t * 1000} 0 {o // 512} {n // 512} {1 if r else 0}" for t, r, o, n, _ in reqs]
    return "\n".join(lines) + "\n"


def fio_v2(reqs) -> str:
    # filename action offset length; `wait` pauses for its offset field in microseconds
    lines = ["fio version 2 iolog", "/dev/nvme0n1 add", "/dev/nvme0n1 open"]
    clock = 0
    for t, r, o, n, _ in reqs:
        if t > clock:
            lines.append(f"/dev/nvme0n1 wait {t - clock}")
            clock = t
        lines.append(f"/dev/nvme0n1 {'read' if r else 'write'} {o} {n}")
    lines.append("/dev/nvme0n1 close")
    return "\n".join(lines) + "\n"


def fio_v3(reqs) -> str:
    # timestamp filename action offset length; timestamp in microseconds since the log started
    lines = ["fio version 3 iolog", "0 /dev/nvme0n1 add", "0 /dev/nvme0n1 open"]
    lines += [f"{t} /dev/nvme0n1 {'read' if r else 'write'} {o} {n}" for t, r, o, n, _ in reqs]
    lines.append(f"{reqs[-1][0]} /dev/nvme0n1 close")
    return "\n".join(lines) + "\n"


# file name -> (format key of [workload.trace], writer)
FILES = {
    "msr-small.csv": ("msr", msr),
    "spc-small.csv": ("spc", spc),
    "blkparse-small.txt": ("blkparse", blkparse),
    "disksim-small.trace": ("disksim", disksim),
    "fio-v2-small.iolog": ("fio_iolog", fio_v2),
    "fio-v3-small.iolog": ("fio_iolog", fio_v3),
}


def texts() -> dict[str, str]:
    """Each shipped file's name and content."""
    reqs = requests()
    return {name: write(reqs) for name, (_, write) in FILES.items()}


if __name__ == "__main__":
    folder = Path(__file__).resolve().parent
    for name, text in texts().items():
        (folder / name).write_text(text)
        print(f"{folder / name}: {text.count(chr(10))} lines")
