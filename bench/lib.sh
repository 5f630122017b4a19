# Shell functions the bench/run_*.sh scripts share. Source it; it expects
# ROOT (the repository) to be set.

# The 1-minute load average.
loadavg() { cut -d' ' -f1 /proc/loadavg; }

# Waits until the 1-minute load average is below $1 (at most 20 minutes;
# then times anyway), and prints what it waited as a `# load:` line for a
# result file's header.
quiet() {
    local max="$1" start=$SECONDS
    while awk -v l="$(loadavg)" -v m="$max" 'BEGIN { exit !(l >= m) }'; do
        if (( SECONDS - start > 1200 )); then
            echo "# load: still $(loadavg) after 20 min of waiting; timed anyway"
            return
        fi
        sleep 15
    done
    echo "# load: $(loadavg) at start (waited $((SECONDS - start)) s)"
}

# Builds the release CLI and notes what it was built from beside it
# (target/release/stratagraph.source): the commit, whether crates/ had
# uncommitted changes, a hash of the Gremlin crate's sources, the time.
build_cli() {
    cargo build --release -q -p stratagraph-cli
    echo "$(git -C "$ROOT" rev-parse --short HEAD)$(git -C "$ROOT" diff --quiet HEAD -- crates 2>/dev/null || echo '+changes');" \
        "stratagraph-gremlin sources $(find "$ROOT/crates/stratagraph-gremlin/src" -type f | sort | xargs cat | sha256sum | cut -c1-12);" \
        "built $(date '+%Y-%m-%d %H:%M')" > "$ROOT/target/release/stratagraph.source"
}

# What the release CLI was built from, if build_cli recorded it after the
# binary's last change.
cli_source() {
    local cli="$ROOT/target/release/stratagraph"
    if [[ -f "$cli.source" && "$cli.source" -nt "$cli" ]]; then
        cat "$cli.source"
    else
        echo "binary of $(date -r "$cli" '+%Y-%m-%d %H:%M'), source not recorded"
    fi
}

# The packages a W1 peer's virtual environment needs (bench/peers/*_w1.py).
peer_packages() {
    case "$1" in
        networkit) echo "networkit numpy" ;;
        igraph) echo "igraph numpy" ;;
        kuzu) echo "kuzu numpy" ;;
        rocksdict) echo "rocksdict numpy" ;;
        networkx) echo "networkx numpy scipy" ;;  # nx.pagerank needs scipy
        *) return 1 ;;
    esac
}

# Makes sure the virtual environment $2/$1 exists with peer $1's packages
# from PyPI; prints its path. Fails (non-zero) if the peer is unknown or the
# install fails.
peer_venv() {
    local peer="$1" venvs="$2" pkgs venv modules
    pkgs="$(peer_packages "$peer")" || { echo "unknown peer $peer" >&2; return 1; }
    venv="$venvs/$peer"
    [ -x "$venv/bin/python" ] || python3 -m venv "$venv" >&2
    modules="$(sed 's/ /, /g' <<<"$pkgs")"
    if ! "$venv/bin/python" -c "import $modules" 2>/dev/null; then
        "$venv/bin/python" -m pip install -q --disable-pip-version-check $pkgs >&2 || return 1
    fi
    echo "$venv"
}
