//! `stratagraph serve` under load: 64 clients at once with a fixed mix of
//! writes and reads on loopback, every answer checked, the server's
//! memory watched; then `kill -9` in the middle of it, a restart on the
//! same store, and every write the server acknowledged is there.
#![allow(clippy::unwrap_used)]

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use stratagraph_server::wire::frame::{mime_header, Serializer};
use stratagraph_server::wire::message::status;
use stratagraph_server::wire::{graphbinary, RequestMessage, Wire};
use tokio_tungstenite::tungstenite::Message;

const CLIENTS: usize = 64;

fn start(dir: &std::path::Path) -> (Child, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_stratagraph"))
        .args(["serve", dir.to_str().unwrap(), "--port", "0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let url = line
        .trim()
        .strip_prefix("listening on ")
        .unwrap()
        .to_string();
    (child, url)
}

fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

fn request(n: u64, script: &str) -> Message {
    let mut id = [0u8; 16];
    id[..8].copy_from_slice(&n.to_le_bytes());
    let r = RequestMessage {
        request_id: id,
        op: "eval".into(),
        processor: String::new(),
        args: vec![("gremlin".into(), Wire::from(script))],
    };
    let mut bytes = mime_header(Serializer::GraphBinaryV1);
    bytes.extend(graphbinary::encode_request(&r).unwrap());
    Message::binary(bytes)
}

type Ws =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// Sends one script and reads its whole answer; `None` if the connection
/// failed (the server was killed).
async fn ask(ws: &mut Ws, n: u64, script: &str) -> Option<(u16, Vec<Wire>)> {
    ws.send(request(n, script)).await.ok()?;
    let mut items = Vec::new();
    loop {
        let Message::Binary(b) = ws.next().await?.ok()? else {
            continue;
        };
        let r = graphbinary::decode_response(&b).unwrap();
        if let Wire::List(part) = r.result.data {
            items.extend(part);
        }
        if r.status.code != status::PARTIAL_CONTENT {
            return Some((r.status.code, items));
        }
    }
}

/// One client: until `stop`, writes a vertex with a fresh id, then reads
/// it back and a count of its neighbours; records the writes the server
/// acknowledged.
async fn client(
    url: String,
    c: u64,
    stop: Arc<AtomicBool>,
    acked: Arc<Mutex<Vec<u64>>>,
    answered: Arc<AtomicU64>,
) {
    let Ok((mut ws, _)) = tokio_tungstenite::connect_async(&url).await else {
        return;
    };
    let mut i = 0u64;
    while !stop.load(Ordering::Relaxed) {
        let v = 1_000_000 + c * 100_000 + i;
        let write = format!(
            "g.addV('load').property(T.id, {v}).property('c', {c}).addE('next').to(__.V(0))"
        );
        let Some((code, _)) = ask(&mut ws, v, &write).await else {
            return;
        };
        assert_eq!(code, status::SUCCESS, "write {v}");
        acked.lock().unwrap().push(v);
        answered.fetch_add(1, Ordering::Relaxed);
        // Reads: the vertex just written, and its one edge.
        let Some((code, items)) = ask(&mut ws, v, &format!("g.V({v}).values('c')")).await else {
            return;
        };
        assert_eq!(
            (code, items),
            (status::SUCCESS, vec![Wire::Int(c as i32)]),
            "read {v}"
        );
        let Some((code, items)) = ask(&mut ws, v, &format!("g.V({v}).out('next').count()")).await
        else {
            return;
        };
        assert_eq!(
            (code, items),
            (status::SUCCESS, vec![Wire::Long(1)]),
            "hop {v}"
        );
        answered.fetch_add(2, Ordering::Relaxed);
        i += 1;
    }
}

#[test]
fn sixty_four_clients_then_kill_9_and_every_acknowledged_write_is_there() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let (mut server, url) = start(&store);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let acked = Arc::new(Mutex::new(Vec::new()));
    let answered = Arc::new(AtomicU64::new(0));
    rt.block_on(async {
        // The vertex every write's edge points to.
        let (mut ws, _) = tokio_tungstenite::connect_async(&url).await.unwrap();
        let (code, _) = ask(&mut ws, 1, "g.addV('hub').property(T.id, 0)").await.unwrap();
        assert_eq!(code, status::SUCCESS);

        // Phase 1: load for a while; memory stays bounded.
        let stop = Arc::new(AtomicBool::new(false));
        let tasks: Vec<_> = (0..CLIENTS as u64)
            .map(|c| {
                tokio::spawn(client(url.clone(), c, stop.clone(), acked.clone(), answered.clone()))
            })
            .collect();
        let started = Instant::now();
        let mut peak = 0;
        while started.elapsed() < Duration::from_secs(3) {
            tokio::time::sleep(Duration::from_millis(200)).await;
            peak = peak.max(rss_kib(server.id()));
        }
        assert!(
            peak < 1024 * 1024,
            "the server grew to {peak} KiB under {CLIENTS} clients"
        );
        eprintln!(
            "{CLIENTS} clients, 3 s: {} answers checked, {} writes acknowledged, server peak RSS {peak} KiB",
            answered.load(Ordering::Relaxed),
            acked.lock().unwrap().len()
        );
        // Phase 2: kill -9 while the clients go on.
        server.kill().unwrap();
        server.wait().unwrap();
        stop.store(true, Ordering::Relaxed);
        for t in tasks {
            // A client's own assertion failing shows here.
            t.await.unwrap();
        }
    });
    let acked = acked.lock().unwrap().clone();
    assert!(
        acked.len() >= CLIENTS,
        "only {} writes acknowledged ({} answers)",
        acked.len(),
        answered.load(Ordering::Relaxed)
    );

    // Phase 3: restart on the same store; every acknowledged write is there.
    let (mut server, url) = start(&store);
    rt.block_on(async {
        let (mut ws, _) = tokio_tungstenite::connect_async(&url).await.unwrap();
        for chunk in acked.chunks(500) {
            let ids: Vec<String> = chunk.iter().map(u64::to_string).collect();
            let q = format!("g.V({}).count()", ids.join(","));
            let (code, items) = ask(&mut ws, 2, &q).await.unwrap();
            assert_eq!(code, status::SUCCESS);
            assert_eq!(
                items,
                vec![Wire::Long(chunk.len() as i64)],
                "lost acknowledged writes"
            );
        }
        let q = format!("g.V({}).out('next').count()", acked[0]);
        assert_eq!(ask(&mut ws, 3, &q).await.unwrap().1, vec![Wire::Long(1)]);
    });
    server.kill().unwrap();
    server.wait().unwrap();
}
