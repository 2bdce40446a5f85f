//! Power-loss injection ([`Simulation::power_loss`], docs/models/dram_buffer_plp.md) and the
//! `buffer` and `mapping_cache` report blocks, read from the controller's DRAM models.

use super::plp_model::{BufferReport, MappingCacheReport, PowerLossEvent};
use super::Simulation;
use crate::base::time::{Duration, Time};
use crate::ftl::translation::TranslationCache;

impl Simulation {
    /// Power fails now (`power_loss.at`, or a caller such as a block-device server): the host
    /// stops; the drive's capacitors flush the acknowledged writes not on flash (in the flush order:
    /// those already in programs, then the buffer's) and then the dirty translation pages (least
    /// recently used first), as many pages as their energy allows, `N_par` at a time; what does not
    /// fit is lost. The drive restarts: the flushed pages are read back (and with lost translation
    /// pages the open blocks' out-of-band areas are scanned), then the host resumes. Writes that
    /// survived stay in the write buffer (restored from the dump); lost buffered writes are dropped,
    /// so their units read their previous data.
    pub fn power_loss(&mut self) -> PowerLossEvent {
        let now = self.now;
        let units_per_page = u64::from(self.controller.geometry.units_per_page);
        let model = self.plp.clone();
        let budget = model.protected_pages;
        // User data first, in flush order.
        let (in_programs, waiting, dirty) = match self.controller.dram_mut() {
            Some(dram) => {
                let (placed, waiting) = dram.take_unflushed();
                let dirty = dram
                    .mapping
                    .as_ref()
                    .map(TranslationCache::dirty_in_lru_order)
                    .unwrap_or_default();
                let placed: Vec<u32> = placed.iter().map(|entry| entry.logical).collect();
                (placed, waiting, dirty)
            }
            None => (Vec::new(), Vec::new(), Vec::new()),
        };
        let buffer = self.controller.dram().and_then(|dram| dram.buffer.as_ref());
        let write_through = buffer.is_some_and(|buffer| buffer.write_through);
        // A write in a program whose unit a later trim unmapped is no longer data at risk.
        let ftl = &self.controller.ftl;
        let in_programs = match buffer {
            Some(_) => in_programs
                .into_iter()
                .filter(|&logical| ftl.mapping.physical(logical) != crate::ftl::mapping::NONE)
                .collect(),
            None => self.controller.unprogrammed_host_writes(),
        };
        // Write-through acknowledges nothing before it is programmed: nothing acknowledged is at
        // risk, and the waiting writes stay buffered as if the host re-issued them after the restart.
        let (in_programs, waiting, mut kept) = if write_through {
            (Vec::new(), Vec::new(), waiting)
        } else {
            (in_programs, waiting, Vec::new())
        };
        // Units of FUA writes not yet acknowledged are not acknowledged data either: kept as
        // write-through's are, never counted lost.
        let unacknowledged = self.controller.durability.unacknowledged_units();
        let (in_programs, waiting) = if unacknowledged.is_empty() {
            (in_programs, waiting)
        } else {
            let (fua, waiting): (Vec<_>, Vec<_>) = waiting
                .into_iter()
                .partition(|entry| unacknowledged.contains(&entry.logical));
            kept.extend(fua);
            let in_programs = in_programs
                .into_iter()
                .filter(|logical| !unacknowledged.contains(logical))
                .collect();
            (in_programs, waiting)
        };
        let unflushed = in_programs.len() + waiting.len();
        let saved_units = (budget * units_per_page).min(unflushed as u64) as usize;
        let user_pages = (saved_units as u64).div_ceil(units_per_page);
        let mut lost_lbas: Vec<u32> = Vec::new();
        for (index, &logical) in in_programs.iter().enumerate() {
            if index >= saved_units {
                lost_lbas.push(logical);
            }
        }
        let saved_waiting = saved_units.saturating_sub(in_programs.len()).min(waiting.len());
        lost_lbas.extend(waiting[saved_waiting..].iter().map(|entry| entry.logical));
        let mapping_fit = (budget - user_pages).min(dirty.len() as u64);
        let lost_mapping_pages = dirty.len() as u64 - mapping_fit;
        let flushed_pages = user_pages + mapping_fit;
        let flush_time_s = model.cost.flush_time_s(flushed_pages);
        let energy_used_j = model.cost.flush_energy_j(flushed_pages);
        // Restart: read the dump back; rebuild lost translation pages from the open blocks' OOB.
        let parallel = u64::from(model.cost.parallel_pages);
        let mut recovery_s = flushed_pages.div_ceil(parallel) as f64 * model.read_step_s;
        if lost_mapping_pages > 0 {
            let ftl = &self.controller.ftl;
            let open_pages: u64 = ftl
                .blocks
                .state
                .iter()
                .zip(&ftl.blocks.programmed_pages)
                .filter(|(state, _)| **state == crate::ftl::blocks::BlockState::Open)
                .map(|(_, &pages)| u64::from(pages))
                .sum();
            recovery_s += open_pages.div_ceil(parallel) as f64 * model.read_step_s;
        }
        if let Some(dram) = self.controller.dram_mut() {
            if let Some(buffer) = dram.buffer.as_mut() {
                buffer.restore(&waiting[..saved_waiting]);
                buffer.restore(&kept);
            }
            if let Some(mapping) = dram.mapping.as_mut() {
                mapping.clean_all();
            }
        }
        let resumed = now + Duration::from_secs_f64(flush_time_s + recovery_s);
        self.host.paused_until = self.host.paused_until.max(resumed);
        PowerLossEvent {
            at_s: now.as_secs_f64(),
            unflushed_writes: unflushed as u64,
            lost_writes: lost_lbas.len() as u64,
            lost_lbas,
            dirty_mapping_pages: dirty.len() as u32,
            lost_mapping_pages: lost_mapping_pages as u32,
            flushed_pages,
            flush_time_s,
            energy_used_j,
            energy_left_j: model.energy_j - energy_used_j,
            recovery_time_s: recovery_s,
            resumed_at_s: resumed.as_secs_f64(),
        }
    }

