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
        from qwirkle_core import _gameloop
        print(_gameloop.group_size(0b111))
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


def test_the_first_compilation_is_announced_once(caplog: pytest.LogCaptureFixture) -> None:
    """The compile listener logs one INFO line at the first compilation of one of our
    kernels in a process (DEBUG after that), and the time each took."""
    import logging
    from types import SimpleNamespace

    from qwirkle_core import _jit

    def fake(name: str) -> SimpleNamespace:
        dispatcher = SimpleNamespace(py_func=SimpleNamespace(__name__=name), _qwirkle_kernel=True)
        return SimpleNamespace(data={"dispatcher": dispatcher})

    listener = _jit._CompileListener()
    saved = _jit._announced
    _jit._announced = False
    _jit._state.depth = 1
    try:
        with caplog.at_level(logging.DEBUG, logger="qwirkle_core"):
            for name in ("first", "second"):
                event = fake(name)
                listener.on_start(event)
                listener.on_end(event)
    finally:
        _jit._state.depth = 0
        _jit._announced = saved
    infos = [r.getMessage() for r in caplog.records if r.levelno == logging.INFO]
    assert len(infos) == 1 and "compiling kernels for first use" in infos[0]
    debugs = [r.getMessage() for r in caplog.records if r.levelno == logging.DEBUG]
    assert any("compiled first" in m for m in debugs) and any("compiled second" in m for m in debugs)


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


# ------------------------------------------------------- compiling in the background
def test_a_kernels_plain_python_twin_gives_its_answers() -> None:
    """What a first call runs while its kernel compiles: the kernel's source with every
    kernel it calls plain too (numba's trailing-zeros intrinsic replaced), equal to the
    compiled kernel on positions and on whole self-play games, logs included."""
    import numpy as np

    from qwirkle_core import _gameloop, _jit, _movegen
    from qwirkle_core._prng import seed_words
    from qwirkle_core.bots import make_bot
    from qwirkle_core.game import Game

    game = Game(players=2, seed=11)
    for _ in range(8):
        game.push(make_bot("greedy").choose(game))
    board = game.board
    assert len(board) > 10
    mask = sum(1 << t.kind for t in game.hand())
    for mode in (_movegen.MODE_ALL, _movegen.MODE_BEST, _movegen.MODE_COUNT):
        compiled_out = np.zeros((4096, _movegen.OUT_COLS), np.int64)
        plain_out = np.zeros_like(compiled_out)
        n = _movegen.generate(board._st, compiled_out, mask, mode)
        assert _jit.plain_python(_movegen.generate)(board._st, plain_out, mask, mode) == n > 0
        assert np.array_equal(compiled_out, plain_out)

    bots = np.array([_gameloop.BOT_GREEDY, _gameloop.BOT_GREEDY, 0, 0, 0, 0], np.int64)
    tie_rank = np.arange(_gameloop.MAX_PLAYERS, dtype=np.int64)
    low, high = seed_words([7, 100769])  # the second one ends on a dead board
    in_play = _gameloop.bots_in_play(bots, 2)
    answers = []
    for play in (_gameloop.play_games, _jit.plain_python(_gameloop.play_games)):
        logs = _gameloop.empty_logs(2, 400)
        answers.append((*play(2, low, high, tie_rank, bots, logs, *in_play), logs))
    for compiled, plain in zip(*answers):
        assert np.array_equal(compiled, plain)


