#!/usr/bin/env bash
# Session 52's k24 sitting under the 545 MiB cap: load and insert_single as
# bench/run_capped.sh runs them, with abb5bfa (compaction by score, a
# level's excess in one step) built with step-print.patch, which prints each
# compaction step's L0 runs and level entries to stderr when SG_PROBE_STEPS
# is set (steps-*.txt); nothing else differs. Compared with sessions 50 and
# 51 (7e622dc's rules, L0 first), whose runs are in ../capped-k24-2026-12-07-s5{0,1}.
set -u
cd /work/main
bin=/work/stratagraph-pick-probe
dir=bench/results/capped-k24-2026-12-07-s52
store=/work/k24capped
export SG_PROBE_STEPS=1
phase() {
  local name="$1" label="$2"; shift 2
  local cold=(); [ -d "$store" ] && cold=(--cold "$store")
  python3 bench/memcap.py --limit 545M --label "$label" --tsv "$dir/memcap.tsv" "${cold[@]}" -- \
    "$bin" bench capped --data /work/anchors24 --scale 24 --store "$store" --phase "$name" \
    --memory 256M --threads 1 --out "$dir/$label.tsv" "$@" 2> "$dir/steps-$label.txt"
  echo "$label exit $? $(date)"
}
rm -rf "$store"
python3 -c 'import os; print("load average at start:", os.getloadavg())' > "$dir/machine-load.txt"
phase load load
rm -rf /work/k24-after-load-s52; cp -a "$store" /work/k24-after-load-s52
phase insert_single insert_single
