//! Temperature acceleration of retention loss (Arrhenius; MODELS.md §3.2, JESD218B Annex A):
//!
//! AF(T) = exp[(Ea / k_B)·(1/T_ref − 1/T)],   T_ref = 25 °C, k_B = 8.617e-5 eV/K,
//! t_eff = ∫ AF(T(τ)) dτ                       (retention time at 25 °C equivalent)
//!
//! Each NAND package keeps a clock of effective seconds: it runs at AF of the package's
//! temperature, which the thermal model sets at each of its steps (`sim/thermal.rs`), or at AF of
//! `reliability.temp_c` when the thermal model is off. A block's retention time is the clock now
//! minus the clock when it was programmed.

use crate::base::time::Time;

/// Boltzmann's constant [eV/K].
pub const BOLTZMANN_EV_PER_K: f64 = 8.617e-5;
/// Reference temperature of the RBER models' retention times [°C].
pub const REFERENCE_C: f64 = 25.0;
const KELVIN: f64 = 273.15;

/// The acceleration factor of one activation energy.
#[derive(Clone, Copy, Debug)]
pub struct Arrhenius {
    /// Ea / k_B [K]; 0 turns acceleration off (AF = 1 at any temperature).
    ea_over_k: f64,
}

impl Arrhenius {
    pub fn new(activation_energy_ev: f64, enabled: bool) -> Arrhenius {
        Arrhenius {
            ea_over_k: if enabled {
                activation_energy_ev / BOLTZMANN_EV_PER_K
            } else {
                0.0
            },
        }
    }

    /// AF of `temp_c` relative to 25 °C.
    pub fn factor(&self, temp_c: f64) -> f64 {
        (self.ea_over_k * (1.0 / (REFERENCE_C + KELVIN) - 1.0 / (temp_c + KELVIN))).exp()
    }
}

/// One NAND package's effective-time clock.
#[derive(Clone, Copy, Debug)]
pub struct Clock {
    /// Effective seconds at `at`.
    seconds: f64,
    at: Time,
    /// Current acceleration factor.
    factor: f64,
}

impl Clock {
    /// A clock at zero, running at `factor`.
    pub fn new(factor: f64) -> Clock {
        Clock {
            seconds: 0.0,
            at: Time::ZERO,
            factor,
        }
    }

    /// Effective seconds at `now`: `seconds + now.since(at).as_secs_f64() · factor` (through the
    /// faster conversion of the same value).
    #[inline]
    pub fn now(&self, now: Time) -> f64 {
        self.seconds + now.since(self.at).as_secs_f64_fast() * self.factor
    }

    /// From `now` on, the clock runs at `factor`.
    pub fn set_factor(&mut self, now: Time, factor: f64) {
        self.seconds = self.now(now);
        self.at = now;
        self.factor = factor;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::time::Duration;

    #[test]
    fn one_year_at_25c_is_97_6_hours_at_60c() {
        // The industry bake table (Li et al., HotStorage'21; 1.1 eV): 97.65 h at 60 °C, 11.16 h at
        // 80 °C, 1.61 h at 100 °C, 0.28 h at 120 °C for one year (8,766 h) at 25 °C.
        let arrhenius = Arrhenius::new(1.1, true);
        let year_h = 365.25 * 24.0;
        for (temp_c, hours) in [(60.0, 97.65), (80.0, 11.16), (100.0, 1.61), (120.0, 0.28)] {
            let equivalent = year_h / arrhenius.factor(temp_c);
            assert!((equivalent / hours - 1.0).abs() < 0.02, "{temp_c} °C: {equivalent} h");
        }
        assert!((year_h / arrhenius.factor(60.0) - 97.6).abs() < 0.1);
        assert_eq!(arrhenius.factor(25.0), 1.0);
        // Off: no acceleration.
        assert_eq!(Arrhenius::new(1.1, false).factor(85.0), 1.0);
    }

    #[test]
    fn clocks_integrate_the_factor_over_time() {
        let (steady, mut changed) = (Clock::new(1.0), Clock::new(1.0));
        let t1 = Time::ZERO + Duration::from_secs(10);
        changed.set_factor(t1, 3.0);
        let t2 = t1 + Duration::from_secs(5);
        assert_eq!(steady.now(t2), 15.0);
        assert_eq!(changed.now(t2), 10.0 + 15.0);
    }
}
