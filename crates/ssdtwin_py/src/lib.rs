//! Python bindings of the ssdtwin core: the private module `ssdtwin._core`.
//!
//! Glue only: each function converts its Python arguments to core types, calls the core and
//! converts the answer back (reports and scenarios cross as JSON text, which the Python package
//! turns into dicts). The public API is the plain-Python package `ssdtwin`; the signatures here
//! are mirrored in `python/ssdtwin/_core.pyi`.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use pyo3::create_exception;
use pyo3::exceptions::{PyKeyboardInterrupt, PyRuntimeError, PyValueError};
use pyo3::prelude::*;

use ssdtwin_core::{config, Override, Progress, RunError, Scenario, ScenarioSource, Simulation};

create_exception!(
    ssdtwin._core,
    ConfigError,
    PyValueError,
    "A scenario problem: `key` is the dotted key path (empty when not tied to a key), `message` what is wrong and what is allowed; `file`, `line` and `column` say where the key is written when it was read from a file (else None)."
);

create_exception!(
    ssdtwin._core,
    SimulationError,
    PyRuntimeError,
    "The simulated drive could not finish the workload (e.g. garbage collection found nothing to reclaim)."
);

/// Least wall time between two calls of the Python progress callable (at most 10 calls a second).
const PROGRESS_INTERVAL: Duration = Duration::from_millis(100);

/// The core's `ConfigError` as a Python `ConfigError` carrying `key`, `message` and, when the key
/// was read from a file the user named, `file`, `line` and `column` (all three `None` otherwise).
fn config_error(py: Python<'_>, error: ssdtwin_core::ConfigError) -> PyErr {
    let python_error = ConfigError::new_err(error.to_string());
    let value = python_error.value(py);
    // Setting attributes on a fresh exception instance cannot fail; if it ever did, the error
    // would still carry the full text.
    let location = error.location.as_ref();
    let _ = value.setattr("file", location.map(|place| place.file.clone()));
    let _ = value.setattr("line", location.map(|place| place.line));
    let _ = value.setattr("column", location.map(|place| place.column));
    let _ = value.setattr("key", error.key);
    let _ = value.setattr("message", error.message);
    python_error
}

/// The scenario source and overrides of `run`/`resolve`, as core types, loaded and validated.
fn load(
    scenario_path: Option<PathBuf>,
    scenario_json: Option<&str>,
    base_dir: PathBuf,
    set_overrides: &[String],
    json_overrides: &[(String, String)],
) -> Result<Scenario, ssdtwin_core::ConfigError> {
    let source = match (scenario_path, scenario_json) {
        (None, None) => ScenarioSource::Default,
        (Some(path), None) => ScenarioSource::File(path),
        (None, Some(text)) => match config::json_to_toml("", parse_json("", text)?)? {
            toml::Value::Table(table) => ScenarioSource::Table { table, base_dir },
            _ => {
                return Err(ssdtwin_core::ConfigError::new(
                    "",
                    "a scenario must be a table (a dict)",
                ))
            }
        },
        (Some(_), Some(_)) => {
            return Err(ssdtwin_core::ConfigError::new(
                "",
                "give a scenario path or a scenario table, not both",
            ))
        }
    };
    let mut overrides = set_overrides
        .iter()
        .map(|text| Override::parse(text))
        .collect::<Result<Vec<_>, _>>()?;
    for (key, text) in json_overrides {
        overrides.push(Override::from_json(key, parse_json(key, text)?)?);
    }
    ssdtwin_core::load(&source, &overrides)
}

/// Parses JSON text; `key` names the value in errors.
fn parse_json(key: &str, text: &str) -> Result<serde_json::Value, ssdtwin_core::ConfigError> {
    serde_json::from_str(text).map_err(|error| ssdtwin_core::ConfigError::new(key, format!("not valid JSON: {error}")))
}

#[pymodule]
mod _core {
    use super::*;

    #[pymodule_export]
    use super::ConfigError;

    #[pymodule_export]
    use super::SimulationError;

    /// Version of the simulator core.
    #[pymodule_export]
    #[allow(non_upper_case_globals, reason = "the Python name of a version is `__version__`")]
    const __version__: &str = ssdtwin_core::VERSION;

