//! RBER models behind one closed enum (docs/models/reliability.md, "RBER"): each gives the raw
//! bit error rate of a page from its block's P/E cycles and its data's retention time (seconds at
//! 25 °C, after Arrhenius, `arrhenius.rs`). Read disturb and the page-type factor are added on
//! top by the caller (`Reliability::rber`), the same for every model. One file per model.

pub mod power_law;
pub mod retention3d;
pub mod table;

use super::params::{RberModelKind, ReliabilityConfig};

/// One RBER model with its coefficients. A `u8` tag first, so a read tells the model by one
/// byte rather than from a niche in a variant's fields.
#[derive(Clone, Debug)]
#[repr(u8)]
pub enum RberModel {
    Retention3d(retention3d::Retention3d),
    PowerLaw(power_law::PowerLaw),
    Table(table::Table),
}

impl RberModel {
    pub fn new(config: &ReliabilityConfig) -> RberModel {
        match config.model {
            RberModelKind::Retention3d => RberModel::Retention3d(retention3d::Retention3d::new(&config.retention_3d)),
            RberModelKind::PowerLaw => RberModel::PowerLaw(power_law::PowerLaw::new(&config.power_law)),
            RberModelKind::Table => RberModel::Table(table::Table::new(&config.table)),
        }
    }

    /// RBER at `pe` P/E cycles after `retention_s` seconds of retention at 25 °C [fraction].
    #[inline]
    pub fn rber(&self, pe: f64, retention_s: f64) -> f64 {
        match self {
            RberModel::Retention3d(model) => model.rber(pe, retention_s),
            RberModel::PowerLaw(model) => model.rber(pe, retention_s),
            RberModel::Table(model) => model.rber(pe, retention_s),
        }
    }
}
