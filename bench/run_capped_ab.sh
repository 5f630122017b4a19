#!/usr/bin/env bash
# The reads of `stratagraph bench capped` (kernels, scans, look-ups) from
# two builds on one store, capped and uncapped, in turn: the A/B of a
# change to the read path under a memory cap (issue 32).
#
#   bench/run_capped_ab.sh --scale 24 --data /work/anchors24 \
#       --store /work/k24insert --cap 545M --memory 256M --reads bfs,wcc \
#       --runs 3 --out OUT /work/stratagraph-new /work/stratagraph-old
#
# The store must be in the reads phase's state (after insert_single); the
# reads phase opens it read-only, so every run reads the same store. Each
# capped run is its own process in a cgroup (bench/memcap.py, --cold: from
# the disk); then one warm-up run without the cap, and the uncapped runs.
# A and B alternate, A first, so that the machine's drift falls on both.
# Writes OUT/NAME-capped-I.tsv, OUT/NAME-uncapped-I.tsv (NAME: the
# binary's file name, which must differ between the two) and
# OUT/memcap.tsv (one line a capped run), and prints the medians. Needs
# root and cgroup v1.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
scale=20 data="${STRATAGRAPH_W1_DATA:-/work/data}" cap=128M memory=64M store="" out=""
threads=1 reads="" runs=3 bins=()
while [ $# -gt 0 ]; do
    case "$1" in
        --scale) scale="$2"; shift 2 ;;
        --data) data="$2"; shift 2 ;;
        --cap) cap="$2"; shift 2 ;;
        --memory) memory="$2"; shift 2 ;;
        --store) store="$2"; shift 2 ;;
        --out) out="$2"; shift 2 ;;
        --threads) threads="$2"; shift 2 ;;
        --reads) reads="$2"; shift 2 ;;
        --runs) runs="$2"; shift 2 ;;
        -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
        -*) echo "run_capped_ab.sh: unknown argument $1" >&2; exit 2 ;;
        *) bins+=("$1"); shift ;;
    esac
done
[ -n "$store" ] && [ -n "$out" ] && [ ${#bins[@]} -eq 2 ] || {
    echo "run_capped_ab.sh: --store, --out and two binaries are required" >&2
    exit 2
}
names=("$(basename "${bins[0]}")" "$(basename "${bins[1]}")")
[ "${names[0]}" != "${names[1]}" ] || {
    echo "run_capped_ab.sh: the two binaries need different file names (${names[0]})" >&2
    exit 2
}
[ -d "$store" ] || { echo "run_capped_ab.sh: no store at $store" >&2; exit 2; }
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || { echo "run_capped_ab.sh: --runs $runs is not a count" >&2; exit 2; }
cd "$ROOT"
mkdir -p "$out"
read_args=()
[ -n "$reads" ] && read_args=(--reads "$reads")
# bin name label capped(yes/no)
run() {
    local cmd=("$1" bench capped --data "$data" --scale "$scale" --store "$store" --phase reads
        --memory "$memory" --threads "$threads" --out "$out/$2-$3.tsv" "${read_args[@]}")
    if [ "$4" = yes ]; then
        python3 "$ROOT/bench/memcap.py" --limit "$cap" --label "$2-$3" --tsv "$out/memcap.tsv" \
            --cold "$store" -- "${cmd[@]}" > /dev/null
    else
        "${cmd[@]}" > /dev/null
    fi
    echo "$2 $3 done"
}
for i in $(seq "$runs"); do
    for k in 0 1; do run "${bins[$k]}" "${names[$k]}" "capped-$i" yes; done
done
run "${bins[0]}" "${names[0]}" warmup no
for i in $(seq "$runs"); do
    for k in 0 1; do run "${bins[$k]}" "${names[$k]}" "uncapped-$i" no; done
done
# Medians of each read, capped and uncapped, and their ratio (of times, or
# of rates for search_edge), a line a build and read.
python3 - "$out" "${names[@]}" <<'PY'
import glob, os, statistics, sys
out, names = sys.argv[1], sys.argv[2:]
for name in names:
    rows = {}
    for kind in ("capped", "uncapped"):
        for path in glob.glob(os.path.join(out, f"{name}-{kind}-*.tsv")):
            for line in open(path):
                f = line.rstrip("\n").split("\t")
                if len(f) == 8 and not line.startswith(("#", "system")):
                    rows.setdefault((f[3], kind), []).append(float(f[5]))
    for op in sorted({op for op, _ in rows}):
        c, u = rows.get((op, "capped")), rows.get((op, "uncapped"))
        if c and u and not op.endswith("_read_bytes"):
            mc, mu = statistics.median(c), statistics.median(u)
            ratio = f"capped/uncapped {mc / mu:.2f}" if mu > 0 else ""
            print(f"{name}\t{op}\tcapped {mc:.4g}\tuncapped {mu:.4g}\t{ratio}")
PY
