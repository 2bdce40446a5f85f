//! The event queue: a binary heap and first-in first-out lanes, popped in `(time, sequence)` order.
//!
//! Events that fall at the same time run in the order they were scheduled, so a seed and a config
//! always give the same sequence of handler calls. Events are one plain enum whose payloads are
//! plain ids, so every layer can schedule its own without importing another: no closures, no
//! boxing, no allocation per event once the heap has grown to its working size. The comment of
//! each variant names the component that owns (handles) it; `sim::engine` dispatches.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use crate::base::time::Time;

/// Everything that can happen in the simulated drive. Ids are indices into dense tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    // ------------------------------------------------------------------ host (`host/`)
    /// The submission gap has passed: the host may submit again.
    HostSubmit,
    /// An open-loop command arrives at the host.
    HostArrival,
    /// A command's completion reached the host.
    CommandCompleted { command: u32 },
    // ------------------------------------------------ controller (`controller/`)
    /// A command has crossed the host interface (fetch, firmware, and for writes the payload) and
    /// its transactions join the controller's queue.
    CommandArrived { command: u32 },
    /// A die finished sensing a page; its data now waits for the channel.
    ReadSensed { die: u32 },
    /// A die finished its operation (read data out, program, erase).
    DieDone { die: u32 },
    /// A program or erase finished its array phase, unless `generation` is stale (it was suspended).
    ArrayDone { die: u32, generation: u32 },
    /// A suspended program or erase has entered suspend: the die may serve reads.
    SuspendEntered { die: u32, generation: u32 },
    /// The die-level harness issues its operation number `index`.
    ProbeIssue { index: u32 },
    /// A read served from controller DRAM finished.
    BufferReadDone { transaction: u32 },
    /// The channel's current grant ends and dies wait for it: grant the next.
    ChannelFree { channel: u32 },
    /// The host has been idle for `slc_cache.idle_delay`: background folding may start, unless
    /// `generation` is stale (the host was busy since).
    SlcIdle { generation: u32 },
    // ------------------------------------------------ power loss (`sim/plp.rs`)
    /// Power fails: the drive flushes what its capacitors allow, then restarts.
    PowerLoss,
    // ------------------------------------------------ thermal model (`sim/thermal.rs`)
    /// Advance the temperatures to now and let the throttling policy look at them.
    ThermalStep,
    // ------------------------------------------------ warm-up (`sim/warmup.rs`)
    /// A timed `workload.warmup` ends: measurement starts.
    WarmupEnd,
}

/// A scheduled event. `key` is the time in its high 64 bits and the scheduling sequence number in
/// the low 64 above [`SOURCE_BITS`] zero bits, so one integer comparison orders by time, then by
/// scheduling order (the heap compares keys on every step of every push and pop). The zero bits
/// are where [`EventQueue`]'s `fronts` write the source of each front key.
#[derive(Clone, Copy, Debug)]
struct Entry {
    key: u128,
    event: Event,
}

impl Entry {
    /// What a lane's slots hold before their first event: the key of an empty lane's front (the
    /// event is never read).
    const FREE: Entry = Entry {
        key: u128::MAX,
        event: Event::HostSubmit,
    };

    fn time(&self) -> Time {
        Time::from_nanos((self.key >> 64) as u64)
    }
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
    // The heap's sifts compare with `<=` and `<`: one integer comparison each, rather than the
    // three-way `cmp` they would otherwise go through. Reversed like `cmp`.
    #[inline]
    fn lt(&self, other: &Self) -> bool {
        other.key < self.key
    }
    #[inline]
    fn le(&self, other: &Self) -> bool {
        other.key <= self.key
    }
    #[inline]
    fn gt(&self, other: &Self) -> bool {
        other.key > self.key
    }
    #[inline]
    fn ge(&self, other: &Self) -> bool {
        other.key >= self.key
    }
}
impl Ord for Entry {
    #[inline]
    fn cmp(&self, other: &Self) -> Ordering {
        // Reversed: the max-heap pops the earliest key first.
        other.key.cmp(&self.key)
    }
}

