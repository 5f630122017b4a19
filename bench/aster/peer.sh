#!/usr/bin/env bash
# Starts and stops the two Gremlin Server PEERS of the client benchmark, on
# loopback, from Maven Central artifacts (no code of ours runs in them):
#
#   tinkergraph : Apache TinkerPop Gremlin Server 3.8.1, in-memory TinkerGraph
#                 (bench/peers/gremlin-server)
#   janusgraph  : JanusGraph 1.1.0 Server, BerkeleyDB JE backend
#                 (bench/peers/janusgraph)
#
# Both serve traversal source `g` at ws://127.0.0.1:PORT/gremlin and accept
# bytecode requests in GraphBinary 1.0 and GraphSON 3.0.
#
#   bench/aster/peer.sh build
#       mvn package of both projects (offline first, else online), which
#       copies the dependency jars to target/lib.
#   bench/aster/peer.sh start tinkergraph PORT [--heap 8g]
#   bench/aster/peer.sh start janusgraph PORT DATADIR [--heap 8g]
#       Generates the server's config from the checked-in templates (conf/),
#       starts it in the background, waits (at most $PEER_TIMEOUT s, default
#       120) until it answers a real request (g.inject(1) as GraphSON 3
#       bytecode), writes the pid file and prints one line
#         ready ws://127.0.0.1:PORT/gremlin pid N
#       Exits non-zero with the log tail if it does not come up.
#       tinkergraph: config and log in $PEER_RUN/tinkergraph/.
#       janusgraph: config, log and the BerkeleyDB files (DATADIR/berkeleyje)
#       in DATADIR, which is kept between runs (remove it for an empty graph).
#       Heap: -Xmx, default 4g.
#   bench/aster/peer.sh stop tinkergraph|janusgraph
#       SIGTERM, waits up to 60 s, then SIGKILL; removes the pid file.
#
# Pid files: $PEER_RUN/<name>.pid, PEER_RUN defaults to /tmp/aster-peers.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
RUN="${PEER_RUN:-/tmp/aster-peers}"
TIMEOUT="${PEER_TIMEOUT:-120}"
GS_DIR="$ROOT/bench/peers/gremlin-server"
JG_DIR="$ROOT/bench/peers/janusgraph"
GS_MAIN=org.apache.tinkerpop.gremlin.server.GremlinServer
JG_MAIN=org.janusgraph.graphdb.server.JanusGraphServer

die() { echo "peer.sh: $*" >&2; exit 1; }
usage() { sed -n '13,29p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

main_class() {
    case "$1" in
        tinkergraph) echo "$GS_MAIN" ;;
        janusgraph) echo "$JG_MAIN" ;;
        *) die "unknown peer '$1' (tinkergraph or janusgraph)" ;;
    esac
}

# True if PID is alive and is the java process running MAIN (guards against
# a stale pid file whose pid was reused).
is_peer() {
    local pid="$1" main="$2"
    [[ -n "$pid" && -r /proc/$pid/cmdline ]] || return 1
    tr '\0' ' ' < /proc/$pid/cmdline | grep -q -- " $main "
}

# One Gremlin request over a WebSocket, standard library only: g.inject(1)
# as GraphSON 3 bytecode to the traversal source `g`. Exit 0 on a status 200
# response, 1 when nothing listens or it does not answer (yet).
probe() {
    python3 - "$1" <<'PY'
import base64, json, os, socket, struct, sys, uuid
port = int(sys.argv[1])
try:
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    key = base64.b64encode(os.urandom(16)).decode()
    s.sendall(("GET /gremlin HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUpgrade: websocket\r\n"
               "Connection: Upgrade\r\nSec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n"
               % (port, key)).encode())
    buf = b""
    while b"\r\n\r\n" not in buf:
        chunk = s.recv(4096)
        if not chunk:
            sys.exit(1)
        buf += chunk
    head, _, rest = buf.partition(b"\r\n\r\n")
    if b" 101 " not in head.split(b"\r\n")[0]:
        sys.exit(1)
    mime = b"application/vnd.gremlin-v3.0+json"
    req = {"requestId": {"@type": "g:UUID", "@value": str(uuid.uuid4())},
           "op": "bytecode", "processor": "traversal",
           "args": {"gremlin": {"@type": "g:Bytecode", "@value": {"step": [
                        ["inject", {"@type": "g:Int32", "@value": 1}]]}},
                    "aliases": {"g": "g"}}}
    payload = bytes([len(mime)]) + mime + json.dumps(req).encode()
    mask = os.urandom(4)
    n = len(payload)
    hdr = bytes([0x82]) + (bytes([0x80 | n]) if n < 126 else bytes([0x80 | 126]) + struct.pack(">H", n))
    s.sendall(hdr + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))
    def read(k):
        global rest
        while len(rest) < k:
            chunk = s.recv(65536)
            if not chunk:
                sys.exit(1)
            rest += chunk
        out, rest = rest[:k], rest[k:]
        return out
    b0, b1 = read(2)
    n = b1 & 0x7F
    if n == 126:
        n = struct.unpack(">H", read(2))[0]
    elif n == 127:
        n = struct.unpack(">Q", read(8))[0]
    body = json.loads(read(n))
    sys.exit(0 if body.get("status", {}).get("code") == 200 else 1)
except (OSError, ValueError):
    sys.exit(1)
PY
}

cmd_build() {
    local p
    for p in "$GS_DIR" "$JG_DIR"; do
        echo "peer.sh: building $p" >&2
        (cd "$p" && { mvn -q -o package >/dev/null 2>&1 || mvn -q package; }) \
            || die "maven build of $p failed"
    done
}

