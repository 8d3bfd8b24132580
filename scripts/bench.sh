#!/usr/bin/env bash
# Benchmark sextant's grep against ripgrep on a large real tree.
#
#   bash scripts/bench.sh            # the cargo registry sources
#   SEXTANT_BENCH_TREE=/some/tree SEXTANT_BENCH_RUNS=11 bash scripts/bench.sh
#
# Extra arguments are passed on to `cargo bench`.
set -euo pipefail
cd "$(dirname "$0")/.."

# ripgrep is the reference: install it if missing.
if ! command -v rg >/dev/null 2>&1; then
    if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
        apt-get update
        apt-get install -y ripgrep
    else
        cargo install ripgrep --locked
    fi
fi

# Builds sextant with the bench (release) profile, then times both tools.
cargo bench --bench grep_vs_rg "$@"
