#!/usr/bin/env bash
# Set up a fresh machine (a virtual environment in .venv) and run every check.
# This is the README's test command, and what CI runs (.ci/run calls it).
# It talks as it goes: each step says what it runs, and the three test runs stream
# their progress live, each line prefixed with the run's name ([bounds], [nojit],
# [jit]); a summary at the end says which passed.  For everyday work, .ci/quick.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
began=$SECONDS
say() { printf '== %s (%ds)\n' "$*" "$((SECONDS - began))"; }

# The analysis board's browser tests drive the system's Chromium (Debian's chromium and
# chromium-driver, never a browser downloaded by a test tool).  Installed here when
# missing and running as root, in the background so that it overlaps the pip install
# and the static checks; if it fails, those tests skip and say why.
# Bounded (a stalled mirror must not hold the run), and ended with the script: an exit
# before the wait below (a static check failed) must not leave apt holding dpkg's lock.
browser_log=$(mktemp)
browser_install=
end_browser_install() {
    if [ -n "$browser_install" ]; then
        kill "$browser_install" 2>/dev/null || true  # timeout passes it on to apt-get
        wait "$browser_install" 2>/dev/null || true
    fi
    rm -f "$browser_log"
}
trap end_browser_install EXIT
if ! command -v chromedriver >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    say "installing chromium and chromium-driver (apt-get, in the background) for the browser tests"
    DEBIAN_FRONTEND=noninteractive timeout 900 bash -c 'o=(-o Acquire::Retries=2 -o Acquire::http::Timeout=30 -o DPkg::Lock::Timeout=120)
        apt-get "${o[@]}" update -qq && apt-get "${o[@]}" install -y -qq --no-install-recommends chromium chromium-driver' \
        >"$browser_log" 2>&1 &
    browser_install=$!
fi

say "setting up .venv (editable install with the test, docs, scale, query, rl and web extras)"
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
# --no-compile: pip would write the bytecode of the ~6,000 modules it installs one by one
# (63 s for the install instead of 36); compileall writes it below on every core,
# beside the static checks.  Bytecode there matters: where PYTHONDONTWRITEBYTECODE is
# set, every process the tests start would otherwise compile numba's sources again.
.venv/bin/python -m pip install --quiet --disable-pip-version-check --no-compile \
    --config-settings editable_mode=compat -e '.[test,docs,scale,query,rl,web]'
bin=.venv/bin
export PYTHONHASHSEED=0
export PYTHONUNBUFFERED=1  # live output through the pipes below

run() {  # run NAME COMMAND...: the command's output, live, each line prefixed [NAME]
    local name=$1
    shift
    set -o pipefail
    "$@" 2>&1 | sed -u "s/^/[$name] /"
}

# The static checks side by side (each uses one core), with the bytecode of the installed
# packages; the suite runs only if every check passes.  (A module compileall cannot
# compile is compiled by Python when imported, as without bytecode: not an error.)
say "[ruff], [mypy] --strict, [docs] the documentation site (warnings are errors) and [package] the sdist and wheel, side by side"
site_packages=$("$bin/python" -c 'import sysconfig; print(sysconfig.get_path("purelib"))')
"$bin/python" -m compileall -q -j 0 "$site_packages" >/dev/null 2>&1 &
bytecode=$!
run ruff "$bin/ruff" check qwirkle_core tests benchmarks examples docs .ci &
ruff=$!
run mypy "$bin/mypy" --strict qwirkle_core &
mypy=$!
run docs "$bin/python" docs/build.py --out "$(mktemp -d)/site" &
docs=$!
# The sdist and the wheel: built, their contents checked, the sdist unpacked into
# .sdist-check/ for the bounds-checked run below.
run package bash .ci/package.sh &
package=$!
static=0
for pid in "$ruff" "$mypy" "$docs" "$package"; do
    wait "$pid" || static=1
done
wait "$bytecode" || true
if [ "$static" -ne 0 ]; then
    echo "a static check above failed"
    exit 1
fi
# Only [procs] needs the browser: waited for here, after the setup and the static checks.
if [ -n "$browser_install" ]; then
    if wait "$browser_install"; then say "chromium and chromium-driver installed"; else
        tail -n 5 "$browser_log"
        say "installing chromium failed: the browser tests will skip"
    fi
    browser_install=
fi
rm -f "$browser_log"

