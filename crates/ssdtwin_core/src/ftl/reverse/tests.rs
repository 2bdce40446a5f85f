//! The file-backed reverse map against a model of its entries.

use super::*;
use crate::base::rng::Rng;

/// A file map of 64 runs of 16 entries: its cache holds 8 runs (one set), so random access
/// evicts and reads back all the time.
fn small_file() -> Reverse {
    let file = ReverseFile::create(&std::env::temp_dir(), 64 * 16, 16).expect("a file in the temporary directory");
    assert_eq!(
        file.lines.borrow().tag.len(),
        WAYS,
        "one set of 8 runs: an eighth of the map"
    );
    Reverse::File(Box::new(file))
}

#[test]
fn a_file_map_reads_back_every_entry_written_across_evictions() {
    let mut map = small_file();
    let mut model = vec![0u32; 64 * 16];
    assert!(
        (0..model.len() as u32).all(|index| map.get(index) == 0),
        "new: all none"
    );
    let mut rng = Rng::stream(5, "test");
    for step in 0..20_000u32 {
        let index = rng.below(model.len() as u64) as u32;
        if step % 3 == 0 {
            assert_eq!(map.get(index), model[index as usize], "entry {index} at step {step}");
        } else {
            map.set(index, step);
            model[index as usize] = step;
        }
    }
    // A run written in place, as the streamed fill writes one.
    map.run_mut(5 * 16 + 4, 8).copy_from_slice(&[7; 8]);
    model[5 * 16 + 4..5 * 16 + 12].copy_from_slice(&[7; 8]);
    // Entries over several runs in one write, as the steady layout writes them (cached runs
    // among them: the cache agrees with the file).
    let entries: Vec<u32> = (0..100).map(|entry| 1_000_000 + entry).collect();
    map.write_entries(3 * 16 + 9, &entries);
    model[3 * 16 + 9..3 * 16 + 109].copy_from_slice(&entries);
    assert!((0..model.len() as u32).all(|index| map.get(index) == model[index as usize]));
    let mut read = Vec::new();
    map.for_each_chunk(100, |chunk| {
        read.extend_from_slice(chunk);
        Ok(())
    })
    .expect("read");
    assert_eq!(read, model, "the file and the cache's changed runs, in order");
    assert!((0..model.len() as u32).all(|index| map.get(index) == model[index as usize]));
}

#[test]
fn filling_a_file_map_replaces_entries_the_cache_held() {
    let mut map = small_file();
    map.set(3, 99);
    let mut next = 0u32;
    map.fill_chunks(100, |chunk| {
        for entry in chunk.iter_mut() {
            *entry = next;
            next += 1;
        }
        Ok(())
    })
    .expect("filled");
    assert!(
        (0..64 * 16).all(|index| map.get(index) == index),
        "the filled entries, none older"
    );
}

#[test]
fn a_file_map_in_a_missing_directory_is_an_error() {
    let missing = std::env::temp_dir().join("ssdtwin-no-such-directory").join("below");
    let error = ReverseFile::create(&missing, 16, 4).expect_err("no directory");
    assert_eq!(error.kind(), io::ErrorKind::NotFound);
}
