#!/usr/bin/env bash
# The supported numba range, tested (slow: two fresh environments, installs and kernel
# compilation from nothing; 8 1/2 minutes on the busy 2-core machine of 2026-12-03).  .ci/test.sh runs it when
# QWIRKLE_VERSIONS=1; it runs alone too: bash .ci/versions.sh [pytest arguments].
#
# Two throwaway virtual environments, side by side, each line of their output prefixed
# with its name:
#   [floor]  numba 0.59.1 with numpy 1.26 (pyproject.toml says numba>=0.59, numpy>=1.24;
#            numpy 1.26 is the newest numba 0.59 allows, and the oldest with Python 3.12);
#   [newest] the newest numba and the newest numpy it allows.
# Each gets the package installed as users get it (a wheel built once from this tree,
# `pip install 'qwirkle_core-*.whl[test]'`, not editable), compiles the kernels into
# a cache of its own (`qwirkle-core warmup`, with NUMBA_CACHE_DIR and XDG_CACHE_HOME
# its own: the package names its cache after its sources, which both share) and runs
# the quick tests (those of .ci/quick.sh: not slow, process or cluster) on every core.
#
# The tests import the installed package, not the checkout: they run in a copy of the
# tree without qwirkle_core/ (pyproject's pythonpath ["."], pytest's rootdir on
# sys.path and `python -m qwirkle_core` in the tests' subprocesses then find nothing
# there), and each run checks first where `qwirkle_core` is imported from.
#
# What is tested: the working tree (tracked and untracked files that git does not
# ignore), or the commit QWIRKLE_VERSIONS_REF names (e.g. QWIRKLE_VERSIONS_REF=HEAD).
# The environments live in a temporary directory, removed at the end
# (QWIRKLE_VERSIONS_KEEP=1 keeps it, and says where).  PYTHON picks the interpreter
# (default python3; numba 0.59 runs on Python 3.9 to 3.12).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
PYTHON=${PYTHON:-python3}
began=$SECONDS
say() { printf '== %s (%ds)\n' "$*" "$((SECONDS - began))"; }

if ! "$PYTHON" -c 'import sys; sys.exit(not ((3, 10) <= sys.version_info[:2] <= (3, 12)))'; then
    echo "$PYTHON is Python $("$PYTHON" -c 'import platform; print(platform.python_version())');" \
        "the floor (numba 0.59.1) needs Python 3.10 to 3.12 (the package needs 3.10+):" \
        "set PYTHON to one" >&2
    exit 2
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/qwirkle-versions.XXXXXX")
if [ "${QWIRKLE_VERSIONS_KEEP:-0}" = 1 ]; then
    trap 'echo "== kept $work"' EXIT
else
    trap 'rm -rf "$work"' EXIT
fi

say "copying the tree to test (${QWIRKLE_VERSIONS_REF:-the working tree}) into $work"
mkdir "$work/src"
if [ -n "${QWIRKLE_VERSIONS_REF:-}" ]; then
    git archive "$QWIRKLE_VERSIONS_REF" | tar -x -C "$work/src"
else
    # Tracked and untracked files that git does not ignore (no .venv, caches or build
    # outputs); a tracked file deleted in the working tree is left out.
    git ls-files -z --cached --others --exclude-standard \
        | while IFS= read -r -d '' f; do [ -f "$f" ] && printf '%s\0' "$f"; done \
        | tar --null -T - -c | tar -x -C "$work/src"
fi

export PYTHONUNBUFFERED=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PYTHONHASHSEED=0

run() {  # run NAME COMMAND...: the command's output, live, each line prefixed [NAME]
    local name=$1
    shift
    "$@" 2>&1 | sed -u "s/^/[$name] /"
}
logged() {  # logged NAME COMMAND...: as run, and kept in $work/NAME.log for the summary
    local name=$1
    shift
    "$@" 2>&1 | sed -u "s/^/[$name] /" | tee "$work/$name.log"
}

