#!/usr/bin/env bash
# W1 on RocksDB (rocksdict) and Kuzu under the memory cap run_capped.sh gives
# stratagraph (issue 32): bench/peers/capped_w1.py, one phase per process,
# each inside bench/memcap.py's cgroup, from the disk (--cold) after the load.
#
#   bench/run_capped_peers.sh --scale 24 --data /work/anchors24 --cap 545M --memory 256M \
#       --scratch /work/capped-peers --out bench/results/capped-peers-k24 [peer ...]
#
# Peers: rocksdict kuzu (both by default), each in its own virtual
# environment from PyPI under $STRATAGRAPH_PEER_VENVS (default
# /work/data/peer-venvs). A peer's store is SCRATCH/PEER (Kuzu's CSV files
# for COPY FROM beside it, written by the untimed, uncapped prepare phase);
# both are removed first and left afterwards. Kuzu's buffer pool is the cap
# unless --buffer-pool says otherwise (bytes; the issue asks for the cap);
# RocksDB gets --memory as `bench capped` does (default 64M: an eighth for
# its write buffers, an eighth for its block cache). A load the cap stops
# is reported (memcap line, `failed` at the end) and done again without
# the cap, so that the later phases still run under it; an insert_single
# stopped at the budget (or killed) is completed by the uncapped, untimed
# fill phase. Each read runs in its own capped process, from the disk.
# --budget is the seconds one operation may take before it is stopped
# (capped_w1.py says how far it got). Writes OUT-PEER-PHASE.tsv and one
# memcap line a phase to OUT-memcap.tsv. Waits for the load average to fall
# below --max-load first, as run_capped.sh. Needs root and cgroup v1.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
. "$ROOT/bench/lib.sh"
venvs="${STRATAGRAPH_PEER_VENVS:-/work/data/peer-venvs}"
scale=20 data="${STRATAGRAPH_W1_DATA:-/work/data}" cap=128M memory=64M scratch="" out="" budget=600 pool="" max_load=1.5
peers=()
while [ $# -gt 0 ]; do
    case "$1" in
        --scale) scale="$2"; shift 2 ;;
        --data) data="$2"; shift 2 ;;
        --cap) cap="$2"; shift 2 ;;
        --scratch) scratch="$2"; shift 2 ;;
        --out) out="$2"; shift 2 ;;
        --memory) memory="$2"; shift 2 ;;
        --budget) budget="$2"; shift 2 ;;
        --buffer-pool) pool="$2"; shift 2 ;;
        --max-load) max_load="$2"; shift 2 ;;
        -h|--help) sed -n '2,25p' "$0"; exit 0 ;;
        -*) echo "run_capped_peers.sh: unknown option $1" >&2; exit 2 ;;
        *) peers+=("$1"); shift ;;
    esac
done
[ -n "$scratch" ] && [ -n "$out" ] || { echo "run_capped_peers.sh: --scratch and --out are required" >&2; exit 2; }
[ ${#peers[@]} -gt 0 ] || peers=(rocksdict kuzu)
out="$(realpath -m "$out")"
mkdir -p "$scratch" "$(dirname "$out")"
bytes_of() { python3 -c "import sys; sys.path.insert(0, '$ROOT/bench'); import memcap; print(memcap.parse_size('$1'))"; }
limit_bytes="$(bytes_of "$cap")"
memory_bytes="$(bytes_of "$memory")"
[ -n "$pool" ] || pool="$limit_bytes"
quiet "$max_load" | tee "$out-machine-load.txt"
failed=()
for peer in "${peers[@]}"; do
    case "$peer" in rocksdict|kuzu) ;; *) echo "run_capped_peers.sh: unknown peer $peer" >&2; exit 2 ;; esac
    venv="$(peer_venv "$peer" "$venvs")" || { failed+=("$peer (install)"); continue; }
    store="$scratch/$peer"
    rm -rf "$store" "$store.csv"
    # One process a read, so that a read the cap kills does not take the
    # others with it (stratagraph's reads run in one process).
    phases=(prepare load insert_single fill)
    for read in search_edge scan_seq scan_rand bfs pr wcc sssp; do phases+=("reads:$read"); done
    phases+=(delete_mixed)
    for step in "${phases[@]}"; do
        phase="${step%%:*}" label="${step/:/-}"
        cmd=("$venv/bin/python" "$ROOT/bench/peers/capped_w1.py" --peer "$peer" --data "$data"
            --scale "$scale" --store "$store" --phase "$phase" --budget "$budget"
            --buffer-pool "$pool" --memory "$memory_bytes" --out "$out-$peer-$label.tsv")
        [ "$phase" = reads ] && cmd+=(--reads "${step#reads:}")
        # From /, so nothing in the working directory shadows a library.
        if [ "$phase" = prepare ] || [ "$phase" = fill ]; then
            (cd / && "${cmd[@]}") || { failed+=("$peer $label"); break; }
            continue
        fi
        cold=()
        [ -d "$store" ] && cold=(--cold "$store")
        if ! (cd / && python3 "$ROOT/bench/memcap.py" --limit "$cap" --label "$peer-$label" \
            --tsv "$out-memcap.tsv" "${cold[@]}" -- "${cmd[@]}"); then
            failed+=("$peer $label")
            [ "$phase" = load ] || continue
            # A load the cap stops is a result (its memcap line says so);
            # the store is then loaded without the cap, so that the other
            # phases still run under it.
            echo "run_capped_peers.sh: $peer's load failed under the cap; loading it again without the cap" >&2
            rm -rf "$store"
            cmd[${#cmd[@]}-1]="$out-$peer-load-uncapped.tsv"
            (cd / && "${cmd[@]}") || break
        fi
    done
done
if [ ${#failed[@]} -gt 0 ]; then
    echo "run_capped_peers.sh: failed: ${failed[*]}" >&2
    exit 1
fi
echo "run_capped_peers.sh: done; rows in $out-*.tsv"
