#!/usr/bin/env bash
# Gremlin traversals on stratagraph and on TinkerGraph 3.8.1, the same
# graph and the same gremlin-lang text, one system after the other in the
# same sitting (bench/gremlin/README.md).
#
#   bench/run_gremlin_peers.sh [--datasets grateful,k20p] [--runs 3]
#       [--warmup-seconds 1] [--heap 16g] [--max-load 1.5] [--skip-build]
#
# Builds the Java driver (Maven: offline when the repository already holds
# its artifacts, else one resolve from Maven Central) and the release CLI
# (noting what it was built from in target/release/stratagraph.source),
# waits until the 1-minute load average is below --max-load (at most 20
# minutes; the wait and the load at each start are recorded), then per
# dataset runs `stratagraph bench gremlin` and TinkerBench and writes
# bench/results/gremlin-<dataset>-<date>T<time>.tsv; prints the summary table.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
DATASETS=grateful,k20p
RUNS=3
WARMUP=1
HEAP=16g
MAX_LOAD=1.5
BUILD=1
while [[ $# -gt 0 ]]; do
    case "$1" in
        --datasets) DATASETS="$2"; shift 2 ;;
        --runs) RUNS="$2"; shift 2 ;;
        --warmup-seconds) WARMUP="$2"; shift 2 ;;
        --heap) HEAP="$2"; shift 2 ;;
        --max-load) MAX_LOAD="$2"; shift 2 ;;
        --skip-build) BUILD=0; shift ;;
        *) echo "unknown argument $1" >&2; exit 2 ;;
    esac
done

PEER="$ROOT/bench/peers/tinkergraph"
GRATEFUL="$ROOT/../shared/tinkerpop/data/grateful-dead.json"
K20P="${STRATAGRAPH_K20P:-/work/data/props/k20p}"
CLI="$ROOT/target/release/stratagraph"

source "$ROOT/bench/lib.sh"
if [[ $BUILD == 1 ]]; then
    (cd "$PEER" && { mvn -q -o package 2>/dev/null || mvn -q package; })
    build_cli
fi
TREE="$(cli_source)"

for ds in ${DATASETS//,/ }; do
    case "$ds" in
        grateful) SRC_RUST=(--graphson "$GRATEFUL"); SRC_JAVA=(--graphson "$GRATEFUL") ;;
        k20p) SRC_RUST=(--csv "$K20P"); SRC_JAVA=(--csv "$K20P") ;;
        *) echo "unknown dataset $ds" >&2; exit 2 ;;
    esac
    QUERIES="$ROOT/bench/gremlin/queries-$ds.txt"
    OUT="$ROOT/bench/results/gremlin-$ds-$(date +%Y-%m-%dT%H%M).tsv"
    TMP="$(mktemp -d)"
    # stratagraph: address space capped below the machine's memory, so a
    # runaway query fails alone instead of taking the machine with it.
    echo "== stratagraph $ds" >&2
    quiet "$MAX_LOAD" > "$TMP/strata.load"
    cat "$TMP/strata.load" >&2
    (ulimit -v $((22 * 1024 * 1024)); "$CLI" bench gremlin --dataset "$ds" "${SRC_RUST[@]}" \
        --queries "$QUERIES" --runs "$RUNS" --warmup-seconds "$WARMUP" --index name \
        --out "$TMP/strata.tsv")
    echo "== tinkergraph $ds" >&2
    quiet "$MAX_LOAD" > "$TMP/tinker.load"
    cat "$TMP/tinker.load" >&2
    java -Xmx"$HEAP" -cp "$PEER/target/classes:$PEER/target/lib/*" TinkerBench \
        --dataset "$ds" "${SRC_JAVA[@]}" --queries "$QUERIES" --runs "$RUNS" \
        --warmup-seconds "$WARMUP" --index name --out "$TMP/tinker.tsv"
    {
        echo "# bench/run_gremlin_peers.sh --datasets $ds --runs $RUNS --warmup-seconds $WARMUP --heap $HEAP"
        echo "# queries: bench/gremlin/queries-$ds.txt"
        echo "# tree: $TREE"
        echo "# -- stratagraph"
        cat "$TMP/strata.load"
        grep '^#' "$TMP/strata.tsv"
        echo "# -- tinkergraph (java -Xmx$HEAP)"
        cat "$TMP/tinker.load"
        grep '^#' "$TMP/tinker.tsv"
        printf 'system\tdataset\tquery\tmedian_s\tmin_s\tresults\tchecksum\tsample\n'
        grep -v '^#' "$TMP/strata.tsv" | tail -n +2
        grep -v '^#' "$TMP/tinker.tsv" | tail -n +2
    } > "$OUT"
    rm -rf "$TMP"
    echo "wrote $OUT" >&2
    python3 "$ROOT/bench/gremlin/summary.py" "$OUT" || echo "checksums differ: see MISMATCH above" >&2
done
