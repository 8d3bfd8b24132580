#!/usr/bin/env bash
# The whole test run, from a clean clone: installs what the tests need (the
# language servers included), then formatting, lints and every test (golden
# snapshots, real language servers, faults, MCP over stdio and HTTP, bad
# input, property tests).
set -euo pipefail
cd "$(dirname "$0")/.."

source scripts/install-servers.sh

cargo fmt --all -- --check
cargo clippy --locked --all-targets -- -D warnings
cargo test --locked --no-fail-fast
