//! Power-loss protection (PLP) in closed form (docs/models/dram_buffer_plp.md): the energy the
//! hold-up capacitors deliver, what a flush of dirty pages costs, and from these how many pages
//! a capacitance protects. Parameters `[plp]` and `[power_loss]` are declared here.
//!
//! ```text
//! E_cap   = η · ½ · C·(1 − derating) · (V1² − V2²)
//! E_page  = VCC · ICC2 · tPROG + VCCQ · ICC4W · t_xfer          (the power model's program energy)
//! t_flush = t_detect + ceil(N / N_par) · (tPROG + t_xfer)        (N_par pages programmed at once)
//! E(N)    = P_static · t_flush + N · E_page
//! N_max   = the largest N with E(N) ≤ E_cap
//! ```

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::params::PowerConfig;
use crate::base::time::Duration;

/// Hold-up capacitors and the flush they power (`[plp]`).
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct PlpConfig {
    /// Limit the dirty translation pages to what the capacitors protect (the capacitor paper's
    /// partially protected mapping table). Off (default): the whole mapping table is protected
    /// and nothing is written back for it.
    pub enabled: bool,
    /// Hold-up capacitance, nominal [uF]. Default 1000 [A] (470 µF – 2.2 mF are common, docs/models/dram_buffer_plp.md).
    pub capacitance: f64,
    /// Hold-up bus voltage V1, charged [V]. Default 35 [A].
    pub bus_voltage: f64,
    /// Converter dropout voltage V2: below it the flush stops [V]. Default 20 [A].
    pub dropout_voltage: f64,
    /// Converter efficiency η [fraction]. Default 0.85 [A].
    pub efficiency: f64,
    /// Capacitance lost to tolerance, temperature and aging [fraction]. Default 0.2 [S: hold-up
    /// calculator note, "derate capacitors 20%"].
    pub derating: f64,
    /// From the power failure to the start of the flush [duration]. Default 1ms [A].
    pub detect_time: Duration,
    /// Controller, DRAM and idle NAND during the flush [W]. Default 3 [A] (2–4 W, docs/models/dram_buffer_plp.md).
    pub static_power_w: f64,
    /// Fraction of the mapping table's translation pages that may be dirty (the capacitor paper's
    /// "protected ratio", 1%–100%), in (0, 1]. Unset: derived from the capacitance, after the write
    /// buffer's user pages, which are always protected [fraction]. Left out of a resolved
    /// scenario when unset, so that the resolved scenario resolves again to itself.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub protected_ratio: Option<f64>,
}

impl Default for PlpConfig {
    fn default() -> Self {
        PlpConfig {
            enabled: false,
            capacitance: 1000.0,
            bus_voltage: 35.0,
            dropout_voltage: 20.0,
            efficiency: 0.85,
            derating: 0.2,
            detect_time: Duration::from_millis(1),
            static_power_w: 3.0,
            protected_ratio: None,
        }
    }
}

/// Power cuts to inject (`[power_loss]`).
#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct PowerLossConfig {
    /// Simulated instants of power cuts, e.g. `["1.5s"]`: the host stops, the drive flushes what
    /// its capacitors allow, restarts, recovers its mapping and the run goes on. Default none
    /// [durations].
    pub at: Vec<Duration>,
}

/// Usable energy of the hold-up capacitors [J].
pub fn usable_energy_j(plp: &PlpConfig) -> f64 {
    let farads = plp.capacitance * 1e-6 * (1.0 - plp.derating);
    plp.efficiency * 0.5 * farads * (plp.bus_voltage * plp.bus_voltage - plp.dropout_voltage * plp.dropout_voltage)
}

/// Capacitance that delivers `energy_j` usable energy [uF, nominal].
pub fn capacitance_for_uf(plp: &PlpConfig, energy_j: f64) -> f64 {
    let per_farad = plp.efficiency
        * 0.5
        * (1.0 - plp.derating)
        * (plp.bus_voltage * plp.bus_voltage - plp.dropout_voltage * plp.dropout_voltage);
    energy_j / per_farad * 1e6
}

/// What a power-cut flush of pages costs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FlushCost {
    /// Energy of one page program with its data in [J].
    pub page_energy_j: f64,
    /// One step of the flush: a page's data in plus its program [s].
    pub step_s: f64,
    /// Pages programmed at once (dies × planes programmed together).
    pub parallel_pages: u32,
    pub static_w: f64,
    pub detect_s: f64,
}

