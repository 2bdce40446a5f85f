//! AFL++ target: `ssdtwin_fuzz::fio` on each input (see the crate's documentation).

fn main() {
    afl::fuzz!(|data: &[u8]| ssdtwin_fuzz::fio(data));
}
