//! Parameters of the reliability model (`[reliability]`, docs/models/reliability.md): the RBER
//! model and its coefficients, read disturb, the Arrhenius temperature acceleration, the LDPC
//! thresholds and decode times, the read-retry ladder, read reclaim, and the aged start.
//!
//! Declared once, with unit, default and source; unknown keys are rejected. Range checks are
//! [`ReliabilityConfig::validate`], called from `config/validate` when `enabled`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::base::error::{check_range, ConfigError};
use crate::base::time::Duration;
use crate::base::units::ByteSize;

/// Which RBER model gives a page's raw bit error rate (one file each under `rber/`).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum RberModelKind {
    /// 3D NAND retention: ln RBER = (α·PEC + β)·ln t + γ·PEC + δ (`[reliability.retention_3d]`).
    /// Named as its table is (`retention_3d`); `retention3d`, the name serde's snake case gave it
    /// before, is still accepted.
    #[serde(rename = "retention_3d", alias = "retention3d")]
    Retention3d,
    /// Planar power law: RBER = ε + α·PEC^k + β·PEC^m·t^n (`[reliability.power_law]`).
    PowerLaw,
    /// Measured RBER over P/E cycles × retention time, interpolated (`[reliability.table]`).
    Table,
}

/// What is done with a block whose reads approach the ECC limit.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ReadReclaim {
    /// Nothing: the block keeps its data until GC moves it.
    None,
    /// Relocate the block (as a GC victim) once a read sees RBER at or above
    /// `reclaim_fraction` of the hard-decision limit, or the block has been read `reclaim_reads`
    /// times since its erase.
    Threshold,
}

/// Reliability: bit errors from wear, retention, temperature and read disturb; LDPC decoding,
/// read retry and soft decoding with their time and energy; read reclaim; an aged start.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct ReliabilityConfig {
    /// Model bit errors: every flash read gets an RBER, and ECC, retries and uncorrectable reads
    /// follow from it. Default false (no bit errors, no cost).
    pub enabled: bool,
    /// Die temperature when the thermal model is off (with `thermal.enabled` each die has its
    /// package's temperature) [°C]. Default 40 [A: JESD218 client active-use temperature].
    pub temp_c: f64,
    /// Activation energy of the retention loss (Arrhenius) [eV]. Default 1.1 [S: JESD218B Annex A;
    /// Malavena et al., IEEE JEDS 2023].
    pub activation_energy_ev: f64,
    /// Accelerate retention with temperature (Arrhenius, relative to 25 °C); false: retention time
    /// counts the same at any temperature. Default true.
    pub acceleration: bool,
    /// Aged start: P/E cycles added to every block before the run [cycles]. Default 0.
    pub pe_cycles: u32,
    /// Aged start: spread of `pe_cycles` over the blocks, each block drawn uniformly within
    /// ± this fraction of it [fraction]. Default 0.1 [A].
    pub pe_spread: f64,
    /// Power-off retention before the run: the data written at preconditioning sat this long at
    /// `retention_temp_c` (e.g. "1y") [duration]. Default 0us.
    pub retention_age: Duration,
    /// Temperature of the power-off retention [°C]. Default 25 (no acceleration) [A].
    pub retention_temp_c: f64,
    /// The RBER model: `retention_3d`, `power_law` or `table`. Default retention_3d.
    pub model: RberModelKind,
    pub retention_3d: Retention3dConfig,
    pub power_law: PowerLawConfig,
    pub table: RberTableConfig,
    /// Read disturb: RBER added per read of the block since its erase, c_rd in
    /// c_rd·(1 + PEC/1000)^p·reads [per read]. Default 1e-9 [A: MODELS.md §3.1].
    pub read_disturb: f64,
    /// Read disturb's wear exponent p [1]. Default 1 [A].
    pub read_disturb_exponent: f64,
    /// RBER multiplier per page type (lower first; empty: 1 for every type) [1]. Default [] (none
    /// of the models gives per-page-type data).
    pub page_type_factor: Vec<f64>,
    /// ECC codeword read over the channel, data and parity [size]: with the model on, it must be
    /// what the channel moves per mapping unit, `ftl.mapping_unit` + `flash.parity_per_codeword`
    /// ([`ReliabilityConfig::check_codeword`]). Default 4320B [S: self-heating paper, Table 3: 16
    /// KiB pages of 4 sectors of 4320 B].
    pub codeword: ByteSize,
    /// Bits the LDPC hard decision corrects per codeword; the hard-decision limit is this over the
    /// codeword's bits [bits]. Default 220 [S: self-heating paper, Table 3, "LDPC up to 220 bits"].
    pub correctable_bits: u32,
    /// Soft-decision limit: highest RBER soft decoding corrects [fraction]. Default 0.01
    /// [A: MODELS.md §3.3].
    pub soft_limit: f64,
    /// Hard-decision decode time per read on the controller [duration]. Default 5us [A].
    pub hard_decode_time: Duration,
    /// Soft-decision decode time on the controller [duration]. Default 30us [A].
    pub soft_decode_time: Duration,
    /// Extra senses for soft decoding (1 soft bit: 2 more senses) [senses]. Default 2 [A; the
    /// self-heating paper's drive has 1-bit soft decoding].
    pub soft_senses: u32,
    /// Extra page data transfers for soft decoding (the soft bit) [transfers]. Default 1 [A].
    pub soft_transfers: u32,
    /// Read-retry ladder: each step shifts the read references and divides the RBER by this
    /// [ratio]. Default 1.6 [A: MODELS.md §3.4].
    pub retry_step_gain: f64,
    /// Read-retry steps before the controller falls back to soft decoding [steps]. Default 5 [A:
    /// the team's notes suggest up to 15, also an assumption without a source; with a gain of
    /// 1.6 a 15-step ladder lowers the RBER 1,153-fold, so no RBER up to the 0.5 cap would ever
    /// reach soft decoding or be uncorrectable; 5 steps lower it 10.5-fold, docs/models/reliability.md].
    pub retry_max_steps: u32,
    /// Read reclaim: `none` or `threshold`. Default threshold.
    pub read_reclaim: ReadReclaim,
    /// `threshold`: RBER at which a block is reclaimed, as a fraction of the hard-decision
    /// limit [fraction]. Default 0.8 [A].
    pub reclaim_fraction: f64,
    /// `threshold`: reads since erase at which a block is reclaimed [reads]. Default 100000
    /// [A: MODELS.md §3.1].
    pub reclaim_reads: u32,
}

