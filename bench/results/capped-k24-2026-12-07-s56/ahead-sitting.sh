#!/usr/bin/env bash
# BFS, WCC and SSSP on /work/k24insert, capped (cold, 545 MiB) and uncapped
# (warm), in turn, two runs each: /work/stratagraph-ahead (2fa6758 with
# scan-ahead.patch: range scans ask the levels a window ahead) against
# /work/stratagraph-scout (2fa6758). Results: ahead/. Not kept in the code.
set -u
cd /work/main
out=/work/ahead-s56
mkdir -p $out
run() { # bin label cap
  local bin=$1 label=$2 cap=$3
  local cmd=(/work/stratagraph-$bin bench capped --data /work/anchors24 --scale 24 --store /work/k24insert --phase reads --memory 256M --threads 1 --reads bfs,wcc,sssp --out $out/$bin-$label.tsv)
  if [ $cap = none ]; then "${cmd[@]}" > /dev/null 2>&1; else
    python3 bench/memcap.py --limit $cap --label $bin-$label --tsv $out/memcap.tsv --cold /work/k24insert -- "${cmd[@]}" > /dev/null 2>&1; fi
  echo "$bin $label exit $?"
}
for i in 1 2; do run ahead capped-$i 545M; run scout capped-$i 545M; done
run ahead warmup none
for i in 1 2; do run ahead uncapped-$i none; run scout uncapped-$i none; done
echo DONE