    /// Loads and validates a scenario and returns it, fully resolved, as JSON text.
    #[pyfunction]
    #[pyo3(signature = (scenario_path, scenario_json, base_dir, set_overrides, json_overrides))]
    fn resolve(
        py: Python<'_>,
        scenario_path: Option<PathBuf>,
        scenario_json: Option<&str>,
        base_dir: PathBuf,
        set_overrides: Vec<String>,
        json_overrides: Vec<(String, String)>,
    ) -> PyResult<String> {
        let scenario = load(scenario_path, scenario_json, base_dir, &set_overrides, &json_overrides)
            .map_err(|error| config_error(py, error))?;
        Ok(serde_json::to_string(&scenario).expect("a scenario always serializes"))
    }

    /// Loads and validates a scenario and returns, as JSON text (an object, keys sorted), the keys
    /// that shape its preconditioned drive and that a drive snapshot records: runs with equal keys
    /// can share one snapshot.
    #[pyfunction]
    #[pyo3(signature = (scenario_path, scenario_json, base_dir, set_overrides, json_overrides))]
    fn drive_keys(
        py: Python<'_>,
        scenario_path: Option<PathBuf>,
        scenario_json: Option<&str>,
        base_dir: PathBuf,
        set_overrides: Vec<String>,
        json_overrides: Vec<(String, String)>,
    ) -> PyResult<String> {
        let scenario = load(scenario_path, scenario_json, base_dir, &set_overrides, &json_overrides)
            .map_err(|error| config_error(py, error))?;
        Ok(serde_json::to_string(&scenario.drive_keys()).expect("drive keys always serialize"))
    }

    /// Loads a scenario, simulates it without holding the GIL and returns the report as JSON text,
    /// with the time series' columns under `"timeseries"` (name to list of numbers).
    ///
    /// `progress(phase, fraction, host_ios, simulated_time_s)` is called at most ten times a
    /// second; an exception from it, or a pending signal (Ctrl-C), stops the run and is raised.
    ///
    /// With `snapshot`, the drive starts from that snapshot instead of preconditioning (refused,
    /// naming the key, when it was made for another drive). With `save_snapshot`, the drive is
    /// preconditioned, written there, and nothing is run: the result is `"null"`.
    #[pyfunction]
    #[pyo3(signature = (scenario_path, scenario_json, base_dir, set_overrides, json_overrides, progress, snapshot=None, save_snapshot=None))]
    #[allow(clippy::too_many_arguments)]
    fn run(
        py: Python<'_>,
        scenario_path: Option<PathBuf>,
        scenario_json: Option<&str>,
        base_dir: PathBuf,
        set_overrides: Vec<String>,
        json_overrides: Vec<(String, String)>,
        progress: Option<Py<PyAny>>,
        snapshot: Option<PathBuf>,
        save_snapshot: Option<PathBuf>,
    ) -> PyResult<String> {
        let scenario = load(scenario_path, scenario_json, base_dir, &set_overrides, &json_overrides)
            .map_err(|error| config_error(py, error))?;
        let mut simulation = Simulation::new(&scenario).map_err(|error| config_error(py, error))?;
        if let Some(path) = &snapshot {
            py.detach(|| simulation.load_snapshot(path))
                .map_err(|error| config_error(py, error))?;
        }
        let mut raised: Option<PyErr> = None;
        let mut last_call: Option<Instant> = None;
        let mut on_progress = |state: &Progress| -> bool {
            if last_call.is_some_and(|time| time.elapsed() < PROGRESS_INTERVAL) {
                return true;
            }
            last_call = Some(Instant::now());
            Python::attach(|py| {
                let called = match &progress {
                    Some(callable) => callable
                        .call1(
                            py,
                            (state.phase, state.fraction, state.host_ios, state.simulated_time_s),
                        )
                        .map(drop),
                    None => Ok(()),
                };
                match called.and_then(|()| py.check_signals()) {
                    Ok(()) => true,
                    Err(error) => {
                        raised = Some(error);
                        false
                    }
                }
            })
        };
        let outcome = py.detach(|| match &save_snapshot {
            Some(path) => simulation.save_snapshot(path, &mut on_progress).map(|()| None),
            None => simulation.run(&mut on_progress).map(Some),
        });
        if let Some(error) = raised {
            return Err(error);
        }
        match outcome {
            Ok(None) => Ok("null".to_string()),
            Ok(Some(report)) => Ok(report_text(&report)),
            Err(error) => Err(run_error(py, error, "simulation interrupted")),
        }
    }