/// Lanes: first-in first-out queues beside the heap for the event kinds scheduled mostly in time
/// order (see [`EventQueue`]).
const LANES: usize = 7;

/// Low bits of a key left zero for the index of the source (a lane, or `LANES` for the heap) that
/// holds it: `fronts` keep `key | source`, so the smallest front names its source without a
/// second array to look up (keys differ above these bits, so the order is the keys' order).
const SOURCE_BITS: u32 = 3;
/// Pairs of neighbouring fronts (`EventQueue::pairs`).
const PAIRS: usize = 4;
const _: () = assert!(
    LANES < 1 << SOURCE_BITS && LANES + 1 == 2 * PAIRS,
    "`earliest` takes four pairs of fronts"
);

/// The lanes of `event`'s kind, a range of lane indices (empty: the kind always goes to the heap).
/// A command arrives at the controller a fixed firmware time after its submission (reads), or
/// when the link's to-device direction has moved its payload (writes); a completion reaches the
/// host at once or when the to-host direction has moved its data, which only moves forward; a
/// read's data out ends a transfer time after its grant, the same for every read of one size; a
/// read is sensed t_R after its command, one of a few values (one per page type, one lane each);
/// a program ends t_PROG after its data in. Each kind is scheduled in time order nearly always.
/// A read served from DRAM, or (reliability on) decoded after its data out, ends a fixed time
/// after it is scheduled (the DRAM read, or one hard decode without retries): it shares the
/// program lane, as the runs that read much (a read workload, reliability on) program little.
#[inline(always)]
fn lanes_of(event: Event) -> (usize, usize) {
    match event {
        Event::CommandArrived { .. } => (0, 1),
        Event::CommandCompleted { .. } => (1, 2),
        Event::DieDone { .. } => (2, 3),
        Event::ReadSensed { .. } => (3, 6),
        Event::ArrayDone { .. } | Event::BufferReadDone { .. } => (6, 7),
        _ => (0, 0),
    }
}

/// Slots of a lane's ring: a power of two, so a place in the ring is a free-running count masked,
/// without a test for the wrap. A lane holds one event fewer (the slot at its tail is the
/// sentinel); an event that finds its lane full goes on as if the lane's last key were later (to
/// the next lane of its kind or the heap), which keeps the order exact.
const LANE_SLOTS: usize = 256;
const _: () = assert!(LANE_SLOTS.is_power_of_two());

/// A lane: a ring of [`LANE_SLOTS`] entries whose events are at the free-running counts
/// `head..tail`. The slot at `tail` holds the key `u128::MAX`, so the front after a pop is one
/// read whether or not the lane emptied (`u128::MAX` is the key of an empty source), without a
/// branch, and a pop writes nothing to the ring. The slot before `tail` keeps the key of the last
/// event the lane took after that event is popped (or 0, before any): the lane takes only keys
/// not below it, so it stays in key order (an event scheduled in the past goes to the next lane
/// or the heap, which keeps the order exact all the same).
#[derive(Debug)]
struct Lane {
    slots: Box<[Entry; LANE_SLOTS]>,
    head: usize,
    tail: usize,
}

impl Lane {
    fn new() -> Self {
        let mut slots = Box::new([Entry::FREE; LANE_SLOTS]);
        slots[LANE_SLOTS - 1].key = 0;
        Lane {
            slots,
            head: 0,
            tail: 0,
        }
    }

    fn len(&self) -> usize {
        self.tail - self.head
    }

    /// The key of the last event the lane took (see [`Lane`]).
    #[inline(always)]
    fn back(&self) -> u128 {
        self.slots[self.tail.wrapping_sub(1) % LANE_SLOTS].key
    }
}

/// The source of the earliest pending event, from [`EventQueue::next_source`] for [`EventQueue::take`].
#[derive(Clone, Copy, Debug)]
pub struct Next {
    source: usize,
}

