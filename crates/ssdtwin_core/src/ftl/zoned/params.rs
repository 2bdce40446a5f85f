//! Parameters of a zoned namespace (`[zns]`, issue 31): zone size and capacity, the open and
//! active zone limits ([ZNS] 1.1: the namespace's Maximum Open Resources and Maximum Active
//! Resources) and how a zone's blocks sit on the flash (ConfZNS studies both: a zone striped over
//! every die, or confined to a group of dies).
//!
//! Off by default; with `enabled = false` nothing reads the other keys (their range checks still
//! run only when enabled). Declared once, with unit, default and documentation; unknown keys are
//! rejected. The checks are [`ZnsConfig::resolve`], called from `config/validate`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::zones::ZoneLimits;
use crate::base::error::ConfigError;
use crate::base::units::ByteSize;
use crate::flash::params::FlashConfig;

/// How a zone's erase blocks are placed on the flash.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ZoneMappingKind {
    /// A zone takes the same number of blocks on every plane of every die: its writes run on all
    /// dies at once (the zone is a whole number of stripes of one block per plane).
    Striped,
    /// A zone takes blocks on the planes of one group of `die_group` dies only: zones in
    /// different groups do not share dies (the zone is a whole number of stripes over its group).
    DieGroup,
}

/// A zoned namespace (`[zns]`).
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct ZnsConfig {
    /// Make the namespace zoned (NVMe ZNS command set). Default false: a conventional namespace.
    pub enabled: bool,
    /// Zone size: the LBA span from one zone's start to the next. "0B" (the default): one
    /// stripe, a block on every plane the zone spans (`mapping`) [size].
    pub zone_size: ByteSize,
    /// Zone capacity: the writable bytes at the start of each zone, at most `zone_size`; a
    /// multiple of `ftl.mapping_unit`, the logical block. "0B" (the default): `zone_size` [size].
    pub zone_capacity: ByteSize,
    /// Maximum open zones (implicitly plus explicitly opened). Default 14 [A]: the open and
    /// active limit of the Western Digital Ultrastar DC ZN540 data sheet [zones].
    pub max_open: u32,
    /// Maximum active zones (open plus closed), at least `max_open`. Default 14 [A] [zones].
    pub max_active: u32,
    /// Zone placement: `striped` (every die, the default) or `die_group`.
    pub mapping: ZoneMappingKind,
    /// With `mapping = "die_group"`: dies per group; must divide the drive's dies. Default 1
    /// [dies].
    pub die_group: u32,
}

impl Default for ZnsConfig {
    fn default() -> Self {
        ZnsConfig {
            enabled: false,
            zone_size: ByteSize(0),
            zone_capacity: ByteSize(0),
            max_open: 14,
            max_active: 14,
            mapping: ZoneMappingKind::Striped,
            die_group: 1,
        }
    }
}

/// The zoned namespace as laid out on a drive: zones in logical blocks (`ftl.mapping_unit`) and
/// in flash blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ZoneLayout {
    /// Zone size, capacity and limits in logical blocks.
    pub limits: ZoneLimits,
    /// Zones in the namespace.
    pub zones: u64,
    /// Bytes per logical block (`ftl.mapping_unit`).
    pub lba_size: u64,
    /// Dies a zone spans (all for `striped`, `die_group` otherwise).
    pub dies_per_zone: u32,
    /// Erase blocks of one zone, spread evenly over the planes of its dies.
    pub blocks_per_zone: u64,
    /// Die groups (1 for `striped`); zone `z` is in group `z % groups`.
    pub groups: u32,
    /// Blocks a zone takes on each plane of its dies.
    pub blocks_per_plane_per_zone: u32,
}

impl ZnsConfig {
    /// Checks the keys against the drive and lays the namespace out; every error names its key.
    /// Called only when `enabled`.
    pub fn resolve(&self, flash: &FlashConfig, mapping_unit: ByteSize) -> Result<ZoneLayout, ConfigError> {
        let dies = flash.channels * flash.chips_per_channel * flash.dies_per_chip;
        let dies_per_zone = match self.mapping {
            ZoneMappingKind::Striped => dies,
            ZoneMappingKind::DieGroup => {
                if self.die_group == 0 || self.die_group > dies || !dies.is_multiple_of(self.die_group) {
                    return Err(ConfigError::new(
                        "zns.die_group",
                        format!(
                            "{} is out of range; allowed: a divisor of the drive's {dies} dies (1 to {dies})",
                            self.die_group
                        ),
                    ));
                }
                self.die_group
            }
        };
        let block = u64::from(flash.pages_per_block) * flash.page_size.bytes();
        let stripe_blocks = u64::from(dies_per_zone) * u64::from(flash.planes_per_die);
        let stripe = ByteSize(block * stripe_blocks);
        let zone_size = if self.zone_size.bytes() == 0 {
            stripe
        } else {
            self.zone_size
        };
        if !zone_size.bytes().is_multiple_of(stripe.bytes()) {
            return Err(ConfigError::new(
                "zns.zone_size",
                format!(
                    "{} is not a whole number of stripes; allowed: a multiple of {stripe} (a {} block on each of the {stripe_blocks} planes a zone spans)",
                    self.zone_size,
                    ByteSize(block)
                ),
            ));
        }
        // Zones per die group: the group's planes each give `per_plane` blocks to a zone.
        let per_plane = zone_size.bytes() / stripe.bytes();
        let groups = dies / dies_per_zone;
        let zones = u64::from(groups) * (u64::from(flash.blocks_per_plane) / per_plane);
        if zones == 0 {
            return Err(ConfigError::new(
                "zns.zone_size",
                format!(
                    "{zone_size} needs {per_plane} blocks per plane; allowed: at most flash.blocks_per_plane ({}) stripes of {stripe}",
                    flash.blocks_per_plane
                ),
            ));
        }
        let capacity = if self.zone_capacity.bytes() == 0 {
            zone_size
        } else {
            self.zone_capacity
        };
        let lba = mapping_unit.bytes();
        if capacity > zone_size || !capacity.bytes().is_multiple_of(lba) {
            return Err(ConfigError::new(
                "zns.zone_capacity",
                format!(
                    "{} is out of range; allowed: a multiple of ftl.mapping_unit ({mapping_unit}) from {mapping_unit} to zns.zone_size ({zone_size}), or \"0B\" for the zone size",
                    self.zone_capacity
                ),
            ));
        }
        if self.max_open == 0 || u64::from(self.max_open) > zones {
            return Err(ConfigError::new(
                "zns.max_open",
                format!(
                    "{} is out of range; allowed: 1 to the namespace's {zones} zones",
                    self.max_open
                ),
            ));
        }
        if self.max_active < self.max_open || u64::from(self.max_active) > zones {
            return Err(ConfigError::new(
                "zns.max_active",
                format!(
                    "{} is out of range; allowed: zns.max_open ({}) to the namespace's {zones} zones",
                    self.max_active, self.max_open
                ),
            ));
        }
        Ok(ZoneLayout {
            limits: ZoneLimits {
                zone_size: zone_size.bytes() / lba,
                zone_capacity: capacity.bytes() / lba,
                max_open: self.max_open,
                max_active: self.max_active,
            },
            zones,
            lba_size: lba,
            dies_per_zone,
            blocks_per_zone: zone_size.bytes() / block,
            groups,
            blocks_per_plane_per_zone: per_plane as u32,
        })
    }
}
