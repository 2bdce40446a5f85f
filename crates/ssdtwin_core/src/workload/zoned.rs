//! The synthetic zoned writer (`workload.kind = "zoned"`, issue 31; docs/models/zns.md): a
//! log-structured host on a zoned namespace, as a log-structured file system or key-value store
//! writes one.
//!
//! It keeps `workload.zoned.open_zones` zones open and writes them in turn, `workload.block_size`
//! at a time, at their write pointers (Write) or as Zone Appends (`append = true`); a zone
//! written to its capacity is full, and the next empty zone takes its place. When fewer than
//! `free_zones` zones are empty it resets the oldest full zone (the log's tail: its data is
//! obsolete by then). With `workload.read_fraction` > 0, that share of the commands reads
//! `block_size` of written data, uniformly over the written blocks of the zones holding data.
//! The writer tracks the zones from what it issued (commands reach the drive in order), so on a
//! drive within its limits every command it makes is valid.

use std::collections::VecDeque;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::base::rng::Rng;
use crate::ftl::zoned::{ZoneAction, ZoneLimits, ZoneOp};
use crate::host::command::CommandSpec;

/// The zoned writer's own keys (`[workload.zoned]`).
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct ZonedWriterConfig {
    /// Zones written at once, in turn. Above `zns.max_open` the drive closes zones implicitly;
    /// above `zns.max_active` writes to new zones fail (Too Many Active Zones). Default 4 [zones].
    pub open_zones: u32,
    /// Write with Zone Append (the drive chooses the LBA, at the write pointer) instead of Write.
    /// Default false.
    pub append: bool,
    /// Reset the oldest full zone when fewer zones than this are empty. Default 2 [zones].
    pub free_zones: u32,
}

impl Default for ZonedWriterConfig {
    fn default() -> Self {
        ZonedWriterConfig {
            open_zones: 4,
            append: false,
            free_zones: 2,
        }
    }
}

/// The writer's state: its view of each zone.
#[derive(Debug)]
pub struct ZonedWriter {
    limits: ZoneLimits,
    block_units: u64,
    open_zones: usize,
    append: bool,
    free_zones: usize,
    read_fraction: f64,
    /// LBAs issued to each zone since its reset.
    written: Vec<u64>,
    open: Vec<usize>,
    next_open: usize,
    empty: VecDeque<usize>,
    /// Full zones, the oldest first.
    full: VecDeque<usize>,
    /// LBAs issued to the zones holding data (what a read chooses from).
    data_units: u64,
    rng: Rng,
}

impl ZonedWriter {
    /// A writer of `zones` zones of `limits`, writing `block_units` logical blocks at a time.
    pub fn new(
        config: &ZonedWriterConfig,
        limits: ZoneLimits,
        zones: usize,
        block_units: u64,
        read_fraction: f64,
        rng: Rng,
    ) -> ZonedWriter {
        ZonedWriter {
            limits,
            block_units: block_units.max(1),
            open_zones: config.open_zones.max(1) as usize,
            append: config.append,
            free_zones: config.free_zones as usize,
            read_fraction,
            written: vec![0; zones],
            open: Vec::new(),
            next_open: 0,
            empty: (0..zones).collect(),
            full: VecDeque::new(),
            data_units: 0,
            rng,
        }
    }

    fn start(&self, zone: usize) -> u64 {
        zone as u64 * self.limits.zone_size
    }

