//! LDPC as a threshold model (MODELS.md §3.3): a codeword decodes by hard decision when its RBER
//! is at most the hard-decision limit (correctable bits over codeword bits: 220 of 4,320 B in the
//! self-heating paper's drive, 6.37e-3), by soft decision when at most the soft limit, otherwise
//! not at all. Errors "normalised to ECC capability" (the paper's Figure 3) are RBER times the
//! codeword's bits over the correctable bits: 1 at the hard-decision limit.

use super::params::ReliabilityConfig;

#[derive(Clone, Copy, Debug)]
pub struct Ecc {
    /// Highest RBER the hard decision corrects [fraction].
    pub hard_limit: f64,
    /// Highest RBER the soft decision corrects [fraction].
    pub soft_limit: f64,
}

impl Ecc {
    pub fn new(config: &ReliabilityConfig) -> Ecc {
        Ecc {
            hard_limit: config.hard_limit(),
            soft_limit: config.soft_limit,
        }
    }

    /// Bit errors per codeword over the correctable bits.
    pub fn normalised(&self, rber: f64) -> f64 {
        rber / self.hard_limit
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_papers_code_corrects_220_bits_of_4320_bytes() {
        let ecc = Ecc::new(&ReliabilityConfig::default());
        assert!((ecc.hard_limit - 220.0 / 34_560.0).abs() < 1e-12);
        assert!((ecc.hard_limit - 6.366e-3).abs() < 1e-6);
        assert!((ecc.normalised(ecc.hard_limit) - 1.0).abs() < 1e-12);
    }
}
