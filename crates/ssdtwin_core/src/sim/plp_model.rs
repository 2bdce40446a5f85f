//! The DRAM side's figures and report blocks (docs/models/dram_buffer_plp.md): the PLP model
//! (usable energy, protected pages) with the write buffer and translation-page tracking built from
//! the scenario, and the `buffer`, `mapping_cache`, `plp` and `power_loss` report blocks. Data
//! only: `plp.rs` runs power cuts on the simulation.

use serde::Serialize;

use super::scenario::Scenario;
use crate::base::time::Duration;
use crate::controller::buffer::WriteBuffer;
use crate::controller::dram::Dram;
use crate::flash::{Geometry, Timing};
use crate::ftl::params::MappingCacheKind;
use crate::ftl::translation::TranslationCache;
use crate::power::plp::{capacitance_for_uf, usable_energy_j, FlushCost};

/// Bytes of one mapping entry in a translation page.
pub const ENTRY_BYTES: u64 = 4;

/// The PLP figures of the drive: what its capacitors can flush.
#[derive(Clone, Debug)]
pub struct PlpModel {
    pub cost: FlushCost,
    pub energy_j: f64,
    /// Pages a power-cut flush can write.
    pub protected_pages: u64,
    pub translation_pages: u32,
    /// Dirty translation pages allowed in DRAM.
    pub protected_mapping_pages: u32,
    /// Pages of the write buffer (always protected).
    pub buffer_pages: u64,
    /// A page's sense and data out (recovery reads) [s].
    pub read_step_s: f64,
}

/// The report's `plp` block.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct PlpReport {
    /// Usable energy of the hold-up capacitors [J].
    pub usable_energy_j: f64,
    /// Energy of one page program in the flush [uJ].
    pub page_energy_uj: f64,
    /// Pages a power-cut flush can write with that energy.
    pub protected_pages: u64,
    /// Write-buffer pages, protected first.
    pub buffer_pages: u64,
    /// Translation pages of the mapping table.
    pub translation_pages: u32,
    /// Dirty translation pages allowed in DRAM.
    pub protected_mapping_pages: u32,
    /// `protected_mapping_pages / translation_pages`.
    pub protected_ratio: f64,
    /// Capacitance that protects the write buffer and `protected_mapping_pages` [uF, nominal].
    pub required_capacitance_uf: f64,
    /// Capacitance that protects `protected_mapping_pages` alone (the capacitor paper's axis) [uF, nominal].
    pub mapping_capacitance_uf: f64,
    /// Flush time of the write buffer and `protected_mapping_pages`, detection included [s].
    pub flush_time_s: f64,
}

/// The report's `buffer` block.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct BufferReport {
    pub capacity_units: u32,
    /// Host unit reads served from the buffer / host unit reads.
    pub hit_ratio: f64,
    pub reads: u64,
    pub read_hits: u64,
    pub writes: u64,
    /// Writes that replaced a waiting write of the same unit.
    pub coalesced: u64,
    pub flushed_units: u64,
    pub batches: u64,
    pub peak_units: u32,
    /// Units held at the end of the run.
    pub held_units: u32,
    /// Waiting writes dropped because a host trim of their unit came after them (never flushed).
    pub trimmed_units: u64,
}

/// The report's `mapping_cache` block.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct MappingCacheReport {
    /// `full` or `cached`.
    pub mode: &'static str,
    pub translation_pages: u32,
    pub cached_pages: u32,
    pub protected_pages: u32,
    pub lookups: u64,
    pub hits: u64,
    pub misses: u64,
    pub hit_ratio: f64,
    /// Dirty translation pages at the end of the run.
    pub dirty_pages: u32,
    pub max_dirty_pages: u32,
    /// Write-backs because more than `protected_pages` were dirty.
    pub limit_writebacks: u64,
    /// Write-backs of dirty pages the cache evicted.
    pub eviction_writebacks: u64,
}

