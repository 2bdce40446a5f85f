//! The data a client wrote: a sparse map of 4 KiB blocks in memory, with a cap.
//!
//! Blocks never written (or trimmed, or zeroed) are absent and read back as zeros, so the memory
//! held is the data stored, whatever the export's size. A write that would take the store past
//! its cap is refused (`ENOSPC`) and changes nothing. What the simulated drive does with its
//! mapping, GC and buffers does not touch this data: the model gives the timing, the store the
//! contents; only a power cut puts older data back ([`Store::restore`], the server's durable
//! versions).

use std::collections::HashMap;

/// Bytes of one stored block.
pub const BLOCK_BYTES: usize = 4096;

/// The stored contents of the export.
#[derive(Debug)]
pub struct Store {
    blocks: HashMap<u64, Box<[u8; BLOCK_BYTES]>>,
    /// Largest number of blocks held.
    block_cap: usize,
}

/// The store would exceed its cap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StoreFull;

impl Store {
    /// A store holding at most `cap_bytes` of written data.
    pub fn new(cap_bytes: u64) -> Store {
        Store {
            blocks: HashMap::new(),
            block_cap: (cap_bytes / BLOCK_BYTES as u64) as usize,
        }
    }

    /// Bytes held.
    pub fn stored_bytes(&self) -> u64 {
        (self.blocks.len() * BLOCK_BYTES) as u64
    }

    /// Fills `into` with the bytes from `offset`.
    pub fn read(&self, offset: u64, into: &mut [u8]) {
        let mut done = 0;
        while done < into.len() {
            let position = offset + done as u64;
            let (block, within) = (position / BLOCK_BYTES as u64, (position % BLOCK_BYTES as u64) as usize);
            let take = (BLOCK_BYTES - within).min(into.len() - done);
            match self.blocks.get(&block) {
                Some(data) => into[done..done + take].copy_from_slice(&data[within..within + take]),
                None => into[done..done + take].fill(0),
            }
            done += take;
        }
    }

    /// Blocks a write of `data` at `offset` would add (a whole block of zeros adds none).
    fn new_blocks(&self, offset: u64, data: &[u8]) -> usize {
        let mut count = 0;
        let mut done = 0;
        while done < data.len() {
            let position = offset + done as u64;
            let (block, within) = (position / BLOCK_BYTES as u64, (position % BLOCK_BYTES as u64) as usize);
            let take = (BLOCK_BYTES - within).min(data.len() - done);
            let zeros = take == BLOCK_BYTES && data[done..done + take].iter().all(|&byte| byte == 0);
            if !zeros && !self.blocks.contains_key(&block) {
                count += 1;
            }
            done += take;
        }
        count
    }

    /// Stores `data` at `offset`; refused as a whole if the cap would be passed.
    pub fn write(&mut self, offset: u64, data: &[u8]) -> Result<(), StoreFull> {
        if self.blocks.len() + self.new_blocks(offset, data) > self.block_cap {
            return Err(StoreFull);
        }
        let mut done = 0;
        while done < data.len() {
            let position = offset + done as u64;
            let (block, within) = (position / BLOCK_BYTES as u64, (position % BLOCK_BYTES as u64) as usize);
            let take = (BLOCK_BYTES - within).min(data.len() - done);
            let piece = &data[done..done + take];
            if take == BLOCK_BYTES && piece.iter().all(|&byte| byte == 0) {
                // A whole block of zeros is stored as nothing.
                self.blocks.remove(&block);
            } else {
                let stored = self.blocks.entry(block).or_insert_with(|| Box::new([0u8; BLOCK_BYTES]));
                stored[within..within + take].copy_from_slice(piece);
            }
            done += take;
        }
        Ok(())
    }

    /// Stores `data` at `offset` whatever the cap: a unit's older data put back after a power
    /// cut (the cap was checked when it was first written).
    pub fn restore(&mut self, offset: u64, data: &[u8]) {
        let cap = self.block_cap;
        self.block_cap = usize::MAX;
        let _ = self.write(offset, data);
        self.block_cap = cap;
    }

    /// Makes `length` bytes at `offset` read back as zeros (TRIM, WRITE_ZEROES); frees whole
    /// blocks. Never needs room; the work is bounded by the blocks held, not the range.
    pub fn zero(&mut self, offset: u64, length: u64) {
        let block = BLOCK_BYTES as u64;
        let end = offset + length;
        // Whole blocks [first, last) are dropped; the partial ends are cleared in place.
        let first = offset.div_ceil(block);
        let last = (end / block).max(first);
        self.clear_part(offset, (first * block).min(end));
        self.clear_part((last * block).max(offset), end);
        if last - first > self.blocks.len() as u64 {
            self.blocks.retain(|&index, _| index < first || index >= last);
        } else {
            for index in first..last {
                self.blocks.remove(&index);
            }
        }
    }

    /// Clears bytes `[from, to)`, which lie within one block.
    fn clear_part(&mut self, from: u64, to: u64) {
        if from >= to {
            return;
        }
        let block = BLOCK_BYTES as u64;
        if let Some(stored) = self.blocks.get_mut(&(from / block)) {
            let within = (from % block) as usize;
            stored[within..within + (to - from) as usize].fill(0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_return_what_was_written_and_zeros_elsewhere() {
        let mut store = Store::new(1 << 20);
        let data: Vec<u8> = (0..10_000u32).map(|i| (i % 251) as u8 + 1).collect();
        store.write(1000, &data).unwrap();
        let mut back = vec![0xaa; 12_000];
        store.read(0, &mut back);
        assert!(back[..1000].iter().all(|&byte| byte == 0));
        assert_eq!(&back[1000..11_000], &data[..]);
        assert!(back[11_000..].iter().all(|&byte| byte == 0));
    }

    #[test]
    fn trim_and_zeroes_read_back_zeros_and_free_whole_blocks() {
        let mut store = Store::new(1 << 20);
        store.write(0, &[7u8; 4 * BLOCK_BYTES]).unwrap();
        store.zero(512, BLOCK_BYTES as u64 * 2);
        let mut back = vec![0u8; 4 * BLOCK_BYTES];
        store.read(0, &mut back);
        assert!(back[..512].iter().all(|&byte| byte == 7));
        assert!(back[512..512 + 2 * BLOCK_BYTES].iter().all(|&byte| byte == 0));
        assert!(back[512 + 2 * BLOCK_BYTES..].iter().all(|&byte| byte == 7));
        // Block 1 was wholly zeroed: freed.
        assert_eq!(store.stored_bytes(), 3 * BLOCK_BYTES as u64);
        store.zero(0, 1 << 40);
        assert_eq!(store.stored_bytes(), 0);
    }

    #[test]
    fn a_write_past_the_cap_is_refused_whole_and_zeros_take_no_room() {
        let mut store = Store::new(2 * BLOCK_BYTES as u64);
        assert_eq!(store.write(0, &[1u8; 3 * BLOCK_BYTES]), Err(StoreFull));
        assert_eq!(store.stored_bytes(), 0);
        store.write(0, &[0u8; 8 * BLOCK_BYTES]).unwrap();
        assert_eq!(store.stored_bytes(), 0);
        store.write(BLOCK_BYTES as u64, &[1u8; 2 * BLOCK_BYTES]).unwrap();
        assert_eq!(store.stored_bytes(), 2 * BLOCK_BYTES as u64);
        // Overwriting stored blocks needs no room.
        store.write(BLOCK_BYTES as u64, &[2u8; BLOCK_BYTES]).unwrap();
    }
}
