//! NVMe command arbitration (NVMe base specification 2.0, section 3.4.4): which flow's submission
//! queue the controller takes its next command from.
//!
//! Round robin (3.4.4.1): every queue is equal; the controller takes up to the arbitration burst
//! of commands from one queue with commands, then moves on to the next one in queue order.
//! Weighted round robin with urgent priority class (3.4.4.2): urgent queues are served first,
//! strictly, round robin among them; when none has a command, the high, medium and low classes
//! share the slots by weight: each round gives each class as many commands as its weight (a class
//! with no command waiting gives up the rest of its round, so no slot is wasted); within a class
//! its queues take turns as under round robin. The controller asks for one command each time it
//! can take one (a fetch slot: `controller/admission.rs`).

use std::collections::VecDeque;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// NVMe command arbitration among the flows' submission queues (NVMe base specification 2.0,
/// section 3.4.4; docs/models/host.md, "Submission queues and arbitration").
#[derive(Clone, Copy, Debug, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Arbitration {
    /// Every submission queue has the same priority; the controller takes up to
    /// `arbitration_burst` commands from one queue, then moves to the next (section 3.4.4.1).
    RoundRobin,
    /// Weighted round robin with urgent priority class (section 3.4.4.2): urgent queues first
    /// (strict priority, round robin among them), then high, medium and low by their weights.
    WeightedRoundRobin,
}

/// A flow's priority class (NVMe Create I/O Submission Queue, QPRIO).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, JsonSchema, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum Priority {
    /// Strict priority over every other class (weighted round robin only).
    Urgent,
    /// Weighted class with `host.weight_high`.
    High,
    /// Weighted class with `host.weight_medium`; the class of every queue under round robin.
    #[default]
    Medium,
    /// Weighted class with `host.weight_low`.
    Low,
}

impl Priority {
    /// The class as the scenario file spells it.
    pub fn name(self) -> &'static str {
        match self {
            Priority::Urgent => "urgent",
            Priority::High => "high",
            Priority::Medium => "medium",
            Priority::Low => "low",
        }
    }
}

/// The classes in order of service: urgent, high, medium, low.
const CLASSES: usize = 4;

fn class_index(priority: Priority) -> usize {
    match priority {
        Priority::Urgent => 0,
        Priority::High => 1,
        Priority::Medium => 2,
        Priority::Low => 3,
    }
}

/// The queues of one class, served round robin with the arbitration burst.
#[derive(Clone, Debug, Default)]
struct Class {
    /// Flows of the class, in flow order.
    members: Vec<usize>,
    /// Commands waiting in the class's queues.
    waiting: usize,
    /// Position in `members` of the queue served last.
    current: usize,
    /// Commands taken from it in a row.
    taken: u32,
}

impl Class {
    fn take(&mut self, queues: &[VecDeque<u32>], burst: u32) -> Option<usize> {
        let count = self.members.len();
        if self.waiting == 0 || count == 0 {
            return None;
        }
        if self.taken < burst && !queues[self.members[self.current]].is_empty() {
            self.taken += 1;
            return Some(self.members[self.current]);
        }
        for step in 1..=count {
            let position = (self.current + step) % count;
            if !queues[self.members[position]].is_empty() {
                self.current = position;
                self.taken = 1;
                return Some(self.members[position]);
            }
        }
        None
    }
}

/// The flows' submission queues at the controller and the arbitration among them.
#[derive(Clone, Debug)]
pub struct Arbiter {
    /// Commands (controller command ids) waiting in each flow's submission queue, oldest first.
    queues: Vec<VecDeque<u32>>,
    class_of: Vec<usize>,
    classes: [Class; CLASSES],
    weighted: bool,
    /// Commands in a row from one queue (`u32::MAX`: no limit).
    burst: u32,
    /// Weighted round robin: weights of high, medium, low, and what is left of this round.
    weights: [u32; 3],
    credits: [u32; 3],
    /// Commands taken from each flow's queue so far.
    pub taken: Vec<u64>,
}

impl Arbiter {
    /// The arbiter for flows of the given classes (every flow is in one class under round robin),
    /// with the arbitration burst (0: no limit) and the high, medium and low weights.
    pub fn new(arbitration: Arbitration, burst: u32, weights: [u32; 3], classes: &[Priority]) -> Arbiter {
        let weighted = arbitration == Arbitration::WeightedRoundRobin;
        let class_of: Vec<usize> = classes
            .iter()
            .map(|&priority| if weighted { class_index(priority) } else { 2 })
            .collect();
        let mut groups: [Class; CLASSES] = Default::default();
        for (flow, &class) in class_of.iter().enumerate() {
            groups[class].members.push(flow);
        }
        Arbiter {
            queues: vec![VecDeque::new(); classes.len()],
            class_of,
            classes: groups,
            weighted,
            burst: if burst == 0 { u32::MAX } else { burst },
            weights,
            credits: weights,
            taken: vec![0; classes.len()],
        }
    }

    /// A new submission queue of class `priority` (a live session's connection, `sim/live.rs`);
    /// returns its index, the flow its commands carry.
    pub fn add_queue(&mut self, priority: Priority) -> usize {
        let flow = self.queues.len();
        let class = if self.weighted { class_index(priority) } else { 2 };
        self.queues.push(VecDeque::new());
        self.class_of.push(class);
        self.classes[class].members.push(flow);
        self.taken.push(0);
        flow
    }

