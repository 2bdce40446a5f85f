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