/// The pending events: a binary heap, and beside it the first-in first-out lanes of
/// [`lanes_of`]. An event joins the first lane of its kind whose last event is not later (so each
/// lane stays in key order) and which has room, else the heap; a pop takes the earliest of the
/// lanes' fronts and the heap's top, whose keys `fronts` holds side by side. The order events come
/// out is exactly the heap's alone (keys are unique, and each source gives its earliest first);
/// most events cost a store at a lane's back and the minimum of four keys rather than a sift
/// through the heap's levels.
#[derive(Debug)]
pub struct EventQueue {
    heap: BinaryHeap<Entry>,
    lanes: [Lane; LANES],
    /// The key of each lane's front, then of the heap's top, each with its source's index in its
    /// low [`SOURCE_BITS`]; `u128::MAX` for an empty one (no event has that key: its sequence
    /// number would be the last possible).
    fronts: [u128; LANES + 1],
    /// The smaller of each two neighbouring fronts (`fronts[2 * j]` and `fronts[2 * j + 1]`): a
    /// pop changes one front, so it takes the minimum of these four and refreshes one of them,
    /// rather than the minimum of all eight fronts.
    pairs: [u128; PAIRS],
    next_sequence: u64,
}

impl Default for EventQueue {
    fn default() -> Self {
        EventQueue::new()
    }
}

impl EventQueue {
    pub fn new() -> Self {
        EventQueue {
            heap: BinaryHeap::with_capacity(4096),
            lanes: std::array::from_fn(|_| Lane::new()),
            fronts: [u128::MAX; LANES + 1],
            pairs: [u128::MAX; PAIRS],
            next_sequence: 0,
        }
    }

    /// Inlined at every call site, where the event's kind, so its lanes, is known.
    #[inline(always)]
    pub fn schedule(&mut self, time: Time, event: Event) {
        let entry = Entry {
            key: (u128::from(time.as_nanos()) << 64) | u128::from(self.next_sequence << SOURCE_BITS),
            event,
        };
        self.next_sequence += 1;
        let (first, end) = lanes_of(event);
        for index in first..end {
            let lane = &mut self.lanes[index];
            if entry.key < lane.back() || lane.len() == LANE_SLOTS - 1 {
                continue;
            }
            lane.slots[lane.tail % LANE_SLOTS] = entry;
            lane.tail += 1;
            lane.slots[lane.tail % LANE_SLOTS].key = u128::MAX;
            // The new key is the front if the lane was empty (its front `u128::MAX`), else it is
            // above the front: the minimum sets it without a branch.
            let front = entry.key | index as u128;
            self.fronts[index] = self.fronts[index].min(front);
            self.pairs[index / 2] = self.pairs[index / 2].min(front);
            return;
        }
        let front = entry.key | LANES as u128;
        if front < self.fronts[LANES] {
            self.fronts[LANES] = front;
            self.pairs[LANES / 2] = self.pairs[LANES / 2].min(front);
        }
        self.heap.push(entry);
    }

    /// Where the earliest pending event is (a lane's index, or `LANES` for the heap) and its key
    /// (`u128::MAX` when nothing is pending).
    /// The minimum of the four pairs' minima, without branches; the source is in the minimum's
    /// low bits.
    #[inline(always)]
    fn earliest(&self) -> (usize, u128) {
        let p = &self.pairs;
        let key = p[0].min(p[1]).min(p[2].min(p[3]));
        ((key as usize) & ((1 << SOURCE_BITS) - 1), key)
    }

    /// Sets the front of `source` to `front` (larger than before: its earliest event was taken)
    /// and its pair's minimum.
    #[inline(always)]
    fn set_front(&mut self, source: usize, front: u128) {
        self.fronts[source] = front;
        self.pairs[source / 2] = front.min(self.fronts[source ^ 1]);
    }

    /// Inlined in the engine's loops (four call sites).
    #[inline(always)]
    pub fn pop(&mut self) -> Option<(Time, Event)> {
        let next = self.next_source()?;
        Some(self.take(next))
    }

    /// Where the earliest pending event is, or `None` when nothing is pending: [`Self::pop`] in
    /// two steps, for the engine's hot loop. [`Self::take`] returns the event bare, where the
    /// `Option` of `pop` would be tested again after the event's read from a lane (`None` is a
    /// value of the event's tag, which the compiler cannot rule out).
    #[inline(always)]
    pub fn next_source(&self) -> Option<Next> {
        let (source, key) = self.earliest();
        (key != u128::MAX).then_some(Next { source })
    }

