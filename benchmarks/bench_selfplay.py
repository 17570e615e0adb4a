"""Self-play speed: whole greedy-vs-greedy 2-player games per second, one core and all.

    .venv/bin/python -m pytest benchmarks/bench_selfplay.py --benchmark-enable -q

Each round plays GAMES games from fixed seeds; games/s = GAMES / the round's time.
"""

from __future__ import annotations

import numba
import numpy as np
import pytest

from qwirkle_core import _batch, _bot_kernels, _constants
from qwirkle_core.selfplay import play_batches

GAMES = 1000
TIE_RANK = np.arange(_constants.MAX_PLAYERS, dtype=np.int64)
GREEDY = np.full(_constants.MAX_PLAYERS, _bot_kernels.BOT_GREEDY, np.int64)
SEEDS_LOW = np.arange(GAMES, dtype=np.int64)
SEEDS_HIGH = np.zeros(GAMES, np.int64)
NO_LOGS = _batch.empty_logs(GAMES, 0)


def _report(benchmark, label: str) -> None:  # type: ignore[no-untyped-def]
    """Games per second over the mean round, and over the fastest (the least disturbed
    by other work on the machine)."""
    if benchmark.stats is None:  # --benchmark-disable: the function ran once, untimed
        return
    stats = benchmark.stats.stats
    benchmark.extra_info["games_per_second"] = round(GAMES / stats.mean)
    benchmark.extra_info["games_per_second_best_round"] = round(GAMES / stats.min)
    print(f"\n{label}: {GAMES / stats.mean:,.0f} games/s (best round {GAMES / stats.min:,.0f})")


@pytest.mark.parametrize("bot", ["greedy", "heuristic", "random"])
def test_games_one_core(benchmark, bot: str) -> None:  # type: ignore[no-untyped-def]
    bots = np.full(_constants.MAX_PLAYERS, {"greedy": _bot_kernels.BOT_GREEDY, "heuristic": _bot_kernels.BOT_HEURISTIC,
                                         "random": _bot_kernels.BOT_RANDOM}[bot], np.int64)
    _batch.play_games_serial(2, SEEDS_LOW[:2], SEEDS_HIGH[:2], TIE_RANK, bots, NO_LOGS[:2])
    benchmark.pedantic(
        _batch.play_games_serial, args=(2, SEEDS_LOW, SEEDS_HIGH, TIE_RANK, bots, NO_LOGS), rounds=5, iterations=1
    )
    _report(benchmark, f"{bot} vs {bot}, 2 players, one core")


def test_greedy_games_all_cores(benchmark) -> None:  # type: ignore[no-untyped-def]
    """The library's parallel path: batches on one thread per core over the serial loop."""

    def run() -> None:
        for _ in play_batches(GAMES, 2, ["greedy", "greedy"], seed=0, parallel=True):
            pass

    run()
    benchmark.pedantic(run, rounds=5, iterations=1)
    _report(benchmark, f"greedy vs greedy, 2 players, {numba.get_num_threads()} cores")


@pytest.mark.parametrize("record", [False, True], ids=["no-records", "records"])
def test_greedy_games_one_core_with_and_without_records(benchmark, record: bool) -> None:  # type: ignore[no-untyped-def]
    """The selfplay command's own path (play_batches): records are JSON lines written by
    a kernel from the turn logs.  Compare the two rounds' games/s as a ratio."""

    def run() -> int:
        written = 0
        for batch in play_batches(GAMES, 2, ["greedy", "greedy"], seed=0, record=record, parallel=False):
            written += len(batch.records_text)
        return written

    run()  # compile and load outside the rounds
    benchmark.pedantic(run, rounds=5, iterations=1)
    _report(benchmark, f"greedy vs greedy, one core, {'with' if record else 'without'} records")
