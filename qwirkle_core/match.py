"""Matches between two bots, in mirrored pairs: how much stronger is one than the other.

>>> result = match(["random", "greedy"], pairs=20, seed=7)
>>> result.games, result.wins[1] > result.wins[0]
(40, True)

Deal i (i = 0 .. pairs - 1) is the game of seed ``seed + i`` (mod 2**64), and it is
played twice: bot A in seat 0 and bot B in seat 1, then the seats swapped.  Both games
of a pair start from the same hands and the same bag, and each seat's bot draws its
tie-breaks from the same stream, so the luck of the deal (who starts, who holds the
good tiles) falls once on each bot and cancels.

Matches of the built-in kernel bots (``random``, ``greedy``, ``heuristic``:
:data:`qwirkle_core.bots.BOT_IDS`) are played inside numba, in batches on threads
(:func:`qwirkle_core.selfplay.play_batches`), thousands of games a second.  Any
other bot that :func:`qwirkle_core.bots.make_bot` knows is played in Python
(:func:`qwirkle_core.bots.play` on ``Game(2, seed + i)``), its deals spread over
processes.  Both ways give the same games for the same bots (the built-in bots decide
with the same kernels either way), and neither depends on the number of threads or
processes.  That holds for bots whose moves do not depend on the clock: a bot given a
``movetime`` stops its search where the clock says, so its games may differ from one
run to the next (a busy machine searches less in the same time).
"""

from __future__ import annotations

import math
import multiprocessing
import os
import signal
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from . import bots as _bots
from ._ints import int_value
from ._prng import SEED_LIMIT
from ._seconds import as_seconds
from .errors import QwirkleError, show
from .game import Game
from .selfplay import play_batches

MAX_PAIRS = 10**8  # per match: two games a pair, their scores held in memory
MAX_MOVETIME = 3600.0  # seconds a move: more is a mistake, not a budget
Z95 = 1.96  # the normal quantile of a two-sided 95% interval

# The scores array of a match: [deal i, game g, bot b], the final score of bot b (0: A,
# 1: B) in game g of deal i (g = 0: A in seat 0; g = 1: A in seat 1).
A_FIRST, A_SECOND = 0, 1

ProgressCallback = Callable[[int, int], None]  # progress(games done, games in all)


class MatchArgumentError(QwirkleError):
    """A bad value for one of a match's arguments."""