cmd_start() {
    local name="${1:-}"; shift || true
    [[ -n "$name" ]] || usage
    local main; main="$(main_class "$name")"
    local port="${1:-}"; shift || true
    [[ "$port" =~ ^[0-9]+$ ]] || die "start $name: PORT missing or not a number"
    local data=""
    if [[ "$name" == janusgraph ]]; then
        data="${1:-}"; shift || true
        [[ -n "$data" && "$data" != --* ]] || die "start janusgraph: DATADIR missing"
    fi
    local heap=4g
    while [[ $# -gt 0 ]]; do
        case "$1" in
            --heap) heap="${2:?--heap needs a size}"; shift 2 ;;
            *) die "unknown argument $1" ;;
        esac
    done

    mkdir -p "$RUN"
    local pidfile="$RUN/$name.pid"
    if [[ -f "$pidfile" ]]; then
        if is_peer "$(cat "$pidfile")" "$main"; then
            die "$name already running (pid $(cat "$pidfile")); stop it first"
        fi
        rm -f "$pidfile"
    fi
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
        die "port $port on 127.0.0.1 is already in use"
    fi

    local dir conf log cp jvm=()
    case "$name" in
        tinkergraph)
            [[ -d "$GS_DIR/target/lib" ]] || die "not built: run $0 build"
            dir="$RUN/tinkergraph"
            mkdir -p "$dir"
            conf="$dir/gremlin-server.yaml"
            sed -e "s#@PORT@#$port#g" -e "s#@CONF@#$GS_DIR/conf#g" \
                "$GS_DIR/conf/gremlin-server.yaml" > "$conf"
            log="$dir/gremlin-server.log"
            cp="$GS_DIR/target/classes:$GS_DIR/target/lib/*"
            jvm=("-Dlogback.configurationFile=$GS_DIR/conf/logback.xml")
            ;;
        janusgraph)
            [[ -d "$JG_DIR/target/lib" ]] || die "not built: run $0 build"
            mkdir -p "$data"
            dir="$(cd "$data" && pwd)"
            conf="$dir/janusgraph-server.yaml"
            sed -e "s#@DATADIR@#$dir#g" \
                "$JG_DIR/conf/janusgraph-berkeleyje.properties" > "$dir/janusgraph.properties"
            sed -e "s#@PORT@#$port#g" -e "s#@CONF@#$JG_DIR/conf#g" -e "s#@RUN@#$dir#g" \
                "$JG_DIR/conf/janusgraph-server.yaml" > "$conf"
            log="$dir/janusgraph-server.log"
            cp="$JG_DIR/target/classes:$JG_DIR/target/lib/*"
            jvm=("-Dlog4j.configurationFile=$JG_DIR/conf/log4j2-server.xml")
            ;;
    esac

    local t0 pid
    t0=$(date +%s.%N)
    echo "=== peer.sh start $name port $port heap $heap $(date '+%F %T')" >> "$log"
    nohup java -Xmx"$heap" "${jvm[@]}" -cp "$cp" "$main" "$conf" >> "$log" 2>&1 < /dev/null &
    pid=$!
    disown "$pid" 2>/dev/null || true
    echo "$pid" > "$pidfile"

    local deadline=$(( $(date +%s) + TIMEOUT ))
    while :; do
        if ! kill -0 "$pid" 2>/dev/null || [[ "$(awk '{print $3}' /proc/$pid/stat 2>/dev/null)" == Z ]]; then
            rm -f "$pidfile"
            echo "peer.sh: $name exited during startup; log $log:" >&2
            tail -n 40 "$log" >&2
            exit 1
        fi
        if probe "$port"; then break; fi
        if (( $(date +%s) >= deadline )); then
            kill -KILL "$pid" 2>/dev/null || true
            rm -f "$pidfile"
            echo "peer.sh: $name did not answer on port $port within ${TIMEOUT}s (killed); log $log:" >&2
            tail -n 40 "$log" >&2
            exit 1
        fi
        sleep 0.5
    done
    echo "=== peer.sh: ready after $(printf '%.1f' "$(echo "$(date +%s.%N) - $t0" | bc)") s, pid $pid" >> "$log"
    echo "ready ws://127.0.0.1:$port/gremlin pid $pid"
}

cmd_stop() {
    local name="${1:-}"
    [[ -n "$name" ]] || usage
    local main; main="$(main_class "$name")"
    local pidfile="$RUN/$name.pid"
    if [[ ! -f "$pidfile" ]]; then
        echo "peer.sh: $name not running (no $pidfile)" >&2
        return 0
    fi
    local pid; pid="$(cat "$pidfile")"
    if ! is_peer "$pid" "$main"; then
        echo "peer.sh: $name pid $pid not running; removing stale $pidfile" >&2
        rm -f "$pidfile"
        return 0
    fi
    kill -TERM "$pid" 2>/dev/null || true
    local i
    for i in $(seq 1 120); do
        is_peer "$pid" "$main" || break
        sleep 0.5
    done
    if is_peer "$pid" "$main"; then
        echo "peer.sh: $name pid $pid ignored SIGTERM for 60 s; SIGKILL" >&2
        kill -KILL "$pid" 2>/dev/null || true
        sleep 1
    fi
    rm -f "$pidfile"
    echo "stopped $name pid $pid"
}

case "${1:-}" in
    build) cmd_build ;;
    start) shift; cmd_start "$@" ;;
    stop) shift; cmd_stop "$@" ;;
    *) usage ;;
esac
