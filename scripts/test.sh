#!/usr/bin/env bash
# Every check CI runs: formatting, lints (warnings are errors), all tests
# (cargo's, then the pytest suites of the Python package and of the Gremlin
# server in .venv).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
export PATH="$HOME/.cargo/bin:$PATH"
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --release -- -D warnings
log="$(mktemp)"
pylog="$(mktemp)"
trap 'rm -f "$log" "$pylog"' EXIT
# Both suites run even if the first fails, so one run reports everything.
status=0
cargo test --workspace --release --no-fail-fast 2>&1 | tee "$log" || status=1
# The server's Python tests start the CLI (`stratagraph serve`).
cargo build --release -q -p stratagraph-cli
.venv/bin/python -m pytest crates/stratagraph-py/tests crates/stratagraph-server/tests/python bench/tests \
    -q -p no:cacheprovider 2>&1 |
    tee "$pylog" || status=1
# One closing line over every test binary (cargo's last line may be an
# empty doc-test run) and pytest's summary ("3 failed, 97 passed, 1 error
# in 9.1s"; errors count as failures).
read -r passed failed < <(awk '/^test result:/ { p += $4; f += $6 } END { print p + 0, f + 0 }' "$log")
summary="$(tail -n 1 "$pylog")"
count() { grep -oE "[0-9]+ $1" <<<"$summary" | grep -oE '^[0-9]+' || echo 0; }
passed=$((passed + $(count passed)))
failed=$((failed + $(count failed) + $(count 'errors?')))
skipped=$(count skipped)
if ! grep -qE '[0-9]+ (passed|failed)' <<<"$summary"; then
    echo "test.sh: no pytest summary line (pytest crashed or collected nothing)" >&2
    status=1
fi
if [ "$skipped" -gt 0 ]; then
    printf '%d passed, %d failed, %d skipped\n' "$passed" "$failed" "$skipped"
else
    printf '%d passed, %d failed\n' "$passed" "$failed"
fi
[ "$status" -eq 0 ] && [ "$failed" -eq 0 ]
