//! The simulation's random numbers: seeded PCG streams, never the OS.
//!
//! Each consumer (workload, flash timing, GC) gets its own named stream derived from the scenario
//! seed, so adding draws in one component does not shift another's sequence. The few
//! distributions needed are written here, so their output cannot change with a crate version.

use rand_core::Rng as _;
use rand_pcg::Pcg64Mcg;

/// A seeded random stream.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Rng(Pcg64Mcg);

impl Rng {
    /// The stream `name` of the simulation seeded with `seed`.
    pub fn stream(seed: u64, name: &str) -> Rng {
        // FNV-1a of the name, mixed with the seed by SplitMix64, gives independent stream seeds.
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
        for byte in name.bytes() {
            hash = (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3);
        }
        let mut state = seed ^ hash;
        let mut next = || {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        };
        let seed_value = (u128::from(next()) << 64) | u128::from(next());
        Rng(Pcg64Mcg::new(seed_value | 1))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform integer in [0, bound); `bound` must be positive.
    #[inline]
    pub fn below(&mut self, bound: u64) -> u64 {
        // Lemire's multiply-shift with rejection: unbiased. A draw whose low half is at least
        // `bound` is above the rejection threshold (2^64 mod bound, below `bound`), so the
        // threshold's division is needed only for the rare draw below `bound`.
        let mut product = u128::from(self.next_u64()) * u128::from(bound);
        if (product as u64) < bound {
            let threshold = bound.wrapping_neg() % bound;
            while (product as u64) < threshold {
                product = u128::from(self.next_u64()) * u128::from(bound);
            }
        }
        (product >> 64) as u64
    }

    /// Standard normal (Box–Muller; the second value is discarded to keep the stream simple).
    pub fn normal(&mut self) -> f64 {
        let u1 = 1.0 - self.unit();
        let u2 = self.unit();
        (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_reproducible_and_distinct() {
        let a: Vec<u64> = (0..4)
            .map({
                let mut r = Rng::stream(7, "workload");
                move |_| r.next_u64()
            })
            .collect();
        let b: Vec<u64> = (0..4)
            .map({
                let mut r = Rng::stream(7, "workload");
                move |_| r.next_u64()
            })
            .collect();
        let c: Vec<u64> = (0..4)
            .map({
                let mut r = Rng::stream(7, "flash");
                move |_| r.next_u64()
            })
            .collect();
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn below_is_in_range_and_roughly_uniform() {
        let mut rng = Rng::stream(1, "t");
        let mut counts = [0u32; 10];
        for _ in 0..100_000 {
            counts[rng.below(10) as usize] += 1;
        }
        for count in counts {
            assert!((9_000..11_000).contains(&count), "{counts:?}");
        }
    }

    #[test]
    fn below_rejects_exactly_the_draws_under_the_threshold() {
        // The textbook form (the threshold computed for every draw) and `below` keep and reject
        // the same draws, so they give the same numbers, also where half the draws are rejected.
        let textbook = |rng: &mut Rng, bound: u64| loop {
            let product = u128::from(rng.next_u64()) * u128::from(bound);
            if (product as u64) >= bound.wrapping_neg() % bound {
                return (product >> 64) as u64;
            }
        };
        for bound in [
            1u64,
            2,
            3,
            10,
            1000,
            187_904_819,
            (1 << 32) + 7,
            (1 << 63) + 1,
            u64::MAX,
        ] {
            let (mut a, mut b) = (Rng::stream(9, "below"), Rng::stream(9, "below"));
            for _ in 0..10_000 {
                assert_eq!(a.below(bound), textbook(&mut b, bound), "bound {bound}");
            }
        }
    }

    #[test]
    fn normal_has_unit_variance() {
        let mut rng = Rng::stream(3, "n");
        let samples: Vec<f64> = (0..200_000).map(|_| rng.normal()).collect();
        let mean = samples.iter().sum::<f64>() / samples.len() as f64;
        let variance = samples.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / samples.len() as f64;
        assert!(mean.abs() < 0.01, "{mean}");
        assert!((variance - 1.0).abs() < 0.02, "{variance}");
    }
}
