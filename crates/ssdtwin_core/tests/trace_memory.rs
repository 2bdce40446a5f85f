//! A trace streams through its reader in constant memory. This test has its own binary (its own
//! process) because it measures the process's resident memory, which other tests running in
//! parallel threads of the shared `it` binary would move.

/// Peak resident memory of this process [bytes], from /proc (None elsewhere).
fn resident_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|line| line.starts_with("VmRSS:"))?;
    Some(line.split_whitespace().nth(1)?.parse::<u64>().ok()? * 1024)
}

/// Writes a DiskSim trace of about `bytes`, then streams it through the reader and checks that
/// resident memory never grows by more than a few MiB.
fn stream_large_trace(bytes: u64) {
    use std::io::Write;
    let dir = std::env::temp_dir().join(format!("ssdtwin-trace-memory-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("large.trace");
    {
        let mut out = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
        let mut written = 0u64;
        let mut i = 0u64;
        while written < bytes {
            let line = format!("{} {} {} 8 {}\n", i * 1000, i % 3, (i * 7919) % (1 << 30), i % 2);
            out.write_all(line.as_bytes()).unwrap();
            written += line.len() as u64;
            i += 1;
        }
    }
    let config = ssdtwin_core::config::TraceConfig {
        path: path.display().to_string(),
        ..Default::default()
    };
    let before = resident_bytes();
    let mut source = ssdtwin_core::workload::trace::TraceSource::new(&config, 4096, 1 << 20).unwrap();
    let mut requests = 0u64;
    let mut peak = before.unwrap_or(0);
    while source.next_request().unwrap().is_some() {
        requests += 1;
        if requests.is_multiple_of(100_000) {
            peak = peak.max(resident_bytes().unwrap_or(0));
        }
    }
    std::fs::remove_file(&path).unwrap();
    let _ = std::fs::remove_dir(&dir);
    assert!(requests > bytes / 40, "{requests} requests");
    if let Some(before) = before {
        let growth = peak.saturating_sub(before);
        assert!(
            growth < 16 << 20,
            "reading a {bytes} B trace grew memory by {growth} B: the reader does not stream"
        );
    }
}

#[test]
fn a_large_trace_streams_in_constant_memory() {
    stream_large_trace(64 << 20);
}

/// The 2 GB check; about a minute in a debug build on 2 cores, so run it on demand:
/// `cargo test -p ssdtwin_core --test trace_memory -- --ignored two_gigabyte`.
#[test]
#[ignore]
fn a_two_gigabyte_trace_streams_in_constant_memory() {
    stream_large_trace(2 << 30);
}
