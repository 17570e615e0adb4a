"""Self-play as a library: many games between built-in bots, played inside numba.

>>> result = selfplay(4, 2, ["greedy", "greedy"], seed=7, parallel=False)
>>> result.scores.shape, int(result.turns.min()) > 0
((4, 2), True)

Game i is dealt from seed ``seed + i``; with ``record=True`` each game's record (the
``qwirkle-record/1`` format, :mod:`qwirkle_core.records`) replays with
:func:`qwirkle_core.records.game_from_record`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from . import _gameloop
from ._prng import SEED_LIMIT, seed_words
from .bots import BOT_IDS
from .errors import QwirkleError
from .records import record_from_log

BATCH = 256  # games per engine call: the progress bar moves once per batch
LOG_CAPACITY = 256  # turns logged per game; a longer game is played again alone


class SelfPlayArgumentError(QwirkleError):
    """A bad value for one of the selfplay options."""


@dataclass
class SelfPlayResult:
    """Final scores (games x players), turns per game, and the time the games took."""

    scores: npt.NDArray[np.int64]
    turns: npt.NDArray[np.int64]
    seconds: float
    records: list[dict[str, Any]] = field(default_factory=list)

    def wins(self) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """Per seat: games it won alone, and games it shared the top score in."""
        top = self.scores.max(axis=1, keepdims=True)
        at_top = self.scores == top
        alone = at_top.sum(axis=1, keepdims=True) == 1
        return (at_top & alone).sum(axis=0), (at_top & ~alone).sum(axis=0)


def parse_bots(text: str, players: int) -> list[str]:
    names = [name.strip() for name in text.split(",")]
    for name in names:
        if name not in BOT_IDS:
            raise SelfPlayArgumentError(f"unknown bot {name!r} (choose from {', '.join(BOT_IDS)})")
    if len(names) == 1:
        names *= players
    if len(names) != players:
        raise SelfPlayArgumentError(f"--bots names one bot, or one per seat ({players}), got {len(names)}")
    return names


def selfplay(
    games: int,
    players: int,
    bots: Sequence[str],
    seed: int = 0,
    record: bool = False,
    parallel: bool = True,
    progress: Callable[[int], None] | None = None,
) -> SelfPlayResult:
    """Play ``games`` games (game i from seed ``seed + i`` mod 2**64) with the built-in
    ``bots`` (one name per seat) inside numba, across all cores unless ``parallel`` is
    False.  With ``record``, also return each game's record."""
    bot_ids = np.zeros(_gameloop.MAX_PLAYERS, np.int64)
    bot_ids[:players] = [BOT_IDS[b] for b in bots]
    tie_rank = np.arange(_gameloop.MAX_PLAYERS, dtype=np.int64)
    play_games = _gameloop.play_games_parallel if parallel else _gameloop.play_games_serial
    capacity = LOG_CAPACITY if record else 0
    all_scores = np.zeros((games, players), np.int64)
    all_turns = np.zeros(games, np.int64)
    records: list[dict[str, Any]] = []
    seconds = 0.0
    # Load (or compile) the kernels outside the timed calls: one game, not counted.
    low, high = seed_words([seed])
    play_games(players, low, high, tie_rank, bot_ids, _gameloop.empty_logs(1, 0))
    for start in range(0, games, BATCH):
        seeds = [(seed + i) % SEED_LIMIT for i in range(start, min(games, start + BATCH))]
        low, high = seed_words(seeds)
        logs = _gameloop.empty_logs(len(seeds), capacity)
        began = time.perf_counter()
        scores, turns = play_games(players, low, high, tie_rank, bot_ids, logs)
        seconds += time.perf_counter() - began
        all_scores[start : start + len(seeds)] = scores[:, :players]
        all_turns[start : start + len(seeds)] = turns
        if record:
            for i, game_seed in enumerate(seeds):
                log = logs[i]
                if turns[i] > capacity:
                    # A long game (random bots exchange a lot): play it again, all logged.
                    log = _gameloop.empty_logs(1, int(turns[i]))[0]
                    _gameloop.play_game(players, low[i], high[i], tie_rank, bot_ids, log)
                records.append(record_from_log(players, game_seed, log[: turns[i]], scores[i]))
        if progress is not None:
            progress(start + len(seeds))
    return SelfPlayResult(all_scores, all_turns, seconds, records)
