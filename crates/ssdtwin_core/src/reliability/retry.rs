//! The read-retry ladder (MODELS.md §3.4, its retry-table form): a read whose RBER is above the
//! hard-decision limit is sensed again with shifted references, each step dividing its RBER by
//! the step gain ρ, until it is within the limit:
//!
//! N = ceil(ln(RBER / RBER_hard) / ln ρ)      retries, if N ≤ the ladder's steps.
//!
//! When the ladder ends above the limit, the controller senses the soft bits at the last
//! references and decodes soft: it succeeds if RBER / ρ^steps is at most the soft limit; otherwise
//! the read is uncorrectable. Each retry costs a sense (t_R), the data out and a hard decode;
//! soft decoding its extra senses and transfers and a soft decode (`ReadCost`).

use super::ecc::Ecc;

/// What one read costs beyond a plain sense, transfer and decode.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReadCost {
    /// Read-retry steps.
    pub retries: u8,
    /// Soft decoding was needed.
    pub soft: bool,
    /// Neither decoder corrects the data.
    pub uncorrectable: bool,
}

/// The ladder.
#[derive(Clone, Copy, Debug)]
pub struct Ladder {
    log_gain: f64,
    max_steps: u32,
}

impl Ladder {
    pub fn new(step_gain: f64, max_steps: u32) -> Ladder {
        Ladder {
            log_gain: step_gain.ln(),
            max_steps,
        }
    }

    /// The cost of reading data at `rber`.
    pub fn cost(&self, rber: f64, ecc: &Ecc) -> ReadCost {
        if rber <= ecc.hard_limit {
            return ReadCost::default();
        }
        let needed = ((rber / ecc.hard_limit).ln() / self.log_gain).ceil();
        if needed <= f64::from(self.max_steps) {
            return ReadCost {
                retries: needed.max(1.0) as u8,
                soft: false,
                uncorrectable: false,
            };
        }
        let residual = rber / (self.log_gain * f64::from(self.max_steps)).exp();
        ReadCost {
            retries: self.max_steps as u8,
            soft: true,
            uncorrectable: residual > ecc.soft_limit,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_follow_the_ratio_to_the_hard_limit() {
        let ecc = Ecc {
            hard_limit: 1e-3,
            soft_limit: 4e-3,
        };
        let ladder = Ladder::new(2.0, 3);
        assert_eq!(ladder.cost(1e-3, &ecc), ReadCost::default());
        assert_eq!(ladder.cost(1.5e-3, &ecc).retries, 1);
        assert_eq!(ladder.cost(2.0e-3, &ecc).retries, 1);
        assert_eq!(ladder.cost(2.1e-3, &ecc).retries, 2);
        assert_eq!(
            ladder.cost(8.0e-3, &ecc),
            ReadCost {
                retries: 3,
                soft: false,
                uncorrectable: false
            }
        );
        // Past the ladder: soft at the last references (8× lower), within 4e-3 up to 3.2e-2.
        assert_eq!(
            ladder.cost(9.0e-3, &ecc),
            ReadCost {
                retries: 3,
                soft: true,
                uncorrectable: false
            }
        );
        assert_eq!(
            ladder.cost(3.3e-2, &ecc),
            ReadCost {
                retries: 3,
                soft: true,
                uncorrectable: true
            }
        );
    }

    #[test]
    fn why_the_default_ladder_has_5_steps_and_not_15() {
        // docs/models/reliability.md, "Why 5 steps": the [SELFHEAT] code's hard limit, 1e-2 soft.
        let ecc = Ecc {
            hard_limit: 220.0 / (4320.0 * 8.0),
            soft_limit: 1e-2,
        };
        // 15 steps of 1.6 clear every RBER up to the 0.5 cap by retries alone (10 steps at 0.5):
        // nothing would ever decode soft or fail.
        let long = Ladder::new(1.6, 15);
        assert_eq!(
            long.cost(0.5, &ecc),
            ReadCost {
                retries: 10,
                soft: false,
                uncorrectable: false
            }
        );
        // 5 steps reach 6.37e-3 × 1.6^5 = 6.7e-2; soft decoding up to 1e-2 × 1.6^5 = 0.105; beyond
        // that the read fails.
        let ladder = Ladder::new(1.6, 5);
        assert_eq!(ladder.cost(6.6e-2, &ecc).retries, 5);
        assert!(!ladder.cost(6.6e-2, &ecc).soft);
        assert_eq!(
            ladder.cost(0.1, &ecc),
            ReadCost {
                retries: 5,
                soft: true,
                uncorrectable: false
            }
        );
        assert!(ladder.cost(0.11, &ecc).uncorrectable);
        assert!(ladder.cost(0.5, &ecc).uncorrectable);
    }
}
