"""The program-suspend paper's chip experiment (papers/001, Section 4, Figures 5 and 6) on one die of
the study's drive: how many suspensions one program takes when reads come at set delays.

    python studies/program_suspend/delays.py [OUT_JSON]

writes OUT_JSON (default studies/program_suspend/results/delays.json; measure.py reads it).

The paper's test flow (Figure 5): a program starts; after Delay1 a read suspends it; when the read
is done the program resumes and, after Delay2, the next read suspends it again; and so on until the
program completes. Delay1 and Delay2 run over 10-100% of tPGM in 10% steps; Figure 6 counts the
suspensions each program takes. Here the drive is `enterprise_tlc` cut to its unit of that
experiment, one die (1 channel, 1 die of 2 planes, 16 blocks per plane, filled), with program
suspend on and no limit on suspensions per program (`max_per_operation` 1000: the chip's flow
suspends until the program completes; the 5 and 10 of the preset and the sweep are Section 5's
firmware limits). Everything else is the preset's: tPROG 2 ms in 16 steps, tEPS 70 us, resume
10 us, one extra ISPP step (125 us) per resume.

One 32 KiB host write (one two-plane program) comes at time 0. The program's array start t0 is
found from the safe-point rule (docs/models/suspend.md): a read suspends a program at the end of
its running step but no earlier than its first, so every read arriving before t0 + step ends at
the same instant and one arriving later ends a step later; bisection finds that edge. Reads then
come at t0 + Delay1, and each next one Delay2 after the previous read's host completion (the die
resumes when the read's data is out, about 9 us earlier: under 0.5% of tPGM). Each read goes to
another mapped 4 KiB on the same die. The program took k suspensions when the k-th read suspended
it and the (k+1)-th did not (it came after the program's end or in its last step). Delays of 100%
are left out: a read at t0 + tPGM finds the program done.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import ssdtwin

HERE = Path(__file__).resolve().parent
DELAYS = [round(0.1 * step, 1) for step in range(1, 10)]  # fractions of tPGM: 10% ... 90%
DIE = {"channels": 1, "chips_per_channel": 1, "dies_per_chip": 1, "blocks_per_plane": 16}
WRITE = "0 0 0 64 0\n"  # DiskSim: time [ns], device, LBA, sectors (32 KiB), flags (0 = write)
READ_LBA = 4096  # sectors: 2 MiB into the filled logical space, far from the write
MAX_SUSPENSIONS = 1000  # the schema's largest limit: none in practice


class DieRun:
    """Runs one die of `enterprise_tlc` on a timed trace of one program write and reads."""

    def __init__(self, directory: Path, **suspend: Any) -> None:
        self.trace = directory / "reads.trace"
        self.scenario = {
            "drive": "enterprise_tlc",
            "flash": {**DIE, "suspend": {"program": True, "max_per_operation": MAX_SUSPENSIONS, **suspend}},
            "controller": {"scheduler": "read_first"},
            "workload": {
                "kind": "trace",
                "precondition": "fill",
                "trace": {"path": str(self.trace), "format": "disksim", "replay": "timed"},
            },
        }
        flash = ssdtwin.resolve(self.scenario)["flash"]
        self.t_program_us = _micros(flash["t_program"])
        self.step_us = self.t_program_us / flash["suspend"]["program_pulses"]

    def run(self, arrivals_us: list[float]) -> ssdtwin.Report:
        lines = [WRITE]
        for index, arrival in enumerate(arrivals_us):
            lines.append(f"{round(arrival * 1000)} 0 {READ_LBA + 8 * index} 8 1\n")
        self.trace.write_text("".join(lines), encoding="utf-8")
        return ssdtwin.run(self.scenario)

    def program_start_us(self) -> float:
        """t0: the largest read arrival that still ends with the first step, less one step."""

        def end(arrival_us: float) -> float:
            report = self.run([arrival_us])
            if report.suspend["program"] != 1:
                raise SystemExit(f"a read at {arrival_us} us did not suspend the program: {report.suspend}")
            return report.simulated_time_s * 1e6

        low, high = 50.0, 50.0 + 2 * self.step_us  # reads at 50 us wait for the first step
        first = end(low)
        if end(high) <= first:
            raise SystemExit(f"no step edge between {low} and {high} us")
        while high - low > 0.001:  # to the nanosecond
            middle = (low + high) / 2
            low, high = (middle, high) if end(middle) <= first + 1e-6 else (low, middle)
        return round(low, 3) - self.step_us

    def suspensions(self, start_us: float, delay1: float, delay2: float) -> int:
        """Suspensions of the program with reads at Delay1 and then every Delay2 (fractions of tPGM)."""
        arrivals = [start_us + delay1 * self.t_program_us]
        while len(arrivals) <= MAX_SUSPENSIONS:
            report = self.run(arrivals)
            if report.suspend["program"] < len(arrivals):
                return report.suspend["program"]
            arrivals.append(report.simulated_time_s * 1e6 + delay2 * self.t_program_us)
        raise SystemExit(f"more than {MAX_SUSPENSIONS} suspensions at Delay1 {delay1}, Delay2 {delay2}")


def _micros(text: str) -> float:
    units = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}
    for unit in ("ns", "us", "ms", "s"):
        if text.endswith(unit):
            return float(text[: -len(unit)]) * units[unit]
    raise ValueError(text)


def grid(delays: list[float] = DELAYS, **suspend: Any) -> dict[tuple[float, float], int]:
    """Suspensions per program for every (Delay1, Delay2) of `delays`; `suspend` overrides
    `[flash.suspend]` keys (e.g. `resume_extra_time=0.0`)."""
    with tempfile.TemporaryDirectory() as directory:
        die = DieRun(Path(directory), **suspend)
        start = die.program_start_us()
        return {(d1, d2): die.suspensions(start, d1, d2) for d1 in delays for d2 in delays}


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE / "results" / "delays.json"
    results = {}
    for name, suspend in {"preset": {}, "no_extra_ispp": {"resume_extra_time": 0.0}}.items():
        counts = grid(**suspend)
        results[name] = [{"delay1": d1, "delay2": d2, "suspensions": n} for (d1, d2), n in counts.items()]
        print(f"{name}: suspensions per program, rows Delay1, columns Delay2 (% of tPGM)")
        print("| Delay1 \\ Delay2 | " + " | ".join(f"{round(d * 100)}%" for d in DELAYS) + " |")
        print("|" + "---|" * (len(DELAYS) + 1))
        for d1 in DELAYS:
            print(f"| {round(d1 * 100)}% | " + " | ".join(str(counts[d1, d2]) for d2 in DELAYS) + " |")
        print()
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
