//! FIFO flush order: buffered writes go to flash in the order they arrived.

use std::collections::VecDeque;

use super::entry::Entry;

/// Buffered writes in arrival order.
#[derive(Debug, Default)]
pub struct Fifo {
    queue: VecDeque<Entry>,
}

impl Fifo {
    pub fn push(&mut self, entry: Entry) {
        self.queue.push_back(entry);
    }

    pub fn pop(&mut self) -> Option<Entry> {
        self.queue.pop_front()
    }

    /// The logical units of the next writes to flush, one per slot of `out`; how many there were.
    pub fn peek(&self, out: &mut [u32]) -> usize {
        let mut count = 0;
        for (slot, entry) in out.iter_mut().zip(&self.queue) {
            *slot = entry.logical;
            count += 1;
        }
        count
    }
}
