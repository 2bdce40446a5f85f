//! The reverse map of page mapping (physical unit → the logical unit written there), in memory or
//! in a file (`ftl.reverse_map`).
//!
//! Entries are written where a unit is programmed (a write frontier: one open block's run after
//! another) and read a block's run at a time (GC victims, relocations, a page just programmed);
//! an entry may be stale, since validity is decided by the forward map (`mapping.rs`). That access
//! pattern is what a drive's own reverse map has: each page's logical address sits in its spare
//! area on flash, written with the page and read back by GC. So the map need not be in memory:
//! with `file` it lives in an unlinked file in `TMPDIR` and memory holds a cache of block runs
//! ([`ReverseFile`]), written back when evicted. Both keep the same entries, so a run's report
//! does not depend on where the map lives.

use std::cell::{RefCell, RefMut};
use std::fs::File;
use std::io;
use std::ops::{Deref, DerefMut};
use std::path::{Path, PathBuf};

use crate::base::memory::LargeArray;

/// The reverse map's entries as stored (`mapping.rs`: an entry's value `^` its mask, so a fresh
/// map's zeroes, in memory or in a new file, read as "none" or as a fill's layout), in memory or in
/// a file.
#[derive(Debug)]
pub enum Reverse {
    Memory(LargeArray),
    File(Box<ReverseFile>),
}

impl Default for Reverse {
    fn default() -> Reverse {
        Reverse::Memory(LargeArray::default())
    }
}

impl Reverse {
    /// The stored entry of `physical`.
    #[inline]
    pub fn get(&self, physical: u32) -> u32 {
        match self {
            Reverse::Memory(array) => array[physical as usize],
            Reverse::File(file) => file.get(physical as usize),
        }
    }

    /// Stores `stored` as the entry of `physical`.
    #[inline]
    pub fn set(&mut self, physical: u32, stored: u32) {
        match self {
            Reverse::Memory(array) => array[physical as usize] = stored,
            Reverse::File(file) => file.set(physical as usize, stored),
        }
    }

    pub fn len(&self) -> usize {
        match self {
            Reverse::Memory(array) => array.len(),
            Reverse::File(file) => file.store.len,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The stored entries `start..start + len`, to write in place; with `file` they must lie in
    /// one block's run (the streamed fill writes one block's pages at a time).
    pub fn run_mut(&mut self, start: usize, len: usize) -> Run<'_> {
        match self {
            Reverse::Memory(array) => Run::Slice(&mut array[start..start + len]),
            Reverse::File(file) => Run::Cached(file.run_mut(start, len)),
        }
    }

    /// Stores `entries` as the entries from `start` on: with `file` one write to the file, however
    /// many runs they span (the cache's copies of those runs updated), where [`Self::set`] would
    /// read and write back each run through the cache (two system calls a block).
    pub fn write_entries(&mut self, start: usize, entries: &[u32]) {
        match self {
            Reverse::Memory(array) => array[start..start + entries.len()].copy_from_slice(entries),
            Reverse::File(file) => file.write_entries(start, entries),
        }
    }

    /// The stored entries from `start` on, into `entries` (with `file`: changed runs written back
    /// first, then one read from the file).
    pub fn read_entries(&self, start: usize, entries: &mut [u32]) {
        match self {
            Reverse::Memory(array) => entries.copy_from_slice(&array[start..start + entries.len()]),
            Reverse::File(file) => file
                .write_back()
                .and_then(|()| file.store.read_entries(start, entries))
                .unwrap_or_else(|error| file.store.failed("reading", &error)),
        }
    }

    /// Calls `visit` with the stored entries in order, a chunk of at most `chunk` at a time.
    pub fn for_each_chunk(&self, chunk: usize, mut visit: impl FnMut(&[u32]) -> io::Result<()>) -> io::Result<()> {
        match self {
            Reverse::Memory(array) => array.chunks(chunk).try_for_each(visit),
            Reverse::File(file) => {
                file.write_back()?;
                let len = file.store.len;
                let mut buffer = vec![0u32; chunk.min(len)];
                for start in (0..len).step_by(chunk.max(1)) {
                    let part = &mut buffer[..chunk.min(len - start)];
                    file.store.read_entries(start, part)?;
                    visit(part)?;
                }
                Ok(())
            }
        }
    }

    /// Replaces every stored entry, in order, a chunk of at most `chunk` at a time: `fill` writes
    /// each chunk's entries.
    pub fn fill_chunks(&mut self, chunk: usize, mut fill: impl FnMut(&mut [u32]) -> io::Result<()>) -> io::Result<()> {
        match self {
            Reverse::Memory(array) => array.chunks_mut(chunk).try_for_each(fill),
            Reverse::File(file) => {
                file.lines.get_mut().forget();
                let len = file.store.len;
                let mut buffer = vec![0u32; chunk.min(len)];
                for start in (0..len).step_by(chunk.max(1)) {
                    let part = &mut buffer[..chunk.min(len - start)];
                    fill(part)?;
                    file.store.write_entries(start, part)?;
                }
                Ok(())
            }
        }
    }

    /// In memory: backs every page now (`LargeArray::populate`); in a file: nothing.
    pub fn populate(&self) {
        if let Reverse::Memory(array) = self {
            array.populate(0, array.len());
        }
    }
}

/// Stored entries to write in place ([`Reverse::run_mut`]).
#[derive(Debug)]
pub enum Run<'a> {
    Slice(&'a mut [u32]),
    Cached(RefMut<'a, [u32]>),
}

impl Deref for Run<'_> {
    type Target = [u32];

    fn deref(&self) -> &[u32] {
        match self {
            Run::Slice(slice) => slice,
            Run::Cached(run) => run,
        }
    }
}

impl DerefMut for Run<'_> {
    fn deref_mut(&mut self) -> &mut [u32] {
        match self {
            Run::Slice(slice) => slice,
            Run::Cached(run) => run,
        }
    }
}

