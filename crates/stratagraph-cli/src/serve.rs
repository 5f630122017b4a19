//! `stratagraph serve`: the store behind a Gremlin Server endpoint.

use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;

use stratagraph::{Graph, Options};
use stratagraph_server::server::auth::{self, Credentials};
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
    pub credentials: Option<PathBuf>,
    /// The certificate chain and key files of `--tls-cert`/`--tls-key`.
    pub tls: Option<(PathBuf, PathBuf)>,
    /// When commits of an on-disk store are synced.
    pub sync: stratagraph::SyncPolicy,
    /// How flushes write updated vertices' lists.
    pub update_policy: stratagraph::UpdatePolicy,
}

/// `--update-policy`: `delta`, `pivot` or `adaptive:SHARE` (SHARE from 0
/// to 1).
pub fn parse_update_policy(s: &str) -> Result<stratagraph::UpdatePolicy, String> {
    stratagraph::UpdatePolicy::parse(s).ok_or_else(|| {
        format!(
            "{s:?}: expected delta, pivot or adaptive:SHARE (SHARE the share of look-ups \
             among reads and writes, from 0 to 1)"
        )
    })
}

/// `--sync`: `always`, `never`, or a period (`20ms`, `1s`, `250us`).
pub fn parse_sync(s: &str) -> Result<stratagraph::SyncPolicy, String> {
    use stratagraph::SyncPolicy;
    let t = s.trim();
    match t {
        "always" => return Ok(SyncPolicy::Always),
        "never" => return Ok(SyncPolicy::Never),
        _ => {}
    }
    let (digits, unit) = t
        .find(|c: char| !c.is_ascii_digit())
        .map_or((t, ""), |i| t.split_at(i));
    let n: u64 = digits
        .parse()
        .map_err(|_| format!("{s:?}: expected always, never or a period such as 20ms or 1s"))?;
    let period = match unit {
        "us" => std::time::Duration::from_micros(n),
        "ms" => std::time::Duration::from_millis(n),
        "s" => std::time::Duration::from_secs(n),
        _ => return Err(format!("{s:?}: a period needs a unit: us, ms or s")),
    };
    if period.is_zero() {
        return Err(format!("{s:?}: a period of zero; say always"));
    }
    Ok(SyncPolicy::Interval(period))
}

/// Opens the store, loads any GraphSON given, serves until SIGTERM or
/// Ctrl-C, then closes the store (an on-disk store is flushed and its log
/// checkpointed, as `Graph::close` does).
pub fn serve(a: ServeArgs) -> Res {
    let graph = match (&a.dir, a.in_memory) {
        (Some(dir), false) => Graph::open(
            dir,
            Options {
                sync: a.sync,
                update_policy: a.update_policy,
                ..crate::store_cmds::options(dir, None)?
            },
        )?,
        (None, true) => Graph::in_memory(Options {
            update_policy: a.update_policy,
            ..Options::default()
        }),
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
        let mut server =
            Server::bind(graph.clone(), SocketAddr::new(a.host, a.port), a.limits).await?;
        if let Some(path) = &a.credentials {
            let c = Credentials::load(path)?;
            if c.is_empty() {
                return Err(
                    format!("{} holds no user: nobody could log in", path.display()).into(),
                );
            }
            eprintln!(
                "authentication on: {} users from {}",
                c.len(),
                path.display()
            );
            server = server.with_credentials(c);
        }
        let scheme = match &a.tls {
            Some((cert, key)) => {
                server = server.with_tls(stratagraph_server::server::tls::acceptor(cert, key)?);
                "wss"
            }
            None => "ws",
        };
        // The first line on stdout names the address (port 0 asks for any
        // free port), for scripts that start a server and connect to it.
        println!("listening on {scheme}://{}/gremlin", server.local_addr()?);
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

/// `stratagraph passwd FILE USER`: sets USER's password (the first line of
/// standard input) in the credentials file, creating it if needed and
/// replacing the user's line if there is one.
pub fn passwd(file: &std::path::Path, user: &str) -> Res {
    let mut password = String::new();
    std::io::stdin().read_line(&mut password)?;
    let password = password.trim_end_matches(['\n', '\r']);
    if password.is_empty() {
        return Err("no password on standard input".into());
    }
    let line = auth::entry(user, password)?;
    let old = match std::fs::read_to_string(file) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(format!("{}: {e}", file.display()).into()),
    };
    let mut lines: Vec<String> = old
        .lines()
        .filter(|l| l.split(':').next() != Some(user))
        .map(str::to_string)
        .collect();
    lines.push(line);
    let tmp = file.with_extension("tmp");
    std::fs::write(&tmp, lines.join("\n") + "\n")?;
    std::fs::rename(&tmp, file)?;
    eprintln!("{}: password set for {user}", file.display());
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

#[cfg(test)]
#[allow(clippy::unwrap_used)] // tests fail loudly by design
mod tests {
    use super::{parse_sync, parse_update_policy};
    use std::time::Duration;
    use stratagraph::{SyncPolicy, UpdatePolicy};

    #[test]
    fn update_policies_parse_and_bad_ones_say_why() {
        assert_eq!(parse_update_policy("delta"), Ok(UpdatePolicy::Delta));
        assert_eq!(parse_update_policy("pivot"), Ok(UpdatePolicy::Pivot));
        assert_eq!(
            parse_update_policy("adaptive:0.9"),
            Ok(UpdatePolicy::Adaptive { lookup_share: 0.9 })
        );
        assert_eq!(
            parse_update_policy("adaptive:1"),
            Ok(UpdatePolicy::Adaptive { lookup_share: 1.0 })
        );
        for bad in [
            "adaptive",
            "adaptive:",
            "adaptive:1.5",
            "adaptive:-1",
            "adaptive:NaN",
            "pivots",
        ] {
            let e = parse_update_policy(bad).unwrap_err();
            assert!(
                e.contains("expected delta, pivot or adaptive:SHARE"),
                "{bad}: {e}"
            );
            assert!(e.contains(bad), "{bad}: {e}");
        }
    }

    #[test]
    fn sync_policies_parse_and_bad_ones_say_why() {
        assert_eq!(parse_sync("always"), Ok(SyncPolicy::Always));
        assert_eq!(parse_sync("never"), Ok(SyncPolicy::Never));
        assert_eq!(
            parse_sync("20ms"),
            Ok(SyncPolicy::Interval(Duration::from_millis(20)))
        );
        assert_eq!(
            parse_sync("1s"),
            Ok(SyncPolicy::Interval(Duration::from_secs(1)))
        );
        assert_eq!(
            parse_sync("250us"),
            Ok(SyncPolicy::Interval(Duration::from_micros(250)))
        );
        assert!(parse_sync("5").unwrap_err().contains("unit"));
        assert!(parse_sync("0ms").unwrap_err().contains("zero"));
        assert!(parse_sync("often").unwrap_err().contains("expected always"));
        assert!(parse_sync("3h").unwrap_err().contains("unit"));
    }
}
