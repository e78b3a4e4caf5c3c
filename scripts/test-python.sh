#!/usr/bin/env bash
# Builds the Python module into .venv (a debug build that reuses the workspace's
# compiled crates in target/) and runs its tests against the command line's binary,
# the one `cargo test --workspace` built (asking for it the same way builds nothing
# new; `cargo build --bin verdict` would unify features differently and rebuild).
set -euo pipefail
cd "$(dirname "$0")/.."
VIRTUAL_ENV="$PWD/.venv" .venv/bin/maturin develop --quiet
cargo test --workspace --no-run --quiet
.venv/bin/python -m pytest -q -rs python/tests
