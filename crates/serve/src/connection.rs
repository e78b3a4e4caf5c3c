//! The accept loop: each connection served by hyper's HTTP/1.1 with a deadline for a
//! request's headers, every write bounded in time, a cap on open connections, and a
//! graceful stop that lets requests in flight finish.

use std::sync::Arc;
use std::time::Duration;

use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::{watch, Semaphore};
use tokio_io_timeout::TimeoutStream;

use crate::options::Limits;

/// How long a stop waits for requests in flight.
const DRAIN: Duration = Duration::from_secs(10);

/// Serves `router` on `listener` until `stop` turns true, then waits up to
/// [`DRAIN`] for open connections to finish their requests.
pub(crate) async fn serve(
    listener: TcpListener,
    router: axum::Router,
    limits: Limits,
    mut stop: watch::Receiver<bool>,
) {
    let slots = Arc::new(Semaphore::new(limits.max_connections));
    loop {
        let permit = tokio::select! {
            permit = slots.clone().acquire_owned() => permit.expect("the semaphore is never closed"),
            _ = stop.changed() => break,
        };
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                // A client that vanished between SYN and accept, or a full file
                // table: keep serving the others.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(5)).await;
                    continue;
                }
            },
            _ = stop.changed() => break,
        };
        let _ = stream.set_nodelay(true);
        let mut io = TimeoutStream::new(stream);
        io.set_write_timeout(Some(limits.write_timeout));
        let io = TokioIo::new(Box::pin(io));
        let service = TowerToHyperService::new(router.clone());
        let mut stop = stop.clone();
        tokio::spawn(async move {
            let _permit = permit;
            let connection = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(limits.read_timeout)
                .serve_connection(io, service);
            let mut connection = std::pin::pin!(connection);
            tokio::select! {
                _ = connection.as_mut() => {}
                _ = stop.changed() => {
                    connection.as_mut().graceful_shutdown();
                    let _ = connection.await;
                }
            }
        });
    }
    drop(listener);
    let all = u32::try_from(limits.max_connections).unwrap_or(u32::MAX);
    let _ = tokio::time::timeout(DRAIN, slots.acquire_many(all)).await;
}
