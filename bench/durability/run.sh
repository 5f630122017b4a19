#!/usr/bin/env bash
# Durability figures of issue 4, stratagraph and RocksDB in one run:
#   bench/durability/run.sh [--scale S] [--runs N] [--seconds T]
# Writes bench/durability/results-kS.tsv (machine header + rows of both).
# Needs the W1 files in /work/data (DATA=...) and network access to PyPI
# the first time (RocksDB comes from the `rocksdict` wheel, installed into
# its own virtual environment under $BENCH_VENVS, default /work/data/peer-venvs).
set -euo pipefail
cd "$(dirname "$0")/../.."
scale=20 runs=3 seconds=3
while [ $# -gt 0 ]; do
    case "$1" in
        --scale) scale="$2"; shift 2 ;;
        --runs) runs="$2"; shift 2 ;;
        --seconds) seconds="$2"; shift 2 ;;
        *) echo "usage: $0 [--scale S] [--runs N] [--seconds T]" >&2; exit 2 ;;
    esac
done
data="${DATA:-/work/data}"
venv="${BENCH_VENVS:-/work/data/peer-venvs}/rocksdict"
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q --disable-pip-version-check rocksdict
fi
export PATH="$HOME/.cargo/bin:$PATH"
cargo build --release -q -p stratagraph-cli
out="bench/durability/results-k$scale.tsv"
tmp="$(mktemp)"
target/release/stratagraph bench durability --data "$data" --scale "$scale" \
    --runs "$runs" --seconds "$seconds" --out "$tmp"
{
    cat "$tmp"
    "$venv/bin/python" bench/durability/rocksdb_wal.py --data "$data" --scale "$scale" \
        --runs "$runs" --seconds "$seconds"
} > "$out"
rm -f "$tmp"
echo "wrote $out"
