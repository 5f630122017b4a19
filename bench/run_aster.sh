#!/usr/bin/env bash
# The Aster (Poly-LSM) Gremlin experiment over the wire: the same Python
# client (bench/aster/aster.py) against stratagraph, Gremlin Server 3.8.1 +
# TinkerGraph and JanusGraph 1.1 (BerkeleyDB JE), one system after the other
# (bench/aster/README.md).
#
#   bench/run_aster.sh [--datasets grateful,k16] [--systems stratagraph,tinkergraph,janusgraph]
#       [--procs 1,8] [--load-procs 1] [--mix-ops 20000] [--warmup-seconds 2]
#       [--samples 2000] [--find-samples 50] [--ceiling-seconds 10] [--max-edges N]
#       [--touched-only] [--serializer graphbinary|graphson] [--port 8391]
#       [--heap 8g] [--max-load 1.5] [--scratch /work/data] [--skip-build]
#       [--strata-sync always|never|PERIOD]   (stratagraph's `serve --sync`; default always)
#       [--java-threads 1,8]
#
# Creates the client's virtual environment if missing ($ASTER_VENV, default
# /work/data/peer-venvs/aster: gremlinpython==3.8.2), builds the release CLI
# (recording what it was built from) and the peers
# (bench/aster/peer.sh build), generates k16 if it is missing, then per
# dataset and system: waits until the 1-minute load average is below
# --max-load (at most 20 minutes), starts the system on a fresh store,
# runs load, latency and mixes, then (with --java-threads) the Java client's
# latency and mixes on the same store (bench/aster/java-client: TinkerPop's
# gremlin-driver 3.8.1, rows latency-java, ceiling-java, mix-java,
# check-java; mixes and ceiling with these thread counts), stops it and
# deletes its files. Each mix is a fixed number of operations (--mix-ops,
# the total over its client processes or threads, the same seeded operations
# on every system, so every store grows by the same edges), after a
# read-only warm-up of --warmup-seconds. One TSV per
# dataset: bench/results/aster-<dataset>-<date>T<time>.tsv. Prints the summary
# (bench/aster/report.py) at the end. Exit status 1 if any check failed.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
DATASETS=grateful,k16
SYSTEMS=stratagraph,tinkergraph,janusgraph
PROCS=1,8
LOAD_PROCS=1
MIX_OPS=20000       # operations per mix (all processes/threads together)
WARMUP=2
SAMPLES=2000
FIND_SAMPLES=50
CEILING_SECONDS=10
MAX_EDGES=""
TOUCHED=""
SERIALIZER=graphbinary
PORT=8391
HEAP=8g
MAX_LOAD=1.5
SCRATCH="${ASTER_SCRATCH:-/work/data}"
BUILD=1
STRATA_SYNC=always
JAVA_THREADS=""     # off unless given
ARGS="$*"
while [[ $# -gt 0 ]]; do
    case "$1" in
        --datasets) DATASETS="$2"; shift 2 ;;
        --systems) SYSTEMS="$2"; shift 2 ;;
        --procs) PROCS="$2"; shift 2 ;;
        --load-procs) LOAD_PROCS="$2"; shift 2 ;;
        --mix-ops) MIX_OPS="$2"; shift 2 ;;
        --warmup-seconds) WARMUP="$2"; shift 2 ;;
        --samples) SAMPLES="$2"; shift 2 ;;
        --find-samples) FIND_SAMPLES="$2"; shift 2 ;;
        --ceiling-seconds) CEILING_SECONDS="$2"; shift 2 ;;
        --max-edges) MAX_EDGES="$2"; shift 2 ;;
        --touched-only) TOUCHED=--touched-only; shift ;;
        --serializer) SERIALIZER="$2"; shift 2 ;;
        --port) PORT="$2"; shift 2 ;;
        --heap) HEAP="$2"; shift 2 ;;
        --max-load) MAX_LOAD="$2"; shift 2 ;;
        --scratch) SCRATCH="$2"; shift 2 ;;
        --skip-build) BUILD=0; shift ;;
        --strata-sync) STRATA_SYNC="$2"; shift 2 ;;
        --java-threads) JAVA_THREADS="$2"; shift 2 ;;
        -h|--help) sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "unknown argument $1" >&2; exit 2 ;;
    esac
done

CLI="$ROOT/target/release/stratagraph"
PEER="$ROOT/bench/aster/peer.sh"
ASTER="$ROOT/bench/aster/aster.py"
VENV="${ASTER_VENV:-/work/data/peer-venvs/aster}"
PY="$VENV/bin/python"
DATA="${ASTER_DATA:-/work/data}"
export ASTER_DATA="$DATA"
mkdir -p "$SCRATCH" "$ROOT/bench/results"

