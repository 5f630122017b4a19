#!/usr/bin/env bash
# Aster's mixes (Poly-LSM paper §5) under a memory cap, for issue 32's
# update policies: GetNeighbors among AddEdges at each --lookups share,
# under each --policies entry (delta, pivot, adaptive), each run on a fresh
# copy of one loaded store (`stratagraph bench capped --phase mix`).
#
#   bench/run_mixes.sh --scale 20 --cap 128M --memory 64M --ops 3000000 \
#       --runs 3 --store /work/k20mix --out bench/results/mix-k20
#
# The store is loaded once (the capped harness's load phase: 80% of kS.bin,
# closed into one level) unless it is there already; each run copies it to
# STORE-run, evicts the copy from the page cache and runs the mix inside
# the cap (bench/memcap.py). Writes OUT-<policy>-<lookups>-<run>.tsv and
# OUT-memcap.tsv; the runs of one share alternate their policies, so a
# drift of the machine reaches every policy alike. The checksum of every
# run of one share must be the same (the same reads, whatever the policy).
# Needs root and cgroup v1 (memcap.py) and the W1 files of the scale.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
. "$ROOT/bench/lib.sh"
scale=20 data="${STRATAGRAPH_W1_DATA:-/work/data}" cap=128M memory=64M ops=3000000 runs=3
store="" out="" lookups="0.1 0.5 0.9" policies="delta pivot adaptive"
while [ $# -gt 0 ]; do
    case "$1" in
        --scale) scale="$2"; shift 2 ;;
        --data) data="$2"; shift 2 ;;
        --cap) cap="$2"; shift 2 ;;
        --memory) memory="$2"; shift 2 ;;
        --ops) ops="$2"; shift 2 ;;
        --runs) runs="$2"; shift 2 ;;
        --store) store="$2"; shift 2 ;;
        --out) out="$2"; shift 2 ;;
        --lookups) lookups="$2"; shift 2 ;;
        --policies) policies="$2"; shift 2 ;;
        -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
        *) echo "run_mixes.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done
[ -n "$store" ] && [ -n "$out" ] || { echo "run_mixes.sh: --store and --out are required" >&2; exit 2; }
cd "$ROOT"
build_cli
bin="$ROOT/target/release/stratagraph"
mkdir -p "$(dirname "$out")"
if [ ! -f "$store/MANIFEST" ]; then
    "$bin" bench capped --data "$data" --scale "$scale" --store "$store" --phase load \
        --memory "$memory" --out "$out-load.tsv"
fi
copy="$store-run"
for share in $lookups; do
    for run in $(seq 1 "$runs"); do
        for policy in $policies; do
            rm -rf "$copy"
            cp -r "$store" "$copy"
            python3 "$ROOT/bench/memcap.py" --limit "$cap" --label "$policy-$share-$run" \
                --tsv "$out-memcap.tsv" --cold "$copy" -- \
                "$bin" bench capped --data "$data" --scale "$scale" --store "$copy" --phase mix \
                --memory "$memory" --lookups "$share" --ops "$ops" --policy "$policy" \
                --out "$out-$policy-$share-$run.tsv"
        done
    done
done
rm -rf "$copy"
