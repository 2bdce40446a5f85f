//! The SLC write cache's state (docs/models/slc_cache.md): how much host data sits in SLC-mode
//! blocks, how much the cache may hold now, the folds each die owes, and what the run counted.
//!
//! The cache is modelled at the controller: a host program that finds room is run in SLC mode
//! (SLC timing and current, one bit per cell: a page of data fills one SLC page) and leaves a
//! fold on its die; folding reads the SLC page back and programs it into its native page, and
//! a block of the FTL's SLC pool (`ftl/slc/`) whose pages are all folded is erased in SLC mode.
//! The data's native page is chosen when the host writes it (the mapping sees native pages
//! only); the SLC pages it takes are in SLC-mode blocks the FTL took out of its free pool, so GC
//! and wear leveling know them. The operations are in `fold.rs`; the parameters in `params.rs`.

pub mod fold;
pub mod params;

use std::collections::VecDeque;

use serde::Serialize;

use crate::base::time::{Duration, Time};
use crate::ftl::blocks::BlockState;
use crate::ftl::wear::pe_summary;
use crate::ftl::Ftl;
use params::{CliffPolicy, SlcCacheConfig};

/// A host program's data waiting in SLC to be folded into its native page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fold {
    /// Page type of the native page it is folded into.
    pub page_type: u8,
    /// Pages (one per plane) and mapping units it holds.
    pub page_count: u8,
    /// Its planes, a mask over the die's planes (its SLC pages in the FTL's pool).
    pub planes: u16,
    pub units: u32,
}

/// What the cache counted over the run.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SlcCounts {
    pub slc_bytes: u64,
    pub direct_bytes: u64,
    pub folded_bytes: u64,
    pub fold_reads: u64,
    pub fold_programs: u64,
    pub slc_erases: u64,
    /// Array time of fold reads, fold programs and SLC erases, summed over dies.
    pub fold_die_time: Duration,
    /// Array energy of the same operations, Vcc x ICC x time [J].
    pub fold_energy_j: f64,
    pub cliff_time: Duration,
    pub cliff_entries: u64,
}

/// The SLC write cache of a drive.
#[derive(Debug)]
pub struct SlcCache {
    pub config: SlcCacheConfig,
    /// Bits per cell of the native mode (its page types).
    pub bits: u64,
    /// Index of the SLC mode in the timing table and the power profiles.
    pub page_type: u8,
    /// Host data one native block holds [bytes].
    block_bytes: u64,
    /// Host data one SLC-mode block holds [bytes].
    pub slc_block_bytes: u64,
    /// Host data in SLC now (folds not yet done) [bytes].
    pub used_bytes: u64,
    /// Folds owed, per die, oldest first.
    pub pending: Vec<VecDeque<Fold>>,
    /// Fold chains (read, then program) queued or running, per die.
    pub in_flight: Vec<u32>,
    /// Background folding runs (the host has been idle for `idle_delay`).
    pub background: bool,
    /// Bumped whenever the host turns busy: a pending idle timer with an older one is void.
    pub idle_generation: u32,
    pub counts: SlcCounts,
    /// Array power [W] of an SLC read, of a native program per page type, of an SLC erase.
    pub op_power_w: (f64, Vec<f64>, f64),
    cliff_since: Option<Time>,
    /// The cache's size at the start (the empty drive's cliff point) [bytes].
    pub initial_size: u64,
    series_interval: Duration,
    /// (used, size) in bytes at the end of each sample interval seen.
    series: Vec<(u64, u64)>,
}

impl SlcCache {
    /// The cache of `config` on `dies` dies of `bits` bits per cell; `block_bytes` of host data
    /// per native block, `pages_per_block` pages; samples every `series_interval` (0: none).
    pub fn new(
        config: &SlcCacheConfig,
        dies: u32,
        (bits, block_bytes, pages_per_block): (u64, u64, u32),
        free_bytes: u64,
        series_interval: Duration,
    ) -> SlcCache {
        SlcCache {
            config: config.clone(),
            bits,
            page_type: bits as u8,
            block_bytes,
            slc_block_bytes: block_bytes / u64::from(pages_per_block)
                * u64::from((pages_per_block / bits as u32).max(1)),
            used_bytes: 0,
            pending: vec![VecDeque::new(); dies as usize],
            in_flight: vec![0; dies as usize],
            background: false,
            idle_generation: 0,
            counts: SlcCounts::default(),
            op_power_w: (0.0, vec![0.0; bits as usize], 0.0),
            cliff_since: None,
            initial_size: config.size_bytes(free_bytes, bits),
            series_interval,
            series: Vec::new(),
        }
    }

