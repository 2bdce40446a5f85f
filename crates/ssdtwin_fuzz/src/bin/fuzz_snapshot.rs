//! AFL++ target: `ssdtwin_fuzz::snapshot` on each input (see the crate's documentation).
//! `fuzz_snapshot --write-seed PATH` writes a valid snapshot to start from instead.

fn main() {
    let arguments: Vec<String> = std::env::args().collect();
    if let [_, flag, path] = arguments.as_slice() {
        if flag == "--write-seed" {
            if let Err(error) = ssdtwin_fuzz::write_snapshot_seed(std::path::Path::new(path)) {
                eprintln!("error: {error}");
                std::process::exit(1);
            }
            return;
        }
    }
    afl::fuzz!(|data: &[u8]| ssdtwin_fuzz::snapshot(data));
}
