//! The NBD wire format: the fixed-newstyle handshake and the transmission phase's simple replies,
//! as pure functions over byte buffers (no I/O), so every malformed input can be tested and fuzzed.
//!
//! Source: the NBD protocol document (`doc/proto.md` of the reference implementation,
//! NetworkBlockDevice/nbd). All integers are big-endian. Structured replies, metadata contexts,
//! extended headers and TLS are not offered: their options are refused with `NBD_REP_ERR_UNSUP`
//! (STARTTLS with `NBD_REP_ERR_POLICY`), and a client that does not negotiate them gets simple
//! replies, as the document requires.

/// `NBDMAGIC`, first word of the server's greeting.
pub const NBD_MAGIC: u64 = 0x4e42_444d_4147_4943;
/// `IHAVEOPT`: second word of the greeting and first of every option.
pub const OPTION_MAGIC: u64 = 0x4948_4156_454f_5054;
/// Magic of the server's option replies.
pub const OPTION_REPLY_MAGIC: u64 = 0x0003_e889_0455_65a9;
/// Magic of a transmission request.
pub const REQUEST_MAGIC: u32 = 0x2560_9513;
/// Magic of a simple reply.
pub const SIMPLE_REPLY_MAGIC: u32 = 0x6744_6698;

/// Handshake flags (server): fixed newstyle, and the 124 zero bytes may be left out.
pub const FLAG_FIXED_NEWSTYLE: u16 = 1 << 0;
pub const FLAG_NO_ZEROES: u16 = 1 << 1;
/// Client flags: the same two bits; any other bit makes the server close the connection.
pub const CLIENT_FIXED_NEWSTYLE: u32 = 1 << 0;
pub const CLIENT_NO_ZEROES: u32 = 1 << 1;

/// Transmission flags.
pub const TRANSMIT_HAS_FLAGS: u16 = 1 << 0;
pub const TRANSMIT_SEND_FLUSH: u16 = 1 << 2;
pub const TRANSMIT_SEND_FUA: u16 = 1 << 3;
pub const TRANSMIT_SEND_TRIM: u16 = 1 << 5;
pub const TRANSMIT_SEND_WRITE_ZEROES: u16 = 1 << 6;
pub const TRANSMIT_CAN_MULTI_CONN: u16 = 1 << 8;

/// Options.
pub const OPT_EXPORT_NAME: u32 = 1;
pub const OPT_ABORT: u32 = 2;
pub const OPT_LIST: u32 = 3;
pub const OPT_STARTTLS: u32 = 5;
pub const OPT_INFO: u32 = 6;
pub const OPT_GO: u32 = 7;

/// Option reply types.
pub const REP_ACK: u32 = 1;
pub const REP_SERVER: u32 = 2;
pub const REP_INFO: u32 = 3;
const REP_ERROR: u32 = 1 << 31;
pub const REP_ERR_UNSUP: u32 = REP_ERROR | 1;
pub const REP_ERR_POLICY: u32 = REP_ERROR | 2;
pub const REP_ERR_INVALID: u32 = REP_ERROR | 3;
pub const REP_ERR_UNKNOWN: u32 = REP_ERROR | 6;
pub const REP_ERR_TOO_BIG: u32 = REP_ERROR | 9;

/// Information types of `NBD_OPT_INFO` / `NBD_OPT_GO`.
pub const INFO_EXPORT: u16 = 0;
pub const INFO_NAME: u16 = 1;
pub const INFO_DESCRIPTION: u16 = 2;
pub const INFO_BLOCK_SIZE: u16 = 3;

/// Commands.
pub const CMD_READ: u16 = 0;
pub const CMD_WRITE: u16 = 1;
pub const CMD_DISC: u16 = 2;
pub const CMD_FLUSH: u16 = 3;
pub const CMD_TRIM: u16 = 4;
pub const CMD_WRITE_ZEROES: u16 = 6;

/// Command flags.
pub const CMD_FLAG_FUA: u16 = 1 << 0;
pub const CMD_FLAG_NO_HOLE: u16 = 1 << 1;

/// Error values of simple replies (the protocol's fixed numbers, Linux errno values).
pub const EPERM: u32 = 1;
pub const EIO: u32 = 5;
pub const EINVAL: u32 = 22;
pub const ENOSPC: u32 = 28;
pub const EOVERFLOW: u32 = 75;
pub const ENOTSUP: u32 = 95;