    /// Host data the cache may hold now, with `free_blocks` native blocks free or in SLC mode.
    pub fn size_bytes(&self, free_blocks: u64) -> u64 {
        // The data in SLC took native places when written: count them as free, as its SLC
        // blocks are part of the cache, not of the used capacity (the SLC-mode blocks are in
        // `free_blocks`).
        self.config
            .size_bytes(free_blocks * self.block_bytes + self.used_bytes, self.bits)
    }

    /// Whether a host program of `bytes` would land in SLC with `size` the cache's size, if the
    /// FTL has SLC pages for it (under `wait` it always would).
    pub fn wants(&self, bytes: u64, size: u64) -> bool {
        self.used_bytes + bytes <= size || self.config.cliff == CliffPolicy::Wait
    }

    /// A host program of `bytes` at `now` with `size` the cache's size, `slc_pages` whether the
    /// FTL gave it SLC pages: whether it lands in SLC (under `wait` it does whenever it has
    /// pages, and its die folds first).
    pub fn admit(&mut self, now: Time, bytes: u64, size: u64, slc_pages: bool) -> bool {
        let room = self.used_bytes + bytes <= size && slc_pages;
        if room {
            self.end_cliff(now);
        } else if self.cliff_since.is_none() {
            self.cliff_since = Some(now);
            self.counts.cliff_entries += 1;
        }
        let lands = slc_pages && (room || self.config.cliff == CliffPolicy::Wait);
        if lands {
            self.used_bytes += bytes;
            self.counts.slc_bytes += bytes;
        } else {
            self.counts.direct_bytes += bytes;
        }
        self.sample(now, size);
        lands
    }

    /// A fold of `bytes` finished at `now`; `size` is the cache's size now.
    pub fn folded(&mut self, now: Time, bytes: u64, size: u64) {
        self.used_bytes = self.used_bytes.saturating_sub(bytes);
        self.counts.folded_bytes += bytes;
        self.counts.fold_programs += 1;
        if self.used_bytes < size {
            self.end_cliff(now);
        }
        self.sample(now, size);
    }

    fn end_cliff(&mut self, now: Time) {
        if let Some(since) = self.cliff_since.take() {
            self.counts.cliff_time += now.since(since);
        }
    }

    /// The counts at `now`, a cliff still on counted up to `now`.
    pub fn counts_at(&self, now: Time) -> SlcCounts {
        let mut counts = self.counts;
        if let Some(since) = self.cliff_since {
            counts.cliff_time += now.since(since);
        }
        counts
    }

    fn sample(&mut self, now: Time, size: u64) {
        if self.series_interval == Duration::ZERO {
            return;
        }
        let row = (now.as_nanos() / self.series_interval.as_nanos()) as usize;
        let last = self.series.last().copied().unwrap_or((0, self.initial_size));
        if self.series.len() <= row {
            self.series.resize(row + 1, last);
        }
        self.series[row] = (self.used_bytes, size);
    }

    /// The time-series columns `slc.used_gib` and `slc.size_gib` over `rows` intervals.
    pub fn columns(&self, rows: usize) -> Vec<(String, Vec<f64>)> {
        let gib = |bytes: u64| bytes as f64 / (1u64 << 30) as f64;
        let mut last = (0, self.initial_size);
        let (used, size): (Vec<f64>, Vec<f64>) = (0..rows)
            .map(|row| {
                if let Some(&value) = self.series.get(row) {
                    last = value;
                }
                (gib(last.0), gib(last.1))
            })
            .unzip();
        vec![("slc.used_gib".to_string(), used), ("slc.size_gib".to_string(), size)]
    }

