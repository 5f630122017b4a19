#!/usr/bin/env bash
# The reads phase's kernels on one k24 store, capped (cold, 545 MiB) and
# uncapped (warm), 2fa6758 (the residual BFS, built as /work/stratagraph-scout)
# against b9ed21a (session 55's sitting), in turn, three runs each.
# /work/k24insert is a k24 store after insert_single (session 54's, opened
# read-only by the reads phase, so every run reads the same store).
set -u
cd /work/main
out=/work/kernels-s56
mkdir -p $out
run() { # bin label cap
  local bin=$1 label=$2 cap=$3
  local cmd=(/work/stratagraph-$bin bench capped --data /work/anchors24 --scale 24 --store /work/k24insert --phase reads --memory 256M --threads 1 --reads bfs,pr,wcc,sssp --out $out/$bin-$label.tsv)
  if [ $cap = none ]; then "${cmd[@]}" > /dev/null 2>&1; else
    python3 bench/memcap.py --limit $cap --label $bin-$label --tsv $out/memcap.tsv --cold /work/k24insert -- "${cmd[@]}" > /dev/null 2>&1; fi
  echo "$bin $label exit $?"
}
for i in 1 2 3; do run scout capped-$i 545M; run b9ed21a capped-$i 545M; done
run scout warmup none
for i in 1 2 3; do run scout uncapped-$i none; run b9ed21a uncapped-$i none; done
echo DONE
