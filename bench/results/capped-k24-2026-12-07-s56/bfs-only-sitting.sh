#!/usr/bin/env bash
# BFS and WCC on /work/k24insert (a k24 store after insert_single), capped
# (cold, 545 MiB) and uncapped (warm), in turn, three runs each:
# /work/stratagraph-scout (2fa6758, the residual BFS) against
# /work/stratagraph-b9ed21a (session 55's sitting). Results: bfs-only/.
set -u
cd /work/main
out=/work/bfs-sitting2
mkdir -p $out
run() { # bin label cap
  local bin=$1 label=$2 cap=$3
  local cmd=(/work/stratagraph-$bin bench capped --data /work/anchors24 --scale 24 --store /work/k24insert --phase reads --memory 256M --threads 1 --reads bfs,wcc --out $out/$bin-$label.tsv)
  if [ $cap = none ]; then "${cmd[@]}" > /dev/null 2>&1; else
    python3 bench/memcap.py --limit $cap --label $bin-$label --tsv $out/memcap.tsv --cold /work/k24insert -- "${cmd[@]}" > /dev/null 2>&1; fi
  echo "$bin $label exit $?"
}
for i in 1 2 3; do run scout capped-$i 545M; run b9ed21a capped-$i 545M; done
run scout warmup none
for i in 1 2 3; do run scout uncapped-$i none; run b9ed21a uncapped-$i none; done
echo DONE
