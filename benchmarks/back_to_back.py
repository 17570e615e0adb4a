"""Board-state figures of one source tree, for comparing two trees back to back.

    cd TREE && python /path/to/benchmarks/back_to_back.py [--no-selfplay]

Run it alternately in the two trees (same machine, same moment): each figure is the
median over the 60 mid-game positions of the best of five batches of calls on that
position, in microseconds; self-play is greedy against greedy, 1,000 two-player games
on one core.  It works on trees before the board state change too (their kernel and
board API differ), which is how README's before/after table was made.
"""

from __future__ import annotations

import importlib
import inspect
import json
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

sys.path.insert(0, ".")

from benchmarks.positions import positions
from qwirkle_core import Board, _movegen


def per_call(fn: Callable[[], Any], n: int) -> float:
    best = []
    for _ in range(5):
        t = time.perf_counter_ns()
        for _ in range(n):
            fn()
        best.append((time.perf_counter_ns() - t) / n / 1000)
    return min(best)


def median_over(items: list[Any], make: Callable[[Any], Callable[[], Any]], n: int = 200) -> float:
    values = []
    for item in items:
        fn = make(item)
        fn()
        values.append(per_call(fn, n))
    return round(statistics.median(values), 3)


def kernel_call(board: Board, mask: int) -> Callable[[], Any]:
    if hasattr(_movegen, "generate_moves"):  # the tree before the board state
        grid, (ro, co), (r0, r1, c0, c1) = board.state_arrays()  # type: ignore[misc]
        old = _movegen.generate_moves
        return lambda: old(grid, r0, r1, c0, c1, mask, ro, co, 0)
    state = board.state_arrays()[0]
    out = np.empty((256, 20), np.int32)
    new = _movegen.generate
    return lambda: new(state, out, mask, 0)


# The module that plays whole games has been renamed twice; a benchmark of an older tree
# finds it under its name of then.
GAME_LOOP_NAMES = ("_batch", "_gameloop", "_selfplay")


def game_loop(package: str = "qwirkle_core") -> Any:
    """The module of ``package`` with play_games_serial and empty_logs."""
    for name in GAME_LOOP_NAMES:
        try:
            return importlib.import_module(f"{package}.{name}")
        except ImportError:
            continue
    raise ImportError(f"{package} has no game-loop module (looked for {', '.join(GAME_LOOP_NAMES)})")


def greedy_games(loop: Any, games: int) -> Callable[[], Any]:
    """``games`` greedy two-player games from seeds 0.. on one core with the game-loop
    module ``loop`` (compiled and warmed here): a call returns play_games_serial's result."""
    package = loop.__name__.rpartition(".")[0]
    try:
        greedy = importlib.import_module(f"{package}._bot_kernels").BOT_GREEDY
    except ImportError:  # a tree from before the bots' own module
        greedy = loop.BOT_GREEDY
    tie = np.arange(loop.MAX_PLAYERS, dtype=np.int64)
    bots = np.full(loop.MAX_PLAYERS, greedy, np.int64)
    low = np.arange(games, dtype=np.int64)
    high = np.zeros(games, np.int64)
    logs = loop.empty_logs(games, 0)
    loop.play_games_serial(2, low[:2], high[:2], tie, bots, logs[:2])
    return lambda: loop.play_games_serial(2, low, high, tie, bots, logs)


def push_pop(board: Board, move: Any, **options: Any) -> Callable[[], None]:
    def one() -> None:
        board.push(move, **options)
        board.pop()

    return one


def main() -> None:
    mid = positions("mid")
    res: dict[str, Any] = {}
    res["legal_moves"] = median_over(mid, lambda it: lambda: it[0].legal_moves(it[1]))
    res["kernel"] = median_over(mid, lambda it: kernel_call(it[0], sum(1 << t.kind for t in set(it[1]))))
    placements = [b.placements() for b, _ in mid]
    jsons = [b.to_json() for b, _ in mid]
    res["from_placements"] = median_over(placements, lambda p: lambda: Board.from_placements(p), 50)
    res["from_json"] = median_over(jsons, lambda p: lambda: Board.from_json(p), 50)
    res["copy"] = median_over(mid, lambda it: it[0].copy)
    movable = [(b.copy(), b.legal_moves(h)[0]) for b, h in mid if b.has_move(h)]
    res["push_pop"] = median_over(movable, lambda it: push_pop(*it))
    if "trusted" in inspect.signature(Board.push).parameters:
        res["push_pop_trusted"] = median_over(movable, lambda it: push_pop(*it, trusted=True))
    if "--no-selfplay" not in sys.argv:
        games = 1000
        play = greedy_games(game_loop(), games)
        times = []
        for _ in range(3):
            t = time.perf_counter()
            result = play()
            times.append(time.perf_counter() - t)
        res["greedy_games_per_second"] = round(games / statistics.median(times))
        res["games_checksum"] = [int(result[0].sum()), int(result[1].sum())]
    print(json.dumps(res))


if __name__ == "__main__":
    main()
