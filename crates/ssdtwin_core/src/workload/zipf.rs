//! Zipf-distributed ranks, for the synthetic generator's and fio's `zipf` popularity.

use crate::base::rng::Rng;

/// Zipf over ranks 1..=n with exponent `theta`, sampled in O(1) by rejection-inversion
/// (W. Hörmann and G. Derflinger, "Rejection-inversion to generate variates from monotone
/// discrete distributions", ACM TOMACS 6(3), 1996).
#[derive(Clone, Debug)]
pub struct Zipf {
    items: u64,
    exponent: f64,
    h_integral_x1: f64,
    h_integral_items: f64,
    s: f64,
}

impl Zipf {
    pub fn new(items: u64, exponent: f64) -> Zipf {
        let mut zipf = Zipf {
            items,
            exponent,
            h_integral_x1: 0.0,
            h_integral_items: 0.0,
            s: 0.0,
        };
        zipf.h_integral_x1 = zipf.h_integral(1.5) - 1.0;
        zipf.h_integral_items = zipf.h_integral(items as f64 + 0.5);
        zipf.s = 2.0 - zipf.h_integral_inverse(zipf.h_integral(2.5) - zipf.h(2.0));
        zipf
    }

    pub fn items(&self) -> u64 {
        self.items
    }

    /// A rank in 1..=items; rank k has probability proportional to k^(−theta).
    pub fn sample(&self, rng: &mut Rng) -> u64 {
        loop {
            let u = self.h_integral_items + rng.unit() * (self.h_integral_x1 - self.h_integral_items);
            let x = self.h_integral_inverse(u);
            let k = (x + 0.5).floor().clamp(1.0, self.items as f64);
            if k - x <= self.s || u >= self.h_integral(k + 0.5) - self.h(k) {
                return k as u64;
            }
        }
    }

    fn h(&self, x: f64) -> f64 {
        (-self.exponent * x.ln()).exp()
    }

    /// Integral of h from 1 to x: (x^(1−θ) − 1)/(1 − θ), or ln x at θ = 1.
    fn h_integral(&self, x: f64) -> f64 {
        let log_x = x.ln();
        helper_expm1_over(((1.0 - self.exponent) * log_x).exp_m1(), (1.0 - self.exponent) * log_x) * log_x
    }

    fn h_integral_inverse(&self, y: f64) -> f64 {
        let mut t = y * (1.0 - self.exponent);
        if t < -1.0 {
            t = -1.0;
        }
        (helper_ln1p_over(t) * y).exp()
    }
}

/// (e^x − 1)/x, continuous at 0.
fn helper_expm1_over(expm1: f64, x: f64) -> f64 {
    if x.abs() > 1e-8 {
        expm1 / x
    } else {
        1.0 + x / 2.0
    }
}

/// ln(1 + x)/x, continuous at 0.
fn helper_ln1p_over(x: f64) -> f64 {
    if x.abs() > 1e-8 {
        x.ln_1p() / x
    } else {
        1.0 - x / 2.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zipf_matches_its_probabilities() {
        let zipf = Zipf::new(100, 1.2);
        let mut rng = Rng::stream(2, "zipf");
        let mut counts = [0u32; 101];
        let draws = 400_000;
        for _ in 0..draws {
            counts[zipf.sample(&mut rng) as usize] += 1;
        }
        let normaliser: f64 = (1..=100).map(|k| (k as f64).powf(-1.2)).sum();
        for k in [1usize, 2, 10, 50] {
            let expected = (k as f64).powf(-1.2) / normaliser;
            let observed = f64::from(counts[k]) / draws as f64;
            assert!(
                (observed - expected).abs() < 0.1 * expected + 0.0005,
                "rank {k}: {observed} vs {expected}"
            );
        }
    }
}
