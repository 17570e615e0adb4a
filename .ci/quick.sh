#!/usr/bin/env bash
# The everyday check (about 2 minutes of CPU once the kernels are compiled): ruff, mypy
# --strict, and the suite with the JIT on, stopping at the first failure, leaving out
# the tests marked slow (fresh processes that compile the kernels from nothing, the
# examples, the JIT-off replay), the bounds-checked and JIT-off runs, coverage, the
# doctests, the benchmarks and the documentation build.  .ci/test.sh runs everything.
# Extra arguments go to pytest (e.g. .ci/quick.sh tests/test_rules.py).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=.venv/bin
if [ ! -x "$bin/pytest" ]; then
    echo "no .venv yet: run bash .ci/test.sh once (it sets it up)" >&2
    exit 2
fi
export PYTHONHASHSEED=0
echo "== ruff"
"$bin/ruff" check qwirkle_core tests benchmarks examples docs
echo "== mypy --strict"
"$bin/mypy" --strict qwirkle_core
echo "== the suite, JIT on, without the slow tests"
code=0
"$bin/python" -m pytest -x -p no:warnings -m "not slow" -o console_output_style=count "${@:-tests}" || code=$?
if [ "$code" -eq 5 ]; then
    echo "no tests were collected: that is a failure" >&2
fi
exit "$code"
