#!/usr/bin/env bash
# usage: k20reads.sh BIN STORE OUTPREFIX CAP [build]
set -euo pipefail
bin=$1 store=$2 out=$3 cap=$4 build=${5:-}
case "$out" in /*) ;; *) out=$PWD/$out;; esac; cd /work/main
run() { local phase=$1 label=$2 lim=$3; shift 3
  local cmd=("$bin" bench capped --data /work/data --scale 20 --store "$store" --phase "$phase" --memory 64M --threads 1 --out "$out-$label.tsv" "$@")
  if [ "$lim" = none ]; then "${cmd[@]}" >/dev/null; else
    python3 bench/memcap.py --limit "$lim" --label "$label" --tsv "$out-memcap.tsv" --cold "$store" -- "${cmd[@]}" >/dev/null; fi; }
if [ -n "$build" ]; then rm -rf "$store"
  python3 bench/memcap.py --limit 128M --label load --tsv "$out-memcap.tsv" -- "$bin" bench capped --data /work/data --scale 20 --store "$store" --phase load --memory 64M --threads 1 --out "$out-load.tsv" >/dev/null
  python3 bench/memcap.py --limit 128M --label insert_single --tsv "$out-memcap.tsv" -- "$bin" bench capped --data /work/data --scale 20 --store "$store" --phase insert_single --memory 64M --threads 1 --out "$out-ins.tsv" >/dev/null
fi
R=search_edge,scan_seq,bfs,pr,wcc,sssp
run reads capped "$cap" --reads $R
run reads warm none --reads $R
run reads warm none --reads $R
