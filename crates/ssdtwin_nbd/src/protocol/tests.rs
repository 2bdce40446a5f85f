//! The wire format's unit tests: each parser on valid and malformed input (a malformed corpus,
//! every truncation and bit flip, a sweep of request headers at the edges, seeded random bytes),
//! and the layouts of the replies.

use super::wire::{u16_at, u32_at, u64_at};
use super::*;

const SIZES: BlockSizes = BlockSizes {
    minimum: 512,
    preferred: 4096,
    maximum: 1 << 22,
};
const SIZE: u64 = 1 << 30;

fn request(kind: u16, flags: u16, offset: u64, length: u32) -> Request {
    Request {
        flags,
        kind,
        handle: 7,
        offset,
        length,
    }
}

#[test]
fn greeting_is_nbdmagic_ihaveopt_and_fixed_newstyle() {
    let greeting = greeting();
    assert_eq!(&greeting[0..8], b"NBDMAGIC");
    assert_eq!(&greeting[8..16], b"IHAVEOPT");
    assert_eq!(u16_at(&greeting, 16), FLAG_FIXED_NEWSTYLE | FLAG_NO_ZEROES);
}

#[test]
fn client_flags_with_unknown_bits_are_refused() {
    assert_eq!(parse_client_flags([0, 0, 0, 1]), Ok(false));
    assert_eq!(parse_client_flags([0, 0, 0, 3]), Ok(true));
    assert_eq!(
        parse_client_flags([0, 0, 0, 4]),
        Err(HandshakeError::UnknownClientFlags(4))
    );
    assert!(parse_client_flags([0xff; 4]).is_err());
}

#[test]
fn option_headers_need_the_magic_and_a_bounded_length() {
    let mut header = [0u8; 16];
    header[0..8].copy_from_slice(&OPTION_MAGIC.to_be_bytes());
    header[8..12].copy_from_slice(&OPT_GO.to_be_bytes());
    header[12..16].copy_from_slice(&10u32.to_be_bytes());
    assert_eq!(parse_option_header(header), Ok((OPT_GO, 10)));
    header[12..16].copy_from_slice(&u32::MAX.to_be_bytes());
    assert_eq!(
        parse_option_header(header),
        Err(HandshakeError::OptionTooLong(u32::MAX))
    );
    header[0] ^= 1;
    assert!(matches!(
        parse_option_header(header),
        Err(HandshakeError::BadOptionMagic(_))
    ));
}

fn info_data(name: &[u8], requests: &[u16]) -> Vec<u8> {
    let mut data = (name.len() as u32).to_be_bytes().to_vec();
    data.extend_from_slice(name);
    data.extend_from_slice(&(requests.len() as u16).to_be_bytes());
    for request in requests {
        data.extend_from_slice(&request.to_be_bytes());
    }
    data
}

#[test]
fn info_requests_parse_and_malformed_ones_are_invalid() {
    let data = info_data(b"ssd", &[INFO_BLOCK_SIZE, INFO_NAME]);
    assert_eq!(
        parse_info_request(&data),
        Ok(("ssd".to_string(), vec![INFO_BLOCK_SIZE, INFO_NAME]))
    );
    assert_eq!(parse_info_request(&info_data(b"", &[])), Ok((String::new(), vec![])));
    // The malformed corpus: each must be refused, none may panic.
    let mut too_long_name = info_data(b"ssd", &[]);
    too_long_name[0..4].copy_from_slice(&u32::MAX.to_be_bytes());
    let mut count_too_high = info_data(b"ssd", &[1]);
    count_too_high[7..9].copy_from_slice(&5u16.to_be_bytes());
    let mut trailing = info_data(b"ssd", &[1]);
    trailing.push(0);
    let corpus: Vec<Vec<u8>> = vec![
        vec![],
        vec![0; 5],
        too_long_name,
        count_too_high,
        trailing,
        info_data(&[0xff, 0xfe], &[]),
        info_data(b"a\0b", &[]),
        info_data(&vec![b'x'; MAX_STRING + 1], &[]),
    ];
    for data in corpus {
        assert!(parse_info_request(&data).is_err(), "{data:?}");
    }
}

