//! The power model as an observer: each state change of the stream becomes one hook call.

use super::PowerModel;
use crate::base::time::Time;
use crate::observe::StateChange;

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
}
