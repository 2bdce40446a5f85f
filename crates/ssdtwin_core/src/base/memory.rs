//! Large `u32` arrays (the mapping table's forward and reverse maps, hundreds of MiB each) in
//! memory the kernel may back with transparent huge pages.
//!
//! The mapping table is read and written at random addresses on every host I/O, GC copy and
//! preconditioning write. With 4 KiB pages almost every such access also misses the TLB, and the
//! page walk itself misses the caches: about two memory latencies per access. Backed by 2 MiB
//! pages the walk stays cached and the cost halves (measured: docs/performance.md). Linux backs an
//! anonymous mapping with huge pages when it is advised to (`MADV_HUGEPAGE`; the default
//! `transparent_hugepage=madvise` setting), which a `Vec` cannot ask for without unsafe code, so the
//! array lives in an anonymous memory map (memmap2), advised before its pages are first touched.
//! Where mapping fails the array falls back to a plain `Vec`; the advice is a hint the kernel may
//! ignore, never a change of behaviour.

use std::ops::{Deref, DerefMut};

use memmap2::MmapMut;

/// A fixed-length array of `u32` (see the module documentation).
pub struct LargeArray {
    storage: Storage,
}

enum Storage {
    Mapped { map: MmapMut, len: usize, pages: Pages },
    Heap(Vec<u32>),
}

/// Which pages the kernel is asked to back an array with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pages {
    /// Transparent huge pages advised: for an array read and written at random addresses (the
    /// forward map), where a 4 KiB page's TLB miss would be paid on almost every access.
    Huge,
    /// The kernel's base pages: for an array touched a short run at a time (the reverse map, one
    /// block's entries), where the TLB holds the few runs in use and a sparse write should back
    /// 4 KiB, not the 2 MiB around it (a fill's last partial round writes one block's run on every
    /// plane: 128 runs of 2 KiB across a 500 MB reverse map backed 256 MB of huge pages).
    Base,
}

impl LargeArray {
    /// `len` copies of `value`, on huge pages where the kernel grants them.
    pub fn filled(len: usize, value: u32) -> LargeArray {
        Self::filled_on(len, value, Pages::Huge)
    }

    /// `len` copies of `value`, on `pages`.
    pub fn filled_on(len: usize, value: u32, pages: Pages) -> LargeArray {
        let mut array = match Self::mapped(len, pages) {
            Some(storage) => LargeArray { storage },
            None => {
                return LargeArray {
                    storage: Storage::Heap(vec![value; len]),
                }
            }
        };
        if value != 0 {
            array.fill(value);
        }
        array
    }

    /// An anonymous map of `len` zeroed `u32`s, advised for huge pages if `pages` asks; `None`
    /// when the system refuses the map (the caller falls back to the heap).
    fn mapped(len: usize, pages: Pages) -> Option<Storage> {
        let bytes = len.checked_mul(4)?.max(4);
        let map = MmapMut::map_anon(bytes).ok()?;
        #[cfg(target_os = "linux")]
        if pages == Pages::Huge {
            // A hint: ignored by kernels without transparent huge pages.
            let _ = map.advise(memmap2::Advice::HugePage);
        }
        Some(Storage::Mapped { map, len, pages })
    }

    /// Asks the kernel to back every page now, as a write would, leaving the contents as they are
    /// (`MADV_POPULATE_WRITE`, Linux 5.14 on; a hint: elsewhere, or refused, nothing happens and the
    /// first writes fault the pages in as before). Run beside other work, it takes the kernel's
    /// zeroing of fresh pages off the path of the writes that follow.
    /// Only the pages of entries `start..end` (clipped to the array) are backed: from the first
    /// page that starts at or after `start` (a page before it may hold entries to be left alone).
    pub fn populate(&self, start: usize, end: usize) {
        #[cfg(target_os = "linux")]
        if let Storage::Mapped { map, len, .. } = &self.storage {
            const PAGE: usize = 4096;
            let from = (start.min(*len) * 4).div_ceil(PAGE) * PAGE;
            let to = end.min(*len) * 4;
            if to > from {
                let _ = map.advise_range(memmap2::Advice::PopulateWrite, from, to - from);
            }
        }
        #[cfg(not(target_os = "linux"))]
        let _ = (start, end);
    }

    /// Whether the array lives in a memory map (false: the heap fallback).
    pub fn is_mapped(&self) -> bool {
        matches!(self.storage, Storage::Mapped { .. })
    }
}

impl Deref for LargeArray {
    type Target = [u32];

    #[inline]
    fn deref(&self) -> &[u32] {
        match &self.storage {
            Storage::Mapped { map, len, .. } => &bytemuck::cast_slice(&map[..])[..*len],
            Storage::Heap(vec) => vec,
        }
    }
}

impl DerefMut for LargeArray {
    #[inline]
    fn deref_mut(&mut self) -> &mut [u32] {
        match &mut self.storage {
            Storage::Mapped { map, len, .. } => &mut bytemuck::cast_slice_mut(&mut map[..])[..*len],
            Storage::Heap(vec) => vec,
        }
    }
}

impl Default for LargeArray {
    fn default() -> LargeArray {
        LargeArray {
            storage: Storage::Heap(Vec::new()),
        }
    }
}

impl Clone for LargeArray {
    fn clone(&self) -> LargeArray {
        let pages = match self.storage {
            Storage::Mapped { pages, .. } => pages,
            Storage::Heap(_) => Pages::Huge,
        };
        let mut copy = LargeArray::filled_on(self.len(), 0, pages);
        copy.copy_from_slice(self);
        copy
    }
}

impl std::fmt::Debug for LargeArray {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(formatter, "LargeArray({} entries)", self.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holds_its_values_like_a_vec() {
        for len in [0usize, 1, 1000, 3 << 20] {
            let mut array = LargeArray::filled(len, u32::MAX);
            assert_eq!(array.len(), len);
            assert!(array.iter().all(|&value| value == u32::MAX));
            for (index, value) in array.iter_mut().enumerate() {
                *value = index as u32;
            }
            let copy = array.clone();
            assert_eq!(&copy[..], &array[..]);
            assert!(copy.iter().enumerate().all(|(index, &value)| value == index as u32));
        }
        assert!(LargeArray::filled(1 << 20, 0).is_mapped());
    }

    #[test]
    fn base_pages_hold_values_and_a_copy_keeps_its_pages() {
        let pages_of = |array: &LargeArray| match array.storage {
            Storage::Mapped { pages, .. } => Some(pages),
            Storage::Heap(_) => None,
        };
        for pages in [Pages::Base, Pages::Huge] {
            let mut array = LargeArray::filled_on(3 << 20, 9, pages);
            array[1 << 20] = 4;
            array.populate(0, 1 << 19);
            let copy = array.clone();
            assert_eq!(pages_of(&copy), Some(pages));
            assert_eq!(&copy[..], &array[..]);
            assert_eq!(copy.iter().filter(|&&value| value == 9).count(), (3 << 20) - 1);
        }
    }

    #[test]
    fn populating_keeps_the_contents() {
        let mut array = LargeArray::filled(3 << 20, 0);
        array[5] = 7;
        array.populate(0, 1 << 20);
        array.populate(5, usize::MAX);
        assert!(array.is_mapped());
        assert_eq!(array[5], 7);
        assert_eq!(array.iter().filter(|&&value| value != 0).count(), 1);
        let heap = LargeArray::default();
        heap.populate(0, 10);
        assert!(heap.is_empty());
    }
}