# The client's environment: what the benchmark needs, installed by itself.
if ! "$PY" -c 'import gremlin_python' 2>/dev/null; then
    echo "== creating $VENV (gremlinpython 3.8.2)" >&2
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install -q gremlinpython==3.8.2
fi
GP_VERSION="$("$PY" -c 'from importlib.metadata import version; print(version("gremlinpython"))')"

if [[ ",$SYSTEMS," == *,tinkergraph,* || ",$SYSTEMS," == *,janusgraph,* ]]; then
    [[ -x "$PEER" ]] || { echo "bench/aster/peer.sh is missing" >&2; exit 2; }
    if [[ $BUILD == 1 ]]; then
        "$PEER" build
    fi
fi
source "$ROOT/bench/lib.sh"
# The Java client (only with --java-threads): mvn package, offline first,
# else online, as peer.sh builds the peers. Built with --skip-build too when
# its classes are missing or older than its sources (it takes seconds).
JC="$ROOT/bench/aster/java-client"
JAVA_CP="$JC/target/classes:$JC/target/lib/*"
if [[ -n "$JAVA_THREADS" ]]; then
    if [[ $BUILD == 1 || ! -f "$JC/target/classes/AsterJava.class" || ! -d "$JC/target/lib" \
          || -n "$(find "$JC/pom.xml" "$JC/src" -newer "$JC/target/classes/AsterJava.class" -type f 2>/dev/null)" ]]; then
        echo "== building $JC" >&2
        (cd "$JC" && { mvn -q -o package >/dev/null 2>&1 || mvn -q package; }) \
            || { echo "maven build of $JC failed" >&2; exit 2; }
        touch "$JC/target/classes/AsterJava.class"  # up to date now, even if maven had nothing to compile
    fi
fi
if [[ ",$SYSTEMS," == *,stratagraph,* ]]; then
    [[ $BUILD == 1 ]] && build_cli
    [[ -x "$CLI" ]] || { echo "$CLI is missing: cargo build --release -p stratagraph-cli" >&2; exit 2; }
    TREE="$(cli_source)"
fi

# W1 files the datasets need (k16 in seconds; k20 takes ~2 minutes).
for ds in ${DATASETS//,/ }; do
    if [[ "$ds" =~ ^k([0-9]+)$ && ! -f "$DATA/$ds.bin" ]]; then
        GEN_PY="${ASTER_GEN_PYTHON:-$ROOT/.venv/bin/python}"
        if ! "$GEN_PY" -c 'import numpy, scipy' 2>/dev/null; then
            GEN_PY="$VENV/bin/python"
            "$VENV/bin/pip" install -q numpy scipy
        fi
        "$GEN_PY" "$ROOT/../shared/bench/gen_graph.py" --scales "${BASH_REMATCH[1]}" --out "$DATA"
    fi
done

RUNNING=""      # what to stop on exit: "strata PID" or a peer name
WORKDIR=""
stop_system() {
    case "$RUNNING" in
        strata\ *)
            local pid="${RUNNING#strata }"
            kill -TERM "$pid" 2>/dev/null || true
            wait "$pid" 2>/dev/null || true ;;
        tinkergraph|janusgraph) "$PEER" stop "$RUNNING" >&2 || true ;;
    esac
    RUNNING=""
    if [[ -n "$WORKDIR" ]]; then rm -rf "$WORKDIR"; WORKDIR=""; fi
}
trap stop_system EXIT
trap 'stop_system; exit 130' INT TERM

