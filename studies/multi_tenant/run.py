"""The multi_tenant study (issue 29): a latency-sensitive read flow (4 KiB random reads, QD 8)
beside a write-heavy flow (4 KiB random writes, QD 32) on a GC-steady drive, each alone and the
two together under three arbitrations: round robin, weighted round robin with the reads `high`
and the writes `low`, and the reads `urgent` (writes `low`).

    python studies/multi_tenant/run.py            # 7 runs (and the alone runs), results.json, latency.png
    python studies/multi_tenant/run.py --small    # the test's run (fewer commands)

Each shared run sets `report.flow_slowdown = true`: the tool re-runs each flow alone on the same
preconditioned drive and reports its slowdown (mean latency shared / alone) and the fairness
(min / max slowdown), as MQSim defines them [MQSIM]. The "alone" rows run each flow as the only
workload with as many commands as it completed in the round-robin shared run, for its p99 and
p99.99 alone. results.json keeps every figure, latency.png is the plot.
"""

from __future__ import annotations

import json
import sys
import tempfile
import tomllib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import ssdtwin

HERE = Path(__file__).resolve().parent
IO_COUNT = {False: 20000, True: 8000}
READ_FIRST = {"controller.scheduler": "read_first"}
SUSPEND = {**READ_FIRST, "flash.suspend.program": True, "flash.suspend.erase": True}
# case -> (host.arbitration, reader class, writer class, other keys)
POLICIES: dict[str, tuple[str, str, str, dict[str, Any]]] = {
    "round_robin": ("round_robin", "medium", "medium", {}),
    "wrr_read_high": ("weighted_round_robin", "high", "low", {}),
    "read_urgent": ("weighted_round_robin", "urgent", "low", {}),
    # diagnostics, not arbitrations: where the reads wait. Round robin with the dies serving host
    # reads before queued programs and GC work, then also suspending the program or erase under way.
    "rr_dies_read_first": ("round_robin", "medium", "medium", READ_FIRST),
    "rr_read_first_suspend": ("round_robin", "medium", "medium", SUSPEND),
}


def base() -> dict[str, Any]:
    return tomllib.loads((HERE / "base.toml").read_text())


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value)
    return repr(value)


def to_toml(table: dict[str, Any]) -> str:
    """A scenario table back to TOML (scalars, tables, the flows' array of tables)."""
    lines = [
        f"{key} = {_value(value)}" for key, value in table.items() if not isinstance(value, (dict, list))
    ]
    for name, section in table.items():
        if not isinstance(section, dict):
            continue
        flows = section.get("flows", [])
        lines.append(f"[{name}]")
        lines += [f"{key} = {_value(value)}" for key, value in section.items() if key != "flows"]
        for flow in flows:
            lines.append(f"[[{name}.flows]]")
            lines += [f"{key} = {_value(value)}" for key, value in flow.items()]
    return "\n".join(lines) + "\n"


def direction(job: dict[str, Any]) -> dict[str, Any]:
    side = job["read"] if job["read"]["total_ios"] else job["write"]
    lat = side["lat_ns"]
    return {
        "ios": side["total_ios"],
        "iops": side["iops"],
        "mean_us": lat["mean"] / 1e3,
        "p99_us": lat["percentile"]["99.000000"] / 1e3,
        "p9999_us": lat["percentile"]["99.990000"] / 1e3,
    }


def run_case(args: tuple[str, dict[str, Any], Path]) -> dict[str, Any]:
    case, table, folder = args
    path = folder / f"{case}.toml"
    path.write_text(to_toml(table))
    report = ssdtwin.run(str(path), **POLICIES.get(case, ("", "", "", {}))[3])
    flows = {}
    names = [flow.get("name") for flow in table["workload"]["flows"]]
    for name, job in zip(names, report.workload["jobs"], strict=True):
        flows[name] = {
            **direction(job),
            "priority": job.get("priority", "-"),
            "slowdown": job.get("slowdown"),
        }
    return {
        "case": case,
        "arbitration": table["host"]["arbitration"],
        "flows": flows,
        "fairness": report.workload.get("fairness"),
        "waf": report.waf,
        "hol_events": report.queues["hol_events"],
        "gc_write_holds": report.queues["gc_write_holds"],
        "die_utilization": report.queues["die_utilization"],
    }


def shared_table(policy: str, small: bool) -> dict[str, Any]:
    table = base()
    arbitration, reader, writer, _ = POLICIES[policy]
    table["host"]["arbitration"] = arbitration

    table["workload"]["io_count"] = IO_COUNT[small]
    table["workload"]["flows"][0]["priority"] = reader
    table["workload"]["flows"][1]["priority"] = writer
    return table


