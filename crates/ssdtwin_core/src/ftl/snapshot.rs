//! The FTL's state as bytes, for drive snapshots (`sim/snapshot.rs` adds the file's header): the
//! mapping table's two arrays as entry values (little-endian `u32`s, [`NONE`](super::mapping::NONE)
//! as `u32::MAX`), then everything else (block table, free lists, open blocks, GC policy state, the
//! FTL's random stream, the scheme's own state) as JSON.
//!
//! The values are written whatever the table stores in memory: a fill's rows that were never
//! written out (`fill_layout.rs`) are written as the values they stand for, so the format does not
//! depend on how the drive was filled, and a loaded table holds them written out. The reverse map's
//! entries are written as the table holds them, stale ones included (the forward map decides
//! validity, `mapping.rs`). On loading, entries are read a chunk at a time straight into the
//! table's arrays and converted to their stored form while in cache, so loading runs at the speed
//! of the file system. Each part is preceded by its length, so a truncated file is detected, not misread.

use std::io::{self, Read, Write};

use super::mapping::{encode, Mapping, NONE};
use super::Ftl;

/// Longest JSON part accepted on reading [bytes]: the per-block state of the largest drives is a
/// few hundred MiB at most; anything longer is a damaged file.
const MAX_JSON_BYTES: u64 = 1 << 32;

impl Ftl {
    /// Writes the FTL's state.
    pub fn write_state(&self, writer: &mut impl Write) -> io::Result<()> {
        let (logical_units, physical_units) = (self.mapping.logical_units(), self.mapping.physical_units());
        writer.write_all(&(logical_units as u64).to_le_bytes())?;
        self.mapping
            .for_each_forward_chunk(CHUNK, |chunk| write_u32s(writer, chunk))?;
        writer.write_all(&(physical_units as u64).to_le_bytes())?;
        self.mapping
            .for_each_reverse_chunk(CHUNK, |chunk| write_u32s(writer, chunk))?;
        let rest = serde_json::to_vec(self).map_err(io::Error::other)?;
        writer.write_all(&(rest.len() as u64).to_le_bytes())?;
        writer.write_all(&rest)
    }

    /// Reads a state written by [`Self::write_state`] into `ftl`, the FTL the scenario builds:
    /// the mapping arrays are read into its own (allocated and not yet touched: each page is
    /// written once, by the read), whose sizes the file must match. On an error `ftl` is left
    /// unusable.
    pub fn read_state(reader: &mut impl Read, ftl: &mut Ftl) -> io::Result<()> {
        let (mut forward, mut reverse) = ftl.mapping.take_arrays();
        let (logical_units, physical_units) = (forward.len() as u64, reverse.len() as u64);
        read_length(reader, logical_units, "forward mapping")?;
        forward
            .chunks_mut(CHUNK)
            .try_for_each(|chunk| read_u32s(reader, chunk, physical_units, "forward mapping"))?;
        read_length(reader, physical_units, "reverse mapping")?;
        reverse.fill_chunks(CHUNK, |chunk| {
            read_u32s(reader, chunk, logical_units, "reverse mapping")
        })?;
        let length = read_u64(reader)?;
        if length > MAX_JSON_BYTES {
            return Err(invalid(format!("an FTL state of {length} bytes: the file is damaged")));
        }
        // Grown as the bytes arrive: a damaged length costs no allocation beyond the file.
        let mut rest = Vec::new();
        reader.take(length).read_to_end(&mut rest)?;
        if rest.len() as u64 != length {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the FTL state is truncated",
            ));
        }
        *ftl = serde_json::from_slice(&rest).map_err(|error| invalid(format!("FTL state: {error}")))?;
        if let Some(fdp) = ftl.fdp.as_deref() {
            if fdp.unit_handle.len() as u64 != physical_units {
                // Before 2026-11-28 the handles were kept per logical unit.
                return Err(invalid(format!(
                    "FDP handles for {} units where this drive has {physical_units} physical units: \
                     a snapshot of an older ssdtwin; make it again",
                    fdp.unit_handle.len()
                )));
            }
        }
        ftl.mapping = Mapping::from_arrays(forward, reverse);
        ftl.free_floor = vec![0; ftl.free.len()];
        Ok(())
    }
}

fn invalid(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, message)
}

fn read_u64(reader: &mut impl Read) -> io::Result<u64> {
    let mut bytes = [0u8; 8];
    reader.read_exact(&mut bytes)?;
    Ok(u64::from_le_bytes(bytes))
}

/// Entries converted at a time when writing or reading a map (256 KiB: stays in cache).
const CHUNK: usize = 1 << 16;

