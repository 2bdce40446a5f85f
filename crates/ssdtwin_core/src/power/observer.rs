//! The power model as an observer: each state change of the stream becomes one hook call.

use super::meter::before;
use super::PowerModel;
use crate::base::time::{Duration, Time};
use crate::observe::{Direction, OpClass, StateChange};

impl PowerModel {
    /// Accounts for `change`, pushed at `now`.
    #[inline(always)]
    pub fn observe(&mut self, now: Time, change: &StateChange) {
        match *change {
            StateChange::DieOpStart {
                die,
                start,
                class,
                page_type,
                duration,
            } => self.die_op_start(now, die, start, class, page_type as usize, duration),
            StateChange::ProgramStart {
                die,
                start,
                page_type,
                duration,
                load,
            } => self.program_start(now, die, start, page_type as usize, duration, load),
            StateChange::DieSensed { die } => self.die_sensed(now, die),
            StateChange::Transfer {
                die,
                end,
                length,
                direction,
            } => self.transfer(now, die, end, length, direction),
            StateChange::DieOpEnd { die } => self.die_op_end(now, die),
            StateChange::DieOpInterrupt { die, stopped } => self.die_op_interrupt(now, die, stopped),
            StateChange::DieOpResume { die, start, rewind } => self.die_op_resume(now, die, start, rewind),
            StateChange::Command => self.command(now),
            StateChange::ControllerPowerState { scale } => self.controller_power_state(now, scale),
            StateChange::DramAccess { bytes } => self.dram_access(now, bytes),
            StateChange::HostCompletion { bytes, trim, .. } => self.host_completion(now, if trim { 0 } else { bytes }),
        }
    }

    /// `die`'s array finished sensing at `now` and its data waits for the channel: the read's
    /// profile ends here (the die draws its bus-idle current until the data-out is granted).
    #[inline]
    pub fn die_sensed(&mut self, now: Time, die: u32) {
        if !self.enabled {
            return;
        }
        self.advance(now);
        self.refresh(die, now);
    }

    /// `die` takes a program at `now`: the channel loads it during the `load` that ends at `start`,
    /// then its array programs a page of `page_type` for `duration`. The same as
    /// [`Self::die_op_start`] then [`Self::transfer`] at `now`, with one update of the die where
    /// that gives the same accounts: the first of the two would put the die at its bus-idle power
    /// (the array starts later and no transfer runs), a change the second overrides at the same
    /// instant, unless the second brings the die back to the power it had before (then the rail
    /// would see a change point that one update does not make, so both run).
    #[inline(always)]
    pub fn program_start(
        &mut self,
        now: Time,
        die: u32,
        start: Time,
        page_type: usize,
        duration: Duration,
        load: Duration,
    ) {
        if !self.enabled {
            return;
        }
        let transferring = before(start, load) <= now;
        let absorbed = self.ended == die && start > now && {
            let (power, io_bus) = if transferring {
                (self.bus_idle + self.io_write, self.io_bus_power)
            } else {
                (self.bus_idle, 0)
            };
            self.absorb_end(now, die, power, io_bus);
            self.ended != die
        };
        self.advance(now);
        let state = &self.dies[die as usize];
        let single = absorbed
            || start > now
                && !state.suspended
                && state.io_bus == 0
                && state.transfer_end <= now
                && (state.power == self.bus_idle || state.power != self.bus_idle + self.io_write);
        if !single {
            self.die_op_start(now, die, start, OpClass::Program, page_type, duration);
            self.transfer(now, die, start, load, Direction::In);
            return;
        }
        self.begin_profile(now, die, start, OpClass::Program, page_type, duration);
        self.set_transfer(die, start, load, self.io_write);
        self.refresh(die, now);
    }
}