impl FlushCost {
    /// The cost from the power model's currents and a page's program and transfer times.
    pub fn new(
        power: &PowerConfig,
        plp: &PlpConfig,
        t_program: Duration,
        t_transfer: Duration,
        parallel_pages: u32,
    ) -> FlushCost {
        let page_types = match &power.icc_program_ma {
            super::params::PerPageTypeCurrent::One(_) => 1,
            super::params::PerPageTypeCurrent::PerType(currents) => currents.len().max(1),
        };
        let icc_program_a = (0..page_types)
            .map(|page_type| power.icc_program_ma.for_type(page_type))
            .sum::<f64>()
            / page_types as f64
            * 1e-3;
        let page_energy_j = power.vcc_v * icc_program_a * t_program.as_secs_f64()
            + power.vccq_v * power.icc_io_write_ma * 1e-3 * t_transfer.as_secs_f64();
        FlushCost {
            page_energy_j,
            step_s: (t_program + t_transfer).as_secs_f64(),
            parallel_pages: parallel_pages.max(1),
            static_w: plp.static_power_w,
            detect_s: plp.detect_time.as_secs_f64(),
        }
    }

    /// Time from the power failure to the end of a flush of `pages` [s].
    pub fn flush_time_s(&self, pages: u64) -> f64 {
        self.detect_s + pages.div_ceil(u64::from(self.parallel_pages)) as f64 * self.step_s
    }

    /// Energy of a flush of `pages` [J].
    pub fn flush_energy_j(&self, pages: u64) -> f64 {
        self.static_w * self.flush_time_s(pages) + pages as f64 * self.page_energy_j
    }

    /// The most pages a flush can write with `energy_j` [pages].
    pub fn protected_pages(&self, energy_j: f64) -> u64 {
        if self.flush_energy_j(0) > energy_j {
            return 0;
        }
        // The continuous bound, then the exact step count around it.
        let per_page = self.page_energy_j + self.static_w * self.step_s / f64::from(self.parallel_pages);
        let mut pages = ((energy_j - self.static_w * self.detect_s) / per_page).max(0.0) as u64;
        while pages > 0 && self.flush_energy_j(pages) > energy_j {
            pages -= 1;
        }
        while self.flush_energy_j(pages + 1) <= energy_j {
            pages += 1;
        }
        pages
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn worked_example(static_w: f64) -> (PlpConfig, FlushCost) {
        // The worked example of docs/models/dram_buffer_plp.md: 1 mF, 35 → 20 V, η 0.85, no derating, 32 dies of one
        // plane, SLC-mode flush: tPROG 0.30 ms + 28 us transfer, E_page 25 uJ.
        let plp = PlpConfig {
            derating: 0.0,
            static_power_w: static_w,
            ..PlpConfig::default()
        };
        let cost = FlushCost {
            page_energy_j: 25e-6,
            step_s: 328e-6,
            parallel_pages: 32,
            static_w,
            detect_s: 1e-3,
        };
        (plp, cost)
    }

    #[test]
    fn usable_energy_is_half_c_v_squared_difference() {
        let (plp, _) = worked_example(2.0);
        assert!((usable_energy_j(&plp) - 0.85 * 0.5 * 1e-3 * (35.0f64.powi(2) - 20.0f64.powi(2))).abs() < 1e-12);
        assert!((usable_energy_j(&plp) - 0.3506).abs() < 1e-4);
        let derated = PlpConfig::default();
        assert!((usable_energy_j(&derated) - 0.8 * usable_energy_j(&plp)).abs() < 1e-12);
        assert!((capacitance_for_uf(&plp, usable_energy_j(&plp)) - 1000.0).abs() < 1e-9);
    }

    #[test]
    fn protected_pages_match_the_worked_example() {
        // ≈ 7,650 pages in 78 ms at 2 W; ≈ 5,250 pages in 54 ms at 4 W.
        for (static_w, pages, flush_ms) in [(2.0, 7650.0, 78.0), (4.0, 5250.0, 54.0)] {
            let (plp, cost) = worked_example(static_w);
            let energy = usable_energy_j(&plp);
            let protected = cost.protected_pages(energy);
            assert!((protected as f64 / pages - 1.0).abs() < 0.01, "{protected} vs {pages}");
            assert!((cost.flush_time_s(protected) * 1e3 / flush_ms - 1.0).abs() < 0.02);
            // Exact: one more page would not fit.
            assert!(cost.flush_energy_j(protected) <= energy);
            assert!(cost.flush_energy_j(protected + 1) > energy);
        }
    }

    #[test]
    fn more_dies_protect_more_pages() {
        let (plp, cost) = worked_example(3.0);
        let energy = usable_energy_j(&plp);
        let wide = FlushCost {
            parallel_pages: 128,
            ..cost
        };
        // The static term shrinks with parallelism: closed form N = (E − P·t_d) / (E_page + P·t/N_par).
        let expected = |par: f64| (energy - 3.0 * 1e-3) / (25e-6 + 3.0 * 328e-6 / par);
        assert!((wide.protected_pages(energy) as f64 - expected(128.0)).abs() <= 128.0);
        assert!((cost.protected_pages(energy) as f64 - expected(32.0)).abs() <= 32.0);
        assert!(wide.protected_pages(energy) > cost.protected_pages(energy));
        assert_eq!(cost.protected_pages(0.001), 0, "the detection alone takes 3 mJ");
    }
}