@pytest.mark.slow
@pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="needs the JIT")
def test_a_new_environment_answers_first_and_compiles_behind(tmp_path: Path) -> None:
    """With an empty cache the first query and the first self-play games come from
    plain Python while the kernels compile on a background thread; the compiled
    kernels then take over (and are cached) with the same answers.  A process forked
    meanwhile compiles for itself (it does not inherit numba's lock held by a thread
    it does not have)."""
    query = textwrap.dedent(
        """
        import logging, os, time
        logging.basicConfig(level=logging.INFO)
        from qwirkle_core import Board, _gameloop, _jit, _movegen, _state, parse_tiles
        board, hand = Board("Rc@0,0 Rs@0,1 Bs@1,1"), parse_tiles("Rd Bd Gs Yc Rs Pl")
        first = board.legal_moves(hand)
        print("plain first:", not _jit.ready(_movegen.generate))
        """
    )
    behind = textwrap.dedent(
        """
        # A fork while the background thread compiles: the child compiles for itself.
        import multiprocessing
        def child(answers):
            with _jit.foreground():
                answers.put(int(_gameloop.group_size(0b111)))
        if hasattr(os, "fork"):
            context = multiprocessing.get_context("fork")
            answers = context.Queue()
            process = context.Process(target=child, args=(answers,))
            process.start()
            print("child:", answers.get(timeout=300))
            process.join()
        _jit.wait_compiled(_state.build)
        _jit.wait_compiled(_movegen.generate)
        print("compiled then:", _jit.ready(_movegen.generate))
        print("same moves:", list(board.legal_moves(hand)) == list(first))
        # The background thread ends with its queue (later forks find no thread).
        for _ in range(3000):
            if _jit._worker is None:
                break
            time.sleep(0.1)
        print("thread ended:", _jit._worker is None)
        # Self-play's first games and their records, as plain Python while the budget lasts (the process
        # then ends without waiting: what it did not finish compiling is left to the
        # next process).
        import json
        from qwirkle_core.selfplay import selfplay
        played = selfplay(3, 2, ["greedy", "greedy"], seed=5, record=True)
        print("games:", played.scores.tolist())
        print("records:", json.dumps(played.records, sort_keys=True))
        """
    )
    env = {"NUMBA_CACHE_DIR": str(tmp_path / "cache"), "QWIRKLE_CORE_BACKGROUND_COMPILE": "1"}
    proc = _python(query + behind, env)
    assert proc.returncode == 0, proc.stderr
    import json

    from qwirkle_core import _gameloop
    from qwirkle_core.selfplay import selfplay

    compiled = selfplay(3, 2, ["greedy", "greedy"], seed=5, record=True)
    assert len(compiled.records) == 3
    assert proc.stdout.splitlines() == [
        "plain first: True",
        *([f"child: {_gameloop.group_size(0b111)}"] if hasattr(os, "fork") else []),
        "compiled then: True",
        "same moves: True",
        "thread ended: True",
        # the same games as compiled code plays them (this process compiles first)
        f"games: {compiled.scores.tolist()}",
        f"records: {json.dumps(compiled.records, sort_keys=True)}",
    ], proc.stdout
    announced = [line for line in proc.stderr.splitlines() if "background" in line]
    assert len(announced) == 1 and "plain Python" in announced[0], proc.stderr
    # The next process finds the cache: nothing runs as plain Python, nothing is announced.
    again = _python(query, env)
    assert again.returncode == 0, again.stderr
    assert again.stdout.splitlines() == ["plain first: False"]
    assert "background" not in again.stderr


def test_the_background_setting_and_foreground_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    from qwirkle_core import _jit

    monkeypatch.setenv("QWIRKLE_CORE_BACKGROUND_COMPILE", "1")
    assert _jit.background_wanted()
    with _jit.foreground():
        assert not _jit.background_wanted()
        with _jit.foreground():
            assert not _jit.background_wanted()
        assert not _jit.background_wanted()
    assert _jit.background_wanted()
    monkeypatch.setenv("QWIRKLE_CORE_BACKGROUND_COMPILE", "0")
    assert not _jit.background_wanted()


def test_waiting_for_compiled_kernels_is_said_once(caplog: pytest.LogCaptureFixture) -> None:
    import logging

    from qwirkle_core import _jit

    saved = _jit._said_waiting
    _jit._said_waiting = False
    try:
        with caplog.at_level(logging.INFO, logger="qwirkle_core"):
            _jit._say_waiting()
            _jit._say_waiting()
    finally:
        _jit._said_waiting = saved
    said = [r.getMessage() for r in caplog.records]
    assert len(said) == 1 and said[0].startswith("waiting for the kernels to finish compiling")


def test_a_compiled_entry_calls_the_dispatcher_until_its_code_is_there() -> None:
    """CompiledEntry: the dispatcher's answers, then the compiled code's own entry for
    the arguments' types (with the JIT off there is none: the dispatcher stays)."""
    import numba
    import numpy as np

    from qwirkle_core import Board, _jit
    from qwirkle_core._movegen import INITIAL_CAPACITY, MODE_ALL, OUT_COLS, generate

    entry = _jit.CompiledEntry(generate)
    assert entry.call == entry._first_calls
    board = Board("Rc@0,0 Rs@0,1 Bs@1,1")
    state = board.state_arrays()[0]
    mask = 1 << 3 | 1 << 9
    by_dispatcher = np.full((INITIAL_CAPACITY, OUT_COLS), -7, np.int32)
    n = generate(state, by_dispatcher, mask, MODE_ALL)
    assert n > 0
    first = np.full((INITIAL_CAPACITY, OUT_COLS), -7, np.int32)
    assert entry.call(state, first, mask, MODE_ALL) == n
    if numba.config.DISABLE_JIT:
        assert entry.call == entry._first_calls
    else:
        assert entry.call == generate.overloads[tuple(generate.typeof_pyval(a) for a in (state, first, 0, 0))].entry_point
    by_entry = np.full((INITIAL_CAPACITY, OUT_COLS), -7, np.int32)
    assert entry.call(state, by_entry, mask, MODE_ALL) == n
    assert np.array_equal(first, by_dispatcher) and np.array_equal(by_entry, by_dispatcher)
