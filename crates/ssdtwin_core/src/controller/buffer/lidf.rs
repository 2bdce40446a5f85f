//! LIDF flush order (Least Increase of Dirtiness First; the capacitor paper, sections 3.2 and 4,
//! docs/models/dram_buffer_plp.md).
//!
//! The cost of flushing a write is the number of translation pages it makes dirty *when it is
//! flushed*: none if its page is dirty then, else one shared by every buffered write of that page.
//! A flush round takes the writes waiting when it starts (the paper invokes a flush when half the
//! buffer is occupied and persists the buffered data): first the writes whose translation page is
//! dirty (the zero-cost list, in arrival order), then the other pages' groups, fullest first (a
//! max-heap keyed by the group's writes in the round), each group whole before the next is picked.
//! Writes arriving during a round wait for the next one, so every write leaves within two rounds:
//! no group is left behind while dirty pages keep the zero-cost list busy. A page that turns dirty
//! (its first update completed) or clean (written back) during a round moves its group between the
//! two at once ([`Lidf::set_dirty`]). When every page is dirty the order is arrival order: FIFO.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, VecDeque};

use super::entry::{Entry, FastHash};

/// The buffered writes of one translation page.
#[derive(Debug, Default)]
struct Group {
    /// In arrival order, with their arrival numbers.
    entries: VecDeque<(u64, Entry)>,
    /// Writes of the current round still waiting: a prefix of `entries`.
    in_round: u32,
    /// The translation page is dirty now.
    dirty: bool,
    /// Picked from the heap in this round: flushed whole, at no further cost.
    draining: bool,
}

impl Group {
    fn zero_cost(&self) -> bool {
        self.dirty || self.draining
    }
}

/// The groups by translation page, the zero-cost list and the max-heap of the current round.
#[derive(Debug, Default)]
pub struct Lidf {
    groups: HashMap<u32, Group, FastHash>,
    /// Zero-cost groups of the round by the arrival number of their oldest waiting write (a
    /// min-heap: arrival order across groups). Stale entries (the group left the list, or its
    /// front moved on) are skipped.
    zero_cost: BinaryHeap<Reverse<(u64, u32)>>,
    /// The other groups of the round: (writes in the round, translation page); an entry whose
    /// count or cost no longer matches its group is stale and skipped (lazy deletion).
    heap: BinaryHeap<(u32, Reverse<u32>)>,
    /// Writes taken in so far (the next arrival number).
    arrivals: u64,
}

impl Lidf {
    /// Buffers `entry`; `dirty`: its translation page is dirty now. It joins the next round.
    pub fn push(&mut self, entry: Entry, dirty: bool) {
        let arrival = self.arrivals;
        self.arrivals += 1;
        let group = self.groups.entry(entry.tpage).or_default();
        group.entries.push_back((arrival, entry));
        self.set_dirty(entry.tpage, dirty);
    }

    /// The translation page `tpage` became dirty (its first update since it was clean completed)
    /// or clean (written back): its waiting writes of the round change list.
    pub fn set_dirty(&mut self, tpage: u32, dirty: bool) {
        let Some(group) = self.groups.get_mut(&tpage) else {
            return;
        };
        if group.dirty == dirty {
            return;
        }
        let was_zero = group.zero_cost();
        group.dirty = dirty;
        if group.in_round == 0 || was_zero == group.zero_cost() {
            return;
        }
        if group.zero_cost() {
            let front = group.entries.front().expect("a group in the round has writes").0;
            self.zero_cost.push(Reverse((front, tpage)));
        } else {
            self.heap.push((group.in_round, Reverse(tpage)));
        }
    }

    /// The next write to flush.
    pub fn pop(&mut self) -> Option<Entry> {
        loop {
            if let Some(entry) = self.pop_in_round() {
                return Some(entry);
            }
            if !self.start_round() {
                return None;
            }
        }
    }

    fn pop_in_round(&mut self) -> Option<Entry> {
        while let Some(Reverse((arrival, tpage))) = self.zero_cost.pop() {
            let valid = self.groups.get(&tpage).is_some_and(|group| {
                group.zero_cost() && group.in_round > 0 && group.entries.front().map(|front| front.0) == Some(arrival)
            });
            if valid {
                return Some(self.take_front(tpage));
            }
        }
        while let Some((count, Reverse(tpage))) = self.heap.pop() {
            if let Some(group) = self.groups.get_mut(&tpage) {
                if !group.zero_cost() && group.in_round == count {
                    group.draining = true;
                    return Some(self.take_front(tpage));
                }
            }
        }
        None
    }