    /// The report's `slc_cache` block at `now`, with `size` the cache's size now and `ftl` the
    /// FTL holding the SLC-mode blocks.
    pub fn report(&self, now: Time, size: u64, ftl: &Ftl) -> SlcReport {
        let counts = self.counts_at(now);
        let gib = |bytes: u64| bytes as f64 / (1u64 << 30) as f64;
        let planes = ftl.geometry.planes();
        let per_plane: Vec<(u32, u32)> = (0..planes).map(|plane| ftl.slc_blocks(plane)).collect();
        let mean =
            |values: &mut dyn Iterator<Item = u32>| values.map(f64::from).sum::<f64>() / f64::from(planes.max(1));
        let (slc_mean_pe, slc_max_pe) = ftl.slc.as_ref().map_or((0.0, 0), |pool| pool.pe_summary());
        let native: Vec<u32> = (0..ftl.geometry.blocks())
            .filter(|&block| ftl.blocks.state[block as usize] != BlockState::Slc)
            .map(|block| ftl.blocks.erase_count[block as usize])
            .collect();
        let (_, native_mean_pe, native_max_pe) = pe_summary(&native);
        let pool = ftl
            .slc
            .as_ref()
            .map(|pool| (pool.counts, pool.static_blocks))
            .unwrap_or_default();
        SlcReport {
            initial_size_gib: gib(self.initial_size),
            size_gib: gib(size),
            used_gib: gib(self.used_bytes),
            slc_written_gib: gib(counts.slc_bytes),
            direct_written_gib: gib(counts.direct_bytes),
            folded_gib: gib(counts.folded_bytes),
            fold_reads: counts.fold_reads,
            fold_programs: counts.fold_programs,
            slc_erases: counts.slc_erases,
            fold_die_time_s: counts.fold_die_time.as_secs_f64(),
            fold_energy_j: counts.fold_energy_j,
            slc_blocks: per_plane.iter().map(|&(slc, _)| u64::from(slc)).sum(),
            slc_blocks_peak: pool.0.peak_blocks,
            static_slc_blocks: u64::from(pool.1) * u64::from(planes),
            slc_blocks_per_plane: mean(&mut per_plane.iter().map(|&(slc, _)| slc)),
            native_blocks_per_plane: mean(&mut per_plane.iter().map(|&(_, native)| native)),
            dynamic_borrowed: pool.0.borrowed,
            dynamic_returned: pool.0.returned,
            slc_mean_pe,
            slc_max_pe,
            slc_wear: slc_mean_pe / f64::from(self.config.endurance.max(1)),
            native_mean_pe,
            native_max_pe,
            cliff_time_s: counts.cliff_time.as_secs_f64(),
            cliff_entries: counts.cliff_entries,
        }
    }
}

/// The report's `slc_cache` block (with `slc_cache.enabled`); counted from the start of the run.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct SlcReport {
    /// Host data the cache could hold at the start of the run [GiB].
    pub initial_size_gib: f64,
    /// ... and at its end [GiB].
    pub size_gib: f64,
    /// Host data still in SLC at the end, not yet folded [GiB].
    pub used_gib: f64,
    /// Host data programmed in SLC mode [GiB].
    pub slc_written_gib: f64,
    /// Host data programmed straight into native blocks (cache full, `cliff = "direct"`) [GiB].
    pub direct_written_gib: f64,
    /// Host data folded from SLC into native blocks [GiB].
    pub folded_gib: f64,
    pub fold_reads: u64,
    pub fold_programs: u64,
    /// SLC-mode block erases (a block freed by folding).
    pub slc_erases: u64,
    /// Array time of folding and SLC erases, summed over dies [s].
    pub fold_die_time_s: f64,
    /// Array energy of folding and SLC erases, Vcc x average ICC x array time (no transfers) [J].
    pub fold_energy_j: f64,
    /// Blocks in SLC mode at the end, the most at once, and those of the static region.
    pub slc_blocks: u64,
    pub slc_blocks_peak: u64,
    pub static_slc_blocks: u64,
    /// SLC-mode and native blocks per plane at the end (means over the planes).
    pub slc_blocks_per_plane: f64,
    pub native_blocks_per_plane: f64,
    /// Dynamic SLC blocks borrowed from the native free blocks, and returned to them.
    pub dynamic_borrowed: u64,
    pub dynamic_returned: u64,
    /// SLC-mode P/E cycles per block ever in SLC mode (mean, max), and the mean over
    /// `slc_cache.endurance`.
    pub slc_mean_pe: f64,
    pub slc_max_pe: u32,
    pub slc_wear: f64,
    /// Native P/E cycles of the blocks in native mode at the end (mean, max).
    pub native_mean_pe: f64,
    pub native_max_pe: u32,
    /// Time the cache was full while host writes came [s], and how often it filled.
    pub cliff_time_s: f64,
    pub cliff_entries: u64,
}
