//! The server over real sockets, in process: garbage, disconnects, the
//! connection limit and shutdown cost nothing but what caused them.
#![allow(clippy::unwrap_used)]

use std::net::SocketAddr;
use std::sync::Arc;

use futures_util::{SinkExt, StreamExt};
use stratagraph::{Graph, Options};
use stratagraph_server::server::{Limits, Server};
use stratagraph_server::wire::frame::{mime_header, Serializer};
use stratagraph_server::wire::message::status;
use stratagraph_server::wire::{graphbinary, RequestMessage, ResponseMessage, Wire};
use tokio::sync::oneshot;
use tokio_tungstenite::tungstenite::Message;

type Ws =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

async fn start(limits: Limits) -> (SocketAddr, oneshot::Sender<()>, tokio::task::JoinHandle<()>) {
    let graph = Arc::new(Graph::in_memory(Options::default()));
    let server = Server::bind(graph, "127.0.0.1:0".parse().unwrap(), limits)
        .await
        .unwrap();
    let addr = server.local_addr().unwrap();
    let (stop, stopped) = oneshot::channel::<()>();
    let task = tokio::spawn(async move {
        server
            .run(async {
                let _ = stopped.await;
            })
            .await
            .unwrap();
    });
    (addr, stop, task)
}

async fn connect(addr: SocketAddr) -> Ws {
    let (ws, _) = tokio_tungstenite::connect_async(format!("ws://{addr}/gremlin"))
        .await
        .unwrap();
    ws
}

fn request(id: u8, script: &str) -> Vec<u8> {
    let r = RequestMessage {
        request_id: [id; 16],
        op: "eval".into(),
        processor: String::new(),
        args: vec![("gremlin".into(), Wire::from(script))],
    };
    let mut bytes = mime_header(Serializer::GraphBinaryV1);
    bytes.extend(graphbinary::encode_request(&r).unwrap());
    bytes
}

