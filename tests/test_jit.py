"""How the kernels are compiled: cached where possible, still working where not."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

QUERY = "from qwirkle_core import Board, parse_tiles; print(Board('Rc@0,0').count_moves(parse_tiles('Rs Rd')))"
# A first call that compiles only the board's kernels (a few seconds, a query's ten).
FIRST_CALL = "from qwirkle_core import Board; print(len(Board('Rc@0,0 Rs@0,1')))"


def _python(code: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full_env = dict(os.environ)
    full_env["PYTHONPATH"] = str(ROOT)
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-c", code], check=False, capture_output=True, text=True, timeout=600, env=full_env
    )


@pytest.mark.slow
@pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="needs the JIT")
def test_kernels_work_where_no_cache_dir_is_writable() -> None:
    # Make numba find no cache location at all, as on a read-only install: it then
    # raises at decoration, and the library must fall back to uncached kernels.
    code = textwrap.dedent(
        """
        import numba.core.caching as caching
        caching.CacheImpl._locator_classes = []
        import qwirkle_core._jit as jit
        import numba
        try:
            numba.njit(cache=True)(lambda x: x)
        except RuntimeError:
            pass
        else:
            raise SystemExit("numba did not refuse to cache")
        # Every kernel is decorated through the same fallback at import; a small one
        # shows that they compile and run uncached (a query's would take a minute here).
        from qwirkle_core import _turn
        print(_turn.group_size(0b111))
        """
    )
    proc = _python(code)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["3"]


def test_import_and_first_call_work_in_a_fresh_process() -> None:
    proc = _python(QUERY)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["36"]


@pytest.mark.skipif(os.environ.get("NUMBA_BOUNDSCHECK") != "1", reason="only in the bounds-checked run")
def test_the_bounds_checked_run_really_checks_bounds() -> None:
    import numba
    import numpy as np

    @numba.njit
    def read(a: np.ndarray, i: int) -> int:
        return int(a[i])

    with pytest.raises(IndexError):
        read(np.zeros(3, np.int64), 3)


@pytest.mark.slow
@pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="needs the JIT")
def test_editing_a_callee_module_does_not_leave_a_stale_cache(tmp_path: Path) -> None:
    """numba keys a kernel's cache on its own file; our cache directory is named after
    every source of the package, so a kernel never runs an old version of a callee.

    The kernel is a small one written into a copy of the package for the test (three
    processes compile or load it: seconds, where a query's kernels take a minute);
    what is tested is the package's cache, which covers every module alike."""
    import shutil

    package = tmp_path / "qwirkle_core"
    shutil.copytree(ROOT / "qwirkle_core", package, ignore=shutil.ignore_patterns("__pycache__"))
    (package / "_stale_cache_probe.py").write_text(
        "from ._jit import kernel\n"
        "from ._lines import line_points\n\n\n"
        "@kernel\n"
        "def qwirkle_points(length: int) -> int:\n"
        "    return line_points(length)\n"
    )
    code = (
        "from qwirkle_core import _jit; from qwirkle_core._stale_cache_probe import qwirkle_points as q; "
        "print(q(6), len(q.stats.cache_hits), len(q.stats.cache_misses), _jit.CACHE_DIR)"
    )
    env = dict(os.environ, PYTHONPATH=str(tmp_path))
    env.pop("NUMBA_CACHE_DIR", None)

    def run() -> list[str]:
        # cwd: python -c puts the working directory first on sys.path.
        proc = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=600, env=env, check=False,
            cwd=tmp_path,
        )
        assert proc.returncode == 0, proc.stderr
        return proc.stdout.split()

    first = run()
    assert first[:3] == ["12", "0", "1"]  # compiled and cached
    assert list(Path(first[3]).rglob("*.nbi"))  # in our cache directory (cache_dir set at decoration)
    assert run() == ["12", "1", "0", first[3]]  # from the cache
    lines = package / "_lines.py"
    lines.write_text(lines.read_text().replace("return 12", "return 13"))
    edited = run()
    assert edited[:3] == ["13", "0", "1"] and edited[3] != first[3]  # compiled anew, in a new cache directory