/// Coefficients of the 3D retention form (Luo et al., SIGMETRICS 2018, as transcribed in a
/// public SimpleSSD fork; MODELS.md §3.1 (a)); t in seconds at 25 °C.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Retention3dConfig {
    /// Growth of the ln t slope per P/E cycle. Default 7.92e-6 [S].
    pub alpha: f64,
    /// ln t slope of a fresh block. Default 0.25 [S].
    pub beta: f64,
    /// ln RBER per P/E cycle. Default 3.28e-5 [S].
    pub gamma: f64,
    /// ln RBER of a fresh block at 1 s. Default −12.72 [S].
    pub delta: f64,
}

impl Default for Retention3dConfig {
    fn default() -> Self {
        Retention3dConfig {
            alpha: 7.92e-6,
            beta: 0.25,
            gamma: 3.28e-5,
            delta: -12.72,
        }
    }
}

/// Coefficients of the planar power law RBER = ε + α·PEC^k + β·PEC^m·t^n (t in seconds at
/// 25 °C). Exponents [S: the SimpleSSD fork's Kterm/Mterm/Nterm, matching Liu et al., FAST'12];
/// ε, α, β [A: set so the form gives the 3D form's RBER at 3,000 P/E and one year].
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct PowerLawConfig {
    /// Floor [fraction]. Default 1e-5 [A].
    pub epsilon: f64,
    /// Wear coefficient. Default 1e-12 [A].
    pub alpha: f64,
    /// Wear exponent k. Default 2.05 [S].
    pub k: f64,
    /// Retention coefficient. Default 1e-8 [A].
    pub beta: f64,
    /// Retention's wear exponent m. Default 0.14 [S].
    pub m: f64,
    /// Retention time exponent n. Default 0.54 [S].
    pub n: f64,
}

impl Default for PowerLawConfig {
    fn default() -> Self {
        PowerLawConfig {
            epsilon: 1e-5,
            alpha: 1e-12,
            k: 2.05,
            beta: 1e-8,
            m: 0.14,
            n: 0.54,
        }
    }
}

/// Measured RBER on a grid: `rber[i][j]` at `pe_cycles[i]` and `retention[j]` (25 °C
/// equivalent); interpolated linearly in P/E and ln t on ln RBER, held at the grid's edges.
/// RBER must not fall with P/E cycles or with retention time.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct RberTableConfig {
    /// P/E cycles of the rows, increasing [cycles].
    pub pe_cycles: Vec<f64>,
    /// Retention times of the columns, increasing [duration].
    pub retention: Vec<Duration>,
    /// RBER per row and column [fraction].
    pub rber: Vec<Vec<f64>>,
}

impl Default for RberTableConfig {
    /// The 3D form's values at 0, 3,000 and 10,000 P/E and 1 min to 1 year (MODELS.md §3.1).
    fn default() -> Self {
        RberTableConfig {
            pe_cycles: vec![0.0, 3000.0, 10000.0],
            retention: vec![
                Duration::from_secs(60),
                Duration::from_secs(3600),
                Duration::from_secs(86_400),
                Duration::from_secs(30 * 86_400),
                Duration::from_secs(31_557_600),
            ],
            rber: vec![
                vec![8.3e-6, 2.3e-5, 5.1e-5, 1.2e-4, 2.2e-4],
                vec![1.0e-5, 3.1e-5, 7.4e-5, 1.9e-4, 3.7e-4],
                vec![1.6e-5, 6.2e-5, 1.8e-4, 5.4e-4, 1.2e-3],
            ],
        }
    }
}

