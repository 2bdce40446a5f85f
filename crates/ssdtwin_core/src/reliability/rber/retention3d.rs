//! The 3D NAND retention form (Luo et al., SIGMETRICS 2018; coefficients as transcribed in a
//! public SimpleSSD fork, MODELS.md §3.1 (a)): log-linear in retention time with a slope that
//! grows with wear,
//!
//! ln RBER = (α·PEC + β)·ln t + γ·PEC + δ,   t in seconds at 25 °C, held at 1 s below 1 s.

use crate::reliability::params::Retention3dConfig;

#[derive(Clone, Debug)]
pub struct Retention3d {
    alpha: f64,
    beta: f64,
    gamma: f64,
    delta: f64,
}

impl Retention3d {
    pub fn new(config: &Retention3dConfig) -> Retention3d {
        Retention3d {
            alpha: config.alpha,
            beta: config.beta,
            gamma: config.gamma,
            delta: config.delta,
        }
    }

    pub fn rber(&self, pe: f64, retention_s: f64) -> f64 {
        let log_t = retention_s.max(1.0).ln();
        ((self.alpha * pe + self.beta) * log_t + self.gamma * pe + self.delta).exp()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_hand_computed_values() {
        let model = Retention3d::new(&Retention3dConfig::default());
        // PEC 0, 1 s: e^-12.72.
        assert!((model.rber(0.0, 1.0) - 2.9907e-6).abs() < 1e-9);
        // PEC 0, 1 h: e^(0.25·ln 3600 − 12.72) = 3600^0.25 · e^-12.72 = 7.746 · 2.9907e-6.
        assert!((model.rber(0.0, 3600.0) / 2.3166e-5 - 1.0).abs() < 1e-3);
        // PEC 10,000, 1 year (31,557,600 s): slope 0.3292, ln RBER = 0.3292·17.2674 + 0.328 − 12.72.
        let expected = (0.3292 * 31_557_600f64.ln() + 0.328 - 12.72).exp();
        assert!((model.rber(10_000.0, 31_557_600.0) / expected - 1.0).abs() < 1e-9);
        assert!((expected - 1.25e-3).abs() < 0.05e-3, "{expected}");
        // MODELS.md §3.1's table: PEC 3,000, 30 days ≈ 1.9e-4.
        assert!((model.rber(3000.0, 30.0 * 86_400.0) / 1.9e-4 - 1.0).abs() < 0.03);
        // Below 1 s the time is held at 1 s.
        assert_eq!(model.rber(0.0, 0.001), model.rber(0.0, 1.0));
    }
}