    /// Serves the scenario's drive over NBD (`ssdtwin_nbd::serve`) without holding the GIL, until
    /// Ctrl-C (a pending SIGINT, checked every few tens of milliseconds) or, with `once`, until the
    /// last client has gone; returns the session's report as JSON text, as `run` does.
    #[pyfunction]
    #[pyo3(signature = (scenario_path, scenario_json, base_dir, set_overrides, json_overrides, socket=None, listen=None, pace="virtual", store_cap="4GiB", once=false, record_trace=None, power_loss_at=None, default_class="medium"))]
    #[allow(clippy::too_many_arguments)]
    fn serve_nbd(
        py: Python<'_>,
        scenario_path: Option<PathBuf>,
        scenario_json: Option<&str>,
        base_dir: PathBuf,
        set_overrides: Vec<String>,
        json_overrides: Vec<(String, String)>,
        socket: Option<PathBuf>,
        listen: Option<&str>,
        pace: &str,
        store_cap: &str,
        once: bool,
        record_trace: Option<PathBuf>,
        power_loss_at: Option<&str>,
        default_class: &str,
    ) -> PyResult<String> {
        let scenario = load(scenario_path, scenario_json, base_dir, &set_overrides, &json_overrides)
            .map_err(|error| config_error(py, error))?;
        let listen = listen
            .map(|text| text.parse::<std::net::SocketAddr>())
            .transpose()
            .map_err(|error| PyValueError::new_err(format!("--listen: {error} (expected e.g. 127.0.0.1:10809)")))?;
        let pace = match pace {
            "virtual" => ssdtwin_nbd::Pace::Virtual,
            "real" => ssdtwin_nbd::Pace::Real,
            other => return Err(PyValueError::new_err(format!("pace `{other}`: allowed: virtual, real"))),
        };
        let store_cap = ssdtwin_core::base::units::parse_byte_size(store_cap)
            .map_err(|error| PyValueError::new_err(format!("--store-cap: {error}")))?
            .0;
        let options = ssdtwin_nbd::ServeOptions {
            socket,
            listen,
            pace,
            store_cap,
            once,
            record_trace,
            power_loss_at: power_loss_at
                .map(ssdtwin_core::base::units::parse_duration)
                .transpose()
                .map_err(|error| PyValueError::new_err(format!("--power-loss-at: {error}")))?,
            class: ssdtwin_nbd::parse_class(default_class, "--class").map_err(PyValueError::new_err)?,
        };
        let mut raised: Option<PyErr> = None;
        let mut stop = || {
            Python::attach(|py| match py.check_signals() {
                Ok(()) => false,
                Err(error) => {
                    // Ctrl-C is the normal end of a session: the report is still returned.
                    if !error.is_instance_of::<PyKeyboardInterrupt>(py) {
                        raised = Some(error);
                    }
                    true
                }
            })
        };
        let outcome = py.detach(|| ssdtwin_nbd::serve(&scenario, &options, &mut stop));
        if let Some(error) = raised {
            return Err(error);
        }
        match outcome {
            Ok(report) => Ok(report_text(&report)),
            Err(ssdtwin_nbd::ServeError::Io(message)) => Err(pyo3::exceptions::PyOSError::new_err(message)),
            Err(ssdtwin_nbd::ServeError::Run(error)) => {
                Err(run_error(py, error, "interrupted while preparing the drive"))
            }
        }
    }

    /// A report as the JSON text `run` and `serve_nbd` return: the report with its time series.
    fn report_text(report: &ssdtwin_core::Report) -> String {
        let mut json = report.to_json();
        json["timeseries"] = report.timeseries.to_json();
        json.to_string()
    }

    /// A run's error as the Python exception: `ConfigError`, `KeyboardInterrupt` (with
    /// `interrupted` as its message) or `SimulationError`.
    fn run_error(py: Python<'_>, error: RunError, interrupted: &str) -> PyErr {
        match error {
            RunError::Config(error) => config_error(py, error),
            RunError::Interrupted => PyKeyboardInterrupt::new_err(interrupted.to_string()),
            RunError::Stalled(message) => SimulationError::new_err(message),
        }
    }

    /// The JSON schema of the scenario file, as JSON text.
    #[pyfunction]
    fn schema() -> String {
        config::schema().to_string()
    }

    /// The built-in drive presets as `(name, description)` pairs, in a stable order.
    #[pyfunction]
    fn presets() -> Vec<(&'static str, &'static str)> {
        config::presets()
            .into_iter()
            .map(|preset| (preset.name, preset.description))
            .collect()
    }

    /// The TOML text of the built-in default scenario.
    #[pyfunction]
    fn default_scenario() -> &'static str {
        config::DEFAULT_SCENARIO
    }
}