    /// Removes the earliest pending event, found by [`Self::next_source`] with no schedule since.
    #[inline(always)]
    pub fn take(&mut self, next: Next) -> (Time, Event) {
        let source = next.source;
        let entry = if source == LANES {
            let entry = self.heap.pop().expect("the heap's top");
            self.set_front(
                LANES,
                self.heap.peek().map_or(u128::MAX, |next| next.key | LANES as u128),
            );
            entry
        } else {
            let lane = &mut self.lanes[source];
            let entry = lane.slots[lane.head % LANE_SLOTS];
            lane.head += 1;
            // `u128::MAX` (the tail's key) when the lane emptied.
            let front = lane.slots[lane.head % LANE_SLOTS].key | source as u128;
            self.set_front(source, front);
            entry
        };
        (entry.time(), entry.event)
    }

    /// Time of the earliest pending event.
    pub fn peek_time(&self) -> Option<Time> {
        let (_, key) = self.earliest();
        (key != u128::MAX).then(|| Time::from_nanos((key >> 64) as u64))
    }

    pub fn len(&self) -> usize {
        self.heap.len() + self.lanes.iter().map(Lane::len).sum::<usize>()
    }

    pub fn is_empty(&self) -> bool {
        self.fronts.iter().all(|&front| front == u128::MAX)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_in_time_order_with_fifo_ties() {
        let mut queue = EventQueue::new();
        queue.schedule(Time::from_nanos(20), Event::DieDone { die: 0 });
        queue.schedule(Time::from_nanos(10), Event::DieDone { die: 1 });
        queue.schedule(Time::from_nanos(20), Event::DieDone { die: 2 });
        queue.schedule(Time::from_nanos(10), Event::DieDone { die: 3 });
        let order: Vec<_> = std::iter::from_fn(|| queue.pop()).map(|(_, event)| event).collect();
        assert_eq!(
            order,
            [1, 3, 0, 2].map(|die| Event::DieDone { die }).to_vec(),
            "earliest first, same-time events in scheduling order"
        );
    }

    /// A small linear congruential generator of draws below `bound`, for the tests' event times.
    fn draws(mut state: u64) -> impl FnMut(u64) -> u64 {
        move |bound| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (state >> 33) % bound
        }
    }

    #[test]
    fn interleaved_schedules_and_pops_come_out_in_time_then_scheduling_order() {
        // Times drawn from a small range, so many ties; the expected order is a stable sort of
        // the pending events by time (scheduling order among ties), kept beside the queue.
        let mut queue = EventQueue::new();
        let mut pending: Vec<(u64, u32)> = Vec::new();
        let mut draw = draws(0x9e37_79b9_u64);
        let mut now = 0;
        for id in 0..20_000_u32 {
            let time = now + draw(50);
            queue.schedule(Time::from_nanos(time), Event::DieDone { die: id });
            pending.push((time, id));
            // Pop about as often as we push, so the heap grows and shrinks through many sizes.
            for _ in 0..draw(3) {
                let Some((popped_time, event)) = queue.pop() else { break };
                let earliest = pending.iter().map(|&(time, _)| time).min().expect("one pending");
                let index = pending.iter().position(|&(time, _)| time == earliest).expect("found");
                let (time, die) = pending.remove(index);
                assert_eq!((popped_time, event), (Time::from_nanos(time), Event::DieDone { die }));
                now = time;
            }
        }
        pending.sort_by_key(|&(time, _)| time);
        let rest: Vec<_> = std::iter::from_fn(|| queue.pop()).collect();
        let expected: Vec<_> = pending
            .iter()
            .map(|&(time, die)| (Time::from_nanos(time), Event::DieDone { die }))
            .collect();
        assert_eq!(rest, expected);
        assert!(queue.is_empty());
    }

