"""Write tests/data/jit_off_left_out.txt: the tests that the JIT-off run under coverage
([nojit] in .ci/test.sh) leaves out, because they add no line to its coverage.

That run exists for coverage (the kernels run as plain Python, so coverage.py sees
their lines).  Under its tracer every line costs several times more, and the slowest
tests (whole games, matches, simulations, datasets) pass through lines that faster
tests reach too.  This script runs that run once with every test in it and coverage
recording which test reached which line (``--cov-context=test``), then takes out the
slowest tests one at a time, slowest first, each only where every line it reaches is
reached by a test still in or at import: in that run, what stays reaches the statements
that everything did.  (A later run may differ a little: the examples hypothesis draws,
and the few tests that do more when another has not run before them.)  A test is a
candidate only from MIN_SECONDS (traced) up: the many quick ones cost little and leave
the run its breadth.  The tests left out still run in full in the JIT-on run, and in
the bounds-checked run but for the files it leaves out.

Run from the repository root after the tests or the library change much (a stale list
only makes the run slower or its coverage a little lower, which --cov-fail-under
bounds; an id that no longer names a test is an error at collection):
``.venv/bin/python tests/make_jit_off_selection.py`` (about 8 minutes: the whole JIT-off
run, traced).  The run's settings are .ci/test.sh's for [nojit].
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LIST = ROOT / "tests" / "data" / "jit_off_left_out.txt"
MIN_SECONDS = 1.0
# [nojit]'s selection in .ci/test.sh (the fresh-process and reference-only tests are
# not in that run at all).
MARKERS = "not (process or slow or cluster) and not reference"
DURATION = re.compile(r"^([0-9.]+)s (?:call|setup|teardown)\s+(\S.*)$")

Line = tuple[str, int]


def run_traced(work: Path) -> tuple[dict[str, set[Line]], set[Line], set[Line], dict[str, float]]:
    """The JIT-off run with every test in it (QWIRKLE_JIT_OFF_EVERY_TEST: else
    tests/conftest.py would leave the listed ones out): per test, the statements it
    reached; the statements reached outside any test (imports, collection); every
    statement; and each test's seconds."""
    import coverage

    data_file = work / "coverage"
    env = dict(
        os.environ, NUMBA_DISABLE_JIT="1", PYTHONHASHSEED="0", COVERAGE_FILE=str(data_file), QWIRKLE_JIT_OFF_EVERY_TEST="1"
    )
    command = [
        sys.executable, "-m", "pytest", "tests", "-q", "-p", "no:warnings", "-p", "no:cacheprovider",
        "-m", MARKERS, "--durations=0", "--cov=qwirkle_core", "--cov-context=test", "--cov-report=",
    ]
    print(" ".join(command[1:]), flush=True)
    log = work / "pytest.log"
    with open(log, "w", encoding="utf-8") as output:
        code = subprocess.run(command, cwd=ROOT, env=env, stdout=output, stderr=subprocess.STDOUT, check=False).returncode
    text = log.read_text(encoding="utf-8")
    if code != 0:
        print(text[-3000:])
        sys.exit("the JIT-off run failed: fix it first")
    seconds: defaultdict[str, float] = defaultdict(float)
    for row in text.splitlines():
        found = DURATION.match(row.strip())
        if found:
            seconds[found.group(2).strip()] += float(found.group(1))
    measured = coverage.Coverage(data_file=str(data_file))
    measured.load()
    data = measured.get_data()
    reached: dict[str, set[Line]] = defaultdict(set)
    at_import: set[Line] = set()
    statements: set[Line] = set()
    for path in data.measured_files():
        own = {(path, number) for number in measured.analysis2(path)[1]}
        statements |= own
        for number, contexts in data.contexts_by_lineno(path).items():
            if (path, number) not in own:
                continue
            for context in contexts:
                if context:
                    reached[context.rsplit("|", 1)[0]].add((path, number))
                else:
                    at_import.add((path, number))
    return reached, at_import, statements, dict(seconds)


def left_out(reached: dict[str, set[Line]], at_import: set[Line], seconds: dict[str, float]) -> list[str]:
    """Slowest first, each test whose every statement another test still in (or an
    import) reaches."""
    reaching: Counter[Line] = Counter()
    for lines in reached.values():
        reaching.update(lines)
    out = []
    for test in sorted(reached, key=lambda t: (-seconds.get(t, 0.0), t)):
        if seconds.get(test, 0.0) < MIN_SECONDS:
            break
        if all(reaching[line] > 1 or line in at_import for line in reached[test]):
            reaching.subtract(reached[test])
            out.append(test)
    return out


def main() -> None:
    with tempfile.TemporaryDirectory() as work:
        reached, at_import, statements, seconds = run_traced(Path(work))
    chosen = left_out(reached, at_import, seconds)
    every = at_import.union(*reached.values())
    kept = at_import.union(*(lines for test, lines in reached.items() if test not in chosen))
    assert kept == every
    total = sum(seconds.values())
    saved = sum(seconds[test] for test in chosen)
    header = (
        "# The tests that the JIT-off run under coverage leaves out: each adds no line to its\n"
        "# coverage.  Written by tests/make_jit_off_selection.py (which says how), read by\n"
        "# tests/conftest.py.  When written: every test traced took "
        f"{total:.0f} s and reached\n# {len(every):,} of {len(statements):,} statements "
        f"({100 * len(every) / len(statements):.2f} %); these {len(chosen)} took {saved:.0f} s of it, "
        "and the rest\n# reached the same statements in that run.\n"
    )
    LIST.write_text(header + "".join(f"{test}\n" for test in sorted(chosen)), encoding="utf-8")
    print(f"{LIST.relative_to(ROOT)}: {len(chosen)} tests, {saved:.0f} of {total:.0f} s traced; "
          f"coverage {100 * len(every) / len(statements):.2f} % with or without them")


if __name__ == "__main__":
    main()