/// Responses until the last one for request `id` (200, 204 or an error).
async fn answer(ws: &mut Ws, id: u8) -> Vec<ResponseMessage> {
    let mut out = Vec::new();
    loop {
        let msg = ws.next().await.unwrap().unwrap();
        let Message::Binary(b) = msg else {
            panic!("not a binary frame: {msg:?}")
        };
        let r = graphbinary::decode_response(&b).unwrap();
        if r.request_id != Some([id; 16]) {
            continue;
        }
        let done = r.status.code != status::PARTIAL_CONTENT;
        out.push(r);
        if done {
            return out;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn garbage_frames_get_errors_and_the_connection_goes_on() {
    let (addr, stop, task) = start(Limits::default()).await;
    let mut ws = connect(addr).await;
    // Garbage is made from a request with another id, so what it may
    // still decode to is never taken for the answer checked below.
    let valid = request(8, "g.inject(1,2,3)");
    // A small generator, so the test needs no randomness crate.
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for round in 0..300 {
        let mut bad = valid.clone();
        match round % 3 {
            0 => {
                let i = (next() as usize) % bad.len();
                bad[i] ^= 1 << (next() % 8);
            }
            1 => bad.truncate((next() as usize) % bad.len()),
            _ => bad = (0..(next() % 64)).map(|_| next() as u8).collect(),
        }
        ws.send(Message::binary(bad)).await.unwrap();
        // Whatever that was, a valid request after it is answered in full.
        ws.send(Message::binary(request(9, "g.inject(1,2,3)")))
            .await
            .unwrap();
        let rs = answer(&mut ws, 9).await;
        let last = rs.last().unwrap();
        if last.status.code == status::SUCCESS {
            assert_eq!(
                last.result.data,
                Wire::List(vec![Wire::Int(1), Wire::Int(2), Wire::Int(3)])
            );
        }
    }
    ws.send(Message::binary(request(10, "g.inject(7)")))
        .await
        .unwrap();
    let rs = answer(&mut ws, 10).await;
    assert_eq!(rs[0].result.data, Wire::List(vec![Wire::Int(7)]));
    stop.send(()).unwrap();
    task.await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_gone_mid_stream_costs_only_its_request() {
    let (addr, stop, task) = start(Limits {
        batch_size: 1,
        ..Limits::default()
    })
    .await;
    for _ in 0..20 {
        let mut ws = connect(addr).await;
        ws.send(Message::binary(request(
            1,
            "g.inject(1).repeat(union(identity(), identity())).times(12)",
        )))
        .await
        .unwrap();
        // Read one batch, then drop the connection without closing it.
        let _ = ws.next().await;
        drop(ws);
    }
    let mut ws = connect(addr).await;
    ws.send(Message::binary(request(
        2,
        "g.inject(1).repeat(union(identity(), identity())).times(3).count()",
    )))
    .await
    .unwrap();
    let rs = answer(&mut ws, 2).await;
    assert_eq!(rs[0].result.data, Wire::List(vec![Wire::Long(8)]));
    stop.send(()).unwrap();
    task.await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_past_the_limit_and_wrong_paths_are_refused_at_the_handshake() {
    let (addr, stop, task) = start(Limits {
        max_connections: 2,
        ..Limits::default()
    })
    .await;
    let a = connect(addr).await;
    let b = connect(addr).await;
    let third = tokio_tungstenite::connect_async(format!("ws://{addr}/gremlin")).await;
    match third {
        Err(tokio_tungstenite::tungstenite::Error::Http(resp)) => {
            assert_eq!(resp.status().as_u16(), 503)
        }
        other => panic!(
            "a third connection was not refused: {:?}",
            other.map(|_| ())
        ),
    }
    drop(a);
    // A slot freed is a slot to use (the server notices the close).
    let mut ok = false;
    for _ in 0..50 {
        if tokio_tungstenite::connect_async(format!("ws://{addr}/gremlin"))
            .await
            .is_ok()
        {
            ok = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert!(ok, "the freed slot was not given to a new connection");
    match tokio_tungstenite::connect_async(format!("ws://{addr}/other")).await {
        Err(tokio_tungstenite::tungstenite::Error::Http(resp)) => {
            assert!(resp.status().as_u16() == 404 || resp.status().as_u16() == 503)
        }
        other => panic!("a wrong path was not refused: {:?}", other.map(|_| ())),
    }
    drop(b);
    stop.send(()).unwrap();
    task.await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_over_the_size_limit_is_refused_and_the_server_goes_on() {
    let (addr, stop, task) = start(Limits {
        max_request_bytes: 4096,
        ..Limits::default()
    })
    .await;
    let mut ws = connect(addr).await;
    let big = format!("g.inject('{}')", "x".repeat(10_000));
    ws.send(Message::binary(request(1, &big))).await.unwrap();
    // The server says why and closes this connection.
    match ws.next().await {
        Some(Ok(Message::Binary(b))) => {
            let r = graphbinary::decode_response(&b).unwrap();
            assert_eq!(r.status.code, status::REQUEST_ERROR_MALFORMED_REQUEST);
        }
        Some(Ok(Message::Close(_))) | None | Some(Err(_)) => {}
        Some(Ok(other)) => panic!("unexpected {other:?}"),
    }
    let mut ws = connect(addr).await;
    ws.send(Message::binary(request(2, "g.inject(5)")))
        .await
        .unwrap();
    assert_eq!(
        answer(&mut ws, 2).await[0].result.data,
        Wire::List(vec![Wire::Int(5)])
    );
    stop.send(()).unwrap();
    task.await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_closes_idle_connections_and_returns() {
    let (addr, stop, task) = start(Limits::default()).await;
    let mut ws = connect(addr).await;
    ws.send(Message::binary(request(1, "g.inject(1)")))
        .await
        .unwrap();
    answer(&mut ws, 1).await;
    stop.send(()).unwrap();
    tokio::time::timeout(std::time::Duration::from_secs(10), task)
        .await
        .expect("the server did not stop")
        .unwrap();
    // The idle connection was closed by the server.
    let rest = tokio::time::timeout(std::time::Duration::from_secs(5), ws.next()).await;
    assert!(
        matches!(rest, Ok(None | Some(Ok(Message::Close(_)) | Err(_)))),
        "{rest:?}"
    );
}
