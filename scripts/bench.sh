#!/usr/bin/env bash
# The benchmark: every tool on the fixtures and on generated projects,
# through the release binary over MCP, with sextant's overhead over the raw
# LSP requests, answer sizes, memory, cold start and grep against ripgrep;
# then the shared instance under 1, 5 and 10 sessions at once.
# Prints the table and writes it to BENCHMARKS.md (see benches/table.rs).
#
#   bash scripts/bench.sh
#
# The grep cases search the cargo registry's sources, or $SEXTANT_BENCH_TREE.
set -euo pipefail
cd "$(dirname "$0")/.."

source scripts/install-servers.sh

# ripgrep is the reference for grep: install it if missing.
if ! command -v rg >/dev/null 2>&1; then
    if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
        apt-get update
        apt-get install -y ripgrep
    else
        cargo install ripgrep --locked
    fi
fi

cargo bench --locked --bench table
cargo bench --locked --bench shared
cargo bench --locked --bench navigation -- writes
