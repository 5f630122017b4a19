#!/usr/bin/env bash
# Session 53's k24 load under the 545 MiB cap, as bench/run_capped.sh runs
# it. BIN is the build to run: the runs here were of this session's
# commits (passes in slices, per-source look-ups, levels read ahead) built
# with settle-probe.patch, which prints each settling pass (look-ups, time,
# bytes its thread read, CPU) to probe-$LABEL.txt when SG_PROBE_STEPS is
# set; nothing else differs. load-sliced.tsv and probe-load-sliced.txt are
# an earlier build of the same work without the read-ahead.
set -u
cd /work/main
bin=${BIN:?the stratagraph binary to run}
dir=bench/results/capped-k24-2026-12-07-s53
store=${STORE:-/work/k24capped}
label=${LABEL:-load}
export SG_PROBE_STEPS=1
rm -rf "$store"
python3 -c 'import os; print("load average at start:", os.getloadavg())' > "$dir/machine-$label.txt"
python3 bench/memcap.py --limit 545M --label "$label" --tsv "$dir/memcap.tsv" -- \
  "$bin" bench capped --data /work/anchors24 --scale 24 --store "$store" --phase load \
  --memory 256M --threads 1 --out "$dir/$label.tsv" 2> "$dir/probe-$label.txt"
echo "$label exit $? $(date)"
