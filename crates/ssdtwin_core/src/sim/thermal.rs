//! The thermal step: where the engine hands the power model's per-node energy to the thermal
//! model, lets the throttling policy look at the temperatures and applies its limits through the
//! components that own each behaviour (host: queue depth, submission time, firmware clock;
//! controller: frame buffer, array operations per channel, power state).
//!
//! Steps come every `thermal.step` and at every time-series boundary (so each series row has the
//! temperatures at its end), as `Event::ThermalStep`, and only while the drive has other events
//! pending: a stalled drive still ends its run. With the thermal model off no step is scheduled.

use super::observers::ThermalFigures;
use super::Simulation;
use crate::base::event::Event;
use crate::base::time::{Duration, Time};
use crate::observe::Context;
use crate::reliability::Reliability;
use crate::thermal::throttle::Limits;
use crate::thermal::ThermalModel;

/// Retention ages at each NAND package's temperature from `now` on (reliability on).
fn set_package_temperatures(reliability: &mut Reliability, model: &ThermalModel, now: Time) {
    let (_, packages, _, _) = model.indices();
    reliability.set_temperatures(now, &model.network().temperatures()[packages]);
}

impl Simulation {
    /// Lets the throttling policy look at the starting temperatures (a run may begin hot) and
    /// schedules the first thermal step, if the thermal model is on.
    pub(super) fn start_thermal(&mut self) {
        let now = self.now;
        let Some(thermal) = self.observers.thermal.as_mut() else {
            return;
        };
        self.events.schedule(thermal.next_step(now), Event::ThermalStep);
        if let Some(reliability) = self.controller.reliability.as_mut() {
            set_package_temperatures(reliability, &thermal.model, now);
        }
        if let Some((old, new)) = thermal.throttle.update(now, thermal.model.readings()) {
            self.apply_limits(&old, &new);
        }
    }

    /// A thermal step: temperatures to now, the policy's decision applied, the next step booked.
    pub(super) fn on_thermal_step(&mut self) {
        let now = self.now;
        let Some(thermal) = self.observers.thermal.as_mut() else {
            return;
        };
        let energy = self.observers.power.node_energy(now);
        thermal.model.step(now, &energy);
        if let Some(reliability) = self.controller.reliability.as_mut() {
            set_package_temperatures(reliability, &thermal.model, now);
        }
        let decision = thermal.throttle.update(now, thermal.model.readings());
        if thermal.on_boundary(now) {
            thermal.model.record(f64::from(thermal.throttle.limits().state as u8));
        }
        let next = thermal.next_step(now);
        if !self.events.is_empty() {
            self.events.schedule(next, Event::ThermalStep);
        }
        if let Some((old, new)) = decision {
            self.apply_limits(&old, &new);
        }
    }

    /// Applies the throttling policy's `new` limits (after `old`) through the components.
    fn apply_limits(&mut self, old: &Limits, new: &Limits) {
        let cx = &mut Context {
            now: self.now,
            events: &mut self.events,
            observers: &mut self.observers,
        };
        let controller = &mut self.controller;
        if new.controller_power != old.controller_power {
            controller.set_power_state(new.controller_power, cx);
        }
        if new.array_fraction != old.array_fraction {
            controller.cap_array_ops(new.array_fraction, cx);
        }
        if new.frame_buffer != old.frame_buffer {
            controller.set_frame_buffer(new.frame_buffer, cx);
        }
        if (new.queue_depth, new.cst, new.controller_power) != (old.queue_depth, old.cst, old.controller_power) {
            self.host.apply_limits(
                (new.queue_depth, new.cst, new.controller_power),
                controller,
                &mut self.workload,
                cx,
            );
        }
        for index in 0..controller.to_host.len() {
            self.host.deliver(controller.to_host[index], controller, cx);
        }
        controller.to_host.clear();
    }

    /// Brings the thermal model to `end` and closes its figures: the report's `thermal` and
    /// `throttle` blocks and the series columns (`temp_c.<node>`, `throttle_state`).
    pub(super) fn finish_thermal(&mut self, end: Time) -> ThermalFigures {
        let Some(thermal) = self.observers.thermal.as_mut() else {
            return ThermalFigures::default();
        };
        if end > thermal.model.now() {
            let energy = self.observers.power.node_energy(end);
            thermal.model.step(end, &energy);
        }
        if thermal.sample_interval != Duration::ZERO {
            thermal.model.record(f64::from(thermal.throttle.limits().state as u8));
        }
        let series = thermal.model.series();
        let mut columns: Vec<(String, Vec<f64>)> = thermal
            .model
            .node_names()
            .into_iter()
            .zip(&series.temperatures)
            .map(|(name, values)| (format!("temp_c.{name}"), values.clone()))
            .collect();
        columns.push(("throttle_state".to_string(), series.throttle_state.clone()));
        ThermalFigures {
            thermal: Some(thermal.model.report()),
            throttle: Some(thermal.throttle.report(end)),
            columns,
        }
    }
}
