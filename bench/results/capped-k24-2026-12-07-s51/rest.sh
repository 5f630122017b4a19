#!/usr/bin/env bash
# What ran after insert_single in place of the rest of sitting.sh (the
# machine was slower today and the session's time short): WCC alone with
# the session-start build (a311d35) and this one (12b56b9) alternating,
# capped and cold, two rounds; then uncapped, two rounds (the first run,
# a311d35's, warmed the cache after the capped runs); then BFS capped and cold with the build
# that prints each step's bytes read (bfs-steps.txt).
set -u
cd /work/main
while pgrep -f "phase insert_single" > /dev/null; do sleep 10; done
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
  phase $old wcc-old-capped-$r 545M --reads wcc
  phase $new wcc-new-capped-$r 545M --reads wcc
done
for r in 1 2; do
  phase $old wcc-old-warm-$r none --reads wcc
  phase $new wcc-new-warm-$r none --reads wcc
done
python3 bench/memcap.py --limit 545M --label bfs-steps --tsv "$dir/memcap.tsv" --cold "$store" -- \
  /work/stratagraph-bfsinstr bench capped --data /work/anchors24 --scale 24 --store "$store" --phase reads \
  --memory 256M --threads 1 --reads bfs --out "$dir/bfs-steps.tsv" 2> "$dir/bfs-steps.txt" > /dev/null
echo ALLDONE $(date)