    /// The next command.
    pub fn next_command(&mut self) -> CommandSpec {
        if self.read_fraction > 0.0 && self.data_units > 0 && self.rng.unit() < self.read_fraction {
            return self.read();
        }
        let must_reset = self.open.is_empty() && self.empty.is_empty();
        if (must_reset || self.empty.len() < self.free_zones) && !self.full.is_empty() {
            let zone = self.full.pop_front().expect("checked not empty");
            self.data_units -= self.written[zone];
            self.written[zone] = 0;
            self.empty.push_back(zone);
            return CommandSpec {
                zone: ZoneOp::Send(ZoneAction::Reset),
                ..CommandSpec::io(false, false, self.start(zone) as u32, 0)
            };
        }
        while self.open.len() < self.open_zones {
            match self.empty.pop_front() {
                Some(zone) => self.open.push(zone),
                None => break,
            }
        }
        self.next_open %= self.open.len().max(1);
        let index = self.next_open;
        let zone = self.open[index];
        let units = self.block_units.min(self.limits.zone_capacity - self.written[zone]);
        let lba = self.start(zone) + self.written[zone];
        self.written[zone] += units;
        self.data_units += units;
        if self.written[zone] == self.limits.zone_capacity {
            self.open.remove(index);
            self.full.push_back(zone);
        } else {
            self.next_open += 1;
        }
        if self.append {
            CommandSpec {
                zone: ZoneOp::Append,
                ..CommandSpec::io(false, false, self.start(zone) as u32, units as u32)
            }
        } else {
            CommandSpec::io(false, false, lba as u32, units as u32)
        }
    }

    /// A read of written data: a written LBA drawn uniformly, the read clipped to its zone's data.
    fn read(&mut self) -> CommandSpec {
        let mut pick = self.rng.below(self.data_units);
        let mut zone = 0;
        while pick >= self.written[zone] {
            pick -= self.written[zone];
            zone += 1;
        }
        let first = pick - pick % self.block_units;
        let units = self.block_units.min(self.written[zone] - first);
        CommandSpec::io(true, false, (self.start(zone) + first) as u32, units as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn writer(append: bool, read_fraction: f64) -> ZonedWriter {
        let limits = ZoneLimits {
            zone_size: 16,
            zone_capacity: 12,
            max_open: 2,
            max_active: 2,
        };
        let config = ZonedWriterConfig {
            open_zones: 2,
            append,
            free_zones: 2,
        };
        ZonedWriter::new(&config, limits, 5, 5, read_fraction, Rng::stream(1, "zoned_test"))
    }

    #[test]
    fn writes_go_to_the_write_pointers_of_two_zones_in_turn_and_end_at_capacity() {
        let mut writer = writer(false, 0.0);
        // Zones 0 and 1 in turn; 12-LBA capacity in blocks of 5: 5, 5, 2.
        let got: Vec<(u32, u32)> = (0..6)
            .map(|_| writer.next_command())
            .map(|c| (c.first_unit, c.units))
            .collect();
        assert_eq!(got, [(0, 5), (16, 5), (5, 5), (21, 5), (10, 2), (26, 2)]);
    }

    #[test]
    fn the_oldest_full_zone_is_reset_when_fewer_than_free_zones_are_empty() {
        let mut writer = writer(false, 0.0);
        let mut resets = Vec::new();
        for _ in 0..40 {
            let command = writer.next_command();
            if command.zone == ZoneOp::Send(ZoneAction::Reset) {
                resets.push(command.first_unit / 16);
            }
        }
        // Zones fill in the order 0, 1, 2, 3, ...; 5 zones, 2 kept empty: the first reset comes
        // once zones 0..=3 were opened, and resets follow the fill order.
        assert_eq!(resets[..3], [0, 1, 2]);
    }

    #[test]
    fn appends_name_the_zone_start_and_reads_stay_within_written_data() {
        let mut writer = writer(true, 0.5);
        let mut written = [0u32; 5];
        for _ in 0..200 {
            let command = writer.next_command();
            let zone = (command.first_unit / 16) as usize;
            match command.zone {
                ZoneOp::Append => {
                    assert_eq!(command.first_unit % 16, 0, "an append names the zone start");
                    written[zone] += command.units;
                }
                ZoneOp::Send(_) => written[zone] = 0,
                ZoneOp::None => {
                    assert!(command.is_read);
                    let offset = command.first_unit % 16;
                    assert!(offset + command.units <= written[zone], "read of unwritten data");
                }
            }
        }
    }
}
