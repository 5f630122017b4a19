#!/usr/bin/env bash
# Paired k20 W1 phases under a 128 MiB cap: old (session-start, b2e4cab) against new build,
# alternating. Rounds 1-2 ran with the build's first rule (sparse whenever smaller), rounds 3-4
# (this file) with the committed rule (sparse only with fewer entries than vertices).
set -u
cd /work/main
out=/work/pair-s48; mkdir -p $out
for round in 3 4; do
  for b in old new; do
    bin=/work/stratagraph-b2e4cab; [ $b = new ] && bin=/work/stratagraph-new
    store=/work/k20p-$b
    rm -rf $store
    for phase in load insert_single reads; do
      cold=(); [ -d $store ] && cold=(--cold $store)
      python3 bench/memcap.py --limit 128M --label $b-$round-$phase --tsv $out/memcap.tsv "${cold[@]}" -- \
        $bin bench capped --data /work/data --scale 20 --store $store --phase $phase --memory 64M --threads 1 \
        --out $out/$b-$round-$phase.tsv > $out/$b-$round-$phase.log 2>&1
      echo "$b $round $phase exit $?"
      du -sb $store | tail -1
    done
  done
done
