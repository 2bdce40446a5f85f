//! The fixed-newstyle handshake: the server's greeting, the client's flags, option headers and
//! the data of `NBD_OPT_INFO` / `NBD_OPT_GO` / `NBD_OPT_EXPORT_NAME` parsed, and the option
//! replies (with their information items) built.

use super::wire::{
    u16_at, u32_at, u64_at, BlockSizes, CLIENT_FIXED_NEWSTYLE, CLIENT_NO_ZEROES, FLAG_FIXED_NEWSTYLE, FLAG_NO_ZEROES,
    INFO_BLOCK_SIZE, INFO_EXPORT, MAX_OPTION_DATA, MAX_STRING, NBD_MAGIC, OPTION_MAGIC, OPTION_REPLY_MAGIC,
};

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