/// Writes the entry values `values` (at most [`CHUNK`]) as little-endian bytes.
fn write_u32s(writer: &mut impl Write, values: &[u32]) -> io::Result<()> {
    if cfg!(target_endian = "little") {
        return writer.write_all(bytemuck::cast_slice(values));
    }
    let converted: Vec<u32> = values.iter().map(|value| value.to_le()).collect();
    writer.write_all(bytemuck::cast_slice(&converted))
}

/// Reads an array's length and checks it is `expected`, this drive's.
fn read_length(reader: &mut impl Read, expected: u64, what: &str) -> io::Result<()> {
    let length = read_u64(reader)?;
    if length != expected {
        return Err(invalid(format!(
            "the {what} holds {length} entries where this drive has {expected}"
        )));
    }
    Ok(())
}

/// Reads into `values` as many little-endian `u32`s, stored ([`encode`]d); each must be
/// [`NONE`] or below `bound` (an address in the other map).
fn read_u32s(reader: &mut impl Read, values: &mut [u32], bound: u64, what: &str) -> io::Result<()> {
    reader.read_exact(bytemuck::cast_slice_mut(values))?;
    let mut out_of_range = false;
    for value in values.iter_mut() {
        let decoded = u32::from_le(*value);
        out_of_range |= decoded != NONE && u64::from(decoded) >= bound;
        *value = encode(decoded);
    }
    if out_of_range {
        return Err(invalid(format!(
            "the {what} holds an address out of range (at least {bound}): the file is damaged"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::mapping::NONE;
    use super::super::tests::one_plane;
    use super::super::types::Stream;
    use super::*;

    #[test]
    fn a_snapshot_stores_map_entries_as_plain_little_endian_values_and_reads_them_back() {
        let (mut ftl, geometry) = one_plane(4);
        let (block, page) = ftl.allocate_page(0, Stream::User);
        let physical = geometry.unit_address(block, page, 2);
        ftl.place(5, physical, Stream::User);
        let mut bytes = Vec::new();
        ftl.write_state(&mut bytes).expect("written");
        // The format (this file's docs): the forward map's length, then its entries, an unmapped
        // unit as u32::MAX whatever the table stores in memory.
        let entry = |index: usize| {
            let at = 8 + 4 * index;
            u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"))
        };
        let logical_units = u64::from_le_bytes(bytes[..8].try_into().expect("8 bytes"));
        assert_eq!(logical_units, u64::from(ftl.logical_units()));
        assert_eq!(entry(5), physical);
        assert_eq!(entry(4), u32::MAX);
        assert_eq!(entry(6), u32::MAX);
        let reverse_at = 8 + 4 * logical_units as usize;
        let reverse_entry = |index: usize| {
            let at = reverse_at + 8 + 4 * index;
            u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"))
        };
        assert_eq!(reverse_entry(physical as usize), 5);
        assert_eq!(reverse_entry(physical as usize + 1), u32::MAX);

        let (mut loaded, _) = one_plane(4);
        Ftl::read_state(&mut bytes.as_slice(), &mut loaded).expect("read back");
        assert_eq!(loaded.mapping.physical(5), physical);
        assert_eq!(loaded.mapping.logical(physical), 5);
        assert_eq!(loaded.mapping.physical(4), NONE);
        assert_eq!(loaded.mapping.logical(physical + 1), NONE);
        assert_eq!(loaded.mapping.decoded(), ftl.mapping.decoded());
    }

    #[test]
    fn fdp_handles_of_another_length_are_refused_as_an_older_snapshot() {
        let (mut ftl, _) = one_plane(4);
        let fdp = super::super::fdp::FdpConfig {
            enabled: true,
            ..Default::default()
        };
        ftl.enable_fdp(&fdp, 1);
        let mut bytes = Vec::new();
        ftl.write_state(&mut bytes).expect("written");
        let (mut loaded, _) = one_plane(4);
        Ftl::read_state(&mut bytes.as_slice(), &mut loaded).expect("a state of this version loads");
        // Before per-physical handles, a snapshot held one per logical unit.
        let logical_units = ftl.logical_units() as usize;
        ftl.fdp.as_deref_mut().expect("on").unit_handle.truncate(logical_units);
        bytes.clear();
        ftl.write_state(&mut bytes).expect("written");
        let (mut loaded, _) = one_plane(4);
        let error = Ftl::read_state(&mut bytes.as_slice(), &mut loaded).expect_err("refused");
        assert!(error.to_string().contains("make it again"), "{error}");
    }
}
