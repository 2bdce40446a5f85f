//! The listeners: a Unix socket and a TCP address bound, and a thread for each that accepts
//! connections until the session stops, each connection on its own thread.

use std::net::TcpListener;
use std::os::unix::net::UnixListener;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::Duration as WallDuration;

use super::connection::connection;
use super::hub::Hub;
use super::options::{log, Export, ServeError, ServeOptions};
use super::stream::Connection;

/// Longest a reply may wait for a client to read (a client that stops reading is closed, so
/// it cannot hold the drive).
const REPLY_TIMEOUT: WallDuration = WallDuration::from_secs(10);

/// Binds the listeners `options` asks for (a stale Unix socket file is replaced) and starts
/// accepting on each until `stopping`; the accepting threads, to join at the end.
pub(super) fn listen(
    options: &ServeOptions,
    export: Export,
    hub: &Arc<Hub>,
    stopping: &Arc<AtomicBool>,
) -> Result<Vec<thread::JoinHandle<()>>, ServeError> {
    let next_client = Arc::new(AtomicU64::new(1));
    let mut acceptors = Vec::new();
    if let Some(path) = &options.socket {
        if std::fs::symlink_metadata(path)
            .is_ok_and(|meta| std::os::unix::fs::FileTypeExt::is_socket(&meta.file_type()))
        {
            let _ = std::fs::remove_file(path);
        }
        let listener = UnixListener::bind(path)
            .map_err(|error| ServeError::Io(format!("cannot listen on {}: {error}", path.display())))?;
        listener
            .set_nonblocking(true)
            .map_err(|error| ServeError::Io(error.to_string()))?;
        log(&format!(
            "serving {} bytes on nbd+unix:///?socket={}",
            export.size,
            path.display()
        ));
        acceptors.push(accept(
            listener,
            accept_unix,
            export,
            hub.clone(),
            next_client.clone(),
            stopping.clone(),
        ));
    }
    if let Some(address) = options.listen {
        let listener = TcpListener::bind(address)
            .map_err(|error| ServeError::Io(format!("cannot listen on {address}: {error}")))?;
        listener
            .set_nonblocking(true)
            .map_err(|error| ServeError::Io(error.to_string()))?;
        let bound = listener
            .local_addr()
            .map_err(|error| ServeError::Io(error.to_string()))?;
        log(&format!("serving {} bytes on nbd://{bound}", export.size));
        acceptors.push(accept(
            listener,
            accept_tcp,
            export,
            hub.clone(),
            next_client.clone(),
            stopping.clone(),
        ));
    }
    Ok(acceptors)
}

/// Accepts connections until `stopping`; each gets its own thread.
fn accept<L: Send + 'static>(
    listener: L,
    accept_one: fn(&L) -> std::io::Result<Connection>,
    export: Export,
    hub: Arc<Hub>,
    next_client: Arc<AtomicU64>,
    stopping: Arc<AtomicBool>,
) -> thread::JoinHandle<()> {
    thread::spawn(move || {
        while !stopping.load(Ordering::Relaxed) {
            match accept_one(&listener) {
                Ok(stream) => {
                    let client = next_client.fetch_add(1, Ordering::Relaxed);
                    let hub = hub.clone();
                    thread::spawn(move || connection(stream, export, client, hub));
                }
                Err(error) if error.kind() == std::io::ErrorKind::WouldBlock => {
                    thread::sleep(WallDuration::from_millis(5));
                }
                Err(error) => {
                    log(&format!("accept: {error}"));
                    thread::sleep(WallDuration::from_millis(50));
                }
            }
        }
    })
}

fn accept_unix(listener: &UnixListener) -> std::io::Result<Connection> {
    let (stream, _) = listener.accept()?;
    stream.set_nonblocking(false)?;
    stream.set_write_timeout(Some(REPLY_TIMEOUT))?;
    Ok(Connection::Unix(stream))
}

fn accept_tcp(listener: &TcpListener) -> std::io::Result<Connection> {
    let (stream, _) = listener.accept()?;
    stream.set_nonblocking(false)?;
    stream.set_nodelay(true)?;
    stream.set_write_timeout(Some(REPLY_TIMEOUT))?;
    Ok(Connection::Tcp(stream))
}
