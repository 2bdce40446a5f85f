//! Drive snapshots: the preconditioned state of a drive in a file, so that runs and sweep points
//! that share a drive precondition it once (docs/guide/scenarios.md, "Drive snapshots").
//!
//! The file is a magic line, a JSON header of `{"ssdtwin_version", "drive": {key: value}}` with
//! every scenario key that shapes the preconditioned state (`seed`, every `flash.*` and `ftl.*`
//! key, `workload.precondition`, `workload.span`, `workload.steady_overwrites`,
//! `workload.steady_method`), then the FTL's
//! state (`ftl/snapshot.rs`). Loading compares the header with the scenario key by key and
//! refuses a drive that differs, naming the first key. Files are written to a temporary name and
//! renamed, so a killed save leaves no half file.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::Path;

use serde_json::Value;

use super::scenario::Scenario;
use super::{Progress, RunError, Simulation};
use crate::base::error::ConfigError;
use crate::ftl::Ftl;

/// First bytes of a snapshot file: format 3, whose reverse map may hold stale entries (the
/// forward map decides validity, `ftl/mapping.rs`).
const MAGIC: &[u8] = b"ssdtwin drive snapshot 3\n";
/// First bytes of format 2 (every reverse entry valid or none): read as format 3, of which it is
/// a case.
const MAGIC_2: &[u8] = b"ssdtwin drive snapshot 2\n";
/// First bytes of the format before the CRC was added.
const MAGIC_1: &[u8] = b"ssdtwin drive snapshot 1\n";
/// Longest header accepted [bytes].
const MAX_HEADER_BYTES: u64 = 1 << 24;
/// Key an error about the snapshot file itself names.
const KEY: &str = "snapshot";

/// The scenario keys that shape the preconditioned drive, flattened to dotted paths.
pub fn drive_keys(scenario: &Scenario) -> BTreeMap<String, Value> {
    let mut keys = BTreeMap::new();
    keys.insert("seed".to_string(), Value::from(scenario.seed));
    let json = serde_json::to_value(scenario).expect("a scenario serializes");
    for table in ["flash", "ftl"] {
        flatten(&json[table], table, &mut keys);
    }
    // Where the reverse map lives is not drive state: a snapshot serves either.
    keys.remove("ftl.reverse_map");
    // FDP's frontiers are drive state: its keys only when on, so FDP-off snapshots stay valid.
    if scenario.fdp.enabled {
        flatten(&json["fdp"], "fdp", &mut keys);
    }
    for key in ["precondition", "span", "steady_overwrites", "steady_method"] {
        keys.insert(format!("workload.{key}"), json["workload"][key].clone());
    }
    if scenario.slc_cache.enabled {
        // The SLC cache's blocks are the FTL's (`ftl/slc/`): its static region is out of the free
        // blocks during preconditioning, and whether it may borrow is the pool's.
        for key in ["enabled", "static_size", "dynamic_share", "cliff"] {
            keys.insert(format!("slc_cache.{key}"), json["slc_cache"][key].clone());
        }
    }
    keys
}

impl Scenario {
    /// The keys of [`drive_keys`]: runs whose keys are equal precondition the same drive, so one
    /// snapshot serves them all (the sweep groups its points by these).
    pub fn drive_keys(&self) -> BTreeMap<String, Value> {
        drive_keys(self)
    }
}

fn flatten(value: &Value, prefix: &str, into: &mut BTreeMap<String, Value>) {
    match value {
        Value::Object(table) => {
            for (name, item) in table {
                flatten(item, &format!("{prefix}.{name}"), into);
            }
        }
        other => {
            into.insert(prefix.to_string(), other.clone());
        }
    }
}

fn file_error(path: &Path, what: impl std::fmt::Display) -> ConfigError {
    ConfigError::new(KEY, format!("{}: {what}", path.display()))
}

impl Simulation {
    /// Preconditions the drive (if it is not yet) and writes its state to `path`.
    pub fn save_snapshot(&mut self, path: &Path, progress: &mut dyn FnMut(&Progress) -> bool) -> Result<(), RunError> {
        self.refuse_zoned_snapshot()?;
        self.precondition(progress)?;
        let header = serde_json::json!({
            "ssdtwin_version": crate::base::VERSION,
            "drive": drive_keys(&self.scenario),
        });
        let header = serde_json::to_vec(&header).expect("a header serializes");
        let temporary = path.with_extension("snap.partial");
        let write = || -> std::io::Result<()> {
            let mut writer = Checksummed::new(BufWriter::with_capacity(1 << 20, File::create(&temporary)?));
            writer.write_all(MAGIC)?;
            writer.write_all(&(header.len() as u64).to_le_bytes())?;
            writer.write_all(&header)?;
            self.controller.ftl.write_state(&mut writer)?;
            let (mut writer, crc) = writer.finish();
            writer.write_all(&crc.to_le_bytes())?;
            writer.into_inner().map_err(|error| error.into_error())?.sync_all()?;
            std::fs::rename(&temporary, path)
        };
        write().map_err(|error| {
            let _ = std::fs::remove_file(&temporary);
            RunError::Config(file_error(path, format!("cannot write the snapshot: {error}")))
        })
    }

