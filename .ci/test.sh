#!/usr/bin/env bash
# Set up a fresh machine (a virtual environment in .venv) and run every check.
# This is the README's test command, and what CI runs (.ci/run calls it).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e '.[test]'
bin=.venv/bin
export PYTHONHASHSEED=0

echo "== ruff and mypy --strict"
"$bin/ruff" check qwirkle_core tests benchmarks examples
"$bin/mypy" --strict qwirkle_core

echo "== bounds-checked kernels (own numba cache: the cache ignores NUMBA_BOUNDSCHECK)"
NUMBA_BOUNDSCHECK=1 NUMBA_CACHE_DIR="$PWD/.numba_cache_boundscheck" \
    "$bin/python" -m pytest tests -q -p no:warnings

echo "== JIT off, with coverage (at least 90% of qwirkle_core)"
NUMBA_DISABLE_JIT=1 "$bin/python" -m pytest tests -q -p no:warnings \
    --cov=qwirkle_core --cov-report=term --cov-fail-under=90

echo "== the whole suite with the JIT: tests, doctests (README included), benchmarks once each"
"$bin/python" -m pytest tests benchmarks qwirkle_core README.md \
    --doctest-modules --doctest-glob='README.md' -q
