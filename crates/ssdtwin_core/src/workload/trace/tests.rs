//! Unit tests of the trace readers and the replay's filters and address maps.

use super::*;

/// Every reader on arbitrary bytes and arbitrary lines: errors, never a panic.
#[test]
fn readers_never_panic_on_garbage() {
    let mut rng = crate::base::rng::Rng::stream(9, "fuzz");
    let alphabet = b"0123456789,.+- \tRWrwQCDabc:#[]\x00\xff\n";
    for format in [
        TraceFormat::Msr,
        TraceFormat::Spc,
        TraceFormat::Blkparse,
        TraceFormat::Disksim,
        TraceFormat::FioIolog,
    ] {
        let config = TraceConfig {
            format,
            ..TraceConfig::default()
        };
        let mut reader = Reader::new(&config);
        let _ = reader.parse("fio version 2 iolog");
        for _ in 0..20_000 {
            let length = rng.below(60) as usize;
            let bytes: Vec<u8> = (0..length)
                .map(|_| alphabet[rng.below(alphabet.len() as u64) as usize])
                .collect();
            let text = String::from_utf8_lossy(&bytes);
            let _ = reader.parse(&text);
        }
        // Mutations of valid lines: fields dropped, duplicated, huge numbers.
        for line in [
            "128166372003061629,hm,1,Read,383719424,32768,5785",
            "0,20941264,8192,W,0.551706",
            "  8,0    3        1     0.000000000  697  Q  WS 3417352 + 8 [kjournald]",
            "938513000 4 264719034 16 0",
            "/dev/sda write 0 4096",
            "10 /dev/sda read 4096 4096",
        ] {
            let fields: Vec<&str> = line.split([',', ' ']).collect();
            for _ in 0..2_000 {
                let mut mutated: Vec<String> = fields.iter().map(|field| field.to_string()).collect();
                let index = rng.below(mutated.len() as u64) as usize;
                match rng.below(3) {
                    0 => {
                        mutated.remove(index);
                    }
                    1 => mutated[index] = "99999999999999999999999".into(),
                    _ => mutated[index] = "18446744073709551615".into(),
                }
                let _ = reader.parse(&mutated.join(","));
                let _ = reader.parse(&mutated.join(" "));
            }
        }
    }
}

#[test]
fn each_format_reads_its_units() {
    let cases: [(TraceFormat, &str, TraceRecord); 5] = [
        (
            TraceFormat::Msr,
            "128166372003061629,hm,1,Read,383719424,32768,5785",
            TraceRecord {
                time_ns: 12_816_637_200_306_162_900,
                device: 1,
                is_read: true,
                trim: false,
                offset: 383_719_424,
                length: 32_768,
            },
        ),
        (
            TraceFormat::Spc,
            "2,20941264,8192,W,0.551706",
            TraceRecord {
                time_ns: 551_706_000,
                device: 2,
                is_read: false,
                trim: false,
                offset: 20_941_264 * 512,
                length: 8192,
            },
        ),
        (
            TraceFormat::Blkparse,
            "  8,16   3        1     1.000000500  697  Q  RS 3417352 + 8 [kjournald]",
            TraceRecord {
                time_ns: 1_000_000_500,
                device: 8 * 256 + 16,
                is_read: true,
                trim: false,
                offset: 3_417_352 * 512,
                length: 4096,
            },
        ),
        (
            TraceFormat::Disksim,
            "938513000 4 264719034 16 0",
            TraceRecord {
                time_ns: 938_513_000,
                device: 4,
                is_read: false,
                trim: false,
                offset: 264_719_034 * 512,
                length: 8192,
            },
        ),
        (
            TraceFormat::FioIolog,
            "10 /dev/sda read 4096 8192",
            TraceRecord {
                time_ns: 10_000,
                device: 0,
                is_read: true,
                trim: false,
                offset: 4096,
                length: 8192,
            },
        ),
    ];
    for (format, line, expected) in cases {
        let mut reader = Reader::new(&TraceConfig {
            format,
            ..TraceConfig::default()
        });
        if format == TraceFormat::FioIolog {
            assert_eq!(reader.parse("fio version 3 iolog"), Ok(None));
            assert_eq!(reader.parse("0 /dev/sda add"), Ok(None));
        }
        assert_eq!(reader.parse(line), Ok(Some(expected)), "{format:?}");
    }
}