# Starts SYSTEM on a fresh store; sets HEADER, the line for the TSV header.
HEADER=""
start_system() {
    local sys="$1"
    WORKDIR="$(mktemp -d "$SCRATCH/aster-$sys.XXXXXX")"
    case "$sys" in
        stratagraph)
            "$CLI" serve "$WORKDIR/store" --port "$PORT" --sync "$STRATA_SYNC" > "$WORKDIR/serve.log" 2>&1 &
            RUNNING="strata $!"
            local i
            for i in $(seq 1 120); do
                grep -q "listening on" "$WORKDIR/serve.log" && break
                kill -0 "${RUNNING#strata }" 2>/dev/null || { cat "$WORKDIR/serve.log" >&2; return 1; }
                sleep 0.5
            done
            grep -q "listening on" "$WORKDIR/serve.log" || { echo "stratagraph did not start" >&2; return 1; }
            HEADER="# system stratagraph: target/release/stratagraph serve <fresh dir under $SCRATCH> --port $PORT --sync $STRATA_SYNC (on disk, log on); binary: $TREE"
            ;;
        tinkergraph)
            "$PEER" start tinkergraph "$PORT" --heap "$HEAP" >&2 || return 1
            RUNNING=tinkergraph
            HEADER="# system tinkergraph: bench/aster/peer.sh start tinkergraph $PORT --heap $HEAP (Apache TinkerPop Gremlin Server 3.8.1, in-memory TinkerGraph; $(java -version 2>&1 | head -1))"
            ;;
        janusgraph)
            "$PEER" start janusgraph "$PORT" "$WORKDIR/janusgraph" --heap "$HEAP" >&2 || return 1
            RUNNING=janusgraph
            HEADER="# system janusgraph: bench/aster/peer.sh start janusgraph $PORT <fresh dir under $SCRATCH> --heap $HEAP (JanusGraph Server 1.1.0, BerkeleyDB JE on disk; $(java -version 2>&1 | head -1))"
            ;;
        *) echo "unknown system $sys" >&2; return 2 ;;
    esac
}

FAILED=0
OUTS=()
URL="ws://127.0.0.1:$PORT/gremlin"
for ds in ${DATASETS//,/ }; do
    OUT="$ROOT/bench/results/aster-$ds-$(date +%Y-%m-%dT%H%M).tsv"
    OUTS+=("$OUT")
    {
        echo "# bench/run_aster.sh $ARGS"
        echo "# dataset $ds${MAX_EDGES:+, first $MAX_EDGES edges}${TOUCHED:+, touched vertices only}; load with $LOAD_PROCS process(es); mixes of $MIX_OPS ops each (fixed, the same on every system) after $WARMUP s read-only warm-up with procs $PROCS; latency $SAMPLES samples ($FIND_SAMPLES for find_by_property); serializer $SERIALIZER${JAVA_THREADS:+; then the Java client (gremlin-driver 3.8.1, GraphBinary) with threads $JAVA_THREADS}"
    } >> "$OUT"
    for sys in ${SYSTEMS//,/ }; do
        echo "== $sys $ds" >&2
        LOADLINE="$(quiet "$MAX_LOAD")"
        echo "$LOADLINE" >&2
        if ! start_system "$sys"; then
            echo "# system $sys: did not start" >> "$OUT"
            FAILED=1
            stop_system
            continue
        fi
        printf '%s\n%s\n' "$HEADER" "$LOADLINE" >> "$OUT"
        IDS="$WORKDIR/ids.json"
        COMMON=(--url "$URL" --system "$sys" --ids "$IDS" --out "$OUT" --serializer "$SERIALIZER"
                --warmup-seconds "$WARMUP")
        if "$PY" "$ASTER" load "${COMMON[@]}" --dataset "$ds" --procs "$LOAD_PROCS" \
                ${MAX_EDGES:+--max-edges "$MAX_EDGES"} $TOUCHED; then :; else FAILED=1; fi
        if [[ -f "$IDS" ]]; then
            "$PY" "$ASTER" latency "${COMMON[@]}" --samples "$SAMPLES" --find-samples "$FIND_SAMPLES" \
                --procs "$PROCS" --ceiling-seconds "$CEILING_SECONDS" || FAILED=1
            "$PY" "$ASTER" mixes "${COMMON[@]}" --procs "$PROCS" --mix-ops "$MIX_OPS" || FAILED=1
            if [[ -n "$JAVA_THREADS" ]]; then
                # The same two phases with the Java driver, on the same store
                # (no longer the file's graph after the mixes: see README).
                JCOMMON=(--url "$URL" --system "$sys" --ids "$IDS" --out "$OUT" --warmup-seconds "$WARMUP"
                         --data "$DATA" --threads "$JAVA_THREADS")
                java -Xmx2g -cp "$JAVA_CP" AsterJava latency "${JCOMMON[@]}" --samples "$SAMPLES" \
                    --find-samples "$FIND_SAMPLES" --ceiling-seconds "$CEILING_SECONDS" || FAILED=1
                java -Xmx2g -cp "$JAVA_CP" AsterJava mixes "${JCOMMON[@]}" --mix-ops "$MIX_OPS" || FAILED=1
            fi
        else
            echo "# system $sys: load did not finish; latency and mixes skipped" >> "$OUT"
        fi
        stop_system
    done
    echo "wrote $OUT" >&2
done

echo
"$PY" "$ROOT/bench/aster/report.py" --no-charts "${OUTS[@]}"
if [[ $FAILED == 1 ]]; then
    echo "some check FAILED or a phase did not finish: see the check column" >&2
    exit 1
fi
