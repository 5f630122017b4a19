#!/usr/bin/env bash
# Runs the interchange benchmark (issue 33's speed section: Parquet import
# and export, Arrow out of and into stratagraph) on stratagraph, kuzu,
# networkit and igraph, one system after the other, and prints a summary.
#
#   bench/interchange/run.sh [--scale 20] [--runs 3] [--out DIR] [system ...]
#
# Systems: stratagraph kuzu networkit igraph (all by default). stratagraph
# runs in the repo's .venv as it is installed there (editable; this script
# builds nothing). The others each in a virtual environment of their own,
# created if missing: $STRATAGRAPH_PEER_VENVS/interchange-<system> (default
# /work/data/peer-venvs) with kuzu==0.11.3, networkit==11.2.2, igraph==1.0.0,
# each with pyarrow==26.0.1 and numpy. Inputs: gen_parquet.py writes
# $STRATAGRAPH_W1_DATA/interchange/k<S>/{nodes,edges}.parquet (default
# /work/data) from k<S>.bin if they are missing or older than it; exports
# and databases go to .../interchange/scratch and are removed. Rows go to
# OUT/interchange-k<S>-<system>.tsv (default bench/results), the summary
# also to OUT/interchange-k<S>-summary.txt. A system whose install or run
# fails is reported at the end and the others still run. Not part of CI.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
venvs="${STRATAGRAPH_PEER_VENVS:-/work/data/peer-venvs}"
data="${STRATAGRAPH_W1_DATA:-/work/data}"
scale=20 runs=3 out="$repo/bench/results"
systems=()
while [ $# -gt 0 ]; do
    case "$1" in
        --scale) scale="$2"; shift 2 ;;
        --runs) runs="$2"; shift 2 ;;
        --out) out="$2"; shift 2 ;;
        -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
        -*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
        *) systems+=("$1"); shift ;;
    esac
done
[ ${#systems[@]} -gt 0 ] || systems=(stratagraph kuzu networkit igraph)
mkdir -p "$venvs" "$out"
out="$(cd "$out" && pwd)"
inputs="$data/interchange/k$scale"
scratch="$data/interchange/scratch"
mkdir -p "$scratch"
repo_py="$repo/.venv/bin/python"

PYARROW="pyarrow==26.0.1"
packages() {  # pip requirements, then the modules to import
    case "$1" in
        kuzu) echo "kuzu==0.11.3 $PYARROW numpy|kuzu" ;;
        networkit) echo "networkit==11.2.2 $PYARROW numpy|networkit" ;;
        igraph) echo "igraph==1.0.0 $PYARROW numpy|igraph" ;;
        *) return 1 ;;
    esac
}

failed=()

# The inputs, from k<S>.bin, with the repo's python (numpy, pyarrow).
if [ ! -f "$inputs/inputs.json" ] || [ "$data/k$scale.bin" -nt "$inputs/inputs.json" ]; then
    echo "== writing $inputs/{nodes,edges}.parquet from $data/k$scale.bin"
    (cd / && "$repo_py" "$here/gen_parquet.py" "$scale" "$inputs" --data "$data")
fi

for s in "${systems[@]}"; do
    if [ "$s" = stratagraph ]; then
        py="$repo_py"
        if ! (cd / && "$py" -c "import stratagraph, pyarrow") 2>/dev/null; then
            echo "== stratagraph does not import in $repo/.venv; retrying in 30 s (a rebuild?)"
            sleep 30
        fi
    else
        if ! spec="$(packages "$s")"; then
            echo "run.sh: unknown system $s" >&2
            failed+=("$s (unknown)")
            continue
        fi
        reqs="${spec%%|*}" module="${spec##*|}"
        v="$venvs/interchange-$s"
        py="$v/bin/python"
        [ -x "$py" ] || python3 -m venv "$v"
        # Installed as pinned? (pip freeze names the versions exactly.)
        have="$("$py" -m pip freeze --disable-pip-version-check 2>/dev/null || true)"
        missing=0
        for r in $reqs; do
            case "$r" in
                *==*) grep -qix "$r" <<<"$have" || missing=1 ;;
                *) grep -qi "^$r==" <<<"$have" || missing=1 ;;
            esac
        done
        if [ "$missing" = 1 ]; then
            echo "== installing $reqs into $v"
            if ! "$py" -m pip install -q --disable-pip-version-check $reqs; then
                echo "run.sh: pip install $reqs failed for $s" >&2
                failed+=("$s (install)")
                continue
            fi
        fi
        if ! (cd / && "$py" -c "import $module, pyarrow, numpy"); then
            failed+=("$s (import)")
            continue
        fi
    fi
    tsv="$out/interchange-k$scale-$s.tsv"
    echo "== $s -> $tsv"
    # From /, so nothing in the working directory shadows a library.
    if ! (cd / && nice -n 10 "$py" "$here/${s}_io.py" --data "$data" --scale "$scale" --runs "$runs" \
          --inputs "$inputs" --scratch "$scratch" --out "$tsv"); then
        failed+=("$s (run)")
    fi
done

# What stratagraph build was measured: the editable install's library.
so="$(ls "$repo"/crates/stratagraph-py/python/stratagraph/_native*.so 2>/dev/null | head -1 || true)"
dirty="$(git -C "$repo" status --porcelain --untracked-files=no -- crates | wc -l)"
summary="$out/interchange-k$scale-summary.txt"
{
    echo "# stratagraph: $repo/.venv editable install, HEAD $(git -C "$repo" rev-parse --short HEAD)," \
         "$dirty changed tracked files under crates/, native library built $( [ -n "$so" ] && date -r "$so" '+%F %T' || echo '?')"
    python3 "$here/summary.py" "$out"/interchange-k"$scale"-*.tsv
} | tee "$summary"
if [ ${#failed[@]} -gt 0 ]; then
    echo "run.sh: failed: ${failed[*]}" >&2
    exit 1
fi
echo "run.sh: done; rows in $out/interchange-k$scale-*.tsv, summary in $summary"
