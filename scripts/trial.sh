#!/usr/bin/env bash
# Tries sextant on a real project as an agent would: builds the release
# binary, installs the servers, and runs scripts/trial.py on PROJECT_DIR
# (every call's time, bytes and first line, every position shown checked
# against the file).
#
#   bash scripts/trial.sh PROJECT_DIR [QUERY ...]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/install-servers.sh
cargo build --locked --release --quiet
python3 scripts/trial.py "$PWD/target/release/sextant" "$@"
