#!/usr/bin/env bash
# The everyday check (under 2 minutes once the kernels are compiled, on 2 cores): ruff,
# mypy --strict, and the suite with the JIT on, on every core (pytest-xdist), stopping at
# the first failure.  It leaves out the tests marked slow (fresh processes that compile
# the kernels from nothing, the examples, the JIT-off replay), process (the command
# line and the engine in fresh processes) and cluster (Dask clusters), the
# bounds-checked and JIT-off runs, coverage, the doctests, the benchmarks and the
# documentation build.  .ci/test.sh runs everything.
# Extra arguments go to pytest (e.g. .ci/quick.sh tests/test_rules.py).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=.venv/bin
if [ ! -x "$bin/python" ]; then
    echo "no .venv yet: run the README's setup command, or bash .ci/test.sh (it sets one up)" >&2
    exit 2
fi
if ! "$bin/python" -c "import pytest, xdist, hypothesis, mypy" 2>/dev/null; then
    echo "== installing the test extra into .venv"
    "$bin/python" -m pip install --quiet --disable-pip-version-check \
        --config-settings editable_mode=compat -e '.[test]'
fi
export PYTHONHASHSEED=0
echo "== ruff"
"$bin/ruff" check qwirkle_core tests benchmarks examples docs .ci
echo "== mypy --strict"
"$bin/mypy" --strict qwirkle_core
echo "== the suite, JIT on, on every core, without the slow, process and cluster tests"
code=0
"$bin/python" -m pytest -x -p no:warnings -n auto -m "not slow and not process and not cluster" \
    "${@:-tests}" || code=$?
if [ "$code" -eq 5 ]; then
    echo "no tests were collected: that is a failure" >&2
fi
exit "$code"
