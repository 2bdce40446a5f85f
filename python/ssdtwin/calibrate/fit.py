"""The fit, in stages so each parameter is identified by the figures that depend on it most
(docs/calibration.md, "Fit stages"):

  i    t_read from QD 1 read latency (the command overhead held at the base's)
  ii   dies per chip and channels by a discrete search on the read QD curve and sequential
       reads, t_read fitted for each candidate
  iii  t_program and over-provisioning from the write jobs (the write buffer is not identified:
       `BUFFER_NOTE`)
  iv   every parameter the measured jobs exercise, jointly, on IOPS, mean, p99 and p99.9

Residuals are log(simulated / measured) per job, direction and figure, so every figure counts by
its relative error. Continuous parameters are log multipliers of the base preset's values;
`scipy.optimize.least_squares` (trust region reflective, bounded) fits them with a forward
difference Jacobian whose columns are simulated in parallel. The covariance of the final
estimate is inv(JᵀJ)·s² (s² the residual variance); a singular value of J below `FLAT` of the
largest names a flat direction: parameters the data cannot tell apart.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import least_squares

from ssdtwin.calibrate.measure import METRICS, Measured
from ssdtwin.calibrate.params import BY_NAME, CONTINUOUS, OP_CEILING, Base
from ssdtwin.calibrate.simulate import Figures, Simulator

STEP = 0.05
"""Forward-difference step of the Jacobian, in log units (5 %): large enough to move the
simulated figures beyond their event-level jitter."""
BOUND = math.log(5.0)
"""A continuous parameter stays within a factor 5 of the base's value."""
FLAT = 1e-3
"""A singular value of the Jacobian below this fraction of the largest is a flat direction."""
UNEXERCISED = 1e-3
"""A Jacobian column whose norm is below this fraction of the largest is not exercised."""
SMOOTH = ("iops", "mean_us")
"""The figures of stages i-iii: smooth in the parameters. Percentiles join in stage iv."""
WEIGHTS = {"iops": 1.0, "mean_us": 1.0, "p99_us": 0.3, "p99_9_us": 0.3}
"""Weight of each figure's log error: a tail percentile of a short run jumps with single events."""
BUFFER_NOTE = (
    "the protocol's writes run with the write buffer full (GC steady state): its size shows only in "
    "second-order effects, which the fit moved by up to 10 % with 1 % noise; kept at the base's value"
)
"""Why `controller.frame_buffer` (the buffer a write is acknowledged from) is not fitted."""
DIES_TIE = 1.2
"""Dies per chip other than the base's must fit better than the base's by more than this factor
of the cost; candidates within it are named (on enterprise_tlc, 128 dies, QD 256 reaches 2 reads
per die and 8 and 9 dies per chip fit alike)."""
CHANNEL_PREFERENCE = 0.5
"""A channel count other than the base's must lower the cost below this share of the base's
(channels and channel rate trade against each other in sequential bandwidth, and a read's
transfer time is a small part of its latency)."""


@dataclass
class Fit:
    """The fitted drive and how well the data determine it."""

    factors: dict[str, float]
    integers: dict[str, int]
    sigma_log: dict[str, float] = field(default_factory=dict)
    """1-sigma of log(value) of each parameter of the joint fit."""
    unidentified: dict[str, str] = field(default_factory=dict)
    """Parameter name -> why the data could not identify it."""
    candidates: dict[str, list[tuple[int, float]]] = field(default_factory=dict)
    """Discrete search: per integer parameter, (value, cost) of each candidate tried."""
    cost: float = math.nan
    stages: list[str] = field(default_factory=list)
    jacobian: np.ndarray | None = None
    """The Jacobian of the residuals at the solution (log units), from least_squares."""
    residuals: np.ndarray | None = None


