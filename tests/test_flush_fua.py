"""Flush and FUA (docs/models/dram_buffer_plp.md, "Flush and FUA") as a user meets them: the
synthetic workload's `flush_every` and `fua_fraction`, fio's `fsync`, NBD's FLUSH and FUA flag,
the report's `durability` block, fio's `sync` block and the summary line."""

from __future__ import annotations

import io
import json

import pytest
from rich.console import Console

import ssdtwin
from conftest import SMALL
from nbd_server import SMALL_DRIVE, Server
from nbd_wire import CMD_DISC, CMD_FLUSH, CMD_WRITE, closed, connect, reply, request
from ssdtwin.report.fio import to_fio_json
from ssdtwin.report.text import print_summary

# Writes only, a Flush after every 16 writes.
FLUSHED = {**SMALL, "workload.read_fraction": 0.0, "workload.io_count": 4_000, "workload.flush_every": 16}
UNPROTECTED = {"plp.capacitance": 0}


def summary(report: ssdtwin.Report) -> str:
    console = Console(file=io.StringIO(), width=200)
    print_summary(report, console)
    return console.file.getvalue()


def test_flushes_wait_for_programs_only_without_protection():
    protected = ssdtwin.run(**FLUSHED)
    unprotected = ssdtwin.run(**FLUSHED, **UNPROTECTED)
    for report in (protected, unprotected):
        # 4,000 commands, every 17th a Flush: 235 Flushes, which are not I/Os of IOPS.
        assert report.durability["flushes"] == 4_000 // 17
        assert report.workload["jobs"][0]["flush"]["total_ios"] == 4_000 // 17
        assert report.host_ios == 4_000 - 4_000 // 17
    assert protected.durability["protected"] is True
    assert protected.durability["waited"] == 0
    assert unprotected.durability["protected"] is False
    assert unprotected.durability["waited"] > 0
    flush_lat = lambda report: report.workload["jobs"][0]["flush"]["lat_ns"]["mean"]  # noqa: E731
    # Each waiting Flush costs at least one program of the partly filled page (t_PROG 2 ms on
    # enterprise_tlc's lower page is the shortest; 1 ms here to leave the margin of the page types).
    assert flush_lat(unprotected) > 1_000_000
    assert flush_lat(protected) < 50_000
    # Forced partial pages: 3,765 writes fill 942 pages of 4 units; flushing every 16 writes
    # programs many pages partly filled (their empty slots are lost space until GC).
    assert protected.flash["programs"] == -(-3_765 // 4)
    assert unprotected.flash["programs"] > 1.5 * protected.flash["programs"]
    assert unprotected.iops < protected.iops
    assert "Flush/FUA (unprotected): 235 flushes" in summary(unprotected)
    assert "Flush/FUA (protected: at once): 235 flushes" in summary(protected)
    assert "Flush/FUA" not in summary(ssdtwin.run(**SMALL))


def test_fua_writes_complete_once_programmed_without_protection():
    base = {**SMALL, "workload.read_fraction": 0.0, "workload.io_count": 3_000, **UNPROTECTED}
    plain = ssdtwin.run(**base)
    fua = ssdtwin.run(**base, **{"workload.fua_fraction": 0.1})
    assert "durability" not in plain.to_dict()
    assert 200 < fua.durability["fua_writes"] < 400  # 10% of 3,000 writes
    assert fua.latency_us["write"]["p99"] > 1_000 > plain.latency_us["write"]["p50"]


def test_fio_fsync_sends_a_flush_every_n_writes_and_fio_json_has_its_sync_block(tmp_path):
    (tmp_path / "sync.fio").write_text("[w]\nrw=randwrite\nbs=4k\nsize=64m\nnumber_ios=600\nfsync=8\n")
    scenario = tmp_path / "s.toml"
    scenario.write_text('[workload]\nkind = "fio"\n[workload.fio]\njob = "sync.fio"\n')
    report = ssdtwin.run(
        str(scenario), **{"flash.blocks_per_plane": 16, "workload.precondition": "none", **UNPROTECTED}
    )
    # 600 writes, a Flush after each 8: 75 (the last after the 600th write is never asked for).
    flushes = report.durability["flushes"]
    assert flushes in (74, 75)
    sync = to_fio_json(report.to_dict(), now=0.0)["jobs"][0]["sync"]
    assert sync["total_ios"] == flushes
    assert sync["lat_ns"]["mean"] > 1_000_000


def test_fio_fsync_must_be_a_count(tmp_path):
    (tmp_path / "bad.fio").write_text("[w]\nrw=randwrite\nfsync=often\n")
    scenario = tmp_path / "s.toml"
    scenario.write_text('[workload]\nkind = "fio"\n[workload.fio]\njob = "bad.fio"\n')
    with pytest.raises(ssdtwin.ConfigError, match="fsync"):
        ssdtwin.run(str(scenario), **SMALL)


@pytest.mark.parametrize("capacitance_uf", [1000, 0])
def test_nbd_flush_and_fua_reach_the_model(tmp_path, capacitance_uf):
    with Server(tmp_path, *SMALL_DRIVE, "--set", f"plp.capacitance={capacitance_uf}") as server:
        sock, _ = connect(server)
        for handle in range(4):
            request(sock, CMD_WRITE, handle * 4096, 4096, handle, data=b"\x11" * 4096)
            assert reply(sock)[:2] == (0, handle)
        request(sock, CMD_FLUSH, 0, 0, 10)
        assert reply(sock)[:2] == (0, 10)
        request(sock, CMD_WRITE, 65536, 4096, 11, flags=1, data=b"\x22" * 4096)  # FUA
        assert reply(sock)[:2] == (0, 11)
        request(sock, CMD_DISC, 0, 0, 12)
        assert closed(sock)
        report = server.stop()
    durability = report["durability"]
    assert (durability["flushes"], durability["fua_writes"]) == (1, 1)
    # Unprotected, both waited for programs; protected, neither did.
    assert durability["waited"] == (2 if capacitance_uf == 0 else 0)
    assert json.dumps(report)  # the report stays plain JSON


@pytest.mark.parametrize(("key", "value"), [("workload.fua_fraction", 1.5), ("workload.flush_every", -1)])
def test_bad_flush_keys_are_refused_naming_the_key(key, value):
    with pytest.raises((ssdtwin.ConfigError, ValueError), match=key.split(".")[1]):
        ssdtwin.run(**SMALL, **{key: value})
