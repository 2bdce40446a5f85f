"""The zns_vs_conventional study (studies/zns_vs_conventional), shorter runs on a 4 GiB drive: the
same raw flash as a zoned namespace written by a log-structured host, and as a conventional drive
with 7% over-provisioning under 4 sequential logs (on equal or unequal regions) or random
overwrites, after warm-up.
Directions from Bjørling et al., "ZNS: Avoiding the Block Interface Tax for Flash-based SSDs",
USENIX ATC 2021: a zoned drive has no device GC (write amplification 1) and needs no
over-provisioning, so it sustains more throughput with a lower read tail than a conventional
drive whose GC competes with the host. Expected erase counts come from the drive's geometry, not
from the simulator."""

from __future__ import annotations

from typing import Any

import pytest

from conftest import load_script

# Conventional drives (7% over-provisioning) whose host overwrites data of mixed lifetimes.
CONVENTIONAL = ["conv_unequal_log_op7", "conv_random_op7"]
# enterprise_tlc: 256 pages of 16 KiB a block, so a GiB written at WAF 1 fills (and a zone reset
# later erases) 1 GiB / 4 MiB = 256 blocks.
BLOCKS_PER_GIB = (1 << 30) // (256 * 16 * 1024)


@pytest.fixture(scope="module")
def rows() -> dict[str, dict[str, Any]]:
    study = load_script("studies/zns_vs_conventional/run.py")
    return {
        row["case"]: row for row in study.run_all(small=True, cases=["zns", "conv_log_op7", *CONVENTIONAL])
    }


def test_the_zoned_drive_writes_each_host_byte_once_and_erases_one_block_per_block_written(rows):
    zns = rows["zns"]
    assert zns["waf"] == 1.0
    assert zns["gc_programs"] == 0
    # Resets erase what the log wrote one zone earlier: within 15% over the measured window.
    assert zns["erases"] / zns["host_write_gib"] == pytest.approx(BLOCKS_PER_GIB, rel=0.15)


def test_logs_of_equal_lifetime_need_no_gc_copies_on_the_conventional_drive_either(rows):
    # Four sequential writers, each overwriting its quarter in order at the same rate: the data a
    # block holds was written together and is overwritten together, so GC finds its victims
    # stale (Rosenblum and Ousterhout's log-structured argument): WAF 1 without zones.
    assert rows["conv_log_op7"]["waf"] < 1.05


@pytest.mark.parametrize("case", CONVENTIONAL)
def test_the_conventional_drive_amplifies_writes_and_erases_more_per_gib(rows, case):
    zns, conventional = rows["zns"], rows[case]
    assert conventional["waf"] > 1.2
    assert conventional["gc_programs"] > 0
    assert conventional["erases"] / conventional["host_write_gib"] > zns["erases"] / zns["host_write_gib"]
    assert conventional["erase_j_per_gib"] > zns["erase_j_per_gib"]


@pytest.mark.parametrize("case", CONVENTIONAL)
def test_the_zoned_drive_has_more_throughput_and_a_lower_read_tail(rows, case):
    zns, conventional = rows["zns"], rows[case]
    assert zns["bandwidth_mib_s"] > 1.2 * conventional["bandwidth_mib_s"]
    assert zns["read_p99_us"] < conventional["read_p99_us"]
    assert zns["read_p99_9_us"] < conventional["read_p99_9_us"]


@pytest.mark.parametrize("case", CONVENTIONAL)
def test_the_zoned_drive_spends_less_nand_and_total_energy_per_gib_written(rows, case):
    zns, conventional = rows["zns"], rows[case]
    assert zns["nand_j_per_gib"] < conventional["nand_j_per_gib"]
    assert zns["total_j_per_gib"] < conventional["total_j_per_gib"]


def test_the_erase_energy_is_tbers_times_vcc_times_icc3_less_standby():
    study = load_script("studies/zns_vs_conventional/run.py")
    # tBERS 5 ms x VCC 3.3 V x (ICC3 25 mA - ISB 30 uA), the enterprise_tlc preset's values.
    config = {
        "flash": {"t_erase": "5ms"},
        "power": {"icc_erase_ma": 25.0, "isb_ua": 30.0, "vcc_v": 3.3},
    }
    assert study.erase_energy_j(config) == pytest.approx(5e-3 * 3.3 * (25e-3 - 30e-6))
    with pytest.raises(ValueError, match="unexpected duration"):
        study.seconds("5 fortnights")
