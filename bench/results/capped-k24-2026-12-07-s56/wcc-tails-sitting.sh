#!/usr/bin/env bash
# BFS and WCC on /work/k24insert, capped (cold, 545 MiB) and uncapped
# (warm), in turn, two runs each: /work/stratagraph-wcc2 (2fa6758 with the
# refactor of 19:00 and wcc-tails.patch: WCC's first pass keeps the rest of
# the short out-lists, range scans skip unwanted vertices on plain levels)
# against /work/stratagraph-scout (2fa6758). Results: wcc-tails/ (and
# wcc-tails/uncapped-again-*: four more uncapped runs each, in turn, the
# same command without the cgroup). wcc-tails-noskip/: the same sitting
# with /work/stratagraph-wcc (the tails without the skip). Not kept.
set -u
cd /work/main
out=/work/wcc2-s56
mkdir -p $out
run() { # bin label cap
  local bin=$1 label=$2 cap=$3
  local cmd=(/work/stratagraph-$bin bench capped --data /work/anchors24 --scale 24 --store /work/k24insert --phase reads --memory 256M --threads 1 --reads bfs,wcc --out $out/$bin-$label.tsv)
  if [ $cap = none ]; then "${cmd[@]}" > /dev/null 2>&1; else
    python3 bench/memcap.py --limit $cap --label $bin-$label --tsv $out/memcap.tsv --cold /work/k24insert -- "${cmd[@]}" > /dev/null 2>&1; fi
  echo "$bin $label exit $?"
}
for i in 1 2; do run wcc2 capped-$i 545M; run scout capped-$i 545M; done
run wcc2 warmup none
for i in 1 2; do run wcc2 uncapped-$i none; run scout uncapped-$i none; done
echo DONE