say "building the wheel"
"$PYTHON" -m venv "$work/build-env"
run wheel "$work/build-env/bin/python" -m pip wheel --quiet --no-deps -w "$work/dist" "$work/src"
wheel=$(ls "$work/dist"/qwirkle_core-*.whl)
# The tests' tree: the copy without the package's sources (and the wheel's build outputs).
rm -rf "$work/src/qwirkle_core" "$work/src/build" "$work/src"/*.egg-info "$work/build-env"

one() {  # one NAME CONSTRAINT...: an environment, the package, warmup and the quick tests
    local name=$1
    shift
    local env="$work/$name" t0=$SECONDS t1 t2
    # A copy of the tests' tree each: tests write beside themselves (.hypothesis/).
    cp -a "$work/src" "$env-tree"
    printf '%s\n' "$@" >"$work/$name-constraints.txt"
    echo "installing $(basename "$wheel")[test] with: ${*:-no constraint}"
    "$PYTHON" -m venv "$env"
    "$env/bin/python" -m pip install --quiet -c "$work/$name-constraints.txt" "$wheel[test]" || return 1
    "$env/bin/python" -c 'import sys, numba, numpy, llvmlite
print("python", sys.version.split()[0], "numba", numba.__version__, "llvmlite", llvmlite.__version__,
      "numpy", numpy.__version__)'
    t1=$SECONDS
    echo "installed in $((t1 - t0)) s"
    cd "$env-tree"
    # Where the tests will import the package from: the same sys.path as theirs (the
    # tree first), and it must be the environment's site-packages.
    "$env/bin/python" -c 'import sys, sysconfig; sys.path[:0] = ["."]; import qwirkle_core as q
site = sysconfig.get_path("purelib"); print("qwirkle_core from", q.__file__)
sys.exit(0 if q.__file__.startswith(site) else "not from " + site + ": the tests would test something else")' \
        || return 1
    export NUMBA_CACHE_DIR="$env/numba-cache" XDG_CACHE_HOME="$env/cache"
    "$env/bin/qwirkle-core" warmup || return 1
    t2=$SECONDS
    echo "warmup (compiling every kernel) in $((t2 - t1)) s"
    local code=0
    "$env/bin/pytest" -x -p no:warnings -n auto -m "not slow and not process and not cluster" \
        --color=no "${pytest_args[@]:-tests}" || code=$?
    echo "tests in $((SECONDS - t2)) s"
    [ "$code" -ne 5 ] || echo "no tests were collected: that is a failure"
    return "$code"
}

pytest_args=("$@")
say "[floor] numba 0.59.1 + numpy 1.26 and [newest] numba + numpy, side by side"
logged floor one floor 'numba==0.59.1' 'numpy==1.26.*' &
floor=$!
logged newest one newest &
newest=$!

failed=0
lines=()
for name in floor newest; do
    pid=${!name}
    code=0
    wait "$pid" || code=$?
    versions=$(grep -m1 -o 'numba [^ ]* llvmlite [^ ]* numpy [^ ]*' "$work/$name.log" || true)
    timings=$(grep -oE '(installed|warmup \(compiling every kernel\)|tests) in [0-9]+ s' "$work/$name.log" \
        | sed 's/ (compiling every kernel)//' | paste -sd, - | sed 's/,/, /g' || true)
    result=$(grep -E '[0-9]+ (passed|failed|errors?)' "$work/$name.log" | tail -1 | sed 's/^\[[a-z]*\] //; s/=//g; s/^ *//; s/ *$//' || true)
    if [ "$code" -eq 0 ]; then
        lines+=("   [$name] passed: ${versions:-?}; ${timings:-?}; ${result:-?}")
    else
        lines+=("   [$name] FAILED (exit $code): ${versions:-?}; ${timings:-?}; ${result:-no result}")
        failed=1
    fi
done
say "summary"
printf '%s\n' "${lines[@]}"
if [ "$failed" -ne 0 ]; then
    echo "an environment above failed"
    exit 1
fi
echo "both environments passed"