    /// Replaces the drive's state by the snapshot at `path`, which must have been made for the
    /// same drive (every key of [`drive_keys`] equal); the run then skips preconditioning.
    pub fn load_snapshot(&mut self, path: &Path) -> Result<(), ConfigError> {
        self.refuse_zoned_snapshot()?;
        let started = std::time::Instant::now();
        let file = File::open(path).map_err(|error| file_error(path, format!("cannot read: {error}")))?;
        let mut reader = Checksummed::new(BufReader::with_capacity(1 << 20, file));
        let mut magic = vec![0u8; MAGIC.len()];
        reader
            .read_exact(&mut magic)
            .map_err(|_| file_error(path, "not an ssdtwin drive snapshot"))?;
        if magic == MAGIC_1 {
            return Err(file_error(
                path,
                "a snapshot of an older format (1, without a checksum): make it again with `ssdtwin precondition`",
            ));
        }
        if magic != MAGIC && magic != MAGIC_2 {
            return Err(file_error(path, "not an ssdtwin drive snapshot"));
        }
        let mut length = [0u8; 8];
        reader
            .read_exact(&mut length)
            .map_err(|error| file_error(path, format!("truncated header: {error}")))?;
        let length = u64::from_le_bytes(length);
        if length > MAX_HEADER_BYTES {
            return Err(file_error(path, "damaged header"));
        }
        let mut header = vec![0u8; length as usize];
        reader
            .read_exact(&mut header)
            .map_err(|error| file_error(path, format!("truncated header: {error}")))?;
        let header: Value =
            serde_json::from_slice(&header).map_err(|error| file_error(path, format!("damaged header: {error}")))?;
        let saved: BTreeMap<String, Value> = serde_json::from_value(header["drive"].clone())
            .map_err(|error| file_error(path, format!("damaged header: {error}")))?;
        let wanted = drive_keys(&self.scenario);
        for (key, value) in &wanted {
            match saved.get(key) {
                Some(saved_value) if saved_value == value => {}
                Some(saved_value) => {
                    return Err(ConfigError::new(
                        key.as_str(),
                        format!(
                            "the snapshot {} was made with {key} = {saved_value}, this scenario has {value}; \
                             make a snapshot of this drive with `ssdtwin precondition`",
                            path.display()
                        ),
                    ))
                }
                None => {
                    return Err(ConfigError::new(
                        key.as_str(),
                        format!(
                            "the snapshot {} does not record {key} (made by ssdtwin {}); make it again",
                            path.display(),
                            header["ssdtwin_version"]
                        ),
                    ))
                }
            }
        }
        let state = Ftl::read_state(&mut reader, &mut self.controller.ftl).and_then(|()| {
            let (mut reader, crc) = reader.finish();
            let mut stored = [0u8; 4];
            reader.read_exact(&mut stored)?;
            let mut rest = [0u8; 1];
            if u32::from_le_bytes(stored) != crc || reader.read(&mut rest)? != 0 {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    "the checksum does not match: the file is damaged",
                ));
            }
            Ok(())
        });
        if let Err(error) = state {
            // The FTL gave its arrays to the read: build it afresh, as `Simulation::new` did.
            let geometry = self.controller.ftl.geometry;
            self.controller.ftl = Ftl::new(
                &self.scenario.ftl,
                self.scenario.flash.multi_plane,
                geometry,
                crate::base::rng::Rng::stream(self.scenario.seed, "ftl"),
            );
            if self.scenario.ftl.reverse_map == crate::ftl::params::ReverseMapKind::File {
                let units_per_block = geometry.units_per_block();
                self.controller
                    .ftl
                    .mapping
                    .reverse_to_file(&std::env::temp_dir(), units_per_block)?;
            }
            return Err(file_error(path, format!("cannot read the drive state: {error}")));
        }
        self.preconditioned = true;
        self.prepared_wall = started.elapsed();
        Ok(())
    }
}

impl Simulation {
    /// The preconditioned drive's FTL state in memory, as a snapshot file holds it (for runs of
    /// the same drive keys that follow this one: the alone runs of `report.flow_slowdown`).
    pub(super) fn drive_state(&self) -> Result<Vec<u8>, RunError> {
        let mut state = Vec::new();
        self.controller.ftl.write_state(&mut state).map_err(|error| {
            RunError::Config(ConfigError::new(KEY, format!("cannot keep the drive state: {error}")))
        })?;
        Ok(state)
    }

    /// Replaces the drive's state by one [`Simulation::drive_state`] kept, of a simulation with the
    /// same drive keys; the run then skips preconditioning.
    pub(super) fn load_drive_state(&mut self, state: &[u8]) -> Result<(), RunError> {
        Ftl::read_state(&mut &state[..], &mut self.controller.ftl).map_err(|error| {
            RunError::Config(ConfigError::new(KEY, format!("cannot load the drive state: {error}")))
        })?;
        self.preconditioned = true;
        Ok(())
    }
}

/// A reader or writer that keeps the CRC-32 of the bytes that pass through it.
struct Checksummed<T> {
    inner: T,
    hasher: crc32fast::Hasher,
}

impl<T> Checksummed<T> {
    fn new(inner: T) -> Checksummed<T> {
        Checksummed {
            inner,
            hasher: crc32fast::Hasher::new(),
        }
    }

    /// The wrapped reader or writer and the CRC of what passed so far.
    fn finish(self) -> (T, u32) {
        (self.inner, self.hasher.finalize())
    }
}

impl<W: Write> Write for Checksummed<W> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let written = self.inner.write(bytes)?;
        self.hasher.update(&bytes[..written]);
        Ok(written)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

impl<R: Read> Read for Checksummed<R> {
    fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
        let read = self.inner.read(buffer)?;
        self.hasher.update(&buffer[..read]);
        Ok(read)
    }
}

impl Simulation {
    /// A zoned namespace starts empty and its zones are not in a snapshot: none is saved or loaded.
    fn refuse_zoned_snapshot(&self) -> Result<(), ConfigError> {
        if self.scenario.zns.enabled {
            return Err(ConfigError::new(
                "zns.enabled",
                "true has no drive snapshots (a zoned namespace starts empty); allowed: false with a snapshot",
            ));
        }
        Ok(())
    }
}
