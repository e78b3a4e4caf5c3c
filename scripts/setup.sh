#!/usr/bin/env bash
# Installs what building and checking verdict needs on a fresh machine; safe to rerun.
# The Rust toolchain itself (cargo, rustc) is expected; this adds the rustfmt and clippy
# components when they are missing (a failure to fetch them is reported, not fatal:
# the tests need neither).
set -euo pipefail
if command -v rustup >/dev/null 2>&1; then
  for component in rustfmt clippy; do
    if ! rustup component list --installed 2>/dev/null | grep -q "^${component}"; then
      rustup component add "${component}" || echo "warning: could not install ${component}" >&2
    fi
  done
fi
