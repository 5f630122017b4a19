#!/usr/bin/env bash
# Merge workers at nice 10 (this build) against nice 0 (a9de89f): in-memory single-edge commits
# at k20 on one and two threads, then the k20 capped load and insert_single, alternating.
cd /work/main
for r in "nice 1" "pool 1" "nice 2" "pool 2"; do
  set -- $r
  bin=/work/stratagraph-readbytes; [ $1 = nice ] && bin=/work/stratagraph-nice
  $bin bench w1 --scale 20 --data /work/data --ops insert_single --homes memory --runs 3 --threads 1,2 --out /work/w1pair/ins-$1-$2.tsv > /dev/null 2>&1
  echo "ins $1 $2 $(grep -v '^#' /work/w1pair/ins-$1-$2.tsv | awk -F'\t' '$1=="stratagraph" && $4=="insert_single"{printf "%s thr: %s  ", $5, $6}')"
done
for r in "nice 1" "pool 1"; do
  set -- $r
  bin=/work/stratagraph-readbytes; [ $1 = nice ] && bin=/work/stratagraph-nice
  store=/work/k20n-$1; rm -rf $store
  for phase in load insert_single; do
    cold=(); [ -d $store ] && cold=(--cold $store)
    python3 bench/memcap.py --limit 128M --label $1-$2-$phase --tsv /work/w1pair/capped-memcap.tsv "${cold[@]}" -- \
      $bin bench capped --data /work/data --scale 20 --store $store --phase $phase --memory 64M --threads 1 \
      --out /work/w1pair/capped-$1-$2-$phase.tsv > /dev/null 2>&1
    echo "capped $1 $2 $phase $(grep -v '^#' /work/w1pair/capped-$1-$2-$phase.tsv | awk -F'\t' 'NR>1 && $4 !~ /stall|disk/{printf "%s=%s ", $4, $6}')"
  done
done