/// Longest option data accepted [bytes]: an export name (at most 4096 bytes) and its info
/// requests fit; a longer option is refused with `NBD_REP_ERR_TOO_BIG` and the connection closed.
pub const MAX_OPTION_DATA: u32 = 8192;
/// Longest string (export name) the protocol allows [bytes].
pub const MAX_STRING: usize = 4096;

/// Bytes of a request header and of a simple reply.
pub const REQUEST_BYTES: usize = 28;
pub const SIMPLE_REPLY_BYTES: usize = 16;

/// The block-size constraints advertised with `NBD_INFO_BLOCK_SIZE` [bytes].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockSizes {
    /// Every offset and length is a multiple of this.
    pub minimum: u32,
    /// Requests of this size and alignment are served best (the drive's mapping unit).
    pub preferred: u32,
    /// Largest read or write payload.
    pub maximum: u32,
}

/// Why the connection must be closed during the handshake.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HandshakeError {
    /// Client flags with bits the server does not know.
    UnknownClientFlags(u32),
    /// An option that does not start with `IHAVEOPT`.
    BadOptionMagic(u64),
    /// Option data longer than [`MAX_OPTION_DATA`].
    OptionTooLong(u32),
}

impl std::fmt::Display for HandshakeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HandshakeError::UnknownClientFlags(flags) => write!(f, "unknown client flags {flags:#x}"),
            HandshakeError::BadOptionMagic(magic) => write!(f, "option magic {magic:#x} is not IHAVEOPT"),
            HandshakeError::OptionTooLong(length) => {
                write!(f, "option data of {length} bytes (at most {MAX_OPTION_DATA})")
            }
        }
    }
}

fn u16_at(bytes: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([bytes[at], bytes[at + 1]])
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_be_bytes(bytes[at..at + 4].try_into().expect("4 bytes"))
}

fn u64_at(bytes: &[u8], at: usize) -> u64 {
    u64::from_be_bytes(bytes[at..at + 8].try_into().expect("8 bytes"))
}

/// The server's greeting: `NBDMAGIC`, `IHAVEOPT`, handshake flags.
pub fn greeting() -> [u8; 18] {
    let mut bytes = [0u8; 18];
    bytes[0..8].copy_from_slice(&NBD_MAGIC.to_be_bytes());
    bytes[8..16].copy_from_slice(&OPTION_MAGIC.to_be_bytes());
    bytes[16..18].copy_from_slice(&(FLAG_FIXED_NEWSTYLE | FLAG_NO_ZEROES).to_be_bytes());
    bytes
}

/// The client's flags; `no_zeroes` when it asked to skip the 124 zero bytes.
pub fn parse_client_flags(bytes: [u8; 4]) -> Result<bool, HandshakeError> {
    let flags = u32::from_be_bytes(bytes);
    if flags & !(CLIENT_FIXED_NEWSTYLE | CLIENT_NO_ZEROES) != 0 {
        return Err(HandshakeError::UnknownClientFlags(flags));
    }
    Ok(flags & CLIENT_NO_ZEROES != 0)
}

/// An option header: the option and the length of its data.
pub fn parse_option_header(bytes: [u8; 16]) -> Result<(u32, u32), HandshakeError> {
    let magic = u64_at(&bytes, 0);
    if magic != OPTION_MAGIC {
        return Err(HandshakeError::BadOptionMagic(magic));
    }
    let (option, length) = (u32_at(&bytes, 8), u32_at(&bytes, 12));
    if length > MAX_OPTION_DATA {
        return Err(HandshakeError::OptionTooLong(length));
    }
    Ok((option, length))
}

/// The data of `NBD_OPT_INFO` / `NBD_OPT_GO`: the export name and the information requested.
/// `Err` is the reason for an `NBD_REP_ERR_INVALID`.
pub fn parse_info_request(data: &[u8]) -> Result<(String, Vec<u16>), String> {
    if data.len() < 6 {
        return Err(format!("{} bytes of option data, fewer than 6", data.len()));
    }
    let name_length = u32_at(data, 0) as usize;
    if name_length > MAX_STRING || 4 + name_length + 2 > data.len() {
        return Err(format!("export name of {name_length} bytes does not fit the option"));
    }
    let name = parse_name(&data[4..4 + name_length])?;
    let count = usize::from(u16_at(data, 4 + name_length));
    let rest = &data[4 + name_length + 2..];
    if rest.len() != 2 * count {
        return Err(format!(
            "{count} information requests need {} bytes, the option has {}",
            2 * count,
            rest.len()
        ));
    }
    let requests = rest.chunks_exact(2).map(|pair| u16_at(pair, 0)).collect();
    Ok((name, requests))
}