/// One injected power cut.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct PowerLossEvent {
    /// When power failed [s].
    pub at_s: f64,
    /// Acknowledged writes not on flash when power failed [mapping units].
    pub unflushed_writes: u64,
    /// Acknowledged writes the flush could not save [mapping units].
    pub lost_writes: u64,
    /// Their logical addresses, in flush order [mapping units; × ftl.mapping_unit for bytes].
    pub lost_lbas: Vec<u32>,
    pub dirty_mapping_pages: u32,
    /// Dirty translation pages the flush could not save (rebuilt by recovery).
    pub lost_mapping_pages: u32,
    /// Pages the flush programmed (user and translation).
    pub flushed_pages: u64,
    /// Detection plus flush [s].
    pub flush_time_s: f64,
    pub energy_used_j: f64,
    pub energy_left_j: f64,
    /// Restart: the flushed pages read back, and with lost translation pages an out-of-band scan
    /// of the open blocks [s].
    pub recovery_time_s: f64,
    /// When the host could submit again [s].
    pub resumed_at_s: f64,
}

/// The report's `power_loss` block.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct PowerLossReport {
    pub events: Vec<PowerLossEvent>,
}

/// Builds the PLP figures and the controller's DRAM models for `scenario`.
pub fn dram_models(
    scenario: &Scenario,
    geometry: &Geometry,
    timing: &Timing,
    logical_units: u32,
) -> (PlpModel, Option<Box<Dram>>) {
    let page_bytes = u64::from(geometry.units_per_page) * geometry.unit_bytes;
    let entries_per_page = (page_bytes / ENTRY_BYTES) as u32;
    let translation_pages = logical_units.div_ceil(entries_per_page).max(1);
    let planes = if scenario.flash.multi_plane {
        geometry.planes_per_die
    } else {
        1
    };
    let t_program = timing.program.iter().map(|time| time.as_nanos()).sum::<u64>() / timing.program.len().max(1) as u64;
    let cost = FlushCost::new(
        &scenario.power,
        &scenario.plp,
        Duration::from_nanos(t_program),
        timing.program_transfer(geometry.units_per_page),
        geometry.dies * planes,
    );
    let energy_j = usable_energy_j(&scenario.plp);
    let protected_pages = cost.protected_pages(energy_j);
    let buffer = WriteBuffer::new(&scenario.buffer, geometry.unit_bytes);
    let buffer_pages = buffer.as_ref().map_or(0, |buffer| {
        u64::from(buffer.capacity).div_ceil(u64::from(geometry.units_per_page))
    });
    let protected_mapping_pages = if !scenario.plp.enabled {
        translation_pages
    } else if let Some(ratio) = scenario.plp.protected_ratio {
        ((ratio * f64::from(translation_pages)).ceil() as u32).clamp(1, translation_pages)
    } else {
        protected_pages
            .saturating_sub(buffer_pages)
            .min(u64::from(translation_pages)) as u32
    };
    let cached = scenario.ftl.mapping_cache == MappingCacheKind::Cached;
    let lidf =
        buffer.is_some() && scenario.buffer.flush_order == crate::controller::buffer::params::FlushOrderKind::Lidf;
    let tracked = cached || protected_mapping_pages < translation_pages || lidf || !scenario.power_loss.at.is_empty();
    let mapping = tracked.then(|| {
        let capacity = cached.then(|| ((scenario.ftl.mapping_cache_size.0 / page_bytes) as u32).max(1));
        TranslationCache::new(translation_pages, entries_per_page, capacity, protected_mapping_pages)
    });
    let model = PlpModel {
        cost,
        energy_j,
        protected_pages,
        translation_pages,
        protected_mapping_pages,
        buffer_pages,
        read_step_s: (timing.read[0] + timing.read_transfer(geometry.units_per_page)).as_secs_f64(),
    };
    (model, Dram::new(buffer, mapping, cached))
}

impl PlpModel {
    pub fn report(&self, scenario: &Scenario) -> PlpReport {
        let pages = self.buffer_pages + u64::from(self.protected_mapping_pages);
        PlpReport {
            usable_energy_j: self.energy_j,
            page_energy_uj: self.cost.page_energy_j * 1e6,
            protected_pages: self.protected_pages,
            buffer_pages: self.buffer_pages,
            translation_pages: self.translation_pages,
            protected_mapping_pages: self.protected_mapping_pages,
            protected_ratio: f64::from(self.protected_mapping_pages) / f64::from(self.translation_pages),
            required_capacitance_uf: capacitance_for_uf(&scenario.plp, self.cost.flush_energy_j(pages)),
            mapping_capacitance_uf: capacitance_for_uf(
                &scenario.plp,
                self.cost.flush_energy_j(u64::from(self.protected_mapping_pages)),
            ),
            flush_time_s: self.cost.flush_time_s(pages),
        }
    }
}
