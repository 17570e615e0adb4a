"""The JIT-off run under coverage leaves out the tests that add nothing to it.

In the JIT-off run of .ci/test.sh ([nojit]: the kernels run as plain Python, under
coverage.py), the tracer makes every line cost several times more, and that run is
there for its coverage.  tests/data/jit_off_left_out.txt lists the slow tests (1 s or
more, traced) whose every line other tests reached too when the list was written:
whole games, matches, simulations, datasets.  That run deselects them, so its coverage
is about what it would be with them (the same statements, as measured then).  They
run in full in the JIT-on run, and in the bounds-checked run but for the files that
run leaves out; what is given up is running their assertions once more with the
kernels as plain Python, which that run is not for.
tests/make_jit_off_selection.py writes the list (and says how it chooses); it sets
QWIRKLE_JIT_OFF_EVERY_TEST=1, which turns the deselection off.  Everywhere else (the
JIT on, or no coverage) this changes nothing.

A listed id that no longer names a test is an error at collection: where its file is
gone, where its function is gone from its collected module, and, with the JIT off
(the ids are that run's: some parameters differ with the JIT on), where its module
was collected whole and no collected test has that id.
"""

from __future__ import annotations

import os
from pathlib import Path

import numba
import pytest

# (pytest's node ids, as --durations prints them; lines starting with # are comments.)
LEFT_OUT_LIST = Path(__file__).parent / "data" / "jit_off_left_out.txt"
LEFT_OUT = frozenset(
    line.strip()
    for line in LEFT_OUT_LIST.read_text(encoding="utf-8").splitlines()
    if line.strip() and not line.startswith("#")
)
EVERY_TEST_SETTING = "QWIRKLE_JIT_OFF_EVERY_TEST"


def _coverage():  # type: ignore[no-untyped-def]
    """The coverage.py measurement running in this process, if any."""
    try:
        import coverage
    except ImportError:
        return None
    return coverage.Coverage.current()


def _gone(config: pytest.Config, items: list[pytest.Item]) -> list[str]:
    """The listed ids that name no test (see the module's docstring)."""
    modules = {item.nodeid.split("::")[0]: item.module for item in items if isinstance(item, pytest.Function)}
    collected = {item.nodeid for item in items}
    # A run of chosen tests by id collects only those: their modules' other ids are
    # not missing, only not asked for.
    whole_modules = not any("::" in str(arg) for arg in config.args)
    gone = []
    for nodeid in LEFT_OUT:
        path, name = nodeid.split("::")[0], nodeid.split("::")[1].split("[")[0]
        file_gone = not (config.rootpath / path).is_file()
        function_gone = path in modules and not hasattr(modules[path], name)
        id_gone = bool(numba.config.DISABLE_JIT) and whole_modules and path in modules and nodeid not in collected
        if file_gone or function_gone or id_gone:
            gone.append(nodeid)
    return sorted(gone)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Checks the list (a renamed test would otherwise run again without a word, and
    the run be slower), then, with the JIT off under coverage, deselects the listed
    tests.  (tryfirst: before -m and -k deselect anything, so that every collected
    test is seen.)"""
    gone = _gone(config, items)
    if gone:
        raise pytest.UsageError(f"{Path(__file__).name}: {LEFT_OUT_LIST.name} names tests that are gone: {', '.join(gone)}")
    if numba.config.DISABLE_JIT and _coverage() is not None and os.environ.get(EVERY_TEST_SETTING) != "1":
        left_out = [item for item in items if item.nodeid in LEFT_OUT]
        if left_out:
            config.hook.pytest_deselected(items=left_out)
            items[:] = [item for item in items if item.nodeid not in LEFT_OUT]
