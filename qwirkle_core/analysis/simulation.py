"""Monte Carlo simulation: rank candidate actions by playing each on many samples of
what the player to move cannot see.

>>> from qwirkle_core.game import Game
>>> game = Game(players=2, seed=5)
>>> ranked = simulate(game, iterations=64, seed=1)
>>> ranked[0].action in game.legal_actions()
True

Each iteration deals the hidden tiles (the other hands and the bag's order) uniformly
from what the player to move cannot see, then plays every candidate on that same
sample (common random numbers, as crossword-game simulators do: the differences
between candidates are then measured on the same draws, with far less noise than
independent samples), followed by greedy turns, and evaluates the result.  The
kernels (:mod:`._sim_kernels`) see only what the player to move sees, so the result
never depends on the hidden tiles themselves; it depends on ``seed`` alone, and not on
the number of threads.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numba
import numpy as np
import numpy.typing as npt

from .._bot_kernels import leave_value
from .._ints import int_value, read_int
from .._jit import interruptible
from .._layout import ACTION_COLS, M_PLAYERS, M_TURNS
from .._prng import SEED_LIMIT
from .._seconds import as_seconds
from ..errors import IllegalMoveError, InvalidMoveError, QwirkleError, RunawayGameError, show
from ..game import Action, Game, _action_row, _check_seed, distinct_exchanges
from ..moves import Move
from . import _sim_kernels

__all__ = ["SimResult", "best_action", "default_candidates", "simulate", "win_probability"]

DEFAULT_ITERATIONS = 1_000  # per candidate, when neither iterations nor time_limit is given
MAX_ITERATIONS = 100_000_000  # per candidate: the iteration seeds stay distinct far beyond
DEFAULT_TOP = 16
MAX_CANDIDATES = 1_024  # each parallel task copies every candidate's board (~20 KiB each)
MAX_PLIES = _sim_kernels.RUNAWAY_TURNS
ROUND = 128  # iterations per kernel call; the race is judged and the clock read between calls
# A timed simulation's first round: small, so that a short time limit is not overrun by
# a whole round of every candidate (with plies=None, 128 iterations of 16 candidates took
# 0.5 s against a limit of 0.01 s); each later round is sized from the last one's speed
# to the time left (at most ROUND).
FIRST_TIMED_ROUND = 4
RACE_Z = 2.5  # a candidate drops out when mean + Z * stderr < the leader's mean - Z * stderr ...
RACE_MIN_ITERATIONS = 128  # ... once it has had this many iterations

# P(win) where a sampled game has not ended at the evaluation point, from the player's
# lead (its score minus the best other score) and the tiles not yet on the board, with
# r = sqrt(tiles_left + 1):
#     P = Phi((lead - offset - drift * r) / (sigma * r))
# (the spread left to play grows like the square root of the turns left; with more than
# two players a lead of 0 is worth less than even odds, and more so with more to play:
# the offset and the drift).  (offset, drift, sigma) per number of players, fitted by
# maximum likelihood (a probit regression on lead / r, 1 / r and 1; ties count half) on
# every position after every turn but the last of 4,000 seeded greedy self-play games
# per player count (seeds 0..3,999), from each seat's point of view:
#     .venv/bin/python benchmarks/simulation_figures.py fit
# The offset and drift of two players are 0 by symmetry.  tests/test_simulation.py
# checks the calibration on held-out seeds.
# Measured 2026-12-03 (numba 0.68.1), with the positions counted:
WIN_MODEL: dict[int, tuple[float, float, float]] = {
    2: (0.0, 0.0, 3.2608),  # 398,286 positions
    3: (-3.111, 1.1484, 2.6554),  # 591,384
    4: (-4.547, 1.5812, 2.2968),  # 780,588
    5: (-5.585, 1.8655, 2.1203),  # 964,480
    6: (-6.266, 2.0111, 1.9616),  # 1,138,836
}

_GOLDEN = 0x9E3779B97F4A7C15


@dataclass(frozen=True)
class SimResult:
    """One candidate's result.

    ``equity``: the mean gain, in points, of the player's spread (its score minus the
    best other player's score) from now to the evaluation point; ``stderr``: the
    standard error of that mean; ``win``: the mean win probability (1, 0.5 or 0 where
    the sampled game ended, else the :data:`WIN_MODEL` estimate); ``iterations``: how
    many samples this candidate was played on (fewer than the others' when it dropped
    out of the race)."""

    action: Action
    equity: float
    win: float
    stderr: float
    iterations: int


def win_probability(lead: int, tiles_left: int, players: int = 2) -> float:
    """The :data:`WIN_MODEL` estimate of P(win) for a player ``lead`` points ahead of
    the best other player (negative: behind), with ``tiles_left`` tiles not on the
    board, in a game of ``players`` (what the simulation uses where a sampled game has
    not ended)."""
    lead_value = read_int(lead, "lead", -(10**9), 10**9)
    left = read_int(tiles_left, "tiles_left", 0, 108)
    count = int_value(players)
    if count is None or count not in WIN_MODEL:
        raise QwirkleError(f"a game has 2 to 6 players, got {show(players)}")
    offset, drift, sigma = WIN_MODEL[count]
    return float(_sim_kernels.win_estimate_of(lead_value, left, offset, drift, sigma))


def iteration_seeds(seed: int, start: int, count: int) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """The seeds of iterations ``start .. start + count - 1`` as (low, high) 32-bit
    words: iteration i's seed is output i of splitmix64 seeded with ``seed`` (so that
    seeds 0 and 1 share no sample, as ``seed + i`` would)."""
    with np.errstate(over="ignore"):
        z = np.uint64(seed) + (np.arange(start, start + count, dtype=np.uint64) + np.uint64(1)) * np.uint64(_GOLDEN)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    return (z & np.uint64(0xFFFFFFFF)).astype(np.int64), (z >> np.uint64(32)).astype(np.int64)


def iteration_seed(seed: int, index: int) -> int:
    """Iteration ``index``'s seed as one integer (what :meth:`Game.determinize` and
    :func:`~qwirkle_core.bots.make_bot` take to replay that sample)."""
    low, high = iteration_seeds(seed, index, 1)
    return int(low[0]) | (int(high[0]) << 32)


# ------------------------------------------------------------------ candidates
def default_candidates(game: Game, top: int = DEFAULT_TOP) -> list[Action]:
    """The candidates :func:`simulate` ranks when given none: the ``top`` highest-scoring
    placements (ties in the generator's order); while the bag holds tiles (and the
    opening is played), the exchange of the whole hand (with fewer tiles in the bag than
    in the hand, of as many as the bag allows, lowest kinds first, as the greedy bot
    exchanges) and the exchange that keeps the best leave by the heuristic bot's
    measure (``_bot_kernels.leave_value``; ties to the first in ``distinct_exchanges``'
    order), once each; and the pass where it is the only legal action."""
    _check_game(game)
    count = _read_top(top)
    moves = game.legal_moves()
    # A stable sort: equal scores keep the generator's order.
    order = np.argsort(-moves.scores.astype(np.int64), kind="stable")[:count]
    actions = [Action(Action.PLACE, moves[int(i)]) for i in order]
    if game.opening_size:
        return actions
    if game.bag_size:
        hand = game.hand()
        exchanges = distinct_exchanges(hand, game.bag_size)
        n_all = min(len(hand), game.bag_size)
        whole = tuple(sorted(hand)[:n_all])
        kinds = np.zeros(6, np.int64)
        kinds[: len(hand)] = [t.kind for t in hand]
        best: tuple[Any, ...] | None = None
        best_value = 0
        for tiles in exchanges:
            placed = np.zeros(6, np.int64)
            placed[: len(tiles)] = [t.kind for t in tiles]
            value, _ = leave_value(kinds, len(hand), placed, len(tiles))
            if best is None or int(value) > best_value:
                best, best_value = tiles, int(value)
        actions.append(Action.exchange(whole))
        if best is not None:
            best_action_ = Action.exchange(best)
            if best_action_ != actions[-1]:
                actions.append(best_action_)
    elif not actions:
        actions.append(Action.pass_turn())
    return actions


def _check_game(game: Any) -> None:
    if not isinstance(game, Game):
        raise QwirkleError(f"expected a Game, got {show(game)}")
    if game.is_over:
        raise QwirkleError("the game is over: there is nothing to simulate")


def _read_top(top: Any) -> int:
    number = int_value(top)
    if number is None or not 1 <= number <= MAX_CANDIDATES:
        raise QwirkleError(f"top is a number of placements, 1..{MAX_CANDIDATES:,}, got {show(top)}")
    return number


def _prepared(
    game: Game, candidates: Sequence[Any]
) -> tuple[list[Action], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Each candidate checked by playing it on a copy of the game (IllegalMoveError or
    InvalidMoveError naming the candidate, as ``Game.push`` words the rule): the
    actions as played (a place with its score), their action rows, and the board state
    after each (the board itself for an exchange or a pass), padded to one length.
    Only the boards are read from the copies: their draws came from the real bag."""
    actions: list[Action] = []
    boards: list[npt.NDArray[np.int64]] = []
    seen: set[Action] = set()
    root = game.board.state_arrays()[0]
    for index, candidate in enumerate(candidates):
        if not isinstance(candidate, (Action, Move, str)):
            raise InvalidMoveError(f"candidate {index} is not an Action, a Move or action text: {show(candidate)}")
        trial = game.copy()
        try:
            played = trial.push(candidate)
        except IllegalMoveError as exc:
            raise IllegalMoveError(f"candidate {index} ({candidate}) is not legal here: {exc}") from None
        except InvalidMoveError as exc:
            raise InvalidMoveError(f"candidate {index} ({show(candidate)}): {exc}") from None
        if played in seen:
            raise QwirkleError(f"candidate {index} ({played}) is given twice")
        seen.add(played)
        actions.append(played)
        boards.append(trial.board.state_arrays()[0] if played.kind == Action.PLACE else root)
    width = max(b.shape[0] for b in boards)
    padded = np.zeros((len(boards), width), np.int64)
    for c, board in enumerate(boards):
        padded[c, : board.shape[0]] = board
    rows = np.array([_action_row(a) for a in actions], np.int64).reshape(len(actions), ACTION_COLS)
    return actions, rows, padded


