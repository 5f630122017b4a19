#!/usr/bin/env bash
# W1 on one on-disk store under a memory cap (issue 32): each phase of
# `stratagraph bench capped` runs in its own cgroup (bench/memcap.py), then
# the reads run again without the cap on the same store, for the ratio.
#
#   bench/run_capped.sh --scale 24 --data /work/anchors24 --cap 545M \
#       --memory 256M --store /work/k24capped --out bench/results/capped-k24
#
# --cap is the cgroup's limit (page cache counts); --memory is what the
# store sizes its MemGraph and load batches by (stratagraph load --memory);
# --reads picks the reads phase's reads (`bench capped --reads`; all by
# default: scan_rand alone takes about half an hour at k24 under 545 MiB).
# --from PHASE (load, insert_single, reads, reads-uncapped, delete_mixed)
# skips the phases before it and keeps the store: to finish a sitting that
# stopped partway, on the store it left. The load phase checks first that
# every reference the later phases need is in --data (PageRank's top vertex
# is in kS.ref_extra.json).
# Writes OUT-<phase>.tsv (rows), OUT-reads-uncapped.tsv, and OUT-memcap.tsv
# (one memcap line a phase: wall time, the cgroup's peak, whether the cap
# killed it). It first waits for the machine's load average to fall below
# --max-load (1.5; at most 20 minutes), noted in OUT-machine-load.txt.
# The uncapped reads run twice and the second, on a warm page cache, is
# kept. The store is removed first (unless --from) and left afterwards. Needs
# root and cgroup v1 (memcap.py); the W1 files of the scale in --data
# (bench/gen_graph_lowmem.py writes scale 24 on this machine; PageRank's
# reference needs bench/ref_extra.py --no-triangles).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
. "$ROOT/bench/lib.sh"
scale=20 data="${STRATAGRAPH_W1_DATA:-/work/data}" cap=128M memory=64M store="" out="" threads=1 max_load=1.5 reads="" from=load
while [ $# -gt 0 ]; do
    case "$1" in
        --scale) scale="$2"; shift 2 ;;
        --data) data="$2"; shift 2 ;;
        --cap) cap="$2"; shift 2 ;;
        --memory) memory="$2"; shift 2 ;;
        --store) store="$2"; shift 2 ;;
        --out) out="$2"; shift 2 ;;
        --threads) threads="$2"; shift 2 ;;
        --max-load) max_load="$2"; shift 2 ;;
        --reads) reads="$2"; shift 2 ;;
        --from) from="$2"; shift 2 ;;
        -h|--help) sed -n '2,26p' "$0"; exit 0 ;;
        *) echo "run_capped.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done
[ -n "$store" ] && [ -n "$out" ] || { echo "run_capped.sh: --store and --out are required" >&2; exit 2; }
labels=(load insert_single reads reads-uncapped delete_mixed)
case " ${labels[*]} " in
    *" $from "*) ;;
    *) echo "run_capped.sh: --from $from is not a phase (one of ${labels[*]})" >&2; exit 2 ;;
esac
cd "$ROOT"
build_cli
bin="$ROOT/target/release/stratagraph"
[ "$from" = load ] && rm -rf "$store"
# Whether the phase labelled $1 runs: from --from on.
started=false
due() {
    [ "$1" = "$from" ] && started=true
    [ "$started" = true ]
}
phase() {
    local name="$1" label="$2" limit="$3"
    shift 3
    local cmd=("$bin" bench capped --data "$data" --scale "$scale" --store "$store" --phase "$name"
        --memory "$memory" --threads "$threads" --out "$out-$label.tsv" "$@")
    if [ "$limit" = none ]; then
        "${cmd[@]}"
    else
        # --cold: the phase starts from the disk, not from pages an earlier
        # uncapped run left in the page cache outside any cgroup.
        local cold=()
        [ -d "$store" ] && cold=(--cold "$store")
        python3 "$ROOT/bench/memcap.py" --limit "$limit" --label "$label" --tsv "$out-memcap.tsv" \
            "${cold[@]}" -- "${cmd[@]}"
    fi
}
quiet "$max_load" | tee "$out-machine-load.txt"
read_args=()
[ -n "$reads" ] && read_args=(--reads "$reads")
if due load; then phase load load "$cap" "${read_args[@]}"; fi
if due insert_single; then phase insert_single insert_single "$cap"; fi
if due reads; then phase reads reads "$cap" "${read_args[@]}"; fi
if due reads-uncapped; then
    phase reads reads-uncapped none "${read_args[@]}"
    phase reads reads-uncapped none "${read_args[@]}"
fi
if due delete_mixed; then phase delete_mixed delete_mixed "$cap"; fi
