#!/usr/bin/env bash
# The rest of sitting.sh after stratagraph's insert_single: its reads phase
# stopped at PageRank, whose k24 reference had not been written on this
# machine (`bench/ref_extra.py --scales 24 --no-triangles --data
# /work/anchors24`, run before this). The same phases bench/run_capped.sh
# runs after insert_single, on the same store, from a copy of the same
# binary (b9ed21a); then the peers as sitting.sh runs them.
set -u
cd "$(dirname "$0")/../../.."
here=bench/results/capped-k24-2026-12-07-s55
bin=/work/stratagraph-b9ed21a
out=$here/stratagraph-b9ed21a
store=/work/k24capped
reads=search_edge,scan_seq,bfs,pr,wcc,sssp
phase() {
  local name="$1" label="$2" limit="$3"; shift 3
  local cmd=("$bin" bench capped --data /work/anchors24 --scale 24 --store "$store" --phase "$name"
      --memory 256M --threads 1 --out "$out-$label.tsv" "$@")
  if [ "$limit" = none ]; then "${cmd[@]}"; else
    python3 bench/memcap.py --limit "$limit" --label "$label" --tsv "$out-memcap.tsv" --cold "$store" -- "${cmd[@]}"; fi
  echo "$label exit $? $(date)"
}
echo "start $(date)"
phase reads reads 545M --reads $reads
phase reads reads-uncapped none --reads $reads
phase reads reads-uncapped none --reads $reads
phase delete_mixed delete_mixed 545M
bench/run_capped_peers.sh --scale 24 --data /work/anchors24 --cap 545M --memory 256M \
    --budget 300 --scratch /work/capped-peers --out "$here/peers" rocksdict kuzu
echo "peers exit $? $(date)"
echo ALLDONE