@dataclass(frozen=True)
class MatchResult:
    """The outcome of a match between ``bots`` (A, B), per bot in that order.

    ``games`` is twice the pairs; ``wins[b]`` the games bot b scored more than the
    other, ``draws`` the games of equal scores; ``win_rate[b]`` is
    ``(wins[b] + draws / 2) / games``; ``mean_spread[b]`` its mean final score minus
    the other's.

    ``ci95[b]`` is a 95% interval for bot b's win rate, computed from the PAIRS, not
    the games: the two games of a pair share their deal, so they are correlated, and
    counting them as independent would understate the uncertainty.  Each pair scores
    bot A a value in [0, 1] (a win 1, a draw 1/2, a loss 0, averaged over its two
    games); the interval is their mean +- 1.96 * s / sqrt(pairs), with s their sample
    standard deviation (n - 1 in the denominator), clipped to [0, 1].  Bot B's interval
    is one minus A's (B's rate +- the same half-width).  A match of one pair has no
    spread to measure: its interval is [0, 1].  Each bot's figures are computed from
    its own counts, so that B's carry no float noise of ``1 - x`` (nor a -0.0).

    ``seed`` is the first deal's seed; ``scores`` every game's final scores
    (``scores[i, g, b]``: deal i, game g with A in seat g, bot b), read-only."""

    bots: tuple[str, str]
    games: int
    wins: tuple[int, int]
    draws: int
    win_rate: tuple[float, float]
    ci95: tuple[tuple[float, float], tuple[float, float]]
    mean_spread: tuple[float, float]
    seed: int = 0
    scores: npt.NDArray[np.int64] = field(default_factory=lambda: np.zeros((0, 2, 2), np.int64), repr=False, compare=False)

    @property
    def pairs(self) -> int:
        """The deals played (each twice)."""
        return self.games // 2

    @classmethod
    def from_scores(cls, bots: Sequence[str], scores: npt.NDArray[np.int64], seed: int = 0) -> MatchResult:
        """The result of the games whose final scores are ``scores`` (int64[pairs, 2,
        2]: deal, game, bot, as :func:`pair_scores` gives them)."""
        if (
            not isinstance(scores, np.ndarray)
            or scores.dtype != np.int64
            or scores.ndim != 3
            or scores.shape[1:] != (2, 2)
            or scores.shape[0] < 1
        ):
            raise MatchArgumentError(f"scores is an int64 array of shape (pairs >= 1, 2, 2), got {show(scores)}")
        names = _check_bots(bots)
        seed = _check_seed(seed)
        pairs = scores.shape[0]
        a, b = scores[:, :, 0], scores[:, :, 1]
        # Bot A's points in each game (1, 1/2, 0), averaged over the pair's two games.
        pair_points = ((a > b).astype(np.float64) + 0.5 * (a == b)).mean(axis=1)
        wins_a, wins_b, draws = int((a > b).sum()), int((a < b).sum()), int((a == b).sum())
        games = 2 * pairs
        # Each bot's figures from its own exact integers, one rounding each: B's as
        # 1 - A's would carry A's rounding (1 - 0.7 is 0.30000000000000004), and a
        # negated mean spread of 0 would be -0.0.  (A's rate is the mean of the pairs'
        # points, (wins + draws / 2) / games.)
        rate, rate_b = (2 * wins_a + draws) / (2 * games), (2 * wins_b + draws) / (2 * games)
        if pairs > 1:
            half = Z95 * float(pair_points.std(ddof=1)) / math.sqrt(pairs)
            low, high = max(0.0, rate - half), min(1.0, rate + half)
            # B's bound is clipped where A's is, so that B's interval stays one minus
            # A's at the ends too, whatever the roundings of rate_b +- half.
            low_b = 0.0 if high == 1.0 else max(0.0, rate_b - half)
            high_b = 1.0 if low == 0.0 else min(1.0, rate_b + half)
        else:
            low, high = low_b, high_b = 0.0, 1.0
        spread, spread_b = int((a - b).sum()) / games, int((b - a).sum()) / games
        frozen = scores.copy()
        frozen.setflags(write=False)
        return cls(
            bots=names,
            games=games,
            wins=(wins_a, wins_b),
            draws=draws,
            win_rate=(rate, rate_b),
            ci95=((low, high), (low_b, high_b)),
            mean_spread=(spread, spread_b),
            seed=seed,
            scores=frozen,
        )

    def to_json(self) -> dict[str, Any]:
        """``{"bots", "games", "wins", "draws", "win_rate", "ci95", "mean_spread"}``,
        every per-bot value a list in the order of ``bots`` (``ci95``: a [low, high]
        list per bot)."""
        return {
            "bots": list(self.bots),
            "games": self.games,
            "wins": list(self.wins),
            "draws": self.draws,
            "win_rate": list(self.win_rate),
            "ci95": [list(interval) for interval in self.ci95],
            "mean_spread": list(self.mean_spread),
        }


def _check_bots(bots: Any) -> tuple[str, str]:
    if isinstance(bots, (str, bytes)) or not isinstance(bots, Sequence) or len(bots) != 2:
        raise MatchArgumentError(f"a match is between two bots, named in a list of two, got {show(bots)}")
    for name in bots:
        if not isinstance(name, str):
            raise MatchArgumentError(f"a bot is named by a string, got {show(name)}")
    return (bots[0], bots[1])


def check_bot_names(bots: Any) -> tuple[str, str]:
    """The two names of ``bots``, once make_bot knows each: its error for the first it
    does not know, before any game (or progress bar) starts."""
    names = _check_bots(bots)
    for name in dict.fromkeys(names):
        _bots.make_bot(name, seed=0, seat=0)
    return names


# Numpy integers are read as the ints they hold (_ints.int_value), so that what the
# match keeps and reports (MatchResult.seed, its JSON) is a plain int either way.
def _check_seed(seed: Any) -> int:
    number = int_value(seed)
    if number is None or not 0 <= number < SEED_LIMIT:
        raise MatchArgumentError(f"a seed is an integer in [0, 2**64), got {show(seed)}")
    return number


def _check_int(value: Any, what: str, low: int, high: int) -> int:
    number = int_value(value)
    if number is None or not low <= number <= high:
        raise MatchArgumentError(f"{what} is an integer {low:,}..{high:,}, got {show(value)}")
    return number


