//! Division by sizes known only at run time (geometry: dies per channel, blocks per plane, units
//! per block), which are nearly always powers of two. A hardware division costs 10–40 cycles and
//! sits on the path of every I/O; a shift costs one, and the branch is predicted perfectly because
//! the divisor never changes within a run. The power-of-two test is `d & (d - 1) == 0`, valid
//! because `d > 0`; `u32::is_power_of_two` also checks for zero, or counts bits where the target
//! has no single-instruction population count, which costs more on this path.
//! [`Divisor`] divides by a size fixed in advance that need not be a power of two, with a
//! precomputed multiplier in place of the hardware division.

/// Whether `d` (`d > 0`) is a power of two.
#[inline(always)]
fn is_pow2(d: u32) -> bool {
    d & d.wrapping_sub(1) == 0
}

/// `x / d` (`d > 0`).
#[inline(always)]
pub fn div(x: u32, d: u32) -> u32 {
    if is_pow2(d) {
        x >> d.trailing_zeros()
    } else {
        x / d
    }
}

/// `x % d` (`d > 0`).
#[inline(always)]
pub fn rem(x: u32, d: u32) -> u32 {
    if is_pow2(d) {
        x & (d - 1)
    } else {
        x % d
    }
}

/// Exact `u32` division by a divisor fixed in advance, for divisors that need not be powers of two
/// (the fill layout's targets and pages, `ftl/fill_layout.rs`): a shift for a power of two, else the
/// high half of a 64 × 64-bit product with `⌈2⁶⁴ / d⌉` (exact for every `u32` dividend and
/// divisor: Lemire, Kaser and Kurz, "Faster remainder by direct computation", 2019).
#[derive(Clone, Copy, Debug)]
pub struct Divisor {
    divisor: u32,
    shift: u32,
    /// `⌈2⁶⁴ / d⌉`, or 0 for a power of two.
    multiplier: u64,
}

impl Default for Divisor {
    fn default() -> Divisor {
        Divisor::new(1)
    }
}

impl Divisor {
    pub fn new(divisor: u32) -> Divisor {
        assert!(divisor > 0, "a divisor of 0");
        let (shift, multiplier) = if divisor.is_power_of_two() {
            (divisor.trailing_zeros(), 0)
        } else {
            (0, u64::MAX / u64::from(divisor) + 1)
        };
        Divisor {
            divisor,
            shift,
            multiplier,
        }
    }

    /// The divisor `d`.
    #[inline]
    pub fn divisor(self) -> u32 {
        self.divisor
    }

    /// `(n / d, n % d)`.
    #[inline]
    pub fn div_rem(self, n: u32) -> (u32, u32) {
        let quotient = if self.multiplier == 0 {
            n >> self.shift
        } else {
            ((u128::from(self.multiplier) * u128::from(n)) >> 64) as u32
        };
        (quotient, n - quotient * self.divisor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_operators() {
        for d in [1u32, 2, 3, 4, 6, 7, 8, 12, 1024, 1025, 1 << 31] {
            for x in [0u32, 1, 5, 1023, 1024, 1025, 123_456_789, u32::MAX] {
                assert_eq!(div(x, d), x / d, "{x} / {d}");
                assert_eq!(rem(x, d), x % d, "{x} % {d}");
            }
        }
    }

    #[test]
    fn a_divisor_divides_exactly_at_the_edges_of_u32() {
        for divisor in [1u32, 2, 3, 7, 12, 96, 255, 256, 1536, 65_537, u32::MAX - 1, u32::MAX] {
            let by = Divisor::new(divisor);
            for n in [
                0u32,
                1,
                2,
                divisor - 1,
                divisor,
                divisor.wrapping_add(1),
                1 << 31,
                u32::MAX - 1,
                u32::MAX,
            ] {
                assert_eq!(by.div_rem(n), (n / divisor, n % divisor), "{n} / {divisor}");
            }
        }
    }
}
