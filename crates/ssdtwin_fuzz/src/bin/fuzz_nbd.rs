//! AFL++ target: `ssdtwin_fuzz::nbd` on each input (see the crate's documentation).

fn main() {
    afl::fuzz!(|data: &[u8]| ssdtwin_fuzz::nbd(data));
}