/// Ways of each set of the run cache.
const WAYS: usize = 8;
/// Memory the run cache takes at most [bytes] (on a drive of fewer than 8 times as much reverse
/// map, an eighth of the map).
const CACHE_BYTES: usize = 32 << 20;
/// A way that holds no run.
const EMPTY: usize = usize::MAX;

/// A reverse map in an unlinked file, with a set-associative cache of block runs (least recently
/// used evicted, written back when changed). The file is preallocated where the file system can
/// (so a full disk is found at creation, not mid-run) and removed from its directory at once: the
/// space returns when the simulation ends, however it ends.
pub struct ReverseFile {
    store: Store,
    lines: RefCell<Lines>,
}

impl std::fmt::Debug for ReverseFile {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            formatter,
            "ReverseFile({} entries in {})",
            self.store.len,
            self.store.dir.display()
        )
    }
}

/// The file and its shape.
struct Store {
    file: File,
    /// Where the file was made (for error messages).
    dir: PathBuf,
    /// Entries.
    len: usize,
    /// Entries per run: a block's units.
    run: usize,
}

/// The run cache: per way, the run it holds, when last used, whether changed, and its entries.
struct Lines {
    /// Sets, a power of two.
    sets: usize,
    tag: Vec<usize>,
    used: Vec<u64>,
    dirty: Vec<bool>,
    data: Vec<u32>,
    clock: u64,
}

impl Lines {
    /// The way holding run `index`, marked used now.
    #[inline]
    fn find(&mut self, index: usize) -> Option<usize> {
        let first = set_of(index, self.sets) * WAYS;
        let way = (first..first + WAYS).find(|&way| self.tag[way] == index)?;
        self.clock += 1;
        self.used[way] = self.clock;
        Some(way)
    }

    /// Every way empty, nothing to write back (the file's contents replaced).
    fn forget(&mut self) {
        self.tag.fill(EMPTY);
        self.dirty.fill(false);
        self.used.fill(0);
    }
}

impl ReverseFile {
    /// A reverse map of `len` entries, all "none", in a new file in `dir`, cached by runs of
    /// `run` entries.
    pub fn create(dir: &Path, len: usize, run: usize) -> io::Result<ReverseFile> {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let name = format!(
            "ssdtwin-reverse-map-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        );
        let path = dir.join(name);
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&path)?;
        std::fs::remove_file(&path)?;
        reserve(&file, len as u64 * 4)?;
        let run = run.clamp(1, len.max(1));
        let runs = len.div_ceil(run).max(1);
        // An eighth of the runs (so a small drive's runs are evicted and read back as a large
        // drive's are), at most CACHE_BYTES.
        let wanted = ((runs / 8).min(CACHE_BYTES / (run * 4)) / WAYS).max(1);
        let sets = 1usize << wanted.ilog2();
        let ways = sets * WAYS;
        Ok(ReverseFile {
            store: Store {
                file,
                dir: dir.to_path_buf(),
                len,
                run,
            },
            lines: RefCell::new(Lines {
                sets,
                tag: vec![EMPTY; ways],
                used: vec![0; ways],
                dirty: vec![false; ways],
                data: vec![0; ways * run],
                clock: 0,
            }),
        })
    }

    #[inline]
    fn get(&self, index: usize) -> u32 {
        let run = self.store.run;
        let mut lines = self.lines.borrow_mut();
        let way = match lines.find(index / run) {
            Some(way) => way,
            None => self.store.fill_way(&mut lines, index / run),
        };
        lines.data[way * run + index % run]
    }

    #[inline]
    fn set(&mut self, index: usize, stored: u32) {
        let run = self.store.run;
        let lines = self.lines.get_mut();
        let way = match lines.find(index / run) {
            Some(way) => way,
            None => self.store.fill_way(lines, index / run),
        };
        lines.dirty[way] = true;
        lines.data[way * run + index % run] = stored;
    }