impl Default for ReliabilityConfig {
    fn default() -> Self {
        ReliabilityConfig {
            enabled: false,
            temp_c: 40.0,
            activation_energy_ev: 1.1,
            acceleration: true,
            pe_cycles: 0,
            pe_spread: 0.1,
            retention_age: Duration::ZERO,
            retention_temp_c: 25.0,
            model: RberModelKind::Retention3d,
            retention_3d: Retention3dConfig::default(),
            power_law: PowerLawConfig::default(),
            table: RberTableConfig::default(),
            read_disturb: 1e-9,
            read_disturb_exponent: 1.0,
            page_type_factor: Vec::new(),
            codeword: ByteSize(4320),
            correctable_bits: 220,
            soft_limit: 0.01,
            hard_decode_time: Duration::from_micros(5),
            soft_decode_time: Duration::from_micros(30),
            soft_senses: 2,
            soft_transfers: 1,
            retry_step_gain: 1.6,
            retry_max_steps: 5,
            read_reclaim: ReadReclaim::Threshold,
            reclaim_fraction: 0.8,
            reclaim_reads: 100_000,
        }
    }
}

impl ReliabilityConfig {
    /// The hard-decision limit: correctable bits over the codeword's bits [fraction].
    pub fn hard_limit(&self) -> f64 {
        f64::from(self.correctable_bits) / (self.codeword.bytes() as f64 * 8.0)
    }

    /// The codeword the LDPC limit assumes (`reliability.codeword`) is the one the channel moves:
    /// a mapping unit and its parity (`ftl.mapping_unit` + `flash.parity_per_codeword`, the
    /// geometry's one codeword per unit). Otherwise an error naming the three keys and values.
    pub fn check_codeword(&self, mapping_unit: ByteSize, parity: ByteSize) -> Result<(), ConfigError> {
        let moved = mapping_unit.bytes() + parity.bytes();
        if self.codeword.bytes() == moved {
            return Ok(());
        }
        let other_fix = match self.codeword.bytes().checked_sub(mapping_unit.bytes()) {
            Some(parity) => format!(" (or flash.parity_per_codeword = \"{parity}B\")"),
            None => String::new(),
        };
        Err(ConfigError::new(
            "reliability.codeword",
            format!(
                "{} B, but the channel moves ftl.mapping_unit ({} B) + flash.parity_per_codeword ({} B) = {moved} B \
                 per codeword; the two must agree: allowed reliability.codeword = \"{moved}B\"{other_fix}",
                self.codeword.bytes(),
                mapping_unit.bytes(),
                parity.bytes(),
            ),
        ))
    }

