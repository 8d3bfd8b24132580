#!/usr/bin/env bash
# The whole test run, from a clean clone: formatting, lints, then every test
# (golden snapshots, MCP over stdio, bad input). Installs what the tests need.
set -euo pipefail
cd "$(dirname "$0")/.."

# The Rust toolchain is the only requirement so far; rustfmt and clippy come
# with it but may be missing from a minimal install.
rustup component add rustfmt clippy >/dev/null 2>&1 || true

cargo fmt --all -- --check
cargo clippy --locked --all-targets -- -D warnings
cargo test --locked
