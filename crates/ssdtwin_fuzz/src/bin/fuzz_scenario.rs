//! AFL++ target: `ssdtwin_fuzz::scenario` on each input (see the crate's documentation).

fn main() {
    afl::fuzz!(|data: &[u8]| ssdtwin_fuzz::scenario(data));
}
