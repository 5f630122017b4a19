//! The Gremlin Server endpoint: WebSocket connections at `/gremlin`, as
//! TinkerPop 3.8 drivers speak it.
//!
//! Data flow: a connection (`conn.rs`) reads a frame, splits off the mime
//! type that names its serializer, decodes the request, runs it
//! (`request.rs`: one request, one transaction), and writes the responses
//! back in the request's serializer, one frame per batch. Values cross
//! between the executor and the wire in `convert.rs`.
//!
//! Threads: the listener accepts on the caller's runtime and gives each
//! connection a thread of its own, with a single-threaded runtime for its
//! socket. A connection answers one request at a time, so its thread
//! runs the request itself: a small request (a look-up, one write) costs
//! no hand-off between threads, which on a request of a few tens of
//! microseconds is most of the server's time, and a long query holds only
//! its own connection's thread.
//!
//! Safe by default: the address is loopback unless the caller says
//! otherwise, a request larger than [`Limits::max_request_bytes`] closes
//! its connection with an error frame, a result longer than
//! [`Limits::max_results`] is refused, connections beyond
//! [`Limits::max_connections`] are turned away at the handshake, and
//! nothing a client sends can panic the server: a frame that does not
//! decode costs only its own error response.

pub mod auth;
mod conn;
pub(crate) mod convert;
pub(crate) mod request;
pub mod tls;

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;

use stratagraph::Graph;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

/// What a server allows each client.
#[derive(Debug, Clone)]
pub struct Limits {
    /// The largest request frame read, in bytes.
    pub max_request_bytes: usize,
    /// The most results one request may return.
    pub max_results: usize,
    /// Results per response frame when the request does not say
    /// (`batchSize`); Gremlin Server's default is 64.
    pub batch_size: usize,
    /// Connections served at once.
    pub max_connections: usize,
    /// How long a request may run when it does not say
    /// (`evaluationTimeout`); `None`: no limit. Gremlin Server's default
    /// is 30 s.
    pub timeout: Option<std::time::Duration>,
    /// The most memory one request's traversal may hold, in bytes
    /// (`None`: no limit); past it the request fails and writes nothing.
    /// Enforced where the process's allocator is
    /// `stratagraph_gremlin::memory::CountingAlloc` (the CLI's is).
    pub query_memory: Option<usize>,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_request_bytes: 10 * 1024 * 1024,
            max_results: 10_000_000,
            batch_size: 64,
            max_connections: 256,
            timeout: Some(std::time::Duration::from_secs(30)),
            query_memory: Some(2 << 30),
        }
    }
}

/// A bound server, ready to run.
pub struct Server {
    listener: TcpListener,
    graph: Arc<Graph>,
    limits: Limits,
    credentials: Option<Arc<auth::Credentials>>,
    tls: Option<tokio_rustls::TlsAcceptor>,
}

impl Server {
    /// Binds `addr` (port 0: any free port; see [`Server::local_addr`]).
    ///
    /// # Errors
    /// The address cannot be bound.
    pub async fn bind(
        graph: Arc<Graph>,
        addr: SocketAddr,
        limits: Limits,
    ) -> std::io::Result<Server> {
        let listener = TcpListener::bind(addr).await?;
        Ok(Server {
            listener,
            graph,
            limits,
            credentials: None,
            tls: None,
        })
    }

    /// Serves `wss://` only: every connection starts with a TLS handshake
    /// through `acceptor` (see [`tls::acceptor`]).
    pub fn with_tls(mut self, acceptor: tokio_rustls::TlsAcceptor) -> Server {
        self.tls = Some(acceptor);
        self
    }

    /// Requires every connection to log in (SASL PLAIN) as one of
    /// `credentials`' users before its first request runs.
    pub fn with_credentials(mut self, credentials: auth::Credentials) -> Server {
        self.credentials = Some(Arc::new(credentials));
        self
    }