class Fitter:
    def __init__(
        self, simulator: Simulator, base: Base, jobs: Sequence[Measured], stage: Callable[[str], None]
    ) -> None:
        self.simulator = simulator
        self.base = base
        self.jobs = list(jobs)
        self.stage = stage
        self.metrics: tuple[str, ...] = SMOOTH
        self._jacobians: dict[tuple[object, ...], np.ndarray] = {}

    def residuals(self, figures: Figures, jobs: Sequence[Measured]) -> np.ndarray:
        values = []
        for job in jobs:
            for direction, measured in job.figures.items():
                simulated = figures[job.workload.name][direction]
                for metric in self.metrics:
                    if metric in measured and metric in simulated:
                        error = math.log(max(simulated[metric], 1e-9) / measured[metric])
                        values.append(WEIGHTS[metric] * error)
        return np.asarray(values)

    def _batch(
        self, xs: Sequence[np.ndarray], names: Sequence[str], fit: Fit, jobs: Sequence[Measured]
    ) -> list[np.ndarray]:
        points = []
        for x in xs:
            factors = dict(fit.factors)
            factors.update({name: math.exp(value) for name, value in zip(names, x, strict=True)})
            points.append(self.base.overrides(factors, fit.integers))
        figures = self.simulator.figures(points, [job.workload for job in jobs])
        return [self.residuals(one, jobs) for one in figures]

    def bounds(self, names: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        low = np.full(len(names), -BOUND)
        high = np.full(len(names), BOUND)
        for index, name in enumerate(names):
            if name == "over_provisioning":
                base = float(self.base.values[name])  # type: ignore[arg-type]
                high[index] = min(BOUND, math.log(OP_CEILING / max(base, 1e-3)))
                low[index] = max(-BOUND, math.log(0.02 / max(base, 1e-3)))
        return low, high

    def jacobian(
        self, x: np.ndarray, names: Sequence[str], fit: Fit, jobs: Sequence[Measured], f0: np.ndarray
    ) -> np.ndarray:
        key = (tuple(names), np.round(x, 9).tobytes(), self.metrics, len(jobs), repr(fit.integers))
        if key not in self._jacobians:
            self._jacobians.clear()
            self._jacobians[key] = self._jacobian(x, names, fit, jobs, f0)
        return self._jacobians[key]

    def _jacobian(
        self, x: np.ndarray, names: Sequence[str], fit: Fit, jobs: Sequence[Measured], f0: np.ndarray
    ) -> np.ndarray:
        _low, high = self.bounds(names)
        steps = np.where(x + STEP <= high, STEP, -STEP)
        shifted = [x + step * np.eye(len(names))[index] for index, step in enumerate(steps)]
        columns = self._batch(shifted, names, fit, jobs)
        return np.column_stack([(f - f0) / step for f, step in zip(columns, steps, strict=True)])

    def solve(self, names: Sequence[str], fit: Fit, jobs: Sequence[Measured], max_nfev: int) -> Fit:
        """Fits `names` on `jobs` from `fit`'s values; returns a copy with the new values and cost."""
        names = list(names)
        cache: dict[bytes, np.ndarray] = {}

        def fun(x: np.ndarray) -> np.ndarray:
            key = np.round(x, 9).tobytes()
            if key not in cache:
                cache[key] = self._batch([x], names, fit, jobs)[0]
            return cache[key]

        def jac(x: np.ndarray) -> np.ndarray:
            return self.jacobian(x, names, fit, jobs, fun(x))

        low, high = self.bounds(names)
        x0 = np.clip([math.log(fit.factors[name]) for name in names], low + 1e-9, high - 1e-9)
        result = least_squares(
            fun, x0, jac=jac, bounds=(low, high), x_scale=1.0, max_nfev=max_nfev, xtol=2e-3, ftol=1e-4
        )
        factors = dict(fit.factors)
        factors.update({name: math.exp(value) for name, value in zip(names, result.x, strict=True)})
        solved = Fit(factors, dict(fit.integers), cost=float(result.cost), stages=list(fit.stages))
        solved.unidentified, solved.candidates = dict(fit.unidentified), dict(fit.candidates)
        solved.jacobian, solved.residuals = np.asarray(result.jac), np.asarray(result.fun)
        return solved

    def run(self) -> Fit:
        fit = Fit(dict.fromkeys((parameter.name for parameter in CONTINUOUS), 1.0), self._base_integers())
        fit.unidentified["frame_buffer"] = BUFFER_NOTE
        reads = [job for job in self.jobs if job.workload.read_percent == 100]
        writes = [job for job in self.jobs if job.workload.read_percent == 0]
        unloaded = [job for job in reads if job.workload.queue_depth <= 2 and not job.workload.sequential]
        if unloaded:
            self.stage("i: t_read from QD 1 reads")
            fit = self.solve(["t_read"], fit, unloaded, max_nfev=8)
            fit.stages.append(f"i: t_read on {len(unloaded)} QD 1-2 read job(s)")
        if reads:
            fit = self._search(fit, reads)
        if writes:
            self.stage("iii: t_program, over-provisioning from writes")
            fit = self.solve(["t_program", "over_provisioning"], fit, writes, max_nfev=12)
            fit.stages.append(f"iii: t_program, over_provisioning on {len(writes)} write job(s)")
        else:
            # Reads move with them only through the random layout of the data: no physics to fit.
            for name in ("t_program", "over_provisioning"):
                fit.unidentified[name] = "no write job measured (kept at the base's value)"
        if not reads:
            for name in ("t_read", "dies_per_chip", "channels"):
                fit.unidentified[name] = "no read-only job measured (kept at the base's value)"
        return self._joint(fit)

    def _base_integers(self) -> dict[str, int]:
        return {name: int(self.base.values[name]) for name in ("dies_per_chip", "channels")}  # type: ignore[call-overload]

    def _candidate(self, fit: Fit, integers: dict[str, int], reads: Sequence[Measured]) -> Fit:
        trial = Fit(dict(fit.factors), integers, unidentified=dict(fit.unidentified), stages=list(fit.stages))
        return self.solve(["t_read"], trial, reads, max_nfev=5)

    def _search(self, fit: Fit, reads: Sequence[Measured]) -> Fit:
        """Stage ii: dies per chip (channels at the base's), then channels, each by trying the
        neighbours of the best so far and walking on while the cost falls."""
        loaded = any(job.workload.queue_depth >= 16 for job in reads)
        results: dict[tuple[int, int], Fit] = {}

        def tried(dies: int, channels: int) -> Fit:
            if (dies, channels) not in results:
                self.stage(f"ii: {dies} dies per chip x {channels} channels")
                results[(dies, channels)] = self._candidate(
                    fit, {"dies_per_chip": dies, "channels": channels}, reads
                )
            return results[(dies, channels)]

        base_dies, base_channels = fit.integers["dies_per_chip"], fit.integers["channels"]
        best_dies = base_dies
        if loaded:
            best_dies = self._walk(lambda value: tried(value, base_channels).cost, base_dies)
            if tried(base_dies, base_channels).cost <= DIES_TIE * tried(best_dies, base_channels).cost:
                best_dies = base_dies
        channels = self._walk(lambda value: tried(best_dies, value).cost, base_channels, wide=True)
        if tried(best_dies, channels).cost > CHANNEL_PREFERENCE * tried(best_dies, base_channels).cost:
            channels = base_channels
        chosen = tried(best_dies, channels)
        chosen.candidates = {
            "dies_per_chip": sorted((d, r.cost) for (d, c), r in results.items() if c == base_channels),
            "channels": sorted((c, r.cost) for (d, c), r in results.items() if d == best_dies),
        }
        chosen.stages.append(
            f"ii: {len(results)} (dies, channels) candidates, each fitting t_read on {len(reads)} read job(s)"
        )
        near = [
            d
            for d, cost in chosen.candidates["dies_per_chip"]
            if d != best_dies and cost <= DIES_TIE * tried(best_dies, base_channels).cost
        ]
        if loaded and near and best_dies == base_dies:
            chosen.unidentified["dies_per_chip"] = (
                f"{', '.join(map(str, near))} dies per chip fit within {DIES_TIE - 1:.0%} of the cost "
                "(the read QD curve does not saturate the dies): the base's kept"
            )
        if not loaded:
            chosen.unidentified["dies_per_chip"] = (
                "no read job at queue depth 16 or more: no saturation to count dies"
            )
        return chosen

    @staticmethod
    def _walk(cost: Callable[[int], float], start: int, wide: bool = False) -> int:
        """The integer of least cost: the start and its neighbours (also its half and double if
        `wide`), then the neighbours of the best so far while the best moves (at most 8 moves)."""
        costs: dict[int, float] = {}

        def neighbours(value: int) -> set[int]:
            found = {value - 1, value + 1} | ({value // 2, value * 2} if wide else {value - 2, value + 2})
            return {option for option in found if option >= 1}

        best = start
        for _ in range(8):
            for value in sorted(neighbours(best) | {best}):
                if value not in costs:
                    costs[value] = cost(value)
            moved = min(costs, key=lambda value: (costs[value], abs(value - start)))
            if moved == best:
                break
            best = moved
        return best

    def _joint(self, fit: Fit) -> Fit:
        """Stage iv on every fit job, then the covariance and the identifiability check."""
        names = [parameter.name for parameter in CONTINUOUS if parameter.name not in fit.unidentified]
        self.stage("iv: sensitivity of every parameter")
        self.metrics = SMOOTH
        x = np.array([math.log(fit.factors[name]) for name in names])
        f0 = self._batch([x], names, fit, self.jobs)[0]
        jacobian = self.jacobian(x, names, fit, self.jobs, f0)
        norms = np.linalg.norm(jacobian, axis=0)
        exercised = [
            name for name, norm in zip(names, norms, strict=True) if norm > UNEXERCISED * norms.max()
        ]
        unidentified = dict(fit.unidentified)
        for name in names:
            if name not in exercised:
                unidentified[name] = "no measured figure changes with it (kept at the base's value)"
        self.stage(f"iv: joint fit of {len(exercised)} parameters on IOPS and means")
        joint = self.solve(exercised, fit, self.jobs, max_nfev=20)
        self.stage(f"iv: joint refinement of {len(exercised)} parameters with percentiles")
        self.metrics = METRICS
        joint = self.solve(exercised, joint, self.jobs, max_nfev=10)
        joint.unidentified = unidentified
        joint.stages.append(
            f"iv: {', '.join(exercised)} jointly on {len(self.jobs)} job(s), on IOPS and means, "
            "then with p99 and p99.9"
        )
        assert joint.jacobian is not None
        assert joint.residuals is not None
        joint.sigma_log, flat = covariance(joint.jacobian, joint.residuals, exercised)
        for direction in flat:
            for name in direction:
                unidentified.setdefault(name, f"flat direction of the fit: {' / '.join(direction)} trade off")
        return joint


def covariance(
    jacobian: np.ndarray, residuals: np.ndarray, names: Sequence[str]
) -> tuple[dict[str, float], list[list[str]]]:
    """1-sigma of each parameter (log units) from inv(JᵀJ)·s², and the flat directions: for each
    singular value below `FLAT` of the largest, the parameters with a large share of its vector."""
    m, n = jacobian.shape
    dof = max(m - n, 1)
    s2 = float(residuals @ residuals) / dof
    _, singular, vt = np.linalg.svd(jacobian, full_matrices=False)
    flat: list[list[str]] = []
    if singular.size and singular[0] > 0:
        for value, vector in zip(singular, vt, strict=True):
            if value < FLAT * singular[0]:
                flat.append([names[i] for i in np.flatnonzero(np.abs(vector) > 0.3)])
    # inv(JᵀJ) = V diag(1/σ²) Vᵀ, over the resolved directions only (the pseudo-inverse): a
    # parameter outside every flat direction keeps a finite uncertainty.
    resolved = singular >= FLAT * singular[0] if singular.size and singular[0] > 0 else singular > 0
    cov = (vt[resolved].T / singular[resolved] ** 2) @ vt[resolved] * s2
    sigma = {name: math.sqrt(max(cov[index, index], 0.0)) for index, name in enumerate(names)}
    for direction in flat:
        for name in direction:
            sigma[name] = math.inf
    return sigma, flat


def describe_parameter(name: str) -> str:
    parameter = BY_NAME[name]
    return f"{parameter.key} ({parameter.stage})"
