"""Move-generation speed (pytest-benchmark).

    .venv/bin/python -m pytest benchmarks/bench_movegen.py --benchmark-enable

Each round handles ONE position, cycling through a fixed set, so the reported median
is a median over positions.  The figures of the mid-game state (``legal_moves``, the
kernel, building, copying, push + pop) come twice: ``cold``, each round on the next
position (its data not in the CPU caches), and ``warm``, each timed call just after an
untimed one on the same position (see ``positions.time_per_position``).  Without
--benchmark-enable each benchmark runs once, as a smoke test (that is how the test
suite runs them).
"""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from qwirkle_core import Board, Move
from qwirkle_core._jit import CompiledEntry
from qwirkle_core._layout import OUT_COLS
from qwirkle_core._movegen import INITIAL_CAPACITY, MODE_ALL, generate

from .positions import CACHES, positions, time_per_position, worst_cases

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("phase", ["early", "mid", "late"])
def test_legal_moves(benchmark: Any, phase: str) -> None:
    items = positions(phase)
    moves = [b.count_moves(h) for b, h in items]
    benchmark.extra_info["positions"] = len(items)
    benchmark.extra_info["tiles"] = f"{min(len(b) for b, _ in items)}-{max(len(b) for b, _ in items)}"
    benchmark.extra_info["mean_moves"] = sum(moves) / len(moves)
    time_per_position(benchmark, Board.legal_moves, items, "cold")


def test_legal_moves_mid_game_warm(benchmark: Any) -> None:
    """test_legal_moves[mid], each call just after one on the same position."""
    time_per_position(benchmark, Board.legal_moves, positions("mid"), "warm")


def test_legal_moves_worst_case(benchmark: Any) -> None:
    """Hands of six tiles of one colour or shape on open mid-game boards: thousands of
    moves each (ns per move = median / mean_moves)."""
    items = worst_cases()
    moves = [b.count_moves(h) for b, h in items]
    benchmark.extra_info["positions"] = len(items)
    benchmark.extra_info["mean_moves"] = sum(moves) / len(moves)
    benchmark.extra_info["min_moves"] = min(moves)
    time_per_position(benchmark, Board.legal_moves, items, "cold")


@pytest.mark.parametrize("query", ["count_moves", "has_move", "best_moves", "legal_tile_masks"])
def test_other_queries_mid_game(benchmark: Any, query: str) -> None:
    items = positions("mid")
    if query == "legal_tile_masks":
        time_per_position(benchmark, Board.legal_tile_masks, [(b,) for b, _ in items], "cold")
    else:
        time_per_position(benchmark, getattr(Board, query), items, "cold")


@pytest.mark.parametrize("cache", CACHES)
def test_generate_kernel_mid_game(benchmark: Any, cache: str) -> None:
    """The bare kernel call that legal_moves makes: the board state, a move table to
    write into, the hand's kind mask (no Python around it but the call, through the
    compiled code's own entry as legal_moves calls it)."""
    out = np.empty((INITIAL_CAPACITY, OUT_COLS), np.int32)
    items = [(b.state_arrays()[0], sum(1 << t.kind for t in set(h))) for b, h in positions("mid")]
    entry = CompiledEntry(generate)
    entry.call(items[0][0], out, items[0][1], MODE_ALL)  # compiled: call is now its entry
    call = entry.call
    time_per_position(benchmark, call, [(state, out, mask, MODE_ALL) for state, mask in items], cache)


@pytest.mark.parametrize("cache", CACHES)
@pytest.mark.parametrize("trusted", [False, True], ids=["checked", "trusted"])
def test_push_pop_mid_game(benchmark: Any, trusted: bool, cache: str) -> None:
    """Push a generated move and pop it: checked (the default), or trusted (the fast
    path for moves taken from legal_moves)."""
    items = [(b.copy(), b.legal_moves(h)[0]) for b, h in positions("mid") if b.has_move(h)]

    def push_pop(board: Board, move: Move) -> None:
        board.push(move, trusted=trusted)
        board.pop()

    time_per_position(benchmark, push_pop, items, cache)


@pytest.mark.parametrize("cache", CACHES)
@pytest.mark.parametrize("source", ["placements", "json"])
def test_build_board_mid_game(benchmark: Any, source: str, cache: str) -> None:
    """Board.from_placements / Board.from_json of a mid-game board (30-70 tiles),
    checked entirely (cells, copies, lines, connectivity)."""
    if source == "placements":
        inputs: list[Any] = [b.placements() for b, _ in positions("mid")]
        build: Any = Board.from_placements
    else:
        inputs = [b.to_json() for b, _ in positions("mid")]
        build = Board.from_json
    time_per_position(benchmark, build, [(x,) for x in inputs], cache)


@pytest.mark.parametrize("cache", CACHES)
def test_copy_mid_game(benchmark: Any, cache: str) -> None:
    time_per_position(benchmark, Board.copy, [(b,) for b, _ in positions("mid")], cache)


def test_score_mid_game(benchmark: Any) -> None:
    items: list[tuple[Board, Move]] = [
        (b, b.legal_moves(h)[-1]) for b, h in positions("mid") if b.has_move(h)
    ]
    it = itertools.cycle(items)

    def one() -> int:
        board, move = next(it)
        return board.score(move)

    benchmark(one)


FIRST_CALL = (
    "import time; t = time.perf_counter(); import qwirkle_core as q; "
    "b = q.Board('Rc@0,0 Rs@0,1 Bs@1,1'); b.legal_moves(q.parse_tiles('Rd Bd Gx Yc Pl Ob')); "
    "b.score(q.Move.from_text('Rd@0,2')); b.legal_tile_masks(); "
    "q.Board().legal_moves(q.parse_tiles('Rd')); print(time.perf_counter() - t)"
)


def _first_call(cache_dir: str) -> float:
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir, PYTHONPATH=str(ROOT))
    out = subprocess.run(
        [sys.executable, "-c", FIRST_CALL], env=env, capture_output=True, text=True, check=True
    )
    return float(out.stdout)


@pytest.mark.skipif(os.environ.get("NUMBA_DISABLE_JIT") == "1", reason="measures the JIT")
@pytest.mark.parametrize("cache", ["cold", "warm"])
def test_import_and_first_call(benchmark: Any, cache: str) -> None:
    """Seconds from ``import qwirkle_core`` to the end of the first queries, in a new
    process, with an empty (cold: the kernels compile) or filled (warm) numba cache.
    Only when benchmarks are enabled: each round compiles the kernels, and
    tests/test_jit.py already checks that a new process works."""
    if benchmark.disabled:
        pytest.skip("a measurement only: run with --benchmark-enable")
    with tempfile.TemporaryDirectory() as tmp:
        if cache == "warm":
            _first_call(tmp)
            benchmark.pedantic(lambda: _first_call(tmp), rounds=5, iterations=1)
        else:
            dirs = iter(tempfile.mkdtemp(dir=tmp) for _ in range(100))
            benchmark.pedantic(lambda: _first_call(next(dirs)), rounds=2, iterations=1)
