"""The measurement protocol: the fio job file `ssdtwin calibrate --protocol` writes, and the names
of its jobs, which tell the fit what each measured job was (docs/calibration.md).

Job names (one fio job each, run one after the other with `stonewall`):

    precondition_fill1, precondition_fill2   sequential 128 KiB writes over the whole region, twice
    seqread_128k_qd<N>, seqwrite_128k_qd<N>  128 KiB sequential reads / writes at queue depth N,
                                             on the sequentially filled drive
    precondition_random1, precondition_random2
                                             4 KiB random writes over the region, twice, QD 32
                                             (SNIA PTS workload-dependent preconditioning)
    randread_4k_qd<N>                        4 KiB random reads at queue depth N
    randwrite_4k_qd<N>                       4 KiB random writes at queue depth N
    mix<R>_4k_qd<N>                          4 KiB random, R % reads, the rest writes
    steady_randwrite_4k_qd<N>                the sustained 4 KiB random write (GC steady state)

A job named `<kind>_<size>k_qd<N>` of those kinds is recognised whatever its numbers; the fit
skips `precondition_*` jobs and reports any other name it does not know.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

QUEUE_DEPTHS = (1, 2, 4, 8, 16, 32, 64, 128, 256)
"""The queue depths of the 4 KiB random read and write grid."""
SEQUENTIAL_QD = 32
MIX_QD = 32
MIX_READ_PERCENT = 70
PERCENTILES = (1, 5, 10, 25, 50, 75, 90, 95, 99, 99.5, 99.9, 99.99)
"""fio's `percentile_list` of the protocol."""
STEADY_RUNTIME_FACTOR = 20
"""The sustained random write runs this many times `--runtime`."""

_NAME = re.compile(r"^(randread|randwrite|seqread|seqwrite|mix(\d{1,3})|steady_randwrite)_(\d+)k_qd(\d+)$")
PRECONDITION_PREFIX = "precondition_"


@dataclass(frozen=True)
class Workload:
    """What a measured job did, read from its name."""

    name: str
    kind: str
    """randread, randwrite, seqread, seqwrite, mix or steady_randwrite."""
    block_kib: int
    queue_depth: int
    read_percent: int
    """Share of reads, 0 to 100."""

    @property
    def sequential(self) -> bool:
        return self.kind.startswith("seq")

    @property
    def directions(self) -> tuple[str, ...]:
        """The fio result sections (`read`, `write`) the job's figures are in."""
        if self.read_percent == 100:
            return ("read",)
        if self.read_percent == 0:
            return ("write",)
        return ("read", "write")


def parse_name(name: str) -> Workload | None:
    """The workload of a job name of the protocol's scheme, or None for any other name."""
    match = _NAME.match(name)
    if match is None:
        return None
    kind, mix, size, depth = match.groups()
    if mix is not None:
        kind, read_percent = "mix", int(mix)
        if read_percent > 100:
            return None
    else:
        read_percent = 100 if kind.endswith("read") else 0
    queue_depth = int(depth)
    if queue_depth < 1 or int(size) < 1:
        return None
    return Workload(name, kind, int(size), queue_depth, read_percent)


def protocol_jobs() -> list[Workload]:
    """The measured jobs of the protocol, in the order they run."""
    names = [f"seqread_128k_qd{SEQUENTIAL_QD}", f"seqwrite_128k_qd{SEQUENTIAL_QD}"]
    names += [f"randread_4k_qd{qd}" for qd in QUEUE_DEPTHS]
    names += [f"randwrite_4k_qd{qd}" for qd in QUEUE_DEPTHS]
    names += [f"mix{MIX_READ_PERCENT}_4k_qd{MIX_QD}", "steady_randwrite_4k_qd32"]
    return [workload for workload in map(parse_name, names) if workload is not None]


def _job_options(workload: Workload, runtime_s: int) -> list[str]:
    rw = {
        "randread": "randread",
        "randwrite": "randwrite",
        "seqread": "read",
        "seqwrite": "write",
        "mix": "randrw",
        "steady_randwrite": "randwrite",
    }[workload.kind]
    lines = [f"rw={rw}", f"bs={workload.block_kib}k", f"iodepth={workload.queue_depth}"]
    if workload.kind == "mix":
        lines.append(f"rwmixread={workload.read_percent}")
    runtime = runtime_s * (STEADY_RUNTIME_FACTOR if workload.kind == "steady_randwrite" else 1)
    lines += ["time_based", f"runtime={runtime}s"]
    return lines


def protocol_text(device: str, size: str, runtime_s: int, engine: str = "libaio") -> str:
    """The fio job file of the protocol for `device`, over `size` of it (fio's `size`: bytes with a
    unit or a percentage), each measured job running `runtime_s` seconds."""
    percentiles = ":".join(f"{value:g}" for value in PERCENTILES)
    measured = protocol_jobs()
    total_min = (runtime_s * (len(measured) - 1 + STEADY_RUNTIME_FACTOR)) / 60
    lines = [
        "; ssdtwin calibrate --protocol: the measurement protocol of docs/calibration.md.",
        f"; WARNING: it WRITES {'ALL' if size == '100%' else size} OF {device}: the data there is lost.",
        ";",
        "; Run (as root, the drive idle, nothing mounted on it), then fit:",
        ";   fio --output-format=json --output=measure.json measure.fio",
        ";   ssdtwin calibrate measure.json --base PRESET -o mydrive.toml",
        ";",
        f"; Measured jobs: {len(measured)}, about {total_min:.0f} min after the preconditioning (two",
        "; sequential fills of the region plus a random-write pass of twice its size). Job names tell",
        "; the fit what each job is: <kind>_<block>k_qd<N> (docs/calibration.md, 'Job names').",
        "",
        "[global]",
        f"filename={device}",
        f"ioengine={engine}",
        "direct=1",
        f"size={size}",
        "norandommap",
        "randrepeat=0",
        "group_reporting",
        f"percentile_list={percentiles}",
        "",
        "; SNIA PTS preconditioning: workload-independent (the region written sequentially twice)",
        "[precondition_fill1]",
        "stonewall",
        "rw=write",
        "bs=128k",
        "iodepth=32",
        "",
        "[precondition_fill2]",
        "stonewall",
        "rw=write",
        "bs=128k",
        "iodepth=32",
        "",
    ]
    sequential = [workload for workload in measured if workload.sequential]
    lines += ["; the sequential jobs, on the sequentially written drive", ""]
    for workload in sequential:
        lines += [f"[{workload.name}]", "stonewall", *_job_options(workload, runtime_s), ""]
    lines += ["; workload-dependent preconditioning: 4 KiB random writes, twice the region's size in all"]
    for index in (1, 2):
        lines += [f"[precondition_random{index}]", "stonewall", "rw=randwrite", "bs=4k", "iodepth=32", ""]
    for workload in measured:
        if workload.sequential:
            continue
        lines += [f"[{workload.name}]", "stonewall", *_job_options(workload, runtime_s), ""]
    return "\n".join(lines)


_SIZE = re.compile(r"^(\d+(?:\.\d+)?)\s*(%|[kmgtp]i?b?|b)?$", re.IGNORECASE)


def check_size(size: str) -> str:
    """`size` as fio reads it (`100%`, `64g`, `500GiB`); a ValueError names what is allowed."""
    if _SIZE.match(size.strip()) is None:
        raise ValueError(
            f"--size {size!r}: give a percentage of the device (100%) or bytes with a unit (64g)"
        )
    return size.strip()
