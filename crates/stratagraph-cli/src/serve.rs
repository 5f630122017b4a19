//! `stratagraph serve`: the store behind a Gremlin Server endpoint.

use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;

use stratagraph::{Graph, Options};
use stratagraph_server::server::{Limits, Server};

type Res<T = ()> = Result<T, Box<dyn std::error::Error>>;

/// What `serve` was asked for.
pub struct ServeArgs {
    pub dir: Option<PathBuf>,
    pub in_memory: bool,
    pub graphson: Vec<PathBuf>,
    pub host: IpAddr,
    pub port: u16,
    pub limits: Limits,
}

/// Opens the store, loads any GraphSON given, serves until SIGTERM or
/// Ctrl-C, then closes the store (an on-disk store is flushed and its log
/// checkpointed, as `Graph::close` does).
pub fn serve(a: ServeArgs) -> Res {
    let graph = match (&a.dir, a.in_memory) {
        (Some(dir), false) => Graph::open(dir, crate::store_cmds::options(dir, None)?)?,
        (None, true) => Graph::in_memory(Options::default()),
        (Some(_), true) => return Err("give a store directory or --in-memory, not both".into()),
        (None, false) => {
            return Err("give a store directory, or --in-memory for a store without files".into())
        }
    };
    for f in &a.graphson {
        let l = stratagraph_io::graphson::load(&graph, f, stratagraph_io::LoadOptions::default())?;
        eprintln!(
            "{}: {} vertices, {} property edges",
            f.display(),
            l.vertices,
            l.edges
        );
    }
    let graph = Arc::new(graph);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let server = Server::bind(graph.clone(), SocketAddr::new(a.host, a.port), a.limits).await?;
        // The first line on stdout names the address (port 0 asks for any
        // free port), for scripts that start a server and connect to it.
        println!("listening on ws://{}/gremlin", server.local_addr()?);
        use std::io::Write;
        std::io::stdout().flush()?;
        server.run(stop_signal()).await?;
        Ok::<(), Box<dyn std::error::Error>>(())
    })?;
    drop(runtime);
    graph.close()?;
    eprintln!("stopped; the store is closed");
    Ok(())
}

/// Completes on SIGTERM or SIGINT (Ctrl-C).
async fn stop_signal() {
    use tokio::signal::unix::{signal, SignalKind};
    match signal(SignalKind::terminate()) {
        Ok(mut term) => {
            tokio::select! {
                _ = term.recv() => {}
                _ = tokio::signal::ctrl_c() => {}
            }
        }
        Err(_) => {
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}
