"""Type stub of the native module `ssdtwin._core` (crates/ssdtwin_py/src/lib.rs).

Private: use the plain-Python API of the `ssdtwin` package instead. Scenarios and reports cross
this boundary as JSON text.
"""

from collections.abc import Callable

__version__: str

class SimulationError(RuntimeError):
    """The simulated drive could not finish the workload (e.g. GC found nothing to reclaim)."""

class ConfigError(ValueError):
    """A scenario problem. `str(error)` is "`key`: message", or the message when `key` is empty."""

    key: str
    """Dotted key path of the problem, e.g. `host.queue_depth`; empty when not tied to a key."""
    message: str
    """What is wrong and what is allowed."""
    file: str | None
    """The file in which the key is written (scenario or drive file); None when not read from a file."""
    line: int | None
    """The key's line in `file` (1-based); None without a file."""
    column: int | None
    """The key's column in `file` (1-based); None without a file."""

def run(
    scenario_path: str | None,
    scenario_json: str | None,
    base_dir: str,
    set_overrides: list[str],
    json_overrides: list[tuple[str, str]],
    progress: Callable[[str, float, int, float], object] | None,
    snapshot: str | None = None,
    save_snapshot: str | None = None,
) -> str:
    """Loads and validates a scenario, simulates it without holding the GIL, returns the report as
    JSON text; the time series' columns are under its `"timeseries"` key (name to list of numbers).
    With `snapshot` the drive starts from that snapshot file instead of preconditioning; with
    `save_snapshot` the drive is preconditioned and written there, nothing runs, and the result
    is `"null"`.

    The scenario is the built-in default when both `scenario_path` and `scenario_json` are None,
    a TOML file, or a JSON object (preset paths in it relative to `base_dir`). `set_overrides` are
    `key.path=value` strings (the CLI's `--set`), then `json_overrides` are `(key.path, JSON text)`
    pairs. `progress(phase, fraction, host_ios, simulated_time_s)` is called at most ten times a
    second; an exception from it, or a pending signal, stops the run and is raised here.
    """

def resolve(
    scenario_path: str | None,
    scenario_json: str | None,
    base_dir: str,
    set_overrides: list[str],
    json_overrides: list[tuple[str, str]],
) -> str:
    """Loads and validates a scenario as `run` does, without running it; returns the resolved
    scenario as JSON text."""

def drive_keys(
    scenario_path: str | None,
    scenario_json: str | None,
    base_dir: str,
    set_overrides: list[str],
    json_overrides: list[tuple[str, str]],
) -> str:
    """Loads and validates a scenario as `run` does; returns as JSON text (an object, keys
    sorted) the keys that shape its preconditioned drive, the ones a drive snapshot records: runs
    with equal keys can share one snapshot."""

def serve_nbd(
    scenario_path: str | None,
    scenario_json: str | None,
    base_dir: str,
    set_overrides: list[str],
    json_overrides: list[tuple[str, str]],
    socket: str | None = None,
    listen: str | None = None,
    pace: str = "virtual",
    store_cap: str = "4GiB",
    once: bool = False,
    record_trace: str | None = None,
    power_loss_at: str | None = None,
    default_class: str = "medium",
) -> str:
    """Serves the scenario's drive as a Network Block Device on a Unix `socket` and/or a TCP
    `listen` address ("127.0.0.1:10809") without holding the GIL, until Ctrl-C or, with `once`,
    until the last client has disconnected; returns the session's report as JSON text (as `run`).
    `pace` is "virtual" (reply once the model has completed the request) or "real" (reply at the
    simulated completion time, on the wall clock); `store_cap` bounds the written data kept in
    memory; `record_trace` writes the requests as an MSR Cambridge trace; `power_loss_at` ("5ms")
    cuts the power once the simulation reaches that time (lost LBAs logged, connections dropped);
    `default_class` is the priority class of a connection to the default export (a connection to
    the export named "urgent", "high", "medium" or "low" gets that class).
    Raises `OSError` when it cannot listen, `ConfigError` for a bad scenario, `ValueError` for a
    bad option."""

def schema() -> str:
    """The JSON schema of the scenario file, as JSON text."""

def presets() -> list[tuple[str, str]]:
    """The built-in drive presets as `(name, description)` pairs."""

def default_scenario() -> str:
    """The TOML text of the built-in default scenario."""
