#!/usr/bin/env bash
# Stopped after insert_single (the machine was slower than planned); rest.sh
# ran instead of the phases after it. Session 51's k24 sitting under the 545 MiB cap: the store built and
# single-edge-inserted as bench/run_capped.sh does (load, insert_single),
# then the reads (without scan_rand) capped and cold, then WCC alone with the
# session-start build (a311d35, a pass a round) and this one (12b56b9, the
# rounds in one pass) alternating, capped and cold, three rounds; then the
# reads uncapped twice (the second, warm, kept) and WCC warm alternating;
# then BFS once more, capped and cold, with a build that prints each step's
# bytes read (bfs-steps.txt). Binaries are copies, so /work/main can be
# rebuilt meanwhile. The loaded store is copied to /work/k24-after-load.
set -u
cd /work/main
while ! grep -q done /tmp/gen24.log; do sleep 10; done
new=/work/stratagraph-12b56b9 old=/work/stratagraph-a311d35
dir=bench/results/capped-k24-2026-12-07-s51
store=/work/k24capped
reads=search_edge,scan_seq,bfs,pr,wcc,sssp
phase() {
  local bin="$1" name="$2" label="$3" limit="$4"; shift 4
  local cmd=("$bin" bench capped --data /work/anchors24 --scale 24 --store "$store" --phase "$name"
      --memory 256M --threads 1 --out "$dir/$label.tsv" "$@")
  if [ "$limit" = none ]; then "${cmd[@]}"; else
    local cold=(); [ -d "$store" ] && cold=(--cold "$store")
    python3 bench/memcap.py --limit "$limit" --label "$label" --tsv "$dir/memcap.tsv" "${cold[@]}" -- "${cmd[@]}"; fi
  echo "$label exit $? $(date)"
}
rm -rf "$store"
python3 - <<'PY' > "$dir/machine-load.txt"
import os; print("load average at start:", os.getloadavg())
PY
phase $new load load 545M
# A copy of the loaded store, for insert_single trials from the same state.
rm -rf /work/k24-after-load; cp -a "$store" /work/k24-after-load
phase $new insert_single insert_single 545M
phase $new reads reads 545M --reads $reads
for r in 1 2 3; do
  phase $old reads wcc-old-capped-$r 545M --reads wcc --runs 1
  phase $new reads wcc-new-capped-$r 545M --reads wcc --runs 1
done
phase $new reads reads-uncapped none --reads $reads
phase $new reads reads-uncapped none --reads $reads
for r in 1 2 3; do
  phase $old reads wcc-old-warm-$r none --reads wcc --runs 3
  phase $new reads wcc-new-warm-$r none --reads wcc --runs 3
done
python3 bench/memcap.py --limit 545M --label bfs-steps --tsv "$dir/memcap.tsv" --cold "$store" -- \
  /work/stratagraph-bfsinstr bench capped --data /work/anchors24 --scale 24 --store "$store" --phase reads \
  --memory 256M --threads 1 --reads bfs --runs 1 --out "$dir/bfs-steps.tsv" 2> "$dir/bfs-steps.txt"
echo ALLDONE $(date)