    /// Command `command` of flow `flow` is in the flow's submission queue.
    pub fn push(&mut self, flow: usize, command: u32) {
        self.queues[flow].push_back(command);
        self.classes[self.class_of[flow]].waiting += 1;
    }

    /// Commands waiting over all queues.
    pub fn waiting(&self) -> usize {
        self.classes.iter().map(|class| class.waiting).sum()
    }

    /// The command the controller takes next, if any queue has one.
    pub fn take(&mut self) -> Option<u32> {
        let flow = self.choose()?;
        let command = self.queues[flow].pop_front().expect("the chosen queue has a command");
        self.classes[self.class_of[flow]].waiting -= 1;
        self.taken[flow] += 1;
        Some(command)
    }

    fn choose(&mut self) -> Option<usize> {
        let burst = self.burst;
        if !self.weighted {
            return self.classes[2].take(&self.queues, burst);
        }
        if let Some(flow) = self.classes[0].take(&self.queues, burst) {
            return Some(flow);
        }
        // High, medium, low by weight; a new round when no class with commands has credit left.
        for _ in 0..2 {
            for weighted in 0..3 {
                if self.credits[weighted] > 0 {
                    if let Some(flow) = self.classes[weighted + 1].take(&self.queues, burst) {
                        self.credits[weighted] -= 1;
                        return Some(flow);
                    }
                }
            }
            if self.classes[1..].iter().all(|class| class.waiting == 0) {
                return None;
            }
            self.credits = self.weights;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arbiter(arbitration: Arbitration, burst: u32, weights: [u32; 3], classes: &[Priority]) -> Arbiter {
        Arbiter::new(arbitration, burst, weights, classes)
    }

    /// Keeps every queue backlogged and returns the flow of each of `slots` takes.
    fn backlogged_takes(arbiter: &mut Arbiter, slots: usize) -> Vec<usize> {
        let flows = arbiter.queues.len();
        let mut order = Vec::new();
        for flow in 0..flows {
            arbiter.push(flow, flow as u32);
        }
        for _ in 0..slots {
            let command = arbiter.take().expect("backlogged");
            let flow = (command as usize) % flows;
            order.push(flow);
            // Refill the same flow, keeping ids congruent to the flow.
            arbiter.push(flow, command + flows as u32);
        }
        order
    }

    #[test]
    fn round_robin_alternates_queues_burst_by_burst() {
        let mut rr = arbiter(Arbitration::RoundRobin, 1, [4, 2, 1], &[Priority::Medium; 3]);
        assert_eq!(backlogged_takes(&mut rr, 6), [0, 1, 2, 0, 1, 2]);
        let mut burst = arbiter(Arbitration::RoundRobin, 2, [4, 2, 1], &[Priority::Medium; 2]);
        assert_eq!(backlogged_takes(&mut burst, 8), [0, 0, 1, 1, 0, 0, 1, 1]);
    }

    #[test]
    fn weighted_round_robin_gives_each_class_its_weight_per_round() {
        // Weights 4 (high) : 1 (medium): of every 5 slots, 4 go to the high queue.
        let mut wrr = arbiter(
            Arbitration::WeightedRoundRobin,
            1,
            [4, 1, 1],
            &[Priority::High, Priority::Medium],
        );
        let order = backlogged_takes(&mut wrr, 500);
        assert_eq!(order.iter().filter(|&&flow| flow == 0).count(), 400);
        assert_eq!(&order[..5], [0, 0, 0, 0, 1]);
    }

    #[test]
    fn urgent_queues_starve_the_weighted_classes_while_they_have_commands() {
        let mut wrr = arbiter(
            Arbitration::WeightedRoundRobin,
            1,
            [1, 1, 1],
            &[Priority::Low, Priority::Urgent],
        );
        assert!(backlogged_takes(&mut wrr, 100).iter().all(|&flow| flow == 1));
    }

    #[test]
    fn an_added_queue_joins_its_class() {
        let mut wrr = arbiter(Arbitration::WeightedRoundRobin, 1, [1, 1, 1], &[Priority::Low]);
        assert_eq!(wrr.add_queue(Priority::Urgent), 1);
        // The urgent queue added later is served strictly first.
        assert!(backlogged_takes(&mut wrr, 20).iter().all(|&flow| flow == 1));
        let mut rr = arbiter(Arbitration::RoundRobin, 1, [1, 1, 1], &[Priority::Low]);
        rr.add_queue(Priority::Urgent);
        assert_eq!(backlogged_takes(&mut rr, 4), [0, 1, 0, 1]);
    }

    #[test]
    fn an_idle_class_gives_up_its_slots() {
        let mut wrr = arbiter(
            Arbitration::WeightedRoundRobin,
            1,
            [8, 1, 1],
            &[Priority::High, Priority::Low],
        );
        for command in 0..3 {
            wrr.push(1, command);
        }
        // Only the low queue has commands: it takes every slot despite its smaller weight.
        assert_eq!(
            (wrr.take(), wrr.take(), wrr.take(), wrr.take()),
            (Some(0), Some(1), Some(2), None)
        );
    }
}
