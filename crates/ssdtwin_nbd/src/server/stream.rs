//! A client's byte stream, over a Unix socket or TCP, read, written, cloned and shut down the
//! same way.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::os::unix::net::UnixStream;

/// A connection over a Unix socket or TCP.
#[derive(Debug)]
pub(super) enum Connection {
    Unix(UnixStream),
    Tcp(TcpStream),
}

impl Connection {
    pub(super) fn try_clone(&self) -> std::io::Result<Connection> {
        Ok(match self {
            Connection::Unix(stream) => Connection::Unix(stream.try_clone()?),
            Connection::Tcp(stream) => Connection::Tcp(stream.try_clone()?),
        })
    }

    pub(super) fn shutdown(&self) {
        let _ = match self {
            Connection::Unix(stream) => stream.shutdown(std::net::Shutdown::Both),
            Connection::Tcp(stream) => stream.shutdown(std::net::Shutdown::Both),
        };
    }
}

impl Read for Connection {
    fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
        match self {
            Connection::Unix(stream) => stream.read(buffer),
            Connection::Tcp(stream) => stream.read(buffer),
        }
    }
}

impl Write for Connection {
    fn write(&mut self, buffer: &[u8]) -> std::io::Result<usize> {
        match self {
            Connection::Unix(stream) => stream.write(buffer),
            Connection::Tcp(stream) => stream.write(buffer),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Connection::Unix(stream) => stream.flush(),
            Connection::Tcp(stream) => stream.flush(),
        }
    }
}
