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