    /// The address it listens on.
    ///
    /// # Errors
    /// The socket cannot say.
    pub fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// Serves connections until `shutdown` completes, then stops
    /// accepting and waits for the requests under way to be answered.
    ///
    /// # Errors
    /// Accepting failed in a way that is not one client's fault.
    pub async fn run(self, shutdown: impl Future<Output = ()>) -> std::io::Result<()> {
        let permits = Arc::new(Semaphore::new(self.limits.max_connections));
        let (close, closing) = tokio::sync::watch::channel(false);
        let state = Arc::new(conn::Shared {
            graph: self.graph,
            limits: self.limits,
            closing,
            credentials: self.credentials,
        });
        // Each connection's thread holds a clone of `alive`; when all are
        // dropped, every connection has ended.
        let (alive, mut ended) = tokio::sync::mpsc::channel::<()>(1);
        tokio::pin!(shutdown);
        loop {
            tokio::select! {
                () = &mut shutdown => break,
                accepted = self.listener.accept() => {
                    let (stream, _) = match accepted {
                        Ok(a) => a,
                        // A connection reset before it was accepted stops
                        // nothing else; out of descriptors, the loop waits
                        // a moment for some to close rather than spin.
                        Err(e) if out_of_files(&e) => {
                            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                            continue;
                        }
                        Err(e) if transient(&e) => continue,
                        Err(e) => return Err(e),
                    };
                    let _ = stream.set_nodelay(true);
                    let permit = permits.clone().try_acquire_owned().ok();
                    // A connection whose thread cannot be started (the
                    // process is out of threads) is closed; the others
                    // go on.
                    let _ = connection_thread(stream, state.clone(), permit, self.tls.clone(), alive.clone());
                }
            }
        }
        drop(self.listener);
        // Requests under way finish; idle connections close.
        let _ = close.send(true);
        drop(alive);
        let _ = ended.recv().await;
        Ok(())
    }
}

/// The stack of a connection's thread: deep enough for the parser and the
/// executor's recursion on nested traversals.
const CONNECTION_STACK: usize = 8 << 20;

/// Serves `stream` on a thread of its own (see the module's doc), with a
/// single-threaded runtime for its socket. `alive` is dropped when the
/// connection ends.
fn connection_thread(
    stream: tokio::net::TcpStream,
    state: Arc<conn::Shared>,
    permit: Option<tokio::sync::OwnedSemaphorePermit>,
    tls: Option<tokio_rustls::TlsAcceptor>,
    alive: tokio::sync::mpsc::Sender<()>,
) -> std::io::Result<()> {
    // The socket leaves this runtime's reactor for the thread's own.
    let stream = stream.into_std()?;
    std::thread::Builder::new()
        .name("gremlin-conn".into())
        .stack_size(CONNECTION_STACK)
        .spawn(move || {
            let _alive = alive;
            let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            else {
                return;
            };
            runtime.block_on(async move {
                let Ok(stream) = tokio::net::TcpStream::from_std(stream) else {
                    return;
                };
                match tls {
                    None => conn::serve(stream, state, permit).await,
                    // A handshake that fails or stalls closes only this
                    // connection.
                    Some(tls) => {
                        let shake =
                            tokio::time::timeout(tls::HANDSHAKE_TIMEOUT, tls.accept(stream));
                        if let Ok(Ok(stream)) = shake.await {
                            conn::serve(stream, state, permit).await;
                        }
                    }
                }
            });
        })?;
    Ok(())
}

/// Answers one request frame (the mime-type header, then the request, as
/// a driver writes it to its socket) without a socket: the responses, each
/// encoded in the request's serializer. For a driver in the same process
/// (the Python package's `gremlin_source`): one request, one transaction,
/// no sessions and no login.
pub fn answer_frame(graph: &Graph, frame: &[u8], limits: &Limits) -> Vec<Vec<u8>> {
    let (serializer, req) = conn::decode(frame, false);
    let replies = match req {
        Ok(req) => request::answer(graph, &req, limits, None).0,
        Err(reply) => vec![*reply],
    };
    let mut out = Vec::with_capacity(replies.len());
    for reply in &replies {
        match conn::encode_bytes(serializer, reply) {
            Ok(bytes) => out.push(bytes),
            Err(error) => {
                out.extend(error);
                break;
            }
        }
    }
    out
}

fn transient(e: &std::io::Error) -> bool {
    use std::io::ErrorKind::*;
    matches!(
        e.kind(),
        ConnectionAborted | ConnectionReset | Interrupted | WouldBlock
    )
}

fn out_of_files(e: &std::io::Error) -> bool {
    e.raw_os_error()
        .is_some_and(|c| c == libc::EMFILE || c == libc::ENFILE)
}
