#!/usr/bin/env bash
# insert_single again from the same loaded store (sitting.sh's copy after
# its load), with the build of settle-probe.patch on 084332d: blind inserts
# settled by compaction only once due (twice the MemGraph budget or 16
# flushes) rather than before every step, and every settling pass timed
# (SG_PROBE_STEPS) in whichever thread ran it.
set -u
cd /work/main
bin=/work/stratagraph-settle-probe
dir=bench/results/capped-k24-2026-12-07-s52
store=/work/k24settle
export SG_PROBE_STEPS=1
rm -rf "$store"; cp -a /work/k24-after-load-s52 "$store"
python3 bench/memcap.py --limit 545M --label insert_single-settle --tsv "$dir/memcap-settle.tsv" --cold "$store" -- \
  "$bin" bench capped --data /work/anchors24 --scale 24 --store "$store" --phase insert_single \
  --memory 256M --threads 1 --out "$dir/insert_single-settle.tsv" 2> "$dir/steps-insert_single-settle.txt"
echo "settle exit $? $(date)"
