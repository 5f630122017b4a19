#!/usr/bin/env bash
# The main job: build, load a real graph into an in-memory store, stream
# single-edge deletes and re-inserts, print statistics and look-ups.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
export PATH="$HOME/.cargo/bin:$PATH"
cargo build --release -p stratagraph-cli
graph="${1:-../shared/datasets/real/soc-Slashdot0902.txt.gz}"
./target/release/stratagraph demo "$graph"
