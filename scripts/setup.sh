#!/usr/bin/env bash
# Installs what building and checking verdict needs on a fresh machine; safe to rerun.
# The Rust toolchain itself (cargo, rustc) is expected.
#   bash scripts/setup.sh        everything: lint components, LightGBM's build tools,
#                                the Python test environment
#   bash scripts/setup.sh demo   only what `cargo demo` needs (a C compiler)
set -euo pipefail
as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}
if [ "${1:-}" = "demo" ]; then
  # The quick build has no LightGBM; zstd (for Parquet) compiles a little C.
  if ! command -v cc >/dev/null 2>&1; then
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gcc >/dev/null
  fi
  exit 0
fi

# The rustfmt and clippy components, when missing (a failure to fetch them is
# reported, not fatal: the tests need neither).
if command -v rustup >/dev/null 2>&1; then
  for component in rustfmt clippy; do
    if ! rustup component list --installed 2>/dev/null | grep -q "^${component}"; then
      rustup component add "${component}" || echo "warning: could not install ${component}" >&2
    fi
  done
fi

# LightGBM, the NashEval learner's gradient-boosted trees, is built from its bundled
# C++ source: it needs CMake >= 3.28 (Debian's is older; the PyPI wheel is current), a
# C++ compiler and libclang (for the generated bindings).
cmake_is_recent() {
  command -v cmake >/dev/null 2>&1 &&
    printf '%s\n%s\n' "3.28" "$(cmake --version | head -n1 | awk '{print $3}')" | sort -V -C
}
if ! cmake_is_recent; then
  python3 -m pip install --quiet --disable-pip-version-check "cmake>=3.28"
  hash -r
fi
if ! dpkg -s libclang-dev >/dev/null 2>&1 || ! command -v c++ >/dev/null 2>&1; then
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libclang-dev g++ >/dev/null
fi

# The report tests open pages in Debian's headless Chromium through ChromeDriver (no
# browser is downloaded at test time).
if ! command -v chromium >/dev/null 2>&1 || ! command -v chromedriver >/dev/null 2>&1; then
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null
fi

# Spark's tests run its local mode, which needs a Java runtime (17 or later).
java_major() {
  java -version 2>&1 | head -n1 | sed -E 's/.*version "(1\.)?([0-9]+).*/\2/'
}
if ! command -v java >/dev/null 2>&1 || [ "$(java_major)" -lt 17 ] 2>/dev/null; then
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openjdk-17-jre-headless >/dev/null
fi

# The Python module: a virtual environment at .venv with maturin (its build backend),
# pytest and the libraries the Python tests compare against.
root="$(cd "$(dirname "$0")/.." && pwd)"
if [ ! -x "$root/.venv/bin/python" ]; then
  python3 -m venv "$root/.venv"
fi
# A wheel whose download arrives damaged fails pip's check against the index's hash;
# such a transfer is tried twice more, without pip's cache, before set-up gives up.
install_test_requirements() {
  "$root/.venv/bin/python" -m pip install --quiet --disable-pip-version-check "$@" \
    -r "$root/python/requirements-test.txt"
}
install_test_requirements ||
  { echo "set-up: retrying the Python packages without pip's cache" >&2; sleep 5
    install_test_requirements --no-cache-dir; } ||
  { echo "set-up: retrying the Python packages once more" >&2; sleep 20
    install_test_requirements --no-cache-dir; }

# The default text encoder: WordLlama's 256-d token table and LLaMA tokenizer, as the
# `wordllama` wheel (MIT, installed above from PyPI) ships them, copied to
# encoders/wordllama-l2-supercat with the package's licence (`--encoder
# encoders/wordllama-l2-supercat`). Nothing is fetched from a model hub.
encoder="$root/encoders/wordllama-l2-supercat"
package="$("$root/.venv/bin/python" -c 'import wordllama, pathlib; print(pathlib.Path(wordllama.__file__).parent)')"
license="$("$root/.venv/bin/python" -c 'from importlib.metadata import distribution as d; print(next(str(d("wordllama").locate_file(f)) for f in d("wordllama").files if f.name == "LICENSE"))')"
mkdir -p "$encoder"
cp -f "$package/weights/l2_supercat_256.safetensors" "$encoder/"
cp -f "$package/tokenizers/l2_supercat_tokenizer_config.json" "$encoder/"
cp -f "$license" "$encoder/LICENSE"