    /// Takes the oldest write of the zero-cost group `tpage`.
    fn take_front(&mut self, tpage: u32) -> Entry {
        let group = self.groups.get_mut(&tpage).expect("a valid group");
        let (_, entry) = group.entries.pop_front().expect("a group in the round has writes");
        group.in_round -= 1;
        if group.in_round > 0 {
            let front = group.entries.front().expect("writes left in the round").0;
            self.zero_cost.push(Reverse((front, tpage)));
        } else {
            group.draining = false;
            if group.entries.is_empty() {
                self.groups.remove(&tpage);
            }
        }
        entry
    }

    /// A new round of every waiting write; false when none waits.
    fn start_round(&mut self) -> bool {
        self.zero_cost.clear();
        self.heap.clear();
        for (&tpage, group) in &mut self.groups {
            group.in_round = group.entries.len() as u32;
            group.draining = false;
            if group.dirty {
                self.zero_cost.push(Reverse((group.entries[0].0, tpage)));
            } else {
                self.heap.push((group.in_round, Reverse(tpage)));
            }
        }
        !self.groups.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(logical: u32, tpage: u32) -> Entry {
        Entry {
            logical,
            tpage,
            command: 0,
        }
    }

    fn drain(lidf: &mut Lidf) -> Vec<u32> {
        std::iter::from_fn(|| lidf.pop()).map(|e| e.logical).collect()
    }

    #[test]
    fn dirty_pages_first_then_the_fullest_group_whole() {
        let mut lidf = Lidf::default();
        // The capacitor paper's Figure 1 example, 4 entries per translation page, m0 dirty:
        // W(4) W(17) W(12) W(2) W(6) W(18) W(7).
        for logical in [4, 17, 12, 2, 6, 18, 7] {
            lidf.push(entry(logical, logical / 4), logical / 4 == 0);
        }
        // W(2) first (m0 dirty); then m1 (4, 6, 7: three writes), then m4 (17, 18), then m3 (12).
        assert_eq!(drain(&mut lidf), vec![2, 4, 6, 7, 17, 18, 12]);
    }

    #[test]
    fn each_group_is_flushed_whole() {
        let mut lidf = Lidf::default();
        for round in 0..3000u32 {
            lidf.push(entry(round, round % 7), false);
        }
        let order = drain(&mut lidf);
        assert_eq!(order.len(), 3000);
        let switches = order.windows(2).filter(|pair| pair[0] % 7 != pair[1] % 7).count();
        assert_eq!(switches, 6, "seven groups, each flushed whole");
    }

    #[test]
    fn writes_arriving_during_a_round_wait_for_the_next() {
        let mut lidf = Lidf::default();
        // Page 0 dirty, page 1 clean, in the first round.
        lidf.push(entry(0, 0), true);
        lidf.push(entry(10, 1), false);
        assert_eq!(lidf.pop().unwrap().logical, 0);
        // More zero-cost writes arrive: they do not overtake page 1's write of the round.
        lidf.push(entry(1, 0), true);
        lidf.push(entry(2, 0), true);
        assert_eq!(lidf.pop().unwrap().logical, 10);
        assert_eq!(drain(&mut lidf), vec![1, 2]);
    }

    #[test]
    fn all_pages_dirty_is_arrival_order() {
        let mut lidf = Lidf::default();
        let logicals: Vec<u32> = (0..200).map(|i| (i * 37) % 101).collect();
        for &logical in &logicals {
            lidf.push(entry(logical, logical / 4), true);
        }
        assert_eq!(drain(&mut lidf), logicals);
    }

    #[test]
    fn a_page_turning_dirty_or_clean_moves_its_group() {
        let mut lidf = Lidf::default();
        for logical in [0, 1, 2, 8, 9, 12] {
            lidf.push(entry(logical, logical / 4), false);
        }
        // Pages 0 (3 writes), 2 (2), 3 (1), all clean. Page 3 turns dirty: its write is free now.
        lidf.set_dirty(3, true);
        assert_eq!(lidf.pop().unwrap().logical, 12);
        assert_eq!(lidf.pop().unwrap().logical, 0, "then the fullest group, page 0");
        // Page 2 turns dirty while page 0 drains: both zero cost, in arrival order.
        lidf.set_dirty(2, true);
        assert_eq!(drain(&mut lidf), vec![1, 2, 8, 9]);
        // A dirty page written back before its round: its writes go back to the heap.
        for logical in [20, 24, 25, 21] {
            lidf.push(entry(logical, logical / 4), true);
        }
        lidf.pop(); // starts the round: 20 (page 5, oldest)
        lidf.set_dirty(5, false);
        lidf.set_dirty(6, false);
        // Page 5 (one left) and page 6 (two) are both costly now: the fuller first.
        assert_eq!(drain(&mut lidf), vec![24, 25, 21]);
    }
}
