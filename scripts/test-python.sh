#!/usr/bin/env bash
# Builds the Python module into .venv (a debug build that reuses the workspace's
# compiled crates in target/) and runs its tests against the command line's binary.
set -euo pipefail
cd "$(dirname "$0")/.."
VIRTUAL_ENV="$PWD/.venv" .venv/bin/maturin develop --quiet
cargo build --quiet --bin verdict
.venv/bin/python -m pytest -q python/tests
