//! One connection's handshake: the option haggling of fixed newstyle up to transmission
//! (`NBD_OPT_GO` or `NBD_OPT_EXPORT_NAME`), with the export listed and described, the options not
//! offered refused, and a client that breaks the protocol logged and closed.

use std::io::{Read, Write};

use ssdtwin_core::host::params::Priority;

use super::options::{export_class, log, Export, CLASS_EXPORTS, EXPORT_NAME};
use super::stream::Connection;
use crate::protocol;

/// Why an export name is refused: the names served.
const UNKNOWN_EXPORT: &str =
    "no such export; exports: ssdtwin (or the empty name: the session's default class), urgent, high, medium, low";

/// Runs the option haggling; `Some(class)` once the client entered transmission (the priority
/// class of the export it chose, `default` for the default export), `None` when it ended the
/// session (or broke the protocol: logged).
pub(super) fn handshake(
    stream: &mut Connection,
    export: Export,
    client: u64,
    default: Priority,
) -> std::io::Result<Option<Priority>> {
    stream.write_all(&protocol::greeting())?;
    let mut flags = [0u8; 4];
    stream.read_exact(&mut flags)?;
    let no_zeroes = match protocol::parse_client_flags(flags) {
        Ok(no_zeroes) => no_zeroes,
        Err(error) => {
            log(&format!("client {client}: {error}; closing"));
            return Ok(None);
        }
    };
    let reply = |stream: &mut Connection, option: u32, kind: u32, data: &[u8]| {
        stream.write_all(&protocol::option_reply(option, kind, data))
    };
    loop {
        let mut header = [0u8; 16];
        stream.read_exact(&mut header)?;
        let (option, length) = match protocol::parse_option_header(header) {
            Ok(parsed) => parsed,
            Err(error) => {
                log(&format!("client {client}: {error}; closing"));
                if let protocol::HandshakeError::OptionTooLong(_) = error {
                    let option = u32::from_be_bytes(header[8..12].try_into().expect("4 bytes"));
                    reply(stream, option, protocol::REP_ERR_TOO_BIG, b"option data too long")?;
                }
                return Ok(None);
            }
        };
        let mut data = vec![0u8; length as usize];
        stream.read_exact(&mut data)?;
        match option {
            protocol::OPT_EXPORT_NAME => {
                let class = match protocol::parse_name(&data) {
                    Ok(name) => match export_class(&name, default) {
                        Some(class) => class,
                        None => {
                            log(&format!(
                                "client {client}: unknown export `{name}` ({UNKNOWN_EXPORT}); closing"
                            ));
                            return Ok(None);
                        }
                    },
                    Err(error) => {
                        log(&format!("client {client}: {error}; closing"));
                        return Ok(None);
                    }
                };
                stream.write_all(&protocol::export_name_reply(export.size, Export::flags(), no_zeroes))?;
                return Ok(Some(class));
            }
            protocol::OPT_ABORT => {
                reply(stream, option, protocol::REP_ACK, &[])?;
                return Ok(None);
            }
            protocol::OPT_LIST => {
                if !data.is_empty() {
                    reply(stream, option, protocol::REP_ERR_INVALID, b"NBD_OPT_LIST has no data")?;
                    continue;
                }
                for name in std::iter::once(EXPORT_NAME).chain(CLASS_EXPORTS.iter().map(|(name, _)| *name)) {
                    reply(stream, option, protocol::REP_SERVER, &protocol::server_entry(name))?;
                }
                reply(stream, option, protocol::REP_ACK, &[])?;
            }
            protocol::OPT_INFO | protocol::OPT_GO => {
                let (name, requests) = match protocol::parse_info_request(&data) {
                    Ok(parsed) => parsed,
                    Err(error) => {
                        log(&format!("client {client}: {error}"));
                        reply(stream, option, protocol::REP_ERR_INVALID, error.as_bytes())?;
                        continue;
                    }
                };
                let Some(class) = export_class(&name, default) else {
                    log(&format!(
                        "client {client}: unknown export `{name}` refused ({UNKNOWN_EXPORT})"
                    ));
                    reply(stream, option, protocol::REP_ERR_UNKNOWN, UNKNOWN_EXPORT.as_bytes())?;
                    continue;
                };
                reply(
                    stream,
                    option,
                    protocol::REP_INFO,
                    &protocol::info_export(export.size, Export::flags()),
                )?;
                // Block sizes are sent whether asked for or not (the protocol allows it).
                reply(
                    stream,
                    option,
                    protocol::REP_INFO,
                    &protocol::info_block_size(export.sizes),
                )?;
                if requests.contains(&protocol::INFO_NAME) {
                    let info =
                        protocol::info_text(protocol::INFO_NAME, if name.is_empty() { EXPORT_NAME } else { &name });
                    reply(stream, option, protocol::REP_INFO, &info)?;
                }
                if requests.contains(&protocol::INFO_DESCRIPTION) {
                    let info = protocol::info_text(protocol::INFO_DESCRIPTION, "ssdtwin simulated drive");
                    reply(stream, option, protocol::REP_INFO, &info)?;
                }
                reply(stream, option, protocol::REP_ACK, &[])?;
                if option == protocol::OPT_GO {
                    return Ok(Some(class));
                }
            }
            protocol::OPT_STARTTLS => {
                reply(stream, option, protocol::REP_ERR_POLICY, b"TLS is not offered")?;
            }
            _ => reply(stream, option, protocol::REP_ERR_UNSUP, b"option not supported")?,
        }
    }
}
