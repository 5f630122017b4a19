#!/usr/bin/env bash
# Installs what a fresh machine lacks for building and testing stratagraph.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v cargo >/dev/null 2>&1; then
    if [ -x "$HOME/.cargo/bin/cargo" ]; then
        export PATH="$HOME/.cargo/bin:$PATH"
    else
        echo "setup: cargo not found; installing Rust from Debian's packages" >&2
        apt-get update -qq && apt-get install -y -qq cargo rustc rustfmt rust-clippy
    fi
fi
rustup component add rustfmt clippy >/dev/null 2>&1 || true

# Python: the virtual environment the README names (.venv), with the build
# and test tools, and the stratagraph package built from this checkout.
export PATH="$HOME/.cargo/bin:$PATH"
venv=.venv
if [ ! -x "$venv/bin/python" ]; then
    if ! python3 -m venv "$venv" 2>/dev/null; then
        echo "setup: python3 -m venv failed; installing python3-venv" >&2
        rm -rf "$venv"
        apt-get update -qq && apt-get install -y -qq python3-venv
        python3 -m venv "$venv"
    fi
fi
if [ ! -x "$venv/bin/maturin" ] ||
    ! "$venv/bin/python" -c "import numpy, scipy, networkx, pytest, tqdm" 2>/dev/null; then
    "$venv/bin/python" -m pip install -q --disable-pip-version-check --upgrade pip
    "$venv/bin/python" -m pip install -q --disable-pip-version-check \
        maturin numpy scipy networkx pytest tqdm
fi
# The Gremlin server's tests drive it with TinkerPop's Node driver too
# (crates/stratagraph-server/tests/js, versions pinned by its lock file).
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    echo "setup: node or npm not found; installing Debian's nodejs and npm" >&2
    apt-get update -qq && apt-get install -y -qq nodejs npm
fi
js=crates/stratagraph-server/tests/js
if ! grep -qs '"version": "3.8.2"' "$js/node_modules/gremlin/package.json"; then
    npm ci --prefix "$js" --no-audit --no-fund --silent
fi
# The Gremlin server's tests drive it with TinkerPop's own Python driver.
if ! "$venv/bin/python" -c "import gremlin_python.driver" 2>/dev/null ||
    [ "$("$venv/bin/python" -c 'from importlib.metadata import version; print(version("gremlinpython"))')" != 3.8.2 ]; then
    "$venv/bin/python" -m pip install -q --disable-pip-version-check gremlinpython==3.8.2
fi
# The other ends of Parquet exports and Arrow tables in the Python tests:
# DuckDB (a second engine, as the README's example uses it), pyarrow,
# pandas and polars.
if [ "$("$venv/bin/python" -c 'from importlib.metadata import version as v; print(v("duckdb"), v("pyarrow"), v("pandas"), v("polars"))' 2>/dev/null)" != "2.0.1 26.0.1 3.1.1 2.1.0" ]; then
    "$venv/bin/python" -m pip install -q --disable-pip-version-check \
        duckdb==2.0.1 pyarrow==26.0.1 pandas==3.1.1 polars==2.1.0
fi
# An editable install: the pure-Python files are used from the checkout, the
# extension is rebuilt incrementally (a no-op cargo build when unchanged).
# Quiet when it works, the whole log when it does not.
log="$(mktemp)"
if ! VIRTUAL_ENV="$PWD/$venv" "$venv/bin/maturin" develop --release \
    -m crates/stratagraph-py/Cargo.toml >"$log" 2>&1; then
    cat "$log" >&2
    rm -f "$log"
    echo "setup: building the Python package failed" >&2
    exit 1
fi
rm -f "$log"