    /// Range checks, each error naming its key (run when `enabled`). `page_types`: the cell's.
    pub fn validate(&self, page_types: usize) -> Result<(), ConfigError> {
        let key = |name: &str| format!("reliability.{name}");
        check_range(
            (-55.0..=150.0).contains(&self.temp_c),
            &key("temp_c"),
            self.temp_c,
            "-55 to 150 °C",
        )?;
        check_range(
            (-55.0..=150.0).contains(&self.retention_temp_c),
            &key("retention_temp_c"),
            self.retention_temp_c,
            "-55 to 150 °C",
        )?;
        check_range(
            self.activation_energy_ev > 0.0 && self.activation_energy_ev <= 3.0,
            &key("activation_energy_ev"),
            self.activation_energy_ev,
            "above 0 and at most 3 eV",
        )?;
        check_range(
            (0.0..=1.0).contains(&self.pe_spread),
            &key("pe_spread"),
            self.pe_spread,
            "0 to 1",
        )?;
        check_range(
            self.read_disturb >= 0.0,
            &key("read_disturb"),
            self.read_disturb,
            "0 or more",
        )?;
        check_range(
            self.read_disturb_exponent.is_finite(),
            &key("read_disturb_exponent"),
            self.read_disturb_exponent,
            "a finite number",
        )?;
        if !self.page_type_factor.is_empty() {
            check_range(
                self.page_type_factor.len() == page_types,
                &key("page_type_factor"),
                format!("{} values", self.page_type_factor.len()),
                &format!("one value per page type ({page_types}) or none"),
            )?;
            check_range(
                self.page_type_factor.iter().all(|&f| f > 0.0 && f.is_finite()),
                &key("page_type_factor"),
                format!("{:?}", self.page_type_factor),
                "positive factors",
            )?;
        }
        check_range(
            self.codeword.bytes() > 0,
            &key("codeword"),
            self.codeword,
            "a positive size",
        )?;
        check_range(
            self.correctable_bits > 0 && u64::from(self.correctable_bits) < self.codeword.bytes() * 8,
            &key("correctable_bits"),
            self.correctable_bits,
            "1 to fewer than the codeword's bits",
        )?;
        let hard = self.hard_limit();
        check_range(
            self.soft_limit >= hard && self.soft_limit < 0.5,
            &key("soft_limit"),
            self.soft_limit,
            &format!("at least the hard-decision limit ({hard:.3e} = correctable_bits / codeword bits) and below 0.5"),
        )?;
        check_range(
            self.retry_step_gain > 1.0 && self.retry_step_gain.is_finite(),
            &key("retry_step_gain"),
            self.retry_step_gain,
            "above 1",
        )?;
        check_range(
            self.retry_max_steps <= 64,
            &key("retry_max_steps"),
            self.retry_max_steps,
            "0 to 64",
        )?;
        check_range(self.soft_senses <= 16, &key("soft_senses"), self.soft_senses, "0 to 16")?;
        check_range(
            self.soft_transfers <= 16,
            &key("soft_transfers"),
            self.soft_transfers,
            "0 to 16",
        )?;
        check_range(
            self.reclaim_fraction > 0.0 && self.reclaim_fraction <= 1.0,
            &key("reclaim_fraction"),
            self.reclaim_fraction,
            "above 0 and at most 1",
        )?;
        check_range(
            self.reclaim_reads > 0,
            &key("reclaim_reads"),
            self.reclaim_reads,
            "at least 1",
        )?;
        match self.model {
            RberModelKind::Retention3d => {
                let c = &self.retention_3d;
                for (name, value) in [
                    ("alpha", c.alpha),
                    ("beta", c.beta),
                    ("gamma", c.gamma),
                    ("delta", c.delta),
                ] {
                    check_range(
                        value.is_finite(),
                        &key(&format!("retention_3d.{name}")),
                        value,
                        "a finite number",
                    )?;
                }
            }
            RberModelKind::PowerLaw => {
                let c = &self.power_law;
                for (name, value) in [
                    ("epsilon", c.epsilon),
                    ("alpha", c.alpha),
                    ("k", c.k),
                    ("beta", c.beta),
                    ("m", c.m),
                    ("n", c.n),
                ] {
                    check_range(
                        value.is_finite() && value >= 0.0,
                        &key(&format!("power_law.{name}")),
                        value,
                        "a finite number, 0 or more",
                    )?;
                }
            }
            RberModelKind::Table => check_table(&self.table)?,
        }
        Ok(())
    }
}

/// The table's shape and monotonicity, each error naming its key.
pub fn check_table(config: &RberTableConfig) -> Result<(), ConfigError> {
    let fail = |name: &str, message: String| Err(ConfigError::new(format!("reliability.table.{name}"), message));
    if config.pe_cycles.is_empty() || config.retention.is_empty() {
        return fail(
            "pe_cycles",
            "the table needs at least one P/E row and one retention column".into(),
        );
    }
    if config.pe_cycles.windows(2).any(|pair| pair[1] <= pair[0]) || config.pe_cycles.iter().any(|p| *p < 0.0) {
        return fail(
            "pe_cycles",
            format!("{:?} must be 0 or more and strictly increasing", config.pe_cycles),
        );
    }
    if config.retention.windows(2).any(|pair| pair[1] <= pair[0]) {
        return fail("retention", "the retention times must be strictly increasing".into());
    }
    if config.rber.len() != config.pe_cycles.len() || config.rber.iter().any(|row| row.len() != config.retention.len())
    {
        return fail(
            "rber",
            format!(
                "needs {} rows (one per pe_cycles) of {} values (one per retention)",
                config.pe_cycles.len(),
                config.retention.len()
            ),
        );
    }
    for (i, row) in config.rber.iter().enumerate() {
        if let Some(value) = row.iter().find(|&&r| !(r > 0.0 && r < 0.5)) {
            return fail("rber", format!("row {i} holds {value}; allowed: above 0 and below 0.5"));
        }
        if let Some(j) = row.windows(2).position(|pair| pair[1] < pair[0]) {
            return fail(
                "rber",
                format!(
                    "row {i} falls with retention time at columns {j}–{}: RBER must not fall with retention",
                    j + 1
                ),
            );
        }
        if i > 0 {
            if let Some(j) = row
                .iter()
                .zip(&config.rber[i - 1])
                .position(|(now, before)| now < before)
            {
                return fail(
                    "rber",
                    format!(
                        "column {j} falls with P/E cycles at rows {}–{i}: RBER must not fall with wear",
                        i - 1
                    ),
                );
            }
        }
    }
    Ok(())
}
