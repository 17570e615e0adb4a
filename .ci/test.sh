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

# Three runs of the suite, side by side: each spends most of its time on one core
# (numba compiling its kernels, or plain Python), and the machine has two.
# - bounds-checked kernels, with their own numba cache (the cache ignores
#   NUMBA_BOUNDSCHECK): an out-of-range access raises instead of reading junk;
# - the JIT off, under coverage (at least 90% of qwirkle_core);
# - the JIT on: tests, doctests (this README's examples too), every benchmark once.
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
echo "== the suite: bounds-checked, JIT off with coverage, JIT on (side by side)"
NUMBA_BOUNDSCHECK=1 NUMBA_CACHE_DIR="$PWD/.numba_cache_boundscheck" \
    "$bin/python" -m pytest tests -q -p no:warnings >"$logs/boundscheck" 2>&1 &
boundscheck=$!
NUMBA_DISABLE_JIT=1 "$bin/python" -m pytest tests -q -p no:warnings \
    --cov=qwirkle_core --cov-report=term --cov-fail-under=90 >"$logs/nojit" 2>&1 &
nojit=$!
"$bin/python" -m pytest tests benchmarks qwirkle_core README.md \
    --doctest-modules --doctest-glob='README.md' -q >"$logs/jit" 2>&1 &
jit=$!
failed=0
wait "$boundscheck" || failed=1
wait "$nojit" || failed=1
wait "$jit" || failed=1
echo "-- bounds-checked kernels:"
cat "$logs/boundscheck"
echo "-- the JIT off, with coverage:"
cat "$logs/nojit"
echo "-- the JIT on, with doctests and every benchmark once:"
cat "$logs/jit"
if [ "$failed" -ne 0 ]; then
    echo "a run above failed"
    exit 1
fi