/// An export name: UTF-8 without NUL, at most [`MAX_STRING`] bytes.
pub fn parse_name(bytes: &[u8]) -> Result<String, String> {
    if bytes.len() > MAX_STRING {
        return Err(format!("export name of {} bytes (at most {MAX_STRING})", bytes.len()));
    }
    let name = std::str::from_utf8(bytes).map_err(|_| "export name is not UTF-8".to_string())?;
    if name.contains('\0') {
        return Err("export name contains NUL".to_string());
    }
    Ok(name.to_string())
}

/// An option reply with its data.
pub fn option_reply(option: u32, reply: u32, data: &[u8]) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(20 + data.len());
    bytes.extend_from_slice(&OPTION_REPLY_MAGIC.to_be_bytes());
    bytes.extend_from_slice(&option.to_be_bytes());
    bytes.extend_from_slice(&reply.to_be_bytes());
    bytes.extend_from_slice(&(data.len() as u32).to_be_bytes());
    bytes.extend_from_slice(data);
    bytes
}

/// `NBD_INFO_EXPORT` data: size and transmission flags.
pub fn info_export(size: u64, flags: u16) -> Vec<u8> {
    let mut bytes = INFO_EXPORT.to_be_bytes().to_vec();
    bytes.extend_from_slice(&size.to_be_bytes());
    bytes.extend_from_slice(&flags.to_be_bytes());
    bytes
}

/// `NBD_INFO_BLOCK_SIZE` data.
pub fn info_block_size(sizes: BlockSizes) -> Vec<u8> {
    let mut bytes = INFO_BLOCK_SIZE.to_be_bytes().to_vec();
    for value in [sizes.minimum, sizes.preferred, sizes.maximum] {
        bytes.extend_from_slice(&value.to_be_bytes());
    }
    bytes
}

/// `NBD_INFO_NAME` or `NBD_INFO_DESCRIPTION` data.
pub fn info_text(kind: u16, text: &str) -> Vec<u8> {
    let mut bytes = kind.to_be_bytes().to_vec();
    bytes.extend_from_slice(text.as_bytes());
    bytes
}

/// `NBD_REP_SERVER` data of `NBD_OPT_LIST`: one export name.
pub fn server_entry(name: &str) -> Vec<u8> {
    let mut bytes = (name.len() as u32).to_be_bytes().to_vec();
    bytes.extend_from_slice(name.as_bytes());
    bytes
}

/// The reply to `NBD_OPT_EXPORT_NAME`: size, transmission flags and, unless the client asked
/// for none, 124 zero bytes.
pub fn export_name_reply(size: u64, flags: u16, no_zeroes: bool) -> Vec<u8> {
    let mut bytes = size.to_be_bytes().to_vec();
    bytes.extend_from_slice(&flags.to_be_bytes());
    if !no_zeroes {
        bytes.extend_from_slice(&[0u8; 124]);
    }
    bytes
}

/// A transmission request header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Request {
    pub flags: u16,
    pub kind: u16,
    pub handle: u64,
    pub offset: u64,
    pub length: u32,
}

/// A request header; `Err` (the magic found) when the stream is out of step: the connection
/// must be closed.
pub fn parse_request(bytes: &[u8; REQUEST_BYTES]) -> Result<Request, u32> {
    let magic = u32_at(bytes, 0);
    if magic != REQUEST_MAGIC {
        return Err(magic);
    }
    Ok(Request {
        flags: u16_at(bytes, 4),
        kind: u16_at(bytes, 6),
        handle: u64_at(bytes, 8),
        offset: u64_at(bytes, 16),
        length: u32_at(bytes, 24),
    })
}

