//! The flash timing table: per-page-type array times, bus transfer times, program variability.
//!
//! Timing is data (a table the presets fill in), not code paths per vendor. Transfer time is
//! `bytes / bus_rate` on the 8-bit ONFI bus (one byte per transfer) plus the command/address
//! cycles; a read moves only the codewords it needs (column addressing), a program the whole
//! payload (docs/models/flash.md).

use super::geometry::Geometry;
use super::params::FlashConfig;
use crate::base::rng::Rng;
use crate::base::time::Duration;

#[derive(Clone, Debug)]
pub struct Timing {
    /// Die time of a read per page type before data out: array read plus the page-register
    /// transfer (`flash.page_register_time`).
    pub read: Vec<Duration>,
    /// Program time per page type.
    pub program: Vec<Duration>,
    pub erase: Duration,
    /// SLC-mode erase time (the SLC cache; its read and program times follow the page types).
    pub slc_erase: Duration,
    /// Command and address cycles before an operation.
    pub command: Duration,
    /// Page-register transfer added to every read and program (Cho et al., section IV-B).
    pub page_register: Duration,
    /// Bus rate [bytes/s] (8-bit bus: one byte per transfer).
    bus_bytes_per_second: f64,
    /// Relative standard deviation of program time.
    program_spread: f64,
    unit_bytes: u64,
    parity_bytes: u64,
}

impl Timing {
    /// The timing table of `flash` for the mapping units of `geometry`.
    pub fn new(flash: &FlashConfig, geometry: &Geometry) -> Timing {
        let types = geometry.page_types as usize;
        Timing {
            read: (0..types)
                .map(|t| flash.t_read.for_type(t) + flash.page_register_time)
                .collect(),
            program: (0..types).map(|t| flash.t_program.for_type(t)).collect(),
            erase: flash.t_erase,
            slc_erase: flash.t_erase,
            command: flash.command_time,
            page_register: flash.page_register_time,
            bus_bytes_per_second: flash.bus_rate.per_second(),
            program_spread: flash.program_time_spread,
            unit_bytes: geometry.unit_bytes,
            parity_bytes: geometry.parity_bytes,
        }
    }

    /// Adds the SLC mode as one more page type (index `page_types`) with SLC read and program
    /// times, and its erase time.
    pub fn add_slc(&mut self, t_read: Duration, t_program: Duration, t_erase: Duration) {
        self.read.push(t_read + self.page_register);
        self.program.push(t_program);
        self.slc_erase = t_erase;
    }

    /// Bus time to move `units` mapping units with their parity (reads: column addressing).
    pub fn read_transfer(&self, units: u32) -> Duration {
        Duration::for_transfer(
            u64::from(units) * (self.unit_bytes + self.parity_bytes),
            self.bus_bytes_per_second,
        )
    }

    /// Bus time to load `units` mapping units with parity for a program, plus the command cycles.
    pub fn program_transfer(&self, units: u32) -> Duration {
        self.command + self.read_transfer(units)
    }

    /// Die time of a program of a page of type `page_type` after data in: the page-register
    /// transfer plus the program time with the configured variability.
    pub fn program_time(&self, page_type: usize, rng: &mut Rng) -> Duration {
        let nominal = self.program[page_type];
        if self.program_spread == 0.0 {
            return self.page_register + nominal;
        }
        let factor = 1.0 + self.program_spread * rng.normal().clamp(-3.0, 3.0);
        self.page_register + nominal.scaled(factor)
    }
}
