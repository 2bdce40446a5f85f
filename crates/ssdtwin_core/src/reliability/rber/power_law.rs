//! The planar power-law form (MODELS.md §3.1 (b); exponents of Liu, Yang, Wu, FAST'12 as used
//! by SimpleSSD forks):
//!
//! RBER = ε + α·PEC^k + β·PEC^m·t^n,   t in seconds at 25 °C.

use crate::reliability::params::PowerLawConfig;

#[derive(Clone, Debug)]
pub struct PowerLaw {
    config: PowerLawConfig,
}

impl PowerLaw {
    pub fn new(config: &PowerLawConfig) -> PowerLaw {
        PowerLaw { config: config.clone() }
    }

    pub fn rber(&self, pe: f64, retention_s: f64) -> f64 {
        let c = &self.config;
        let t = retention_s.max(0.0);
        c.epsilon + c.alpha * pe.powf(c.k) + c.beta * pe.powf(c.m) * t.powf(c.n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_hand_computed_values() {
        let model = PowerLaw::new(&PowerLawConfig::default());
        // A fresh block: the floor only (0^m = 0 for m > 0).
        assert_eq!(model.rber(0.0, 1e6), 1e-5);
        // PEC 3,000, no retention: 1e-5 + 1e-12·3000^2.05 = 1e-5 + 1.3431e-5.
        assert!((model.rber(3000.0, 0.0) - (1e-5 + 1e-12 * 3000f64.powf(2.05))).abs() < 1e-15);
        assert!((model.rber(3000.0, 0.0) - 2.3431e-5).abs() < 1e-8);
        // PEC 3,000, 1 year: + 1e-8·3000^0.14·31,557,600^0.54 = 1e-8·3.0676·11,207.7 = 3.4381e-4.
        let year = model.rber(3000.0, 31_557_600.0);
        assert!((year - (2.3431e-5 + 3.4381e-4)).abs() < 1e-8, "{year}");
    }
}
