//! Limits the controller runs under when the drive throttles (docs/models/thermal.md,
//! "Throttling"): a smaller frame buffer, a cap on the array operations running at once on each
//! channel, a lower power state. The engine sets them from the throttling policy's decision; with
//! no throttling the cap is `u32::MAX` and costs one comparison per die start.

use super::Controller;
use crate::observe::{Context, Observer, StateChange};

impl Controller {
    /// The frame buffer holds at most `units` transactions from now on (those in flight stay).
    pub fn set_frame_buffer<O: Observer>(&mut self, units: u32, cx: &mut Context<O>) {
        let raised = units > self.frame_buffer;
        self.frame_buffer = units;
        if raised {
            self.admit(cx);
        }
    }

    /// At most `fraction` of each channel's dies (rounded up, at least one) run an operation at
    /// once from now on; 1 lifts the cap. Running operations finish; a die whose channel is at
    /// the cap waits before taking its next one.
    pub fn cap_array_ops<O: Observer>(&mut self, fraction: f64, cx: &mut Context<O>) {
        let per_channel = self.geometry.dies / self.geometry.channels;
        let cap = if fraction >= 1.0 {
            u32::MAX
        } else {
            ((fraction * f64::from(per_channel)).ceil() as u32).max(1)
        };
        let raised = cap > self.array_cap;
        self.array_cap = cap;
        if raised {
            for die in 0..self.geometry.dies {
                self.try_start(die, cx);
            }
        }
    }

    /// The controller enters a power state drawing `scale` of its normal power (the power model
    /// accounts for it).
    pub fn set_power_state<O: Observer>(&mut self, scale: f64, cx: &mut Context<O>) {
        cx.die(StateChange::ControllerPowerState { scale });
    }

    /// The dies on `die`'s channel other than `die` that hold an operation (running, suspended or
    /// with data in the cache register) number at least the cap.
    pub(super) fn channel_at_cap(&self, die: u32) -> bool {
        let channels = self.geometry.channels;
        let busy = (self.geometry.channel_of_die(die)..self.geometry.dies)
            .step_by(channels as usize)
            .filter(|&other| other != die && self.dies[other as usize].holds_operation())
            .count();
        busy as u32 >= self.array_cap
    }

    /// A die of a capped channel went idle: the channel's dies get the freed place in turn,
    /// starting after `die` (so one die cannot keep it).
    pub(super) fn wake_channel<O: Observer>(&mut self, die: u32, cx: &mut Context<O>) {
        let channels = self.geometry.channels;
        let per_channel = self.geometry.dies / channels;
        let first = die / channels;
        for step in 1..=per_channel {
            let other = ((first + step) % per_channel) * channels + self.geometry.channel_of_die(die);
            self.try_start(other, cx);
        }
    }
}

impl Controller {
    /// The frame buffer's size now [mapping units].
    pub fn frame_buffer(&self) -> u32 {
        self.frame_buffer
    }

    /// The smallest frame buffer the controller works with: one program's mapping units.
    pub fn min_frame_buffer(&self) -> u32 {
        self.geometry.units_per_page * self.ftl.targets()[0].plane_count
    }
}
