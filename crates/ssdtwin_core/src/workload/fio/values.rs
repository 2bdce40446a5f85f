//! fio's value syntax (fio HOWTO, "Parameter types"): sizes with `kb_base`, times with suffixes,
//! `bssplit` lists and `random_distribution` specifications.

use super::job::FioDistribution;
use crate::base::time::Duration;

/// fio's integer with size suffix: `4k`, `1m`, `4kb`, `4KiB`, `512`, `0x100`.
pub fn parse_size(text: &str, kb_base: u64) -> Option<u64> {
    let text = text.trim();
    let lower = text.to_ascii_lowercase();
    if let Some(hex) = lower.strip_prefix("0x") {
        return u64::from_str_radix(hex, 16).ok();
    }
    let digits_end = lower
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(lower.len());
    let (number, suffix) = lower.split_at(digits_end);
    let number: f64 = number.parse().ok()?;
    let (power, iec) = match suffix {
        "" | "b" => (0, false),
        _ => {
            let power = match suffix.as_bytes()[0] {
                b'k' => 1,
                b'm' => 2,
                b'g' => 3,
                b't' => 4,
                b'p' => 5,
                _ => return None,
            };
            match &suffix[1..] {
                "" | "b" => (power, false),
                "i" | "ib" => (power, true),
                _ => return None,
            }
        }
    };
    // kb_base 1024 (fio's default, "compatibility mode"): plain and SI-looking suffixes are
    // powers of 2, IEC suffixes powers of 10; kb_base 1000 swaps them.
    let base: f64 = match (kb_base, iec) {
        (1024, false) | (1000, true) => 1024.0,
        _ => 1000.0,
    };
    let value = number * base.powi(power);
    ((0.0..1.8e19).contains(&value) && value.fract() == 0.0).then_some(value as u64)
}

/// fio's time: seconds by default, or with a suffix.
pub(super) fn parse_time(text: &str) -> Option<Duration> {
    let text = text.trim().to_ascii_lowercase();
    let digits_end = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let (number, suffix) = text.split_at(digits_end);
    let number: f64 = number.parse().ok()?;
    let seconds = match suffix {
        "" | "s" | "sec" => 1.0,
        "us" | "usec" => 1e-6,
        "ms" | "msec" => 1e-3,
        "m" | "min" => 60.0,
        "h" => 3600.0,
        "d" => 86_400.0,
        _ => return None,
    };
    let value = number * seconds;
    (0.0..1e9).contains(&value).then(|| Duration::from_secs_f64(value))
}

/// `4k/50:8k/30:16k` to (bytes, cumulative probability); entries without a percentage share
/// what the others leave of 100 (fio HOWTO, "bssplit").
pub(super) fn parse_bssplit(text: &str, kb_base: u64) -> Option<Vec<(u64, f64)>> {
    let mut entries: Vec<(u64, Option<f64>)> = Vec::new();
    for item in text.split(':') {
        let item = item.trim();
        if item.is_empty() {
            continue;
        }
        let (size, percent) = match item.split_once('/') {
            Some((size, percent)) => {
                let percent: f64 = percent.trim().parse().ok()?;
                if !(0.0..=100.0).contains(&percent) {
                    return None;
                }
                (size, Some(percent))
            }
            None => (item, None),
        };
        entries.push((parse_size(size, kb_base)?, percent));
    }
    let given: f64 = entries.iter().filter_map(|(_, percent)| *percent).sum();
    let open = entries.iter().filter(|(_, percent)| percent.is_none()).count();
    if entries.is_empty() || given > 100.0 + 1e-9 {
        return None;
    }
    let share = if open > 0 { (100.0 - given) / open as f64 } else { 0.0 };
    let weights: Vec<(u64, f64)> = entries
        .iter()
        .map(|(size, percent)| (*size, percent.unwrap_or(share)))
        .collect();
    let total: f64 = weights.iter().map(|(_, weight)| weight).sum();
    if total <= 0.0 {
        return None;
    }
    let mut cumulative = 0.0;
    let mut sizes: Vec<(u64, f64)> = weights
        .into_iter()
        .map(|(size, weight)| {
            cumulative += weight / total;
            (size, cumulative)
        })
        .collect();
    if let Some(last) = sizes.last_mut() {
        last.1 = 1.0;
    }
    Some(sizes)
}

pub(super) fn parse_distribution(text: &str) -> Option<FioDistribution> {
    let (kind, parameter) = text.split_once(':')?;
    match kind.trim() {
        "zipf" => {
            let theta: f64 = parameter.trim().parse().ok()?;
            (theta.is_finite() && theta > 0.0 && theta <= 10.0 && theta != 1.0).then_some(FioDistribution::Zipf(theta))
        }
        "pareto" => {
            let h: f64 = parameter.trim().parse().ok()?;
            (h > 0.0 && h < 1.0).then_some(FioDistribution::Pareto(h))
        }
        "zoned" => {
            let mut zones = Vec::new();
            for zone in parameter.split(':') {
                let (access, size) = zone.split_once('/')?;
                let access: f64 = access.trim().parse().ok()?;
                let size: f64 = size.trim().parse().ok()?;
                if !(0.0..=100.0).contains(&access) || !(0.0..=100.0).contains(&size) {
                    return None;
                }
                zones.push((access / 100.0, size / 100.0));
            }
            let access: f64 = zones.iter().map(|(access, _)| access).sum();
            let size: f64 = zones.iter().map(|(_, size)| size).sum();
            ((access - 1.0).abs() < 1e-6 && (size - 1.0).abs() < 1e-6).then_some(FioDistribution::Zoned(zones))
        }
        _ => None,
    }
}
