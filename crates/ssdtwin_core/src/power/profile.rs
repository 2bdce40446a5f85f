//! Current profiles of NAND operations: piecewise-constant segments (docs/models/power.md).
//!
//! ONFI ICC values are averages over an operation; the real current has sub-operation peaks
//! (charge-pump ramps at each ISPP pulse of a program, the sensing phase of a read). A profile is
//! the operation's average current times a shape: segments `[fraction of the duration, factor]`
//! whose fraction-weighted factors average 1, so the average stays the ONFI value and the peak is
//! the largest factor times it. Segment powers are precomputed here, once per operation class and
//! page type; an operation of duration `D` puts segment `k` on `[start + D·F(k−1), start + D·F(k))`
//! with `F` the cumulative fractions (the last boundary is exactly `D`).

use super::params::{PerPageTypeCurrent, PowerConfig, ProfileSegment};
use crate::base::time::Duration;
use crate::observe::OpClass;

/// One precomputed segment: it ends at `end_fraction` of the operation and draws `power_w` on VCC.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Segment {
    pub end_fraction: f64,
    pub power_w: f64,
}

/// The index range of one profile's segments in [`Profiles::segments`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct ProfileRange {
    pub first: u32,
    pub end: u32,
}

/// Every profile of a drive: per class, per page type.
#[derive(Clone, Debug)]
pub struct Profiles {
    pub segments: Vec<Segment>,
    read: Vec<ProfileRange>,
    program: Vec<ProfileRange>,
    erase: ProfileRange,
}

impl Profiles {
    pub fn new(config: &PowerConfig, page_types: usize) -> Profiles {
        Profiles::with_slc(config, page_types, None)
    }

    /// The profiles of `page_types` page types and, with `slc` (average read and program
    /// currents [mA]), the SLC mode as one more page type after them (the SLC cache).
    pub fn with_slc(config: &PowerConfig, page_types: usize, slc: Option<(f64, f64)>) -> Profiles {
        let mut segments = Vec::new();
        let mut add = |average_ma: f64, shape: &[ProfileSegment]| {
            let first = segments.len() as u32;
            let flat = [(1.0, 1.0)];
            let shape = if shape.is_empty() { &flat[..] } else { shape };
            let mut cumulative = 0.0;
            for (index, &(fraction, factor)) in shape.iter().enumerate() {
                cumulative += fraction;
                segments.push(Segment {
                    end_fraction: if index + 1 == shape.len() { 1.0 } else { cumulative },
                    power_w: config.vcc_v * average_ma * factor * 1e-3,
                });
            }
            ProfileRange {
                first,
                end: segments.len() as u32,
            }
        };
        let per_type = |currents: &PerPageTypeCurrent, page_type: usize| currents.for_type(page_type);
        let mut read: Vec<_> = (0..page_types)
            .map(|page_type| add(per_type(&config.icc_read_ma, page_type), &config.read_profile))
            .collect();
        let mut program: Vec<_> = (0..page_types)
            .map(|page_type| add(per_type(&config.icc_program_ma, page_type), &config.program_profile))
            .collect();
        if let Some((read_ma, program_ma)) = slc {
            read.push(add(read_ma, &config.read_profile));
            program.push(add(program_ma, &config.program_profile));
        }
        let erase = add(config.icc_erase_ma, &config.erase_profile);
        Profiles {
            segments,
            read,
            program,
            erase,
        }
    }

    /// The segments of `class` on a page of type `page_type` (ignored for erases).
    pub fn range(&self, class: OpClass, page_type: usize) -> ProfileRange {
        match class {
            OpClass::Read => self.read[page_type],
            OpClass::Program => self.program[page_type],
            OpClass::Erase => self.erase,
        }
    }

    /// Offset of the end of segment `index` inside an operation of `duration`.
    #[inline]
    pub fn boundary(&self, index: u32, duration: Duration) -> Duration {
        let fraction = self.segments[index as usize].end_fraction;
        if fraction >= 1.0 {
            duration
        } else {
            // Rounded to the nearest nanosecond (adding 0.5 and truncating: no libm call), back
            // through i64 as `as_nanos_f64` goes there: one instruction where u64 takes several.
            Duration::from_nanos((duration.as_nanos_f64() * fraction + 0.5) as i64 as u64)
        }
    }

    /// Energy of a whole operation of `duration` [J] (for checks and tests).
    pub fn energy(&self, class: OpClass, page_type: usize, duration: Duration) -> f64 {
        let range = self.range(class, page_type);
        let mut start = Duration::ZERO;
        let mut energy = 0.0;
        for index in range.first..range.end {
            let end = self.boundary(index, duration);
            energy += self.segments[index as usize].power_w * (end - start).as_secs_f64();
            start = end;
        }
        energy
    }

    /// Largest power of any segment of `class` on page type `page_type` [W].
    pub fn peak(&self, class: OpClass, page_type: usize) -> f64 {
        let range = self.range(class, page_type);
        self.segments[range.first as usize..range.end as usize]
            .iter()
            .map(|segment| segment.power_w)
            .fold(0.0, f64::max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shape_keeps_the_average_and_sets_the_peak() {
        let config = PowerConfig {
            icc_program_ma: PerPageTypeCurrent::PerType(vec![10.0, 20.0, 30.0]),
            program_profile: vec![(0.25, 2.0), (0.75, 2.0 / 3.0)],
            ..PowerConfig::default()
        };
        let profiles = Profiles::new(&config, 3);
        let duration = Duration::from_millis(2);
        for (page_type, average_ma) in [(0, 10.0), (1, 20.0), (2, 30.0)] {
            let average_power = config.vcc_v * average_ma * 1e-3;
            let energy = profiles.energy(OpClass::Program, page_type, duration);
            assert!((energy - average_power * duration.as_secs_f64()).abs() < 1e-12);
            assert!((profiles.peak(OpClass::Program, page_type) - 2.0 * average_power).abs() < 1e-12);
        }
        let range = profiles.range(OpClass::Program, 1);
        assert_eq!(range.end - range.first, 2);
        assert_eq!(profiles.boundary(range.first, duration), Duration::from_micros(500));
        assert_eq!(profiles.boundary(range.first + 1, duration), duration);
        let flat = profiles.range(OpClass::Read, 0);
        assert_eq!(flat.end - flat.first, 1, "no shape: one constant segment");
    }
}
