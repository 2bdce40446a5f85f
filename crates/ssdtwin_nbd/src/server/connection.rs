//! One connection's thread: the handshake, then its requests read one at a time (a write with
//! its payload) and delivered to the drive, until the client disconnects or breaks the protocol.

use std::io::{BufReader, Read};
use std::sync::Arc;

use super::drive::Message;
use super::handshake::handshake;
use super::hub::Hub;
use super::options::{log, Export};
use super::stream::Connection;
use crate::protocol;

/// One connection: the handshake, then its requests to the drive's thread until it ends.
pub(super) fn connection(mut stream: Connection, export: Export, client: u64, hub: Arc<Hub>) {
    let default = hub.default_class;
    let class = match handshake(&mut stream, export, client, default) {
        Ok(Some(class)) => class,
        Ok(None) => return,
        Err(error) => {
            log(&format!(
                "client {client}: connection lost during the handshake: {error}"
            ));
            return;
        }
    };
    let writer = match stream.try_clone() {
        Ok(writer) => writer,
        Err(error) => {
            log(&format!("client {client}: {error}"));
            return;
        }
    };
    if !hub.deliver(Message::Connected { client, writer, class }) {
        return;
    }
    let mut reader = BufReader::with_capacity(
        1 << 16,
        Watched {
            stream,
            hub: hub.clone(),
            drained: true,
        },
    );
    loop {
        let mut header = [0u8; protocol::REQUEST_BYTES];
        if let Err(error) = reader.read_exact(&mut header) {
            if error.kind() != std::io::ErrorKind::UnexpectedEof {
                log(&format!("client {client}: {error}"));
            } else {
                log(&format!("client {client}: disconnected without NBD_CMD_DISC"));
            }
            break;
        }
        let request = match protocol::parse_request(&header) {
            Ok(request) => request,
            Err(magic) => {
                log(&format!(
                    "client {client}: request magic {magic:#x} is not NBD_REQUEST_MAGIC; closing"
                ));
                break;
            }
        };
        let length = match protocol::payload_length(&request, export.sizes.maximum) {
            Ok(length) => length,
            Err(error) => {
                log(&format!("client {client}: {error}; closing"));
                break;
            }
        };
        let mut payload = vec![0u8; length as usize];
        if let Err(error) = reader.read_exact(&mut payload) {
            log(&format!(
                "client {client}: disconnected in the middle of a write's data: {error}"
            ));
            break;
        }
        let disconnect = request.kind == protocol::CMD_DISC;
        if !hub.deliver(Message::Request {
            client,
            request,
            payload,
            received: std::time::Instant::now(),
        }) || disconnect
        {
            return;
        }
    }
    hub.deliver(Message::Closed { client });
}

/// A connection's socket as its requests are read: a read that got less than it asked for has
/// emptied the socket, so before the next read (which may wait for the client) the drive runs
/// the model and answers what it can. Requests a client sent together thus reach the model at
/// the same simulated instant, as they would reach a drive.
struct Watched {
    stream: Connection,
    hub: Arc<Hub>,
    drained: bool,
}

impl Read for Watched {
    fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
        if self.drained {
            self.hub.pump();
        }
        let count = self.stream.read(buffer)?;
        self.drained = count < buffer.len();
        Ok(count)
    }
}
