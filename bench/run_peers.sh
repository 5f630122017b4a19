#!/usr/bin/env bash
# Runs the W1 peer drivers (bench/peers/*_w1.py), each in its own virtual
# environment with its library from PyPI, and writes one TSV per peer.
#
#   bench/run_peers.sh [--scale 16] [--runs 3] [--budget 60] [--out DIR] [peer ...]
#
# Peers: networkit igraph kuzu rocksdict networkx (networkx at scale 16 and
# below only). Virtual environments live in $STRATAGRAPH_PEER_VENVS (default
# /work/data/peer-venvs, outside the checkout); the W1 files in
# $STRATAGRAPH_W1_DATA (default /work/data). Not part of CI: installs need
# the network and a run takes minutes. A peer whose install or run fails is
# reported at the end and the others still run.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$here/.." && pwd)"
. "$here/lib.sh"
venvs="${STRATAGRAPH_PEER_VENVS:-/work/data/peer-venvs}"
data="${STRATAGRAPH_W1_DATA:-/work/data}"
scale=16 runs=3 budget=60 out="$here/results"
peers=()
while [ $# -gt 0 ]; do
    case "$1" in
        --scale) scale="$2"; shift 2 ;;
        --runs) runs="$2"; shift 2 ;;
        --budget) budget="$2"; shift 2 ;;
        --out) out="$2"; shift 2 ;;
        -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
        -*) echo "run_peers.sh: unknown option $1" >&2; exit 2 ;;
        *) peers+=("$1"); shift ;;
    esac
done
[ ${#peers[@]} -gt 0 ] || peers=(networkit igraph kuzu rocksdict networkx)
mkdir -p "$venvs" "$out"

failed=()
for peer in "${peers[@]}"; do
    if ! peer_packages "$peer" >/dev/null; then
        echo "run_peers.sh: unknown peer $peer" >&2
        failed+=("$peer (unknown)")
        continue
    fi
    if [ "$peer" = networkx ] && [ "$scale" -gt 16 ]; then
        echo "== networkx: skipped at scale $scale (a reference at scale 16 only)"
        continue
    fi
    echo "== $peer: $venvs/$peer"
    if ! venv="$(peer_venv "$peer" "$venvs")"; then
        echo "run_peers.sh: pip install failed for $peer" >&2
        failed+=("$peer (install)")
        continue
    fi
    tsv="$out/k$scale-$peer.tsv"
    # From /, so nothing in the working directory shadows a library.
    if ! (cd / && nice -n 10 "$venv/bin/python" "$here/peers/${peer}_w1.py" \
        --data "$data" --scale "$scale" --runs "$runs" --budget "$budget" --out "$tsv"); then
        failed+=("$peer (run)")
    fi
done
if [ ${#failed[@]} -gt 0 ]; then
    echo "run_peers.sh: failed: ${failed[*]}" >&2
    exit 1
fi
echo "run_peers.sh: all peers done; rows in $out"