def check_movetime(movetime: Any) -> float | None:
    """``movetime`` as seconds a move (None: no budget given); MatchArgumentError
    unless it is a positive, finite number of seconds, at most :data:`MAX_MOVETIME`."""
    if movetime is None:
        return None
    seconds = as_seconds(movetime)
    if seconds is None or seconds > MAX_MOVETIME:
        raise MatchArgumentError(f"movetime is seconds a move, above 0 and at most {MAX_MOVETIME:g}, got {show(movetime)}")
    return seconds


def default_processes() -> int:
    """Workers a match uses unless told: one per core this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def in_numba(bots: Sequence[str]) -> bool:
    """Whether a match of ``bots`` (two names) is played inside numba: both are
    built-in kernel bots."""
    return all(name in _bots.BOT_IDS for name in _check_bots(bots))


def _bot_options(movetime: float | None) -> dict[str, float]:
    """The keywords for make_bot: movetime only when the caller gave one."""
    return {} if movetime is None else {"movetime": movetime}


def _check_options(options: Any) -> dict[str, float]:
    if options is None:
        return {}
    if not isinstance(options, dict) or set(options) - {"movetime"}:
        raise MatchArgumentError(f"options is None or {{'movetime': seconds}}, got {show(options)}")
    return _bot_options(check_movetime(options.get("movetime")))


def pair_scores(
    bots: Sequence[str],
    pairs: int,
    seed: int = 0,
    *,
    movetime: float | None = None,
    processes: int | None = None,
    progress: ProgressCallback | None = None,
    numba_path: bool | None = None,
) -> npt.NDArray[np.int64]:
    """Every game of a match: int64[pairs, 2, 2], ``[i, g, b]`` the final score of bot
    b (0: ``bots[0]``, 1: ``bots[1]``) in game g of deal i (the game of seed
    ``seed + i``; g = 0 with bots[0] in seat 0, g = 1 with it in seat 1).

    ``numba_path`` chooses how the games are played: None (the default) inside numba
    when both bots are built-in kernel bots and in Python otherwise, True or False to
    ask for one (True only for kernel bots).  ``processes`` is the threads (inside
    numba) or the processes (in Python) to play on, default one per core; the games do
    not depend on it.  ``movetime`` goes to every bot made by make_bot (the Python
    path) when given; the kernel bots decide in microseconds and ignore it.
    ``progress(done, total)`` is called with the games played so far, as they finish.
    """
    names = _check_bots(bots)
    pairs = _check_int(pairs, "pairs", 1, MAX_PAIRS)
    seed = _check_seed(seed)
    movetime = check_movetime(movetime)
    # Checked here, not at its first call: that comes after games were played.
    if progress is not None and not callable(progress):
        raise MatchArgumentError(f"progress is None or a function progress(done, total), got {show(progress)}")
    workers = default_processes() if processes is None else _check_int(processes, "processes", 1, 1024)
    if numba_path is None:
        numba_path = in_numba(names)
    elif type(numba_path) is not bool:
        raise MatchArgumentError(f"numba_path is None, True or False, got {show(numba_path)}")
    if numba_path:
        for name in names:
            if name not in _bots.BOT_IDS:
                raise MatchArgumentError(
                    f"{show(name)} is no built-in kernel bot ({', '.join(_bots.BOT_IDS)}): it plays in Python only"
                )
        return _numba_pairs(names, pairs, seed, workers, progress)
    check_bot_names(names)  # an unknown name fails here, before any game
    options = _bot_options(movetime)
    return _python_pairs(names, pairs, seed, options, workers, progress)


def _numba_pairs(
    names: tuple[str, str], pairs: int, seed: int, threads: int, progress: ProgressCallback | None
) -> npt.NDArray[np.int64]:
    """The games by self-play's batches: every deal with A in seat 0, then every deal
    again with the seats swapped (the same seeds, so the same deals)."""
    scores = np.zeros((pairs, 2, 2), np.int64)
    total = 2 * pairs
    for game, seats in ((A_FIRST, [names[0], names[1]]), (A_SECOND, [names[1], names[0]])):
        a_seat = 0 if game == A_FIRST else 1
        for part in play_batches(pairs, 2, seats, seed, threads=threads):
            done = part.start + len(part.seeds)
            scores[part.start : done, game, 0] = part.scores[:, a_seat]
            scores[part.start : done, game, 1] = part.scores[:, 1 - a_seat]
            if progress is not None:
                progress(game * pairs + done, total)
    return scores


def play_deal(names: Sequence[str], seed: int, options: dict[str, float] | None = None) -> npt.NDArray[np.int64]:
    """Deal ``seed`` played twice in Python (``bots.play`` on ``Game(2, seed)``, each
    bot made by ``make_bot(name, seed=seed, seat=its seat, **options)``), seats swapped
    the second time: int64[2, 2], ``[g, b]`` bot b's final score in game g."""
    names = _check_bots(names)
    seed = _check_seed(seed)
    options = _check_options(options)
    out = np.zeros((2, 2), np.int64)
    for game in (A_FIRST, A_SECOND):
        seated = [names[0], names[1]] if game == A_FIRST else [names[1], names[0]]
        players = [_bots.make_bot(name, seed=seed, seat=seat, **options) for seat, name in enumerate(seated)]
        final = _bots.play(Game(2, seed), players).scores
        a_seat = 0 if game == A_FIRST else 1
        out[game] = (final[a_seat], final[1 - a_seat])
    return out