# ------------------------------------------------------------------ arguments
def _read_optional_int(value: Any, what: str, lo: int, hi: int) -> int | None:
    if value is None:
        return None
    number = int_value(value)  # an int or a numpy integer, never a bool or a float
    if number is None:
        raise QwirkleError(f"{what} is None or an integer {lo:,}..{hi:,}, got {show(value)}")
    if not lo <= number <= hi:
        raise QwirkleError(f"{what} must be {lo:,}..{hi:,}, got {show(number)}")
    return number


def _read_time_limit(value: Any) -> float | None:
    if value is None:
        return None
    seconds = as_seconds(value)
    if seconds is None:
        raise QwirkleError(f"time_limit is None or a positive number of seconds, got {show(value)}")
    return seconds


def _read_threads(value: Any) -> int | None:
    most = int(getattr(numba.config, "NUMBA_NUM_THREADS"))  # noqa: B009 - numba's config is untyped
    number = int_value(value)
    if value is None:
        return None
    if number is None or not 1 <= number <= most:
        raise QwirkleError(f"threads is None or 1..{most} (numba's NUMBA_NUM_THREADS), got {show(value)}")
    return number


# ------------------------------------------------------------------ simulation
def simulate(
    game: Game,
    *,
    candidates: Sequence[Action] | None = None,
    top: int = DEFAULT_TOP,
    plies: int | None = 2,
    iterations: int | None = None,
    time_limit: float | None = None,
    seed: int = 0,
    threads: int | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> list[SimResult]:
    """Rank candidate actions for the player to move by Monte Carlo simulation; best
    first (by equity, then win probability, then the candidates' order).

    ``candidates``: the legal actions to rank (Actions, Moves or action text; each is
    checked: IllegalMoveError names one that is illegal, QwirkleError one given twice);
    None: :func:`default_candidates` (the ``top`` best placements by score, an exchange
    or two while the bag holds tiles, the pass where it is the only action).

    Each iteration samples the hidden tiles (the other hands and the bag's order)
    uniformly from what the player to move cannot see; then each candidate, on that
    same sample, is played, followed by ``plies - 1`` turns of the greedy bot (every
    seat, the player's own next turns too), and evaluated.  ``plies=None`` plays every
    sampled game to its end.  Once the bag is empty inside a sampled game the rest is
    still played greedily, not solved: the exact endgame solver takes milliseconds per
    position, a thousand times a greedy turn, and a simulation plays that many turns.

    ``equity`` is the mean gain of the player's spread (its score minus the best other
    player's score) from now to the evaluation point, in points; ``win`` the mean of 1
    (win), 0.5 (tied for the top) or 0 (loss) where the sampled game ended by then, else
    the :data:`WIN_MODEL` estimate from the lead and the tiles left.

    The candidates race: iterations run in rounds of ROUND; after each, a candidate
    with at least RACE_MIN_ITERATIONS whose mean + RACE_Z * stderr lies below the
    leader's mean - RACE_Z * stderr gets no more iterations, and the simulation stops
    once one candidate is left.  ``iterations``: the most any candidate gets (1..
    MAX_ITERATIONS); ``time_limit``: seconds, read between rounds (a round is one kernel
    call; the first call of a process also compiles, seconds), so at least one round
    runs: a first one of FIRST_TIMED_ROUND iterations, then rounds sized from the last
    one's speed to the time left; with neither, DEFAULT_ITERATIONS.  With a time limit the result depends on
    the machine's speed; otherwise on ``seed`` alone.

    The simulation never reads hidden information: its kernels get the board, the
    player's hand, the scores, the hands' sizes, the bag's size and the unseen tiles as
    a sorted multiset.  Iteration i is seeded from (``seed``, i) only
    (:func:`iteration_seed`), and every iteration's result is reduced in a fixed order,
    so the ranking is the same for any ``threads`` (1..NUMBA_NUM_THREADS; None: numba's
    current number; restored afterwards).  ``should_stop``: a function of no arguments,
    called between rounds as the clock is read; when it returns True the simulation
    ends there and ranks what it has (for a caller that must be able to stop it: the
    engine's ``stop``).  Raises QwirkleError for bad arguments or a
    game that is over, RunawayGameError if a sampled game runs past MAX_PLIES greedy
    turns."""
    _check_game(game)
    top = _read_top(top)
    turns = _read_optional_int(plies, "plies", 1, MAX_PLIES)
    greedy_turns = -1 if turns is None else turns - 1  # -1: to the end
    cap = _read_optional_int(iterations, "iterations", 1, MAX_ITERATIONS)
    limit = _read_time_limit(time_limit)
    seed = _check_seed(seed) % SEED_LIMIT
    n_threads = _read_threads(threads)
    if should_stop is not None and not callable(should_stop):
        raise QwirkleError(f"should_stop is None or a function of no arguments, got {show(should_stop)}")
    if candidates is None:
        chosen: Sequence[Any] = default_candidates(game, top)
    else:
        if isinstance(candidates, (str, bytes)) or not isinstance(candidates, Sequence):
            raise QwirkleError(f"candidates is None or a list of actions, got {show(candidates)}")
        if not 1 <= len(candidates) <= MAX_CANDIDATES:
            raise QwirkleError(f"candidates lists 1..{MAX_CANDIDATES:,} actions, got {len(candidates):,}")
        chosen = candidates
    if cap is None and limit is None:
        cap = DEFAULT_ITERATIONS
    actions, rows, boards = _prepared(game, chosen)

    # What the player to move sees, and nothing else.
    viewer = game.to_move
    _, meta, _, hand_sizes, _, scores, _ = game.engine_state(copy_state=False)
    meta[M_TURNS] = 0  # the kernels count the sampled game's own turns
    hand = np.zeros(6, np.int64)
    own = [t.kind for t in game.hand(viewer)]
    hand[: len(own)] = own
    unseen = np.array([t.kind for t in game.unseen_tiles(viewer)], np.int64)
    win_model = WIN_MODEL[int(meta[M_PLAYERS])]

    n = len(actions)
    gain_sum = np.zeros(n, np.int64)
    gain_squares = np.zeros(n, np.int64)
    win_sum = np.zeros(n, np.float64)
    counts = np.zeros(n, np.int64)
    active = np.ones(n, np.int64)
    done = 0
    began = time.perf_counter()
    before = numba.get_num_threads()
    run_round = interruptible(_sim_kernels.simulate_round)
    if n_threads is not None:
        numba.set_num_threads(n_threads)
    round_size = ROUND if limit is None else FIRST_TIMED_ROUND
    try:
        while True:
            size = round_size if cap is None else min(round_size, cap - done)
            low, high = iteration_seeds(seed, done, size)
            round_began = time.perf_counter()
            gains, wins, runaways = run_round(
                boards, rows, active, meta, hand, hand_sizes, scores, unseen, low, high, greedy_turns, *win_model,
            )
            round_ended = time.perf_counter()
            if runaways:
                raise RunawayGameError(f"a sampled game ran past {MAX_PLIES:,} greedy turns without ending")
            live = active != 0
            gain_sum[live] += gains[:, live].sum(axis=0)
            gain_squares[live] += (gains[:, live] * gains[:, live]).sum(axis=0)
            win_sum[live] += wins[:, live].sum(axis=0)
            counts[live] += size
            done += size
            _race(active, gain_sum, gain_squares, counts)
            if int(active.sum()) <= 1 or (cap is not None and done >= cap):
                break
            if limit is not None:
                left = limit - (round_ended - began)
                if left <= 0:
                    break
                per_iteration = (round_ended - round_began) / size
                round_size = max(1, min(ROUND, int(left / per_iteration) if per_iteration > 0 else ROUND))
            if should_stop is not None and should_stop():
                break
    finally:
        if n_threads is not None:
            numba.set_num_threads(before)

    means, errors = _stats(gain_sum, gain_squares, counts)
    results = [
        SimResult(actions[c], float(means[c]), float(win_sum[c] / counts[c]), float(errors[c]), int(counts[c]))
        for c in range(n)
    ]
    order = sorted(range(n), key=lambda c: (-results[c].equity, -results[c].win, c))
    return [results[c] for c in order]


def _stats(
    gain_sum: npt.NDArray[np.int64], gain_squares: npt.NDArray[np.int64], counts: npt.NDArray[np.int64]
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Each candidate's mean gain and its standard error (0 with one iteration), from
    exact integer sums."""
    n = counts.astype(np.float64)
    means = gain_sum / n
    spread_squares = gain_squares - gain_sum.astype(np.float64) * means  # sum of squared deviations
    variance = np.where(counts > 1, np.maximum(spread_squares, 0.0) / np.maximum(n - 1, 1.0), 0.0)
    return means, np.sqrt(variance / n)


def _race(
    active: npt.NDArray[np.int64],
    gain_sum: npt.NDArray[np.int64],
    gain_squares: npt.NDArray[np.int64],
    counts: npt.NDArray[np.int64],
) -> None:
    """Drop (in ``active``) each candidate that is out of the running: at least
    RACE_MIN_ITERATIONS iterations and mean + RACE_Z * stderr below the leader's mean -
    RACE_Z * stderr (the leader: the highest mean, the first on a tie)."""
    live = np.flatnonzero(active)
    if live.size <= 1:
        return
    means, errors = _stats(gain_sum, gain_squares, counts)
    leader = int(live[np.argmax(means[live])])
    floor = means[leader] - RACE_Z * errors[leader]
    for c in live:
        if c != leader and counts[c] >= RACE_MIN_ITERATIONS and means[c] + RACE_Z * errors[c] < floor:
            active[c] = 0


def best_action(
    game: Game, *, iterations: int | None = None, time_limit: float | None = None, seed: int = 0
) -> Action:
    """The first action of :func:`simulate` with its default candidates and plies (the
    one a simulating bot plays); a position with a single candidate is not simulated."""
    _check_game(game)
    _read_optional_int(iterations, "iterations", 1, MAX_ITERATIONS)
    _read_time_limit(time_limit)
    _check_seed(seed)
    candidates = default_candidates(game)
    if len(candidates) == 1:
        return candidates[0]
    return simulate(game, candidates=candidates, iterations=iterations, time_limit=time_limit, seed=seed)[0].action
