//! The buffer's shared vocabulary: a buffered write and the hasher of the buffer's tables. Kept
//! apart from `mod.rs` so the flush orders import it without importing the buffer.

use std::hash::{BuildHasherDefault, Hasher};

/// A multiplicative hasher for `u32` keys (no allocation, deterministic).
#[derive(Clone, Copy, Debug, Default)]
pub struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(byte)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_u32(&mut self, value: u32) {
        self.0 = (u64::from(value) ^ 0x5555_5555).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

/// The hasher of the buffer's tables.
pub type FastHash = BuildHasherDefault<KeyHasher>;

/// One buffered write of one mapping unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    pub logical: u32,
    /// Its translation page (`logical / entries per translation page`).
    pub tpage: u32,
    /// The command to acknowledge when programmed (write-through).
    pub command: u32,
}
