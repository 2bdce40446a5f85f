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