# Three runs of the suite, side by side (four processes): each spends most of its time
# on one core (numba compiling its kernels, or plain Python), and the machine has two.
# - [bounds] bounds-checked kernels, with their own numba cache (the cache ignores
#   NUMBA_BOUNDSCHECK): an out-of-range access raises instead of reading junk.  They
#   are compiled at LLVM's optimisation level 1 (NUMBA_OPT=1), not 3: the checks are
#   the same at every level, and this run compiles every kernel from nothing, so the
#   lighter optimisation took 242 s of CPU instead of 275 s (level 0 took 490 s: its
#   kernels run too slowly).  What users run, optimised fully, is [jit]'s.  It runs
#   in the unpacked sdist (.ci/package.sh), tests and benchmarks, so it also proves
#   that the sdist carries every file they read;
# - [nojit] the JIT off, under coverage (at least 90% of qwirkle_core), without the
#   slow tests that add no line to it (tests/conftest.py says how they are chosen);
# - the JIT on, in two parts that start once `qwirkle-core warmup` has compiled the
#   kernels into the cache they share (else both would compile the same kernels):
#   [jit] the tests that run in pytest's own process, the doctests (README and docs/
#   too) and every benchmark once; [procs] the tests that start fresh processes
#   (markers process, slow and cluster: the command line, the engine, the examples,
#   compiling from nothing, Dask clusters).  Split so, the JIT-on tests end about
#   when the other two runs do, instead of running alone on one core at the end.
# [bounds] and [nojit] leave out the tests that start fresh processes: those children
# run the kernels the in-process tests already check, coverage does not see into
# them, and without the JIT they only take long.  They also leave out the tests of
# the reference alone (marker reference): those run no code of qwirkle_core, so they
# would only repeat [jit]'s run.  [bounds] also leaves out four files of tests of the
# Python layers over kernels that other files check bounds-checked (the engine's
# protocol and its analysis replies, the framework envs' conventions, self-play of the
# search bots): they reach no kernel, and no argument of one, that those do not, and
# they took a sixth of its time.
# pytest prints one line per test file as it finishes it; each run's lines are
# prefixed with its name.  A run that collects no test exits 5: that is a failure.
say "the suite: [bounds] bounds-checked, [nojit] JIT off with coverage, [jit] + [procs] JIT on (side by side)"
# --durations: each run ends with its slowest tests, where the time goes.
pytest_args=(-p no:warnings -o console_output_style=count --color=no --durations=30 -rs)
fresh_processes="process or slow or cluster"
bounds_run() {  # in the unpacked sdist, with its own copy of the package (checked first)
    cd .sdist-check
    ../"$bin/python" -c 'import pathlib, qwirkle_core as q; assert pathlib.Path(q.__file__).parent.parent == pathlib.Path.cwd(), q.__file__' \
        || { echo "the unpacked sdist does not import its own package"; return 1; }
    NUMBA_BOUNDSCHECK=1 NUMBA_OPT=1 NUMBA_CACHE_DIR="$root/.numba_cache_boundscheck" \
        ../"$bin/python" -m pytest tests benchmarks "${pytest_args[@]}" -m "not ($fresh_processes) and not reference" \
        --ignore=tests/test_engine.py --ignore=tests/test_engine_analysis.py \
        --ignore=tests/test_env_conventions.py --ignore=tests/test_selfplay_search.py
}
root=$PWD
run bounds bounds_run &
bounds=$!
NUMBA_DISABLE_JIT=1 run nojit "$bin/python" -m pytest tests "${pytest_args[@]}" \
    -m "not ($fresh_processes) and not reference" \
    --cov=qwirkle_core --cov-report=term:skip-covered --cov-fail-under=90 &
nojit=$!
jit_on() {  # the JIT-on run: warm up, then its two parts side by side
    # Two groups at a time (as users run it): they compile a few shared kernels twice,
    # but the JIT-on tests, the longest part, start a minute sooner than one at a time.
    run warmup "$bin/qwirkle-core" warmup || return 1
    run jit "$bin/python" -m pytest tests benchmarks qwirkle_core README.md docs "${pytest_args[@]}" \
        -m "not ($fresh_processes)" --doctest-modules --doctest-glob='*.md' &
    local jit=$! code=0
    run procs "$bin/python" -m pytest tests benchmarks "${pytest_args[@]}" -m "$fresh_processes" || code=$?
    wait "$jit" || code=$?
    return "$code"
}
jit_on &
jit=$!

finish() {  # finish PID NAME: wait for a run (in this shell) and note how it ended
    local code=0
    wait "$1" || code=$?
    case $code in
        0) lines+=("   $2: passed") ;;
        5) lines+=("   $2: FAILED: no tests were collected (pytest exit 5)") ;;
        *) lines+=("   $2: FAILED (exit $code)") ;;
    esac
    [ "$code" -eq 0 ] || failed=1
}
failed=0
lines=()
finish "$bounds" "[bounds] bounds-checked kernels"
finish "$nojit" "[nojit] the JIT off, with coverage >= 90%"
finish "$jit" "[jit] + [procs] the JIT on: doctests, every benchmark once, fresh processes"
# The supported numba range (floor and newest, fresh environments; ~9 minutes more):
# only when asked, as QWIRKLE_VERSIONS=1 bash .ci/test.sh.
if [ "${QWIRKLE_VERSIONS:-0}" = 1 ]; then
    say "the numba range: [floor] and [newest] (.ci/versions.sh)"
    code=0
    bash .ci/versions.sh || code=$?
    if [ "$code" -eq 0 ]; then lines+=("   [floor] + [newest] the numba range: passed"); else
        lines+=("   [floor] + [newest] the numba range: FAILED (exit $code)"); failed=1; fi
fi
say "summary"
printf '%s\n' "${lines[@]}"
if [ "$failed" -ne 0 ]; then
    echo "a run above failed"
    exit 1
fi
echo "every check passed"
