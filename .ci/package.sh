#!/usr/bin/env bash
# Build the sdist and the wheel, check what each carries (.ci/check_dist.py), and unpack
# the sdist into .sdist-check/ for .ci/test.sh, whose bounds-checked run then runs from
# there: the in-process tests and benchmarks run from the unpacked sdist prove that it
# carries every file they read.  (A fixed place, not a temporary one, so that numba's
# cache of the bounds-checked kernels, keyed on the sources' paths, is found again by
# the next run on the same machine.)
# Usage: bash .ci/package.sh   (needs .venv, as .ci/test.sh sets it up)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=.venv/bin
dist=$(mktemp -d)
trap 'rm -rf "$dist"' EXIT
# An isolated build (a fresh environment with the build requirements) as pip and users
# make it; its output only on failure.
if ! "$bin/python" -m build --sdist --wheel --outdir "$dist" . >"$dist/build.log" 2>&1; then
    cat "$dist/build.log"
    echo "building the sdist and the wheel failed"
    exit 1
fi
"$bin/python" .ci/check_dist.py "$dist"
rm -rf .sdist-check
mkdir .sdist-check
tar -xzf "$dist"/*.tar.gz -C .sdist-check --strip-components 1
echo "unpacked the sdist into .sdist-check/"
