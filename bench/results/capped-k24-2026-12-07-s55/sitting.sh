#!/usr/bin/env bash
# Session 55's k24 sitting under the 545 MiB cap: stratagraph's phases
# (bench/run_capped.sh, reads without scan_rand, which alone takes about
# half an hour under the cap), then RocksDB (rocksdict) and Kuzu
# (bench/run_capped_peers.sh), one after the other on a quiet machine.
set -u
cd "$(dirname "$0")/../../.."
here=bench/results/capped-k24-2026-12-07-s55
rev=$(git rev-parse --short HEAD)
echo "start $(date)"
bench/run_capped.sh --scale 24 --data /work/anchors24 --cap 545M --memory 256M \
    --store /work/k24capped --out "$here/stratagraph-$rev" \
    --reads search_edge,scan_seq,bfs,pr,wcc,sssp
echo "stratagraph exit $? $(date)"
bench/run_capped_peers.sh --scale 24 --data /work/anchors24 --cap 545M --memory 256M \
    --budget 300 --scratch /work/capped-peers --out "$here/peers" rocksdict kuzu
echo "peers exit $? $(date)"
echo ALLDONE