#[test]
fn blkparse_skips_other_actions_flushes_and_summary() {
    let mut reader = Reader::Blkparse('Q');
    for line in [
        "  8,0    3        2     0.000001000  697  G  WS 3417352 + 8 [kjournald]",
        "  8,0    3        3     0.000002000  697  Q FWS [kjournald]",
        "CPU3 (8,0):",
        " Reads Queued:           0,        0KiB  Writes Queued:          1,        4KiB",
        "",
    ] {
        assert_eq!(reader.parse(line), Ok(None), "{line}");
    }
    let mut complete = Reader::Blkparse('C');
    let record = complete
        .parse("  8,0    3        5     0.5  0  C  W 16 + 8 [0]")
        .unwrap()
        .unwrap();
    assert_eq!(
        (record.is_read, record.offset, record.time_ns),
        (false, 8192, 500_000_000)
    );
}

#[test]
fn blkparse_discards_and_iolog_trims_are_trims() {
    let mut reader = Reader::Blkparse('Q');
    for (line, sector) in [
        ("  8,0    3        4     0.000003000  697  Q  D 100 + 8 [fstrim]", 100),
        (
            "  8,0    3        5     0.000004000  697  Q  DS 200 + 16 [mkfs.ext4]",
            200,
        ),
    ] {
        let record = reader.parse(line).unwrap().unwrap();
        assert!(record.trim && !record.is_read, "{line}");
        assert_eq!(record.offset, sector * 512);
    }
    let mut iolog = Reader::FioIolog(fio_iolog::Iolog::default());
    assert_eq!(iolog.parse("fio version 2 iolog"), Ok(None));
    assert_eq!(iolog.parse("/dev/sdb add"), Ok(None));
    let record = iolog.parse("/dev/sdb trim 8192 65536").unwrap().unwrap();
    assert!(record.trim && (record.offset, record.length) == (8192, 65536));
}

#[test]
fn iolog_v2_accumulates_waits_in_microseconds() {
    let mut reader = Reader::FioIolog(fio_iolog::Iolog::default());
    assert_eq!(reader.parse("fio version 2 iolog"), Ok(None));
    assert_eq!(reader.parse("/dev/sdb add"), Ok(None));
    assert_eq!(reader.parse("/dev/sdb open"), Ok(None));
    assert_eq!(reader.parse("/dev/sdb wait 250"), Ok(None));
    let record = reader.parse("/dev/sdb write 8192 4096").unwrap().unwrap();
    assert_eq!(record.time_ns, 250_000);
    assert!(reader.parse("/dev/sdc read 0 4096").unwrap_err().contains("not added"));
    assert!(Reader::FioIolog(fio_iolog::Iolog::default())
        .parse("fio version 9 iolog")
        .is_err());
}

#[test]
fn malformed_fields_are_named() {
    let error = Reader::Msr.parse("1,hm,1,Erase,0,4096,1").unwrap_err();
    assert!(error.contains("Erase"), "{error}");
    let error = Reader::Spc.parse("0,12,4096,w").unwrap_err();
    assert!(error.contains("missing timestamp"), "{error}");
    let error = Reader::Disksim(1).parse("1 2 x 8 1").unwrap_err();
    assert!(error.contains("lba") && error.contains("`x`"), "{error}");
    let error = Reader::Blkparse('Q').parse("8,0 1 1 0.1 5 Q W 12 8 [x]").unwrap_err();
    assert!(error.contains("sector + sectors"), "{error}");
}
