//! A dense table with reusable slots: ids stay small integers, nothing is allocated once warm.

#[derive(Debug)]
pub struct Slab<T> {
    pub items: Vec<T>,
    free: Vec<u32>,
}

impl<T> Default for Slab<T> {
    fn default() -> Self {
        Slab {
            items: Vec::new(),
            free: Vec::new(),
        }
    }
}

impl<T: Copy> Slab<T> {
    pub fn insert(&mut self, item: T) -> u32 {
        match self.free.pop() {
            Some(id) => {
                self.items[id as usize] = item;
                id
            }
            None => {
                self.items.push(item);
                (self.items.len() - 1) as u32
            }
        }
    }

    /// A freed slot to reuse, if any: the caller writes the item's fields into it in place (a
    /// large item written whole is copied from the stack).
    #[inline]
    pub fn reuse(&mut self) -> Option<u32> {
        self.free.pop()
    }

    pub fn remove(&mut self, id: u32) -> T {
        self.free.push(id);
        self.items[id as usize]
    }

    /// Frees slot `id` without copying its item out: [`Self::remove`] of a large item whose
    /// fields the caller has already read in place copies the whole of it for nothing.
    #[inline]
    pub fn release(&mut self, id: u32) {
        self.free.push(id);
    }
}

impl<T> std::ops::Index<u32> for Slab<T> {
    type Output = T;
    fn index(&self, id: u32) -> &T {
        &self.items[id as usize]
    }
}
impl<T> std::ops::IndexMut<u32> for Slab<T> {
    fn index_mut(&mut self, id: u32) -> &mut T {
        &mut self.items[id as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reuse_hands_back_freed_slots_last_freed_first_and_none_when_all_are_live() {
        let mut slab = Slab::default();
        let ids: Vec<u32> = (10..14).map(|item| slab.insert(item)).collect();
        assert_eq!(ids, [0, 1, 2, 3]);
        assert_eq!(slab.reuse(), None, "no slot freed yet");
        assert_eq!(slab.remove(1), 11);
        assert_eq!(slab.remove(3), 13);
        assert_eq!(slab.reuse(), Some(3));
        slab[3] = 30;
        assert_eq!(slab.insert(40), 1, "the other freed slot");
        assert_eq!(slab.reuse(), None);
        assert_eq!(slab.insert(50), 4, "a new slot once none is free");
        slab.release(2);
        assert_eq!(slab.reuse(), Some(2), "a released slot is free like a removed one");
        assert_eq!(slab.items, [10, 40, 12, 30, 50]);
    }
}