def _play_deals(names: tuple[str, str], seeds: list[int], options: dict[str, float]) -> npt.NDArray[np.int64]:
    """A worker's task: several deals, each played twice."""
    return np.stack([play_deal(names, s, options) for s in seeds])


def _ignore_interrupts() -> None:
    """In a worker: Ctrl-C reaches the whole process group, and the parent alone
    handles it (it stops the match), so that workers print no tracebacks."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _python_pairs(
    names: tuple[str, str], pairs: int, seed: int, options: dict[str, float], processes: int,
    progress: ProgressCallback | None,
) -> npt.NDArray[np.int64]:
    scores = np.zeros((pairs, 2, 2), np.int64)
    total = 2 * pairs

    def seeds(start: int, stop: int) -> list[int]:
        return [(seed + i) % SEED_LIMIT for i in range(start, min(stop, pairs))]

    if processes == 1 or pairs == 1:
        for i in range(pairs):
            scores[i] = play_deal(names, seeds(i, i + 1)[0], options)
            if progress is not None:
                progress(2 * (i + 1), total)
        return scores
    # Small tasks: every worker stays busy to the end, the progress moves often, and an
    # interrupted match waits for little (a worker finishes the task it has); a deal of
    # bots that think for seconds a move is a task of its own.  Fast bots get a few
    # deals a task, so that sending them costs little beside their games.
    size = max(1, min(16, pairs // (64 * processes)))
    starts = iter(range(0, pairs, size))
    # spawn, not fork: the caller may run threads (a progress bar, numba's), which a
    # forked child would inherit in whatever state they were.
    context = multiprocessing.get_context("spawn")
    workers = min(processes, -(-pairs // size))
    done = 0
    with ProcessPoolExecutor(workers, mp_context=context, initializer=_ignore_interrupts) as pool:
        pending: dict[Future[npt.NDArray[np.int64]], int] = {}

        def submit_next() -> None:
            start = next(starts, None)
            if start is not None:
                pending[pool.submit(_play_deals, names, seeds(start, start + size), options)] = start

        for _ in range(2 * workers):  # tasks in flight: bounded memory, workers never idle
            submit_next()
        try:
            while pending:
                finished, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in finished:
                    start = pending.pop(future)
                    part = future.result()
                    scores[start : start + len(part)] = part
                    done += 2 * len(part)
                    submit_next()
                    if progress is not None:
                        progress(done, total)
        finally:
            for future in pending:
                future.cancel()
    return scores


def match(
    bots: Sequence[str],
    pairs: int,
    seed: int = 0,
    *,
    movetime: float | None = None,
    processes: int | None = None,
    progress: ProgressCallback | None = None,
) -> MatchResult:
    """Play ``pairs`` mirrored pairs between ``bots[0]`` (A) and ``bots[1]`` (B): deal
    i is the game of seed ``seed + i``, played with A in seat 0 and again with A in
    seat 1.  Kernel bots play inside numba, any other bot of make_bot in Python on
    ``processes`` processes (default one per core); the result does not depend on
    ``processes`` (for bots that do not search against the clock).  ``movetime`` (seconds a move) is passed to make_bot only when
    given.  ``progress(done, total)`` hears of the games as they finish.  See
    :class:`MatchResult` for what is measured, the interval included."""
    scores = pair_scores(bots, pairs, seed, movetime=movetime, processes=processes, progress=progress)
    return MatchResult.from_scores(bots, scores, seed)