def test_the_cache_digest_covers_subpackages(tmp_path: Path) -> None:
    """A change in any source file, one in a subpackage (qwirkle_core/cli/) included,
    names a new cache directory."""
    import shutil

    from qwirkle_core import _jit

    package = tmp_path / "qwirkle_core"
    # The package imported (the installed one, in .ci/versions.sh's copy without sources).
    shutil.copytree(_jit._PACKAGE, package, ignore=shutil.ignore_patterns("__pycache__"))
    saved = _jit._PACKAGE
    try:
        _jit._PACKAGE = package
        before = _jit._sources_digest()
        command = package / "cli" / "moves.py"
        command.write_text(command.read_text() + "\n# an edit\n")
        assert _jit._sources_digest() != before
    finally:
        _jit._PACKAGE = saved


def test_the_first_compilation_is_announced_once(
    caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The compile listener (numba's event API) prints one line on stderr and logs one
    INFO record at the first compilation of one of our kernels in a process, and a
    DEBUG record with the time of each outermost one; another library's kernels and
    our kernels' nested compilations say nothing."""
    import logging
    from types import SimpleNamespace

    from qwirkle_core import _jit

    def fake(name: str) -> SimpleNamespace:
        return SimpleNamespace(data={"dispatcher": SimpleNamespace(py_func=SimpleNamespace(__name__=name))})

    first, nested, second, theirs = fake("first"), fake("nested"), fake("second"), fake("theirs")
    for ours in (first, nested, second):
        monkeypatch.setattr(_jit, "_ours", _jit._ours | {id(ours.data["dispatcher"])})
    monkeypatch.setattr(_jit, "_announced", False)
    # An earlier test may have run the command line in this process, which hands the
    # package's log to stderr: this test sees only what the library itself writes.
    package_log = logging.getLogger("qwirkle_core")
    monkeypatch.setattr(package_log, "handlers", [])
    monkeypatch.setattr(package_log, "propagate", True)
    listener = _jit._CompileListener()
    with caplog.at_level(logging.DEBUG, logger="qwirkle_core"):
        listener.on_start(theirs)
        listener.on_end(theirs)
        assert not _jit.compiled_here()
        listener.on_start(first)
        listener.on_start(nested)
        listener.on_end(nested)
        listener.on_end(first)
        listener.on_start(second)
        listener.on_end(second)
    assert _jit.compiled_here()
    err = capsys.readouterr().err.splitlines()
    assert err == [_jit.first_compile_line()], err
    assert "once per environment" in err[0] and "qwirkle-core warmup" in err[0] and " s for a first query" in err[0]
    infos = [r for r in caplog.records if r.levelno == logging.INFO]
    assert len(infos) == 1 and infos[0].getMessage().startswith("compiling kernels for first use")
    assert getattr(infos[0], _jit.STDERR_RECORD) is True  # (what the command line leaves out)
    debugs = [r.getMessage() for r in caplog.records if r.levelno == logging.DEBUG]
    assert [m.split(" in ")[0] for m in debugs if m.startswith("compiled ")] == ["compiled first", "compiled second"]
    assert not any("nested" in m or "theirs" in m for m in debugs)


def test_no_writable_cache_warns_once_and_names_the_fix(caplog: pytest.LogCaptureFixture) -> None:
    from qwirkle_core import _jit

    saved = _jit.CACHING
    try:
        _jit.CACHING = True
        with caplog.at_level("WARNING", logger="qwirkle_core"):
            _jit._warn_no_cache("a")
            _jit._warn_no_cache("b")
        assert "nowhere" in _jit.cache_location()
    finally:
        _jit.CACHING = saved
    warnings = [r.getMessage() for r in caplog.records]
    assert len(warnings) == 1 and "NUMBA_CACHE_DIR" in warnings[0]


def test_warmup_runs_its_groups_and_reports(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from qwirkle_core import warmup as warmup_module
    from qwirkle_core.cli import main

    groups = {"ok": "pass", "broken": "raise SystemExit('nope')", "optional": "skipped = 'skipped (no extra)'"}
    monkeypatch.setattr(warmup_module, "GROUPS", groups)
    seen: list[str] = []
    report = warmup_module.warmup(jobs=2, on_group=lambda name, *_: seen.append(name))
    assert sorted(seen) == sorted(groups)  # every group reported as it finished
    assert set(report.groups) == {"ok", "optional"} and set(report.failures) == {"broken"} and not report.ok
    assert report.outcomes == {"ok": "loaded from the cache", "optional": "skipped (no extra)"}
    assert report.lines()[-1].startswith("cache: ")
    monkeypatch.setattr(warmup_module, "GROUPS", {"ok": "pass"})
    assert main(["warmup", "--jobs", "1"]) == 0
    captured = capsys.readouterr()
    assert "the kernels were ready in" in captured.out and "cache: " in captured.out
    # It talks before the wait and after each group, on stderr.
    # (GROUPS is read when the command runs: an earlier import of the command module
    # must not freeze the count.)
    assert captured.err.startswith("qwirkle-core: compiling 1 groups"), captured.err
    assert "\n  ok: " in captured.err


@pytest.mark.parametrize("jobs", ["0", "-3", "two"])
def test_warmup_refuses_a_number_of_processes_below_one(jobs: str, capsys: pytest.CaptureFixture[str]) -> None:
    from qwirkle_core.cli import main
    from qwirkle_core.errors import QwirkleError
    from qwirkle_core.warmup import warmup

    with pytest.raises(SystemExit) as exit_info:
        main(["warmup", "--jobs", jobs])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("qwirkle-core: error: ") and err.count("\n") == 1
    with pytest.raises(QwirkleError, match="jobs"):
        warmup(jobs=0)


def test_an_unwritable_numba_cache_dir_is_named_once(tmp_path: Path) -> None:
    not_a_dir = tmp_path / "file"
    not_a_dir.write_text("")
    code = "import qwirkle_core, qwirkle_core._jit as j; print(j.cache_location())"
    proc = _python(code, {"NUMBA_CACHE_DIR": str(not_a_dir / "cache")})
    assert proc.returncode == 0, proc.stderr
    warned = [line for line in proc.stderr.splitlines() if "NUMBA_CACHE_DIR" in line]
    assert len(warned) == 1 and "not a writable directory" in warned[0]
    assert "not writable" in proc.stdout


# ------------------------------------------------ a new environment, two processes
COMPILE_LINE = "compiling kernels for first use"


@pytest.mark.slow
@pytest.mark.process
@pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="needs the JIT")
def test_a_first_process_compiles_says_so_once_and_fills_the_cache(tmp_path: Path) -> None:
    """On a fresh cache the first process prints the one compile line on stderr (no
    logger configured) and leaves numba's cache files; the second process on the same
    cache prints nothing and answers the same.  The command line on a fresh cache
    prints the line once (not once more through its logger)."""
    cache = tmp_path / "cache"
    env = {"NUMBA_CACHE_DIR": str(cache)}
    first = _python(FIRST_CALL, env)
    assert first.returncode == 0, first.stderr
    assert first.stdout.split() == ["2"]
    said = [line for line in first.stderr.splitlines() if COMPILE_LINE in line]
    assert len(said) == 1 and said[0].startswith("qwirkle_core: "), first.stderr
    assert "warmup" in said[0] and str(cache) in said[0]
    assert list(cache.rglob("*.nbi")) and list(cache.rglob("*.nbc"))
    second = _python(FIRST_CALL, env)
    assert second.returncode == 0, second.stderr
    assert second.stdout.split() == ["2"]
    assert COMPILE_LINE not in second.stderr, second.stderr

    # (render compiles only the board's kernels: a few seconds, where moves takes ten.)
    position = '{"board": [[0, 0, 0, 0]], "hand": [[0, 1], [0, 2]]}'
    command = subprocess.run(
        [sys.executable, "-m", "qwirkle_core", "render", "-f", "text"], input=position, capture_output=True, text=True, timeout=600,
        check=False, env=dict(os.environ, PYTHONPATH=str(ROOT), NUMBA_CACHE_DIR=str(tmp_path / "cli")),
    )
    assert command.returncode == 0, command.stderr
    said = [line for line in command.stderr.splitlines() if COMPILE_LINE in line]
    assert len(said) == 1 and said[0].startswith("qwirkle-core: "), command.stderr  # the command's name (docs/cli.md)
    assert command.stderr.count(COMPILE_LINE) == 1, command.stderr


# --------------------------------------------------------- the private numba hooks
JIT_ON = pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="the hooks act on compiled kernels")


@JIT_ON
def test_kernels_decorated_in_our_cache_dir_cache_there(tmp_path: Path) -> None:
    """cache_dir: a kernel decorated inside it keeps its cache under that directory
    (numba reads config.CACHE_DIR at decoration), and numba's setting is back after."""
    import numba

    from qwirkle_core import _numba_private

    before = numba.config.CACHE_DIR
    with _numba_private.cache_dir(str(tmp_path)):
        kernel = numba.njit(cache=True)(_add_one)
    assert numba.config.CACHE_DIR == before
    assert kernel(1) == 2
    assert Path(kernel.stats.cache_path).is_relative_to(tmp_path)
    assert list(tmp_path.rglob("*.nbi"))


def _add_one(x: int) -> int:
    return x + 1


@JIT_ON
def test_a_stack_array_lives_in_the_kernels_frame() -> None:
    import numba

    from qwirkle_core import _numba_private

    new = _numba_private.stack_array(2, 3)

    @numba.njit
    def fill() -> int:
        a = new()
        for i in range(2):
            for j in range(3):
                a[i, j] = 10 * i + j
        return int(a.sum()) + a.shape[0] * 100 + a.shape[1] * 1000

    assert fill() == (0 + 1 + 2 + 10 + 11 + 12) + 200 + 3000


def test_a_compiled_entry_calls_the_dispatcher_until_its_code_is_there() -> None:
    """CompiledEntry: the dispatcher's answers, then the compiled code's own entry for
    the arguments' types (with the JIT off there is none: the dispatcher stays)."""
    import numba
    import numpy as np

    from qwirkle_core import Board, _jit
    from qwirkle_core._layout import OUT_COLS
    from qwirkle_core._movegen import INITIAL_CAPACITY, MODE_ALL, generate

    entry = _jit.CompiledEntry(generate)
    assert entry.call == (generate if numba.config.DISABLE_JIT else entry._first_calls)
    board = Board("Rc@0,0 Rs@0,1 Bs@1,1")
    state = board.state_arrays()[0]
    mask = 1 << 3 | 1 << 9
    by_dispatcher = np.full((INITIAL_CAPACITY, OUT_COLS), -7, np.int32)
    n = generate(state, by_dispatcher, mask, MODE_ALL)
    assert n > 0
    first = np.full((INITIAL_CAPACITY, OUT_COLS), -7, np.int32)
    assert entry.call(state, first, mask, MODE_ALL) == n
    if numba.config.DISABLE_JIT:
        assert entry.call == generate
    else:  # (the hook's private names, read here as numba spells them)
        assert entry.call == generate.overloads[tuple(numba.typeof(a) for a in (state, first, 0, 0))].entry_point
    by_entry = np.full((INITIAL_CAPACITY, OUT_COLS), -7, np.int32)
    assert entry.call(state, by_entry, mask, MODE_ALL) == n
    assert np.array_equal(first, by_dispatcher) and np.array_equal(by_entry, by_dispatcher)


def test_a_prefetch_compiles_reads_nothing_and_changes_nothing() -> None:
    """``_prefetch.prefetch`` (LLVM's prefetch, or nothing with the JIT off) in a
    kernel, on every cache line of an array and past its end (a prefetch never
    faults): the kernel's answer and the array are as without it."""
    import numba
    import numpy as np

    from qwirkle_core._prefetch import prefetch

    @numba.njit
    def total(values: np.ndarray) -> int:
        base = np.int64(values.ctypes.data)
        sum_ = 0
        for i in range(values.shape[0]):
            prefetch(base + (i + 8) * 8)  # 64 bytes ahead; the last ones past the end
            sum_ += values[i]
        return sum_

    values = np.arange(1000, dtype=np.int64)
    assert total(values) == int(values.sum())
    assert np.array_equal(values, np.arange(1000, dtype=np.int64))


def _raises_wrapped(what: BaseException | None, times: int) -> None:
    """Raise ``what`` (None: a bare SystemError) wrapped ``times`` times in the
    SystemError that numba gives for an exception set while a kernel ran."""
    if times == 0:
        if what is None:
            raise SystemError("returned NULL without setting an exception")
        raise what
    try:
        _raises_wrapped(what, times - 1)
    except BaseException as inner:
        raise SystemError("CPUDispatcher(...) returned a result with an exception set") from inner


@pytest.mark.parametrize("times", [1, 2, 3])
@pytest.mark.parametrize("kind", [KeyboardInterrupt, SystemExit], ids=["KeyboardInterrupt", "SystemExit"])
def test_interruptible_raises_what_interrupted_the_kernel(kind: type[BaseException], times: int) -> None:
    """A signal's exception comes out of a parallel kernel wrapped in SystemErrors (twice
    from the simulation's kernel): the wrapper raises the signal's exception itself, with
    nothing chained to it (a chain back to its own SystemErrors would be a cycle)."""
    from qwirkle_core._jit import interruptible

    what = kind()
    with pytest.raises(kind) as raised:
        interruptible(_raises_wrapped)(what, times)
    assert raised.value is what and what.__context__ is None and what.__cause__ is None
    with pytest.raises(SystemError):  # a SystemError of its own stays one
        interruptible(_raises_wrapped)(None, times)
