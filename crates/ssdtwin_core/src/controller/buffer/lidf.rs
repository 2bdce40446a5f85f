//! LIDF flush order (Least Increase of Dirtiness First; the capacitor paper, sections 3.2 and 4,
//! docs/models/dram_buffer_plp.md): a write whose translation page is already dirty when it
//! arrives costs no new dirty page, so it joins the zero-cost list, flushed first. The others are
//! grouped by translation page; a max-heap keyed by the number of buffered writes per page picks
//! the fullest group next, and the whole group is flushed before the next is chosen, so each
//! translation page written back carries as many updates as the buffer holds for it.

use std::collections::{BinaryHeap, HashMap, VecDeque};

use super::entry::{Entry, FastHash};

/// The zero-cost list and the groups by translation page with their max-heap.
#[derive(Debug, Default)]
pub struct Lidf {
    zero_cost: VecDeque<Entry>,
    groups: HashMap<u32, VecDeque<Entry>, FastHash>,
    /// (buffered writes, translation page); an entry whose count no longer matches its group is
    /// stale and skipped (lazy deletion).
    heap: BinaryHeap<(u32, std::cmp::Reverse<u32>)>,
    /// The group being flushed.
    draining: Option<u32>,
}

impl Lidf {
    /// Buffers `entry`; `dirty`: its translation page is dirty now.
    pub fn push(&mut self, entry: Entry, dirty: bool) {
        if dirty || self.draining == Some(entry.tpage) {
            self.zero_cost.push_back(entry);
            return;
        }
        let group = self.groups.entry(entry.tpage).or_default();
        group.push_back(entry);
        self.heap.push((group.len() as u32, std::cmp::Reverse(entry.tpage)));
        if self.heap.len() > 4 * (self.groups.len() + 64) * 8 {
            self.rebuild_heap();
        }
    }

    /// The next write to flush.
    pub fn pop(&mut self) -> Option<Entry> {
        if let Some(entry) = self.zero_cost.pop_front() {
            return Some(entry);
        }
        loop {
            if let Some(tpage) = self.draining {
                let group = self.groups.get_mut(&tpage).expect("the draining group exists");
                if let Some(entry) = group.pop_front() {
                    return Some(entry);
                }
                self.groups.remove(&tpage);
                self.draining = None;
            }
            let (count, std::cmp::Reverse(tpage)) = self.heap.pop()?;
            if self.groups.get(&tpage).is_some_and(|group| group.len() as u32 == count) {
                self.draining = Some(tpage);
            }
        }
    }

    /// Drops the stale heap entries: one per group.
    fn rebuild_heap(&mut self) {
        self.heap.clear();
        let mut keys: Vec<(u32, u32)> = self
            .groups
            .iter()
            .map(|(&tpage, group)| (group.len() as u32, tpage))
            .collect();
        keys.sort_unstable();
        self.heap
            .extend(keys.into_iter().map(|(count, tpage)| (count, std::cmp::Reverse(tpage))));
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

    #[test]
    fn dirty_pages_first_then_the_fullest_group_whole() {
        let mut lidf = Lidf::default();
        // The capacitor paper's Figure 1 example, 4 entries per translation page, m0 dirty:
        // W(4) W(17) W(12) W(2) W(6) W(18) W(7).
        for logical in [4, 17, 12, 2, 6, 18, 7] {
            lidf.push(entry(logical, logical / 4), logical / 4 == 0);
        }
        let order: Vec<u32> = std::iter::from_fn(|| lidf.pop()).map(|e| e.logical).collect();
        // W(2) first (m0 dirty); then m1 (4, 6, 7: three writes), then m4 (17, 18), then m3 (12).
        assert_eq!(order, vec![2, 4, 6, 7, 17, 18, 12]);
    }

    #[test]
    fn stale_heap_entries_are_skipped_and_rebuilt() {
        let mut lidf = Lidf::default();
        for round in 0..3000u32 {
            lidf.push(entry(round, round % 7), false);
        }
        let mut seen = 0;
        let mut last_tpage = u32::MAX;
        let mut switches = 0;
        while let Some(e) = lidf.pop() {
            seen += 1;
            if e.tpage != last_tpage {
                switches += 1;
                last_tpage = e.tpage;
            }
        }
        assert_eq!(seen, 3000);
        assert_eq!(switches, 7, "each group is flushed whole");
    }
}
