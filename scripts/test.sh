#!/usr/bin/env bash
# The whole test run, from a clean clone: installs what the tests need (the
# language servers included), then formatting, lints and every test (golden
# snapshots, real language servers, faults, MCP over stdio, bad input).
set -euo pipefail
cd "$(dirname "$0")/.."

# rustfmt and clippy come with the toolchain but may be missing from a
# minimal install; rust-analyzer is a rustup component too.
rustup component add rustfmt clippy rust-analyzer

# The TypeScript servers, each in its own npm prefix of sextant's tools
# directory, where sextant looks for them: TypeScript 7's native server
# (the default), and typescript-language-server with TypeScript 6 (TypeScript
# 7 has no tsserver), which projects pinning TypeScript 6 or older get.
tools="${SEXTANT_TOOLS_DIR:-$HOME/.local/share/sextant/tools}"
npm_install() {
    mkdir -p "$tools/$1"
    npm install --no-audit --no-fund --prefix "$tools/$1" "${@:2}"
}
if ! ls "$tools"/typescript-go/node_modules/@typescript/typescript-*/lib/tsc >/dev/null 2>&1; then
    npm_install typescript-go typescript@7
fi
tsls="$tools/typescript-language-server/node_modules"
if [ ! -x "$tsls/.bin/typescript-language-server" ] || [ ! -f "$tsls/typescript/lib/tsserver.js" ]; then
    npm_install typescript-language-server typescript-language-server@5 typescript@6
fi
export SEXTANT_TOOLS_DIR="$tools"

cargo fmt --all -- --check
cargo clippy --locked --all-targets -- -D warnings
cargo test --locked