/// A request header's bytes (for clients and tests).
pub fn encode_request(request: &Request) -> [u8; REQUEST_BYTES] {
    let mut bytes = [0u8; REQUEST_BYTES];
    bytes[0..4].copy_from_slice(&REQUEST_MAGIC.to_be_bytes());
    bytes[4..6].copy_from_slice(&request.flags.to_be_bytes());
    bytes[6..8].copy_from_slice(&request.kind.to_be_bytes());
    bytes[8..16].copy_from_slice(&request.handle.to_be_bytes());
    bytes[16..24].copy_from_slice(&request.offset.to_be_bytes());
    bytes[24..28].copy_from_slice(&request.length.to_be_bytes());
    bytes
}

/// The payload bytes that follow a request on the wire: a write's length. `Err` when it is
/// longer than `maximum`: the stream cannot be kept in step cheaply, so the connection is closed.
pub fn payload_length(request: &Request, maximum: u32) -> Result<u32, String> {
    if request.kind != CMD_WRITE {
        return Ok(0);
    }
    if request.length > maximum {
        return Err(format!(
            "write of {} bytes, more than the {maximum} advertised",
            request.length
        ));
    }
    Ok(request.length)
}

/// What a valid request asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Command {
    Read,
    Write { fua: bool },
    Flush,
    Trim { fua: bool },
    WriteZeroes { fua: bool },
    Disconnect,
}

/// Checks a request against the export's size and block sizes; `Err` is the error value of the
/// simple reply.
pub fn check_request(request: &Request, size: u64, sizes: BlockSizes) -> Result<Command, u32> {
    let fua = request.flags & CMD_FLAG_FUA != 0;
    let allowed_flags = match request.kind {
        CMD_WRITE | CMD_TRIM => CMD_FLAG_FUA,
        CMD_WRITE_ZEROES => CMD_FLAG_FUA | CMD_FLAG_NO_HOLE,
        CMD_READ | CMD_FLUSH | CMD_DISC => 0,
        _ => return Err(EINVAL),
    };
    if request.flags & !allowed_flags != 0 {
        return Err(EINVAL);
    }
    let command = match request.kind {
        CMD_DISC => return Ok(Command::Disconnect),
        CMD_FLUSH => {
            return if request.offset == 0 && request.length == 0 {
                Ok(Command::Flush)
            } else {
                Err(EINVAL)
            };
        }
        CMD_READ => Command::Read,
        CMD_WRITE => Command::Write { fua },
        CMD_TRIM => Command::Trim { fua },
        _ => Command::WriteZeroes { fua },
    };
    let minimum = u64::from(sizes.minimum);
    if !request.offset.is_multiple_of(minimum) || !u64::from(request.length).is_multiple_of(minimum) {
        return Err(EINVAL);
    }
    if matches!(command, Command::Read | Command::Write { .. }) && request.length > sizes.maximum {
        return Err(if command == Command::Read { EOVERFLOW } else { EINVAL });
    }
    let end = request.offset.checked_add(u64::from(request.length));
    if end.is_none_or(|end| end > size) {
        return Err(if matches!(command, Command::Read) {
            EINVAL
        } else {
            ENOSPC
        });
    }
    Ok(command)
}

/// A simple reply header (a read's data follows it on success).
pub fn simple_reply(error: u32, handle: u64) -> [u8; SIMPLE_REPLY_BYTES] {
    let mut bytes = [0u8; SIMPLE_REPLY_BYTES];
    bytes[0..4].copy_from_slice(&SIMPLE_REPLY_MAGIC.to_be_bytes());
    bytes[4..8].copy_from_slice(&error.to_be_bytes());
    bytes[8..16].copy_from_slice(&handle.to_be_bytes());
    bytes
}

#[cfg(test)]
mod tests {
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
    fn bad_requests_get_their_error_values() {
        let cases = [
            (request(99, 0, 0, 4096), EINVAL),                   // unknown command
            (request(5, 0, 0, 4096), EINVAL),                    // NBD_CMD_CACHE, not offered
            (request(CMD_READ, CMD_FLAG_FUA, 0, 4096), EINVAL),  // flag not allowed on a read
            (request(CMD_WRITE, 1 << 4, 0, 4096), EINVAL),       // unknown flag
            (request(CMD_READ, 0, 100, 4096), EINVAL),           // unaligned offset
            (request(CMD_WRITE, 0, 0, 100), EINVAL),             // unaligned length
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
}
