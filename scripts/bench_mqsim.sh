#!/usr/bin/env bash
# ssdtwin side by side with MQSim (Tavakkol et al., FAST 2018) on MQSim's default drive: the same
# 4 KiB uniform random reads, then writes, at QD 64, a million of each, every process timed whole
# (parsing, preconditioning, simulation, report). It prints wall seconds, peak memory and the ratio.
#
# Usage: bash scripts/bench_mqsim.sh PATH/TO/MQSim [IO_COUNT]     (IO_COUNT default 1,000,000)
# Building MQSim (outside this repository): git clone https://github.com/CMU-SAFARI/MQSim, then
# `make` in it (g++, C++11; about 3 minutes on 2 cores). The script reads the ssdconfig.xml beside
# the binary: MQSim's default drive, unchanged. ssdtwin runs the same drive from
# scripts/bench/mqsim_default.toml through the Rust command line (ssdtwin-cli run).
#
# What each side does: MQSim's default configuration has preconditioning off, so its reads find an
# empty mapping; ssdtwin fills the drive first (precondition = "fill") so every read reaches flash,
# which only adds to its time. Writes start from an empty drive on both sides (4 GiB onto 476 GiB
# of user space: no GC on either). It gates nothing: wall time moves with what else the machine runs.
set -euo pipefail
cd "$(dirname "$0")/.."
mqsim="${1:?usage: bash scripts/bench_mqsim.sh PATH/TO/MQSim [IO_COUNT]}"
io_count="${2:-1000000}"
[[ -x "$mqsim" ]] || { echo "bench_mqsim.sh: $mqsim is not an executable MQSim build" >&2; exit 1; }
config="$(dirname "$mqsim")/ssdconfig.xml"
[[ -f "$config" ]] || { echo "bench_mqsim.sh: no ssdconfig.xml beside $mqsim (MQSim's default drive)" >&2; exit 1; }
[[ -x /usr/bin/time ]] || { echo "bench_mqsim.sh: needs GNU time (/usr/bin/time; Debian package time)" >&2; exit 1; }
cargo build --quiet --release -p ssdtwin_cli
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp "$config" "$work/ssdconfig.xml"

# One synthetic flow of MQSim's workload format, all over the drive (every channel, chip, die and
# plane; the whole logical space), 8-sector (4 KiB) aligned requests at 64 outstanding.
mqsim_workload() { # $1 read percentage
    cat <<XML
<?xml version="1.0" encoding="us-ascii"?>
<MQSim_IO_Scenarios><IO_Scenario><IO_Flow_Parameter_Set_Synthetic>
<Priority_Class>HIGH</Priority_Class>
<Device_Level_Data_Caching_Mode>WRITE_CACHE</Device_Level_Data_Caching_Mode>
<Channel_IDs>0,1,2,3,4,5,6,7</Channel_IDs><Chip_IDs>0,1,2,3</Chip_IDs>
<Die_IDs>0,1</Die_IDs><Plane_IDs>0,1</Plane_IDs>
<Initial_Occupancy_Percentage>75</Initial_Occupancy_Percentage>
<Working_Set_Percentage>100</Working_Set_Percentage>
<Synthetic_Generator_Type>QUEUE_DEPTH</Synthetic_Generator_Type>
<Read_Percentage>$1</Read_Percentage>
<Address_Distribution>RANDOM_UNIFORM</Address_Distribution>
<Percentage_of_Hot_Region>0</Percentage_of_Hot_Region>
<Generated_Aligned_Addresses>true</Generated_Aligned_Addresses>
<Address_Alignment_Unit>8</Address_Alignment_Unit>
<Request_Size_Distribution>FIXED</Request_Size_Distribution>
<Average_Request_Size>8</Average_Request_Size><Variance_Request_Size>0</Variance_Request_Size>
<Seed>798</Seed>
<Average_No_of_Reqs_in_Queue>64</Average_No_of_Reqs_in_Queue>
<Intensity>32768</Intensity>
<Stop_Time>0</Stop_Time>
<Total_Requests_To_Generate>$io_count</Total_Requests_To_Generate>
</IO_Flow_Parameter_Set_Synthetic></IO_Scenario></MQSim_IO_Scenarios>
XML
}

# `timed NAME CMD...`: runs CMD (output to $work/NAME.out), prints "seconds peak_kib".
timed() {
    local name="$1"; shift
    /usr/bin/time -f "%e %M" -o "$work/$name.time" "$@" > "$work/$name.out" 2> "$work/$name.err" \
        || { echo "bench_mqsim.sh: $name failed:" >&2; tail -5 "$work/$name.err" >&2; exit 1; }
    cat "$work/$name.time"
}

printf '%-6s %12s %12s %14s %14s %8s\n' case "MQSim s" "ssdtwin s" "MQSim MiB" "ssdtwin MiB" ratio
for case in read write; do
    if [[ $case == read ]]; then percent=100 fraction=1.0 precondition=fill
    else percent=0 fraction=0.0 precondition=none; fi
    mqsim_workload "$percent" > "$work/$case.xml"
    read -r mq_s mq_kib < <(cd "$work" && timed "mqsim_$case" "$mqsim" -i ssdconfig.xml -w "$case.xml")
    read -r st_s st_kib < <(timed "ssdtwin_$case" ./target/release/ssdtwin-cli run \
        scripts/bench/mqsim_default.toml --set "workload.io_count=$io_count" \
        --set "workload.read_fraction=$fraction" --set "workload.precondition=$precondition")
    python3 - "$case" "$mq_s" "$st_s" "$mq_kib" "$st_kib" "$work/ssdtwin_$case.out" <<'PY'
import json, sys
case, mq_s, st_s, mq_kib, st_kib, report = sys.argv[1:]
iops = json.load(open(report))["iops"]
ratio = float(mq_s) / max(float(st_s), 0.01)
print(f"{case:<6} {float(mq_s):12.2f} {float(st_s):12.2f} {int(mq_kib)/1024:14.0f} {int(st_kib)/1024:14.0f} {ratio:7.1f}x"
      f"   (ssdtwin simulated {iops:,.0f} IOPS)")
PY
done
echo "ratio: MQSim's wall time over ssdtwin's, whole processes; $(nproc) cores, $(date -u +%F)"
