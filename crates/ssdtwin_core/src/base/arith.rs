//! Division by sizes known only at run time (geometry: dies per channel, blocks per plane, units
//! per block), which are nearly always powers of two. A hardware division costs 10–40 cycles and
//! sits on the path of every I/O; a shift costs one, and the branch is predicted perfectly because
//! the divisor never changes within a run. The power-of-two test is `d & (d - 1) == 0`, valid
//! because `d > 0`; `u32::is_power_of_two` also checks for zero, or counts bits where the target
//! has no single-instruction population count, which costs more on this path.

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
}