#[test]
fn every_truncation_and_byte_flip_of_an_info_request_is_handled() {
    let data = info_data(b"export", &[INFO_EXPORT, INFO_BLOCK_SIZE]);
    for end in 0..data.len() {
        let _ = parse_info_request(&data[..end]);
    }
    for index in 0..data.len() {
        for bit in 0..8 {
            let mut flipped = data.clone();
            flipped[index] ^= 1 << bit;
            let _ = parse_info_request(&flipped);
        }
    }
}

#[test]
fn requests_round_trip_and_a_bad_magic_is_refused() {
    let original = request(CMD_WRITE, CMD_FLAG_FUA, 4096, 8192);
    let bytes = encode_request(&original);
    assert_eq!(parse_request(&bytes), Ok(original));
    let mut bad = bytes;
    bad[0] = 0;
    assert!(parse_request(&bad).is_err());
}

#[test]
fn valid_requests_are_classified() {
    assert_eq!(
        check_request(&request(CMD_READ, 0, 0, 4096), SIZE, SIZES),
        Ok(Command::Read)
    );
    assert_eq!(
        check_request(&request(CMD_WRITE, CMD_FLAG_FUA, 512, 512), SIZE, SIZES),
        Ok(Command::Write { fua: true })
    );
    assert_eq!(
        check_request(&request(CMD_FLUSH, 0, 0, 0), SIZE, SIZES),
        Ok(Command::Flush)
    );
    assert_eq!(
        check_request(&request(CMD_TRIM, 0, SIZE - 4096, 4096), SIZE, SIZES),
        Ok(Command::Trim { fua: false })
    );
    assert_eq!(
        check_request(&request(CMD_WRITE_ZEROES, CMD_FLAG_NO_HOLE, 0, 1 << 30), SIZE, SIZES),
        Ok(Command::WriteZeroes { fua: false })
    );
    assert_eq!(
        check_request(&request(CMD_DISC, 0, 0, 0), SIZE, SIZES),
        Ok(Command::Disconnect)
    );
}

#[test]
fn requests_at_any_byte_offset_and_length_are_accepted() {
    // Odd bytes are served (the server advertises a minimum block of 1 byte).
    assert_eq!(
        check_request(&request(CMD_READ, 0, 100, 4096), SIZE, SIZES),
        Ok(Command::Read)
    );
    assert_eq!(
        check_request(&request(CMD_WRITE, 0, 4097, 3), SIZE, SIZES),
        Ok(Command::Write { fua: false })
    );
    assert_eq!(
        check_request(&request(CMD_TRIM, 0, SIZE - 1, 1), SIZE, SIZES),
        Ok(Command::Trim { fua: false })
    );
}

#[test]
fn bad_requests_get_their_error_values() {
    let cases = [
        (request(99, 0, 0, 4096), EINVAL),                   // unknown command
        (request(5, 0, 0, 4096), EINVAL),                    // NBD_CMD_CACHE, not offered
        (request(CMD_READ, CMD_FLAG_FUA, 0, 4096), EINVAL),  // flag not allowed on a read
        (request(CMD_WRITE, 1 << 4, 0, 4096), EINVAL),       // unknown flag
        (request(CMD_READ, 0, SIZE, 512), EINVAL),           // beyond the end
        (request(CMD_WRITE, 0, SIZE - 512, 1024), ENOSPC),   // write beyond the end
        (request(CMD_READ, 0, u64::MAX - 511, 512), EINVAL), // offset + length overflows
        (request(CMD_READ, 0, 0, SIZES.maximum + 512), EOVERFLOW),
        (request(CMD_FLUSH, 0, 0, 512), EINVAL),
    ];
    for (request, error) in cases {
        assert_eq!(check_request(&request, SIZE, SIZES), Err(error), "{request:?}");
    }
}

#[test]
fn an_oversized_write_payload_closes_the_connection() {
    assert_eq!(payload_length(&request(CMD_WRITE, 0, 0, 4096), SIZES.maximum), Ok(4096));
    assert_eq!(payload_length(&request(CMD_READ, 0, 0, u32::MAX), SIZES.maximum), Ok(0));
    assert!(payload_length(&request(CMD_WRITE, 0, 0, u32::MAX), SIZES.maximum).is_err());
}

