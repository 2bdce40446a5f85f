//! Small exact parsers shared by the trace readers: integers and decimal numbers scaled to
//! nanoseconds without going through floating point, so a gap of exactly one second in any
//! format becomes exactly 1 000 000 000 ns.

/// A non-negative integer, or a description of what is wrong.
pub fn integer(field: Option<&str>, what: &str) -> Result<u64, String> {
    let text = field.ok_or_else(|| format!("missing {what}"))?.trim();
    text.parse::<u64>()
        .map_err(|_| format!("{what} `{text}` is not a non-negative integer"))
}

/// A non-negative decimal number (`12`, `0.5`, `3.000001`, `1e-3` is refused) times `unit_ns`
/// nanoseconds, rounded to the nearest nanosecond.
pub fn decimal_scaled(field: Option<&str>, unit_ns: u64, what: &str) -> Result<u64, String> {
    let text = field.ok_or_else(|| format!("missing {what}"))?.trim();
    let bad = || format!("{what} `{text}` is not a non-negative decimal number");
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    if (whole.is_empty() && fraction.is_empty())
        || !whole.bytes().all(|b| b.is_ascii_digit())
        || !fraction.bytes().all(|b| b.is_ascii_digit())
    {
        return Err(bad());
    }
    let whole: u128 = if whole.is_empty() {
        0
    } else {
        whole.parse().map_err(|_| bad())?
    };
    // 18 fraction digits resolve far below a nanosecond for any unit up to 10^12 ns, and keep
    // the products below u128's range.
    let fraction = &fraction[..fraction.len().min(18)];
    let too_large = || format!("{what} `{text}` is too large");
    let mut scaled = whole.checked_mul(u128::from(unit_ns)).ok_or_else(too_large)?;
    if !fraction.is_empty() {
        let numerator: u128 = fraction.parse().map_err(|_| bad())?;
        let denominator = 10u128.pow(fraction.len() as u32);
        let product = numerator * u128::from(unit_ns);
        scaled = scaled
            .checked_add((product + denominator / 2) / denominator)
            .ok_or_else(too_large)?;
    }
    u64::try_from(scaled).map_err(|_| too_large())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_scale_exactly() {
        assert_eq!(decimal_scaled(Some("1.000000"), 1_000_000_000, "t"), Ok(1_000_000_000));
        assert_eq!(decimal_scaled(Some("0.551706"), 1_000_000_000, "t"), Ok(551_706_000));
        assert_eq!(decimal_scaled(Some("2.5"), 1_000_000, "t"), Ok(2_500_000));
        assert_eq!(decimal_scaled(Some("7"), 1, "t"), Ok(7));
        assert!(decimal_scaled(Some("-1"), 1, "t").is_err());
        assert!(decimal_scaled(Some("1e3"), 1, "t").is_err());
        assert!(decimal_scaled(Some("."), 1, "t").is_err());
        assert!(decimal_scaled(None, 1, "t").unwrap_err().contains("missing t"));
        // Found by the fuzzer: a 36-digit time overflowed the scaling instead of being refused.
        let huge = "888888888888888888888888888888888888";
        assert!(decimal_scaled(Some(huge), 1_000_000_000, "t")
            .unwrap_err()
            .contains("too large"));
        let long_fraction = format!("1.{}", "9".repeat(40));
        assert_eq!(
            decimal_scaled(Some(&long_fraction), 1_000_000_000, "t"),
            Ok(2_000_000_000)
        );
    }
}
