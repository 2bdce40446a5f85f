//! Reading the text files a user names (scenario, drive preset, fio job): only regular files, and
//! only up to a size no such file reaches, so that `/dev/zero`, a FIFO or a multi-gigabyte file
//! given by mistake is an error instead of unbounded memory or a hang.

use std::io::Read;
use std::path::Path;

/// The largest scenario, preset or job file read [bytes]: real ones are a few KiB.
pub const MAX_TEXT_FILE_BYTES: u64 = 16 << 20;

/// The text of the regular file `path`, at most [`MAX_TEXT_FILE_BYTES`]; the error says why not
/// (without the path: callers name the file and the key).
pub fn read_text(path: &Path) -> Result<String, String> {
    let metadata = std::fs::metadata(path).map_err(|error| error.to_string())?;
    if !metadata.is_file() {
        return Err("not a regular file".to_string());
    }
    if metadata.len() > MAX_TEXT_FILE_BYTES {
        return Err(format!(
            "{} bytes, more than the {} MiB a text file of this kind may have",
            metadata.len(),
            MAX_TEXT_FILE_BYTES >> 20
        ));
    }
    let mut text = String::new();
    std::fs::File::open(path)
        .and_then(|file| file.take(MAX_TEXT_FILE_BYTES).read_to_string(&mut text))
        .map_err(|error| error.to_string())?;
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    /// A fresh folder for one test, removed when it ends.
    struct Scratch(PathBuf);

    impl Scratch {
        fn new(name: &str) -> Scratch {
            let path = std::env::temp_dir().join(format!("ssdtwin-files-{}-{name}", std::process::id()));
            std::fs::create_dir_all(&path).unwrap();
            Scratch(path)
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    /// A sparse file of `bytes` NUL bytes (no disk written).
    fn sparse(path: &Path, bytes: u64) {
        std::fs::File::create(path).unwrap().set_len(bytes).unwrap();
    }

    #[test]
    fn a_file_one_byte_over_16_mib_is_refused_naming_its_size_and_the_cap() {
        let scratch = Scratch::new("over");
        let path = scratch.0.join("big.toml");
        sparse(&path, (16 << 20) + 1);
        let error = read_text(&path).expect_err("16 MiB + 1 byte is over the cap");
        assert!(error.contains("16777217 bytes") && error.contains("16 MiB"), "{error}");
    }

    #[test]
    fn a_file_of_exactly_16_mib_and_one_just_under_are_read_whole() {
        let scratch = Scratch::new("under");
        for bytes in [16 << 20, (16 << 20) - 1] {
            let path = scratch.0.join(format!("{bytes}.toml"));
            sparse(&path, bytes);
            assert_eq!(read_text(&path).expect("at most the cap").len() as u64, bytes);
        }
    }
}
