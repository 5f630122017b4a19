#!/usr/bin/env bash
# WCC pairs again on the same k24 store after the test suite had ended (nothing else running):
# a311d35 and 12b56b9 alternating, capped and cold, two rounds; then uncapped, three rounds
# (the first warms the cache after the capped runs).
set -u
cd /work/main
new=/work/stratagraph-12b56b9-real old=/work/stratagraph-a311d35
dir=bench/results/capped-k24-2026-12-07-s51
store=/work/k24capped
phase() {
  local bin="$1" label="$2" limit="$3"; shift 3
  local cmd=("$bin" bench capped --data /work/anchors24 --scale 24 --store "$store" --phase reads
      --memory 256M --threads 1 --out "$dir/$label.tsv" "$@")
  if [ "$limit" = none ]; then "${cmd[@]}" > /dev/null; else
    python3 bench/memcap.py --limit "$limit" --label "$label" --tsv "$dir/memcap.tsv" --cold "$store" -- "${cmd[@]}" > /dev/null; fi
  echo "$label exit $? $(date)"
}
for r in 1 2; do
  phase $old quiet-wcc-old-capped-$r 545M --reads wcc
  phase $new quiet-wcc-new-capped-$r 545M --reads wcc
done
for r in 1 2 3; do
  phase $old quiet-wcc-old-warm-$r none --reads wcc
  phase $new quiet-wcc-new-warm-$r none --reads wcc
done
