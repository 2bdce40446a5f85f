//! The transmission phase: request headers parsed and encoded, a write's payload length bounded,
//! each request checked against the export into a [`Command`] or an error value, and the simple
//! reply built.

use super::wire::{
    u16_at, u32_at, u64_at, BlockSizes, CMD_DISC, CMD_FLAG_FUA, CMD_FLAG_NO_HOLE, CMD_FLUSH, CMD_READ, CMD_TRIM,
    CMD_WRITE, CMD_WRITE_ZEROES, EINVAL, ENOSPC, EOVERFLOW, REQUEST_BYTES, REQUEST_MAGIC, SIMPLE_REPLY_BYTES,
    SIMPLE_REPLY_MAGIC,
};

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

/// Checks a request against the export's size and maximum block size; `Err` is the error value
/// of the simple reply. Any byte offset and length is accepted (the server advertises a minimum
/// block of 1 byte).
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
