#!/usr/bin/env bash
# The rest of bench/run_capped.sh's k24 sitting after its load, as it runs them, but the reads
# without scan_rand (16.7M random lists under the cap do not fit the session) and from a copy
# of the binary (so /work/main can be rebuilt meanwhile).
set -u
cd /work/main
while pgrep -f "memcap.py --limit 545M --label load" > /dev/null; do sleep 10; done
bin=/work/stratagraph-8b7f3ff
out=bench/results/capped-k24-2026-12-07-s50/stratagraph-8b7f3ff
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
phase insert_single insert_single 545M
phase reads reads 545M --reads $reads
phase reads reads-uncapped none --reads $reads
phase reads reads-uncapped none --reads $reads
phase delete_mixed delete_mixed 545M
echo ALLDONE
