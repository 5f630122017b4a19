#!/usr/bin/env bash
# The whole W1 benchmark in one command: workload files (if missing), the
# stratagraph suite (memory, disk, static CSR), every peer, and the report.
#
#   bench/run_all.sh [--scale 16] [--runs 3] [--budget 60]
#
# Writes bench/results/kS-*.tsv, docs/BENCHMARKS.md and docs/bench/*.png.
# Data in $STRATAGRAPH_W1_DATA (default /work/data); virtual environments
# in $STRATAGRAPH_PEER_VENVS (default /work/data/peer-venvs), including
# `report` (numpy, scipy, matplotlib) for the generator and the report.
# Respects CARGO_TARGET_DIR. Takes minutes at scale 16 and much of the
# machine for longer at scale 20.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo"
scale=16 runs=3 budget=60
while [ $# -gt 0 ]; do
    case "$1" in
        --scale) scale="$2"; shift 2 ;;
        --runs) runs="$2"; shift 2 ;;
        --budget) budget="$2"; shift 2 ;;
        -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
        *) echo "run_all.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done
data="${STRATAGRAPH_W1_DATA:-/work/data}"
venvs="${STRATAGRAPH_PEER_VENVS:-/work/data/peer-venvs}"
tools="$venvs/report"
mkdir -p "$data" "$venvs" bench/results

if ! "$tools/bin/python" -c "import numpy, scipy, matplotlib" 2>/dev/null; then
    python3 -m venv "$tools"
    "$tools/bin/python" -m pip install -q --disable-pip-version-check numpy scipy matplotlib
fi
if [ ! -f "$data/k$scale.ref.json" ]; then
    "$tools/bin/python" ../shared/bench/gen_graph.py --scales "$scale" --out "$data"
fi
if [ ! -f "$data/k$scale.ref_extra.json" ]; then
    "$tools/bin/python" bench/ref_extra.py --scales "$scale" --data "$data"
fi

export PATH="$HOME/.cargo/bin:$PATH"
nice -n 10 cargo build --release -p stratagraph-cli
target="${CARGO_TARGET_DIR:-$repo/target}"
nice -n 10 "$target/release/stratagraph" bench w1 --scale "$scale" --runs "$runs" \
    --data "$data" --out "bench/results/k$scale-stratagraph.tsv"

peers_ok=1
STRATAGRAPH_W1_DATA="$data" STRATAGRAPH_PEER_VENVS="$venvs" \
    bench/run_peers.sh --scale "$scale" --runs "$runs" --budget "$budget" || peers_ok=0

"$tools/bin/python" bench/report.py bench/results/k"$scale"-*.tsv \
    --out docs/BENCHMARKS.md --charts docs/bench
[ "$peers_ok" -eq 1 ] || { echo "run_all.sh: some peers failed (see above); the report has the rest" >&2; exit 1; }
