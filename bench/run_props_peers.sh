#!/usr/bin/env bash
# Runs the property-graph benchmark (issue 29's "Speed": Lissandrini-style
# micro-operations on labelled vertices and edges with properties) on
# stratagraph and its peers, each system in its own virtual environment,
# one after the other, and writes one TSV per data set and system.
#
#   bench/run_props_peers.sh [--datasets gd-x100,k20p] [--runs 3] [--budget 120]
#                            [--scale-queries 1] [--out DIR] [--no-build] [system ...]
#
# Systems: stratagraph kuzu ladybug networkx (all by default). Virtual
# environments: $STRATAGRAPH_PEER_VENVS/props-<system> (default
# /work/data/peer-venvs): kuzu==0.11.3, ladybug==0.22.0 (real-ladybug,
# kuzu's maintained fork), networkx, and stratagraph as a wheel that
# `maturin build --release` makes from this checkout's HEAD (exported
# with git archive to props-src/, target dir props-target/, so uncommitted
# edits in the working tree and the repo's .venv are left alone; once per
# invocation, skipped with --no-build). Data: gen_props.py writes
# $STRATAGRAPH_PROPS_DATA/<dataset> (default /work/data/props) if it is
# missing; k20p needs the W1 file k20.bin in $STRATAGRAPH_W1_DATA (default
# /work/data). Rows go to OUT/props-<dataset>-<system>.tsv (default
# bench/results). A system whose install, build or run fails is reported
# at the end and the others still run. Not part of CI.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/.." && pwd)"
venvs="${STRATAGRAPH_PEER_VENVS:-/work/data/peer-venvs}"
w1data="${STRATAGRAPH_W1_DATA:-/work/data}"
pdata="${STRATAGRAPH_PROPS_DATA:-/work/data/props}"
datasets="gd-x100,k20p" runs=3 budget=120 scaleq=1 out="$here/results" build=1
systems=()
while [ $# -gt 0 ]; do
    case "$1" in
        --datasets) datasets="$2"; shift 2 ;;
        --runs) runs="$2"; shift 2 ;;
        --budget) budget="$2"; shift 2 ;;
        --scale-queries) scaleq="$2"; shift 2 ;;
        --out) out="$2"; shift 2 ;;
        --no-build) build=0; shift ;;
        -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
        -*) echo "run_props_peers.sh: unknown option $1" >&2; exit 2 ;;
        *) systems+=("$1"); shift ;;
    esac
done
[ ${#systems[@]} -gt 0 ] || systems=(stratagraph kuzu ladybug networkx)
mkdir -p "$venvs" "$out" "$pdata"

venv_for() {  # creates $venvs/props-$1 if absent and installs $2.. into it
    local v="$venvs/props-$1"; shift
    [ -x "$v/bin/python" ] || python3 -m venv "$v"
    "$v/bin/python" -m pip install -q --disable-pip-version-check "$@"
}

packages() {
    case "$1" in
        kuzu) echo "kuzu==0.11.3" ;;
        ladybug) echo "ladybug==0.22.0" ;;
        networkx) echo "networkx" ;;
        stratagraph) echo "numpy tqdm" ;;
        *) return 1 ;;
    esac
}

failed=()

# The data sets (the generator needs numpy: a venv of its own).
IFS=, read -r -a dslist <<<"$datasets"
for ds in "${dslist[@]}"; do
    [ -f "$pdata/$ds/meta.json" ] && continue
    "$venvs/props-gen/bin/python" -c "import numpy" 2>/dev/null || venv_for gen numpy
    echo "== generating $ds into $pdata/$ds"
    (cd / && "$venvs/props-gen/bin/python" "$here/props/gen_props.py" --out "$pdata" --data "$w1data" "$ds")
done

# The stratagraph wheel, once per invocation, from HEAD.
built_from=""
for s in "${systems[@]}"; do
    [ "$s" = stratagraph ] || continue
    built_from="$(git -C "$repo" rev-parse --short HEAD)"
    if [ "$build" = 1 ]; then
        echo "== building the stratagraph wheel from HEAD $built_from"
        maturin="$repo/.venv/bin/maturin"
        if [ ! -x "$maturin" ]; then
            venv_for gen numpy "maturin>=1.9.4,<2"
            maturin="$venvs/props-gen/bin/maturin"
        fi
        rm -rf "$venvs/props-src" "$venvs/props-wheel"
        mkdir -p "$venvs/props-src" "$venvs/props-wheel"
        git -C "$repo" archive HEAD | tar -x -C "$venvs/props-src"
        if ! (cd "$venvs/props-src" && CARGO_TARGET_DIR="$venvs/props-target" nice -n 10 \
              "$maturin" build --release -m crates/stratagraph-py/Cargo.toml -o "$venvs/props-wheel"); then
            echo "run_props_peers.sh: the stratagraph wheel did not build" >&2
            failed+=("stratagraph (build)")
            continue
        fi
        echo "$built_from" >"$venvs/props-wheel/COMMIT"
    else
        built_from="$(cat "$venvs/props-wheel/COMMIT" 2>/dev/null || echo unknown)"
    fi
    if ! venv_for stratagraph numpy tqdm || ! "$venvs/props-stratagraph/bin/python" -m pip install -q \
            --disable-pip-version-check --force-reinstall --no-deps "$venvs"/props-wheel/stratagraph-*.whl; then
        failed+=("stratagraph (install)")
    fi
done

for s in "${systems[@]}"; do
    if ! pkgs="$(packages "$s")"; then
        echo "run_props_peers.sh: unknown system $s" >&2
        failed+=("$s (unknown)")
        continue
    fi
    case " ${failed[*]-} " in *" $s ("*) continue ;; esac
    v="$venvs/props-$s"
    if [ "$s" != stratagraph ] && ! "$v/bin/python" -c "import $s, numpy" 2>/dev/null; then
        if ! venv_for "$s" $pkgs numpy; then
            failed+=("$s (install)")
            continue
        fi
    fi
    for ds in "${dslist[@]}"; do
        tsv="$out/props-$ds-$s.tsv"
        echo "== $s on $ds -> $tsv"
        # From /, so nothing in the working directory shadows a library.
        if ! (cd / && STRATAGRAPH_BUILT_FROM="$built_from" nice -n 10 "$v/bin/python" \
              "$here/props/${s}_props.py" --dataset "$pdata/$ds" --runs "$runs" \
              --budget "$budget" --scale-queries "$scaleq" --out "$tsv"); then
            failed+=("$s on $ds (run)")
        fi
    done
done
if [ ${#failed[@]} -gt 0 ]; then
    echo "run_props_peers.sh: failed: ${failed[*]}" >&2
    exit 1
fi
echo "run_props_peers.sh: done; rows in $out/props-*.tsv (summary: python3 $here/props/summary.py $out/props-*.tsv)"