    fn run_mut(&mut self, start: usize, len: usize) -> RefMut<'_, [u32]> {
        let run = self.store.run;
        assert_eq!(start / run, (start + len.max(1) - 1) / run, "a run within one block");
        let lines = self.lines.get_mut();
        let way = match lines.find(start / run) {
            Some(way) => way,
            None => self.store.fill_way(lines, start / run),
        };
        lines.dirty[way] = true;
        let offset = way * run + start % run;
        RefMut::map(self.lines.borrow_mut(), |lines| &mut lines.data[offset..offset + len])
    }

    /// [`Reverse::write_entries`].
    fn write_entries(&mut self, start: usize, entries: &[u32]) {
        self.store
            .write_entries(start, entries)
            .unwrap_or_else(|error| self.store.failed("writing", &error));
        let run = self.store.run;
        let lines = self.lines.get_mut();
        let end = start + entries.len();
        for index in start / run..end.div_ceil(run) {
            let first = set_of(index, lines.sets) * WAYS;
            let Some(way) = (first..first + WAYS).find(|&way| lines.tag[way] == index) else {
                continue;
            };
            // The part of the run written: the file and the cache agree on it now.
            let (from, to) = ((index * run).max(start), ((index + 1) * run).min(end));
            let offset = way * run;
            lines.data[offset + from - index * run..offset + to - index * run]
                .copy_from_slice(&entries[from - start..to - start]);
        }
    }

    /// Writes every changed run to the file.
    fn write_back(&self) -> io::Result<()> {
        let mut lines = self.lines.borrow_mut();
        for way in 0..lines.tag.len() {
            if lines.dirty[way] {
                self.store.write_way(&lines, way)?;
                lines.dirty[way] = false;
            }
        }
        Ok(())
    }
}

impl Store {
    /// Loads run `index` into its set's least recently used way, writing back what that way held
    /// if it changed. An I/O failure here (the disk failed under a running simulation) has no
    /// caller to return to: it stops the simulation, naming the file's directory and the error.
    #[cold]
    fn fill_way(&self, lines: &mut Lines, index: usize) -> usize {
        let first = set_of(index, lines.sets) * WAYS;
        let way = (first..first + WAYS)
            .min_by_key(|&way| lines.used[way])
            .expect("a set has ways");
        if lines.dirty[way] {
            self.write_way(lines, way)
                .unwrap_or_else(|error| self.failed("writing", &error));
            lines.dirty[way] = false;
        }
        let entries = self.run.min(self.len - index * self.run);
        let start = way * self.run;
        self.read_entries(index * self.run, &mut lines.data[start..start + entries])
            .unwrap_or_else(|error| self.failed("reading", &error));
        lines.tag[way] = index;
        lines.clock += 1;
        lines.used[way] = lines.clock;
        way
    }

    /// Writes the run `way` holds to its place in the file.
    fn write_way(&self, lines: &Lines, way: usize) -> io::Result<()> {
        let index = lines.tag[way];
        let entries = self.run.min(self.len - index * self.run);
        let start = way * self.run;
        self.write_entries(index * self.run, &lines.data[start..start + entries])
    }

    fn failed(&self, doing: &str, error: &io::Error) -> ! {
        panic!(
            "ftl.reverse_map = \"file\": {doing} the reverse map's file in {} failed: {error}",
            self.dir.display()
        )
    }

    fn read_entries(&self, start: usize, entries: &mut [u32]) -> io::Result<()> {
        read_at(&self.file, bytemuck::cast_slice_mut(entries), start as u64 * 4)
    }

    fn write_entries(&self, start: usize, entries: &[u32]) -> io::Result<()> {
        write_at(&self.file, bytemuck::cast_slice(entries), start as u64 * 4)
    }
}

/// The set of run `index`: a multiplicative hash, so the runs of neighbouring blocks and of the
/// same block in every plane spread over the sets.
#[inline]
fn set_of(index: usize, sets: usize) -> usize {
    ((index as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as usize & (sets - 1)
}

/// Gives `file` its `bytes` of disk now where the file system can (Linux `fallocate`), else
/// sets its length (a sparse file: the space is taken as runs are written).
fn reserve(file: &File, bytes: u64) -> io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        let length = i64::try_from(bytes).map_err(io::Error::other)?;
        match nix::fcntl::fallocate(file, nix::fcntl::FallocateFlags::empty(), 0, length.max(1)) {
            Ok(()) => return Ok(()),
            Err(nix::errno::Errno::EOPNOTSUPP) => {}
            Err(errno) => return Err(io::Error::from(errno)),
        }
    }
    file.set_len(bytes)
}

#[cfg(unix)]
fn read_at(file: &File, bytes: &mut [u8], offset: u64) -> io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, bytes, offset)
}

#[cfg(unix)]
fn write_at(file: &File, bytes: &[u8], offset: u64) -> io::Result<()> {
    std::os::unix::fs::FileExt::write_all_at(file, bytes, offset)
}

#[cfg(not(unix))]
fn read_at(mut file: &File, bytes: &mut [u8], offset: u64) -> io::Result<()> {
    use std::io::{Read, Seek};
    file.seek(io::SeekFrom::Start(offset))?;
    file.read_exact(bytes)
}

#[cfg(not(unix))]
fn write_at(mut file: &File, bytes: &[u8], offset: u64) -> io::Result<()> {
    use std::io::{Seek, Write};
    file.seek(io::SeekFrom::Start(offset))?;
    file.write_all(bytes)
}

#[cfg(test)]
mod tests;