def alone_table(flow: int, io_count: int) -> dict[str, Any]:
    table = base()
    only = dict(table["workload"]["flows"][flow], priority="medium")
    table["host"]["arbitration"] = "round_robin"
    table["workload"]["io_count"] = io_count
    table["workload"]["flows"] = [only]  # one flow: no arbiter, the single workload
    table["report"]["flow_slowdown"] = False
    return table


def run_all(small: bool = False, policies: list[str] | None = None, workers: int = 2) -> list[dict[str, Any]]:
    names = policies or list(POLICIES)
    with tempfile.TemporaryDirectory() as folder, ThreadPoolExecutor(max_workers=workers) as pool:
        cases = [(name, shared_table(name, small), Path(folder)) for name in names]
        # ssdtwin.run releases the GIL while it simulates: threads run the cases in parallel.
        rows = list(pool.map(run_case, cases))
        counts = rows[0]["flows"]
        alone = [
            (f"alone_{name}", alone_table(index, counts[name]["ios"]), Path(folder))
            for index, name in enumerate(("reader", "writer"))
        ]
        return list(pool.map(run_case, alone)) + rows


def table(rows: list[dict[str, Any]]) -> str:
    columns = [
        "case",
        "flow",
        "class",
        "IOPS",
        "mean [us]",
        "p99 [us]",
        "p99.99 [us]",
        "slowdown",
        "fairness",
    ]
    lines = ["| " + " | ".join(columns) + " |", "|---|---|---|" + "---:|" * (len(columns) - 3)]
    for row in rows:
        for name, flow in row["flows"].items():
            slowdown = "" if flow["slowdown"] is None else f"{flow['slowdown']:.2f}"
            fairness = "" if row["fairness"] is None else f"{row['fairness']:.3f}"
            cells = [
                row["case"],
                name,
                flow["priority"] if row["arbitration"] != "round_robin" else "",
                f"{flow['iops']:,.0f}",
                f"{flow['mean_us']:,.1f}",
                f"{flow['p99_us']:,.1f}",
                f"{flow['p9999_us']:,.1f}",
                slowdown,
                fairness,
            ]
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def plot(rows: list[dict[str, Any]]) -> None:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(8.4, 3.8), layout="constrained")
    FigureCanvasAgg(figure)
    left, right = figure.subplots(1, 2)
    shared = [row for row in rows if not row["case"].startswith("alone") and not POLICIES[row["case"]][3]]
    alone = {row["case"]: row for row in rows if row["case"].startswith("alone")}
    labels = ["alone"] + [row["case"].replace("_", "\n") for row in shared]
    read_p9999 = [alone["alone_reader"]["flows"]["reader"]["p9999_us"]] + [
        row["flows"]["reader"]["p9999_us"] for row in shared
    ]
    read_p99 = [alone["alone_reader"]["flows"]["reader"]["p99_us"]] + [
        row["flows"]["reader"]["p99_us"] for row in shared
    ]
    positions = range(len(labels))
    left.bar([p - 0.2 for p in positions], read_p99, 0.4, label="p99", color="C0")
    left.bar([p + 0.2 for p in positions], read_p9999, 0.4, label="p99.99", color="C1")
    left.set_xticks(list(positions), labels, fontsize="small")
    left.set_yscale("log")
    left.set_ylabel("read flow latency [us]")
    left.legend(fontsize="small")
    places = range(len(shared))
    for offset, name, color in [(-0.2, "reader", "C0"), (0.2, "writer", "C2")]:
        right.bar(
            [p + offset for p in places],
            [row["flows"][name]["slowdown"] for row in shared],
            0.4,
            label=name,
            color=color,
        )
    right.axhline(1.0, color="grey", linewidth=0.8)
    right.set_xticks(list(places), [row["case"].replace("_", "\n") for row in shared], fontsize="small")
    right.set_yscale("log")
    right.set_ylabel("slowdown (mean shared / alone)")
    right.legend(fontsize="small")
    figure.savefig(HERE / "latency.png", dpi=110)


def main() -> None:
    small = "--small" in sys.argv
    rows = run_all(small=small)
    (HERE / ("results_small.json" if small else "results.json")).write_text(json.dumps(rows, indent=1))
    print(table(rows))
    if not small:
        plot(rows)


if __name__ == "__main__":
    main()