    /// `pairs` holds the smaller of each two neighbouring fronts, whatever was scheduled or popped.
    fn assert_pairs(queue: &EventQueue) {
        for (index, &pair) in queue.pairs.iter().enumerate() {
            assert_eq!(pair, queue.fronts[2 * index].min(queue.fronts[2 * index + 1]));
        }
    }

    #[test]
    fn lane_events_out_of_time_order_pop_in_time_then_scheduling_order() {
        // Every laned kind and a heap-only one mixed, each kind's times often going back (so
        // several lanes and the heap hold events of one kind), and many ties: the expected
        // order is the pending events sorted by (time, scheduling order), kept beside the queue.
        let mut queue = EventQueue::new();
        let mut pending: Vec<(u64, u32, Event)> = Vec::new();
        let mut draw = draws(0x2545_f491_u64);
        let mut now = 0;
        for id in 0..20_000_u32 {
            let time = now + draw(40);
            let event = match draw(7) {
                0 => Event::CommandArrived { command: id },
                1 => Event::CommandCompleted { command: id },
                2 => Event::DieDone { die: id },
                3 => Event::ReadSensed { die: id },
                4 => Event::ArrayDone { die: id, generation: 0 },
                5 => Event::BufferReadDone { transaction: id },
                _ => Event::ChannelFree { channel: id },
            };
            queue.schedule(Time::from_nanos(time), event);
            pending.push((time, id, event));
            assert_eq!(queue.len(), pending.len());
            assert_pairs(&queue);
            for _ in 0..draw(3) {
                let earliest = pending.iter().min_by_key(|&&(time, id, _)| (time, id)).copied();
                assert_eq!(queue.peek_time(), earliest.map(|(time, _, _)| Time::from_nanos(time)));
                let Some(popped) = queue.pop() else { break };
                assert_pairs(&queue);
                let (time, id, event) = earliest.expect("the queue had an event");
                pending.retain(|&(_, other, _)| other != id);
                assert_eq!(popped, (Time::from_nanos(time), event));
                now = time;
            }
        }
        pending.sort_by_key(|&(time, id, _)| (time, id));
        let rest: Vec<_> = std::iter::from_fn(|| queue.pop()).collect();
        let expected: Vec<_> = pending
            .iter()
            .map(|&(time, _, event)| (Time::from_nanos(time), event))
            .collect();
        assert_eq!(rest, expected);
        assert!(queue.is_empty());
        assert_eq!(queue.peek_time(), None);
    }

    #[test]
    fn full_lanes_spill_to_the_heap_and_wrapping_rings_keep_the_order() {
        // Bursts of commands in time order, longer than a lane holds, so the lane fills and the
        // rest go to the heap; then the pops drain part of the burst, so the rings' counts pass
        // their length many times. The expected order is the pending events sorted by (time,
        // scheduling order), kept beside the queue.
        let mut queue = EventQueue::new();
        let mut pending: Vec<(u64, u32)> = Vec::new();
        let mut draw = draws(0x51_7cc1_b727_u64);
        let mut now = 0;
        let mut id = 0_u32;
        for _ in 0..40 {
            let burst = draw(3 * LANE_SLOTS as u64);
            let mut time = now;
            for _ in 0..burst {
                time += draw(3);
                queue.schedule(Time::from_nanos(time), Event::CommandArrived { command: id });
                pending.push((time, id));
                id += 1;
            }
            assert_eq!(queue.len(), pending.len());
            for _ in 0..draw(2 * LANE_SLOTS as u64) {
                let Some(popped) = queue.pop() else { break };
                let earliest = pending.iter().copied().min().expect("the queue had an event");
                pending.retain(|&other| other != earliest);
                let (time, command) = earliest;
                assert_eq!(popped, (Time::from_nanos(time), Event::CommandArrived { command }));
                now = time;
            }
        }
        pending.sort();
        let rest: Vec<_> = std::iter::from_fn(|| queue.pop()).collect();
        let expected: Vec<_> = pending
            .iter()
            .map(|&(time, command)| (Time::from_nanos(time), Event::CommandArrived { command }))
            .collect();
        assert_eq!(rest, expected);
        assert!(queue.is_empty());
    }
}
