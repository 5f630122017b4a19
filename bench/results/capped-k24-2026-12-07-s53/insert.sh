#!/usr/bin/env bash
# insert_single under the 545 MiB cap from a copy of the k24 store
# sitting.sh loaded (FROM), with the binary BIN, every settling pass
# printed (SG_PROBE_STEPS; the base build has no probe and prints none).
# Run once with this session's build and once with the base, 7d653c2, from
# copies of the same store, one after the other.
set -u
cd /work/main
bin=${BIN:?the stratagraph binary to run}
from=${FROM:?the loaded store to copy}
label=${LABEL:-insert_single}
dir=bench/results/capped-k24-2026-12-07-s53
store=/work/k24insert
export SG_PROBE_STEPS=1
rm -rf "$store"; cp -a "$from" "$store"
python3 bench/memcap.py --limit 545M --label "$label" --tsv "$dir/memcap.tsv" --cold "$store" -- \
  "$bin" bench capped --data /work/anchors24 --scale 24 --store "$store" --phase insert_single \
  --memory 256M --threads 1 --out "$dir/$label.tsv" 2> "$dir/probe-$label.txt"
echo "$label exit $? $(date)"
