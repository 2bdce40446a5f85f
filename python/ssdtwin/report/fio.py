"""The report in fio's JSON layout (`fio --output-format=json`), so tools that parse fio output read
ssdtwin results unchanged.

One entry of `jobs` per workload job (fio job, IIoT `ingest`/`query`, or the single synthetic or
trace stream), with `read`, `write` and `trim` in fio's units: `io_bytes` and `io_kbytes`, `bw`
in KiB/s, `bw_bytes` in B/s, `iops`, `runtime` in ms, `total_ios`, and `lat_ns`/`clat_ns`
(`min`, `max`, `mean`, `stddev`, `N`, `percentile` keyed like fio's `"99.990000"`). `lat_ns`
runs from a command's arrival at the host, `clat_ns` from its submission to the drive. The
numbers come from the core's `workload.jobs` report; nothing is computed here but unit changes.
Fields fio reports about the host (CPU use, submission latency, disk utilisation) are absent.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

FIO_LAYOUT_VERSION = "fio-3.36"
"""The fio release whose JSON layout this output follows."""


def _direction(data: Mapping[str, Any]) -> dict[str, Any]:
    io_bytes = int(data["io_bytes"])
    bw_kib = float(data["bw"])
    return {
        "io_bytes": io_bytes,
        "io_kbytes": io_bytes // 1024,
        "bw_bytes": round(bw_kib * 1024),
        "bw": round(bw_kib),
        "iops": float(data["iops"]),
        "runtime": int(data["runtime"]),
        "total_ios": int(data["total_ios"]),
        "short_ios": 0,
        "drop_ios": 0,
        "clat_ns": dict(data["clat_ns"]),
        "lat_ns": dict(data["lat_ns"]),
    }


def _empty_direction(runtime_ms: int) -> dict[str, Any]:
    latency = {"min": 0, "max": 0, "mean": 0.0, "stddev": 0.0, "N": 0, "percentile": {}}
    return {
        "io_bytes": 0,
        "io_kbytes": 0,
        "bw_bytes": 0,
        "bw": 0,
        "iops": 0.0,
        "runtime": runtime_ms,
        "total_ios": 0,
        "short_ios": 0,
        "drop_ios": 0,
        "clat_ns": dict(latency),
        "lat_ns": dict(latency),
    }


def _sync(flush: Mapping[str, Any] | None, runtime_ms: int) -> dict[str, Any]:
    """fio's `sync` block (fsync/fdatasync latencies) from the job's Flushes."""
    direction = _direction(flush) if flush else _empty_direction(runtime_ms)
    return {"total_ios": direction["total_ios"], "lat_ns": direction["lat_ns"]}


def to_fio_json(report: Mapping[str, Any], now: float | None = None) -> dict[str, Any]:
    """fio's JSON document for `report` (a report dict as `Report.to_dict()` gives it)."""
    stamp = time.time() if now is None else now
    jobs = []
    for group, job in enumerate(report["workload"]["jobs"]):
        runtime_ms = int(job["runtime_ms"])
        jobs.append(
            {
                "jobname": job["name"],
                "groupid": group,
                "error": 0,
                "eta": 0,
                "elapsed": -(-runtime_ms // 1000),
                "job options": {"iodepth": str(job["queue_depth"])},
                "read": _direction(job["read"]),
                "write": _direction(job["write"]),
                "trim": _direction(job["trim"]) if "trim" in job else _empty_direction(runtime_ms),
                "sync": _sync(job.get("flush"), runtime_ms),
                "job_runtime": runtime_ms,
            }
        )
    return {
        "fio version": FIO_LAYOUT_VERSION,
        "ssdtwin_version": report["ssdtwin_version"],
        "timestamp": int(stamp),
        "timestamp_ms": int(stamp * 1000),
        "time": time.strftime("%a %b %d %H:%M:%S %Y", time.gmtime(stamp)),
        "global options": {},
        "jobs": jobs,
    }
