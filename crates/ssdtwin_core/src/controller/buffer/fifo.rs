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
}
