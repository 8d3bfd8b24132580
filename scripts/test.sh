#!/usr/bin/env bash
# The whole test run, from a clean clone: installs what the tests need (the
# language servers included), then formatting, lints and every test (golden
# snapshots, real language servers, faults, MCP over stdio, bad input).
set -euo pipefail
cd "$(dirname "$0")/.."

# rustfmt and clippy come with the toolchain but may be missing from a
# minimal install; rust-analyzer is a rustup component too.
rustup component add rustfmt clippy rust-analyzer

# typescript-language-server with TypeScript 6 (TypeScript 7 has no
# tsserver), in sextant's own tools directory, where sextant looks for it.
tools="${SEXTANT_TOOLS_DIR:-$HOME/.local/share/sextant/tools}"
if [ ! -x "$tools/node_modules/.bin/typescript-language-server" ] ||
   [ ! -f "$tools/node_modules/typescript/lib/tsserver.js" ]; then
    mkdir -p "$tools"
    npm install --no-audit --no-fund --prefix "$tools" typescript-language-server@5 typescript@6
fi
export SEXTANT_TOOLS_DIR="$tools"

cargo fmt --all -- --check
cargo clippy --locked --all-targets -- -D warnings
cargo test --locked
