#!/usr/bin/env bash
# Paired k20 W1 write phases under a 128 MiB cap: session-start build (263fd10), the merge pool
# alone, and the merge pool with the merge's fast path (new), alternating per round.
set -u
cd /work/main
out=/work/pair-s50; mkdir -p $out
for round in 1 2 3; do
  for b in old pool new; do
    bin=/work/stratagraph-263fd10; [ $b = pool ] && bin=/work/stratagraph-pool; [ $b = new ] && bin=/work/stratagraph-new
    store=/work/k20p-$b
    rm -rf $store
    for phase in load insert_single; do
      cold=(); [ -d $store ] && cold=(--cold $store)
      python3 bench/memcap.py --limit 128M --label $b-$round-$phase --tsv $out/memcap.tsv "${cold[@]}" -- \
        $bin bench capped --data /work/data --scale 20 --store $store --phase $phase --memory 64M --threads 1 \
        --out $out/$b-$round-$phase.tsv > $out/$b-$round-$phase.log 2>&1
      echo "$b $round $phase exit $?"
    done
  done
done