    /// Schedules the scenario's power cuts.
    pub(super) fn schedule_power_losses(&mut self) {
        for &at in &self.scenario.power_loss.at {
            self.events
                .schedule(Time::ZERO + at, crate::base::event::Event::PowerLoss);
        }
    }

    /// The `buffer` and `mapping_cache` report blocks.
    pub(super) fn dram_reports(&self) -> (Option<BufferReport>, Option<MappingCacheReport>) {
        let Some(dram) = self.controller.dram() else {
            return (None, None);
        };
        let ratio = |part: u64, whole: u64| if whole > 0 { part as f64 / whole as f64 } else { 0.0 };
        let buffer = dram.buffer.as_ref().map(|buffer| BufferReport {
            capacity_units: buffer.capacity,
            hit_ratio: ratio(buffer.stats.read_hits, buffer.stats.reads),
            reads: buffer.stats.reads,
            read_hits: buffer.stats.read_hits,
            writes: buffer.stats.writes,
            coalesced: buffer.stats.coalesced,
            flushed_units: buffer.stats.flushed,
            batches: buffer.stats.batches,
            peak_units: buffer.stats.peak,
            held_units: buffer.used,
            trimmed_units: buffer.stats.trimmed,
        });
        let mapping = dram.mapping.as_ref().map(|mapping| {
            let counts = mapping.counts;
            MappingCacheReport {
                mode: if dram.cached { "cached" } else { "full" },
                translation_pages: mapping.pages(),
                cached_pages: mapping.cached_pages(),
                protected_pages: mapping.protected,
                lookups: counts.lookups,
                hits: counts.hits,
                misses: counts.misses,
                hit_ratio: ratio(counts.hits, counts.lookups),
                dirty_pages: mapping.dirty_pages(),
                max_dirty_pages: counts.max_dirty,
                limit_writebacks: counts.limit_writebacks,
                eviction_writebacks: counts.eviction_writebacks,
            }
        });
        (buffer, mapping)
    }
}
