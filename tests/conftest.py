"""The JIT-off run under coverage leaves out the tests that add nothing to it.

In the JIT-off run of .ci/test.sh ([nojit]: the kernels run as plain Python, under
coverage.py), the tracer makes every line cost several times more, and that run is
there for its coverage.  tests/data/jit_off_left_out.txt lists the slow tests (1 s or
more, traced) whose every line other tests reach too: whole games, matches,
simulations, datasets.  That run deselects them, so its coverage is what it would be
with them; they run in full in the JIT-on and bounds-checked runs.
tests/make_jit_off_selection.py writes the list (and says how it chooses).  Everywhere
else (the JIT on, or no coverage) this changes nothing.  A name in the list that no
longer names a test is an error.
"""

from __future__ import annotations

from pathlib import Path

import numba
import pytest

# (pytest's node ids, as --durations prints them; lines starting with # are comments.)
LEFT_OUT_LIST = Path(__file__).parent / "data" / "jit_off_left_out.txt"
LEFT_OUT = frozenset(
    line for line in LEFT_OUT_LIST.read_text().splitlines() if line.strip() and not line.startswith("#")
)


def _coverage():  # type: ignore[no-untyped-def]
    """The coverage.py measurement running in this process, if any."""
    try:
        import coverage
    except ImportError:
        return None
    return coverage.Coverage.current()


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Each listed test's function must be in its module where that module was
    collected: a renamed test would otherwise run again without a word, and the run
    be slower.  (Checked by function, not by the tests collected, so that a run of one
    test by its id, or of a selection, is not mistaken for tests gone.)  With the JIT
    off under coverage, the listed tests are deselected."""
    modules = {item.nodeid.split("::")[0]: item.module for item in items if isinstance(item, pytest.Function)}
    gone = sorted(
        nodeid for nodeid in LEFT_OUT
        if nodeid.split("::")[0] in modules
        and not hasattr(modules[nodeid.split("::")[0]], nodeid.split("::")[1].split("[")[0])
    )
    if gone:
        raise pytest.UsageError(f"{Path(__file__).name}: {LEFT_OUT_LIST.name} names tests that are gone: {', '.join(gone)}")
    if numba.config.DISABLE_JIT and _coverage() is not None:
        left_out = [item for item in items if item.nodeid in LEFT_OUT]
        if left_out:
            config.hook.pytest_deselected(items=left_out)
            items[:] = [item for item in items if item.nodeid not in LEFT_OUT]