#[test]
fn every_request_header_is_handled_without_panic() {
    // A deterministic sweep over kinds, flags, offsets and lengths at the edges.
    let offsets = [0, 1, 511, 512, SIZE - 512, SIZE, u64::MAX - 511, u64::MAX];
    let lengths = [0, 1, 512, 4096, SIZES.maximum, SIZES.maximum + 512, u32::MAX];
    for kind in 0..10u16 {
        for flags in [0u16, 1, 2, 3, 0x10, 0xffff] {
            for &offset in &offsets {
                for &length in &lengths {
                    let request = request(kind, flags, offset, length);
                    let _ = check_request(&request, SIZE, SIZES);
                    let _ = payload_length(&request, SIZES.maximum);
                    assert_eq!(parse_request(&encode_request(&request)), Ok(request));
                }
            }
        }
    }
}

/// Seeded random bytes and mutations of valid messages through every parser: answers, never
/// a panic (the fuzzing approach of the trace readers, `readers_never_panic_on_garbage`).
#[test]
fn parsers_never_panic_on_random_bytes() {
    let mut rng = ssdtwin_core::base::rng::Rng::stream(11, "nbd fuzz");
    let byte = |rng: &mut ssdtwin_core::base::rng::Rng| rng.below(256) as u8;
    let valid_info = info_data(b"ssdtwin", &[INFO_EXPORT, INFO_BLOCK_SIZE, INFO_NAME]);
    let valid_request = encode_request(&request(CMD_WRITE, CMD_FLAG_FUA, 4096, 4096));
    for _ in 0..100_000 {
        let length = rng.below(48) as usize;
        let bytes: Vec<u8> = (0..length).map(|_| byte(&mut rng)).collect();
        let _ = parse_info_request(&bytes);
        let _ = parse_name(&bytes);
        let mut mutated = valid_info.clone();
        for _ in 0..1 + rng.below(3) {
            let index = rng.below(mutated.len() as u64) as usize;
            mutated[index] = byte(&mut rng);
        }
        mutated.truncate(rng.below(mutated.len() as u64 + 1) as usize);
        let _ = parse_info_request(&mutated);
        let mut header = [0u8; 16];
        header.iter_mut().for_each(|slot| *slot = byte(&mut rng));
        if rng.below(2) == 0 {
            header[0..8].copy_from_slice(&OPTION_MAGIC.to_be_bytes());
        }
        let _ = parse_option_header(header);
        let _ = parse_client_flags([byte(&mut rng), byte(&mut rng), byte(&mut rng), byte(&mut rng)]);
        let mut raw = valid_request;
        for _ in 0..1 + rng.below(4) {
            let index = 4 + rng.below((REQUEST_BYTES - 4) as u64) as usize;
            raw[index] = byte(&mut rng);
        }
        let parsed = parse_request(&raw).expect("the magic is intact");
        let _ = check_request(&parsed, SIZE, SIZES);
        let _ = payload_length(&parsed, SIZES.maximum);
    }
}

#[test]
fn replies_have_their_layout() {
    let reply = simple_reply(EINVAL, 0x0102_0304_0506_0708);
    assert_eq!(u32_at(&reply, 0), SIMPLE_REPLY_MAGIC);
    assert_eq!(u32_at(&reply, 4), EINVAL);
    assert_eq!(u64_at(&reply, 8), 0x0102_0304_0506_0708);
    let option = option_reply(OPT_GO, REP_ACK, &[]);
    assert_eq!(option.len(), 20);
    assert_eq!(u64_at(&option, 0), OPTION_REPLY_MAGIC);
    assert_eq!(export_name_reply(1 << 20, 1, false).len(), 134);
    assert_eq!(export_name_reply(1 << 20, 1, true).len(), 10);
    assert_eq!(info_block_size(SIZES).len(), 14);
    assert_eq!(info_export(1, 1).len(), 12);
}
