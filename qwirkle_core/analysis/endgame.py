"""The exact endgame solver: two players, the bag empty.

With the bag empty a player can deduce the other's hand (every tile not on the board
nor in their own hand), so the game is one of perfect information, and alpha-beta
solves it: the best action for the player to move, the final spread under best play
by both, and the line of play that gets it.

Use::

    from qwirkle_core.analysis.endgame import solve_endgame

    result = solve_endgame(game)  # a two-player Game whose bag is empty
    game.push(result.action)      # result.spread: final score difference under best play
    result = solve_endgame(game, time_limit=0.1)  # result.exact False if cut short

Exact solves of the position where the bag first empties (hands of up to 6 and 6)
took a median of 0.052 s of one core over seeds 0..999 of greedy self-play, 0.66-0.73 s at
the 99th percentile and 2.0-2.7 s for the worst (benchmarks/endgame_figures.py), and one
position met in a match 4.5-4.8 s; pass a ``time_limit`` where that matters.  Smaller
endgames take milliseconds.

The rules are the game's (``qwirkle_core._turn``): a placement scores its points; the
player who empties their hand ends the game and scores the going-out bonus; a player
who cannot place passes; when neither can place the game ends at once with no bonus.
The solver agrees with :meth:`Game.push` (the tests play every principal variation
through it).
"""

from __future__ import annotations

import itertools
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from .. import _layout, _state
from .._constants import N_KINDS
from .._layout import ACTION_COLS, OUT_COLS
from .._seconds import as_seconds
from ..bots import action_from_row
from ..errors import QwirkleError, show
from ..game import Action, Game
from . import _endgame_kernels as K

__all__ = ["EndgameResult", "solve_endgame"]

# A transposition table of 2**TT_BITS entries (three int64 words each: 48 MiB), kept per
# thread between solves: keys carry a per-solve salt, so it needs no clearing, and
# entries a per-solve stamp, so that an earlier solve's give up their slots (K.STAMP_SHIFT).
# Measured: 2**18 -> 2**20 entries searched 25-40% fewer nodes on the hardest seeds;
# 2**20 -> 2**21, 2 % fewer positions and 6 % less time over nine positions near the
# benchmark's 99th percentile (3 % over its five slowest, 1 % over 30 around its median).
TT_BITS = 21
FIRST_CAPACITY = 256  # move-table rows per ply; grown when a position has more moves
UNLIMITED = 1 << 62
# With should_stop: each search call gets the nodes the measured rate fits into
# POLL_SECONDS, or into 1/POLL_SHARE of the time the search has taken so far if more
# (at least MIN_POLL_NODES), then should_stop is asked; a search cut short is started
# again (the subtrees it finished are in the transposition table: measured on seeds
# 1-4, 7, 8 of greedy self-play at the empty bag, 0.3-4.3% more nodes in all than one
# search never cut).  The growing share makes sure a search cut again and again still
# ends: a call that only walks back to where the last one stopped would make none.
POLL_SECONDS = 0.05
POLL_SHARE = 256
MIN_POLL_NODES = 10_000


def _poll_budget(rate: float, spent: float) -> int:
    """Nodes for one call of a stoppable search that has run ``spent`` seconds."""
    return max(MIN_POLL_NODES, int(rate * max(POLL_SECONDS, spent / POLL_SHARE)))


class _Scratch(threading.local):
    """One thread's buffers for the kernels (allocated once, grown when needed)."""

    def __init__(self) -> None:
        self.tt = np.zeros((1 << TT_BITS, K.TT_COLS), np.int64)
        self.capacity = 0
        self.grow(FIRST_CAPACITY)
        self.log = _state.new_log(2 * K.MAX_PLY + 2)

    def grow(self, capacity: int) -> None:
        self.capacity = capacity
        self.tables = np.zeros((K.MAX_PLY + 1, capacity, OUT_COLS), np.int32)
        self.order = np.zeros((K.MAX_PLY + 1, capacity), np.int32)
        self.walk = np.zeros((capacity, OUT_COLS), np.int32)
        self.work = K.new_search_work(capacity)


_scratch = _Scratch()
_salts = itertools.count(1)
_salt_lock = threading.Lock()


def _next_salt() -> int:
    with _salt_lock:
        n = next(_salts)
    # A distinct odd 62-bit word per solve (a multiplicative hash of the count: the
    # kernels' ``mix`` is a helper, callable from kernels only).
    return ((n * 0x9E3779B97F4A7C15) & K.MASK_62) | 1  # never 0 (an empty slot's key)


def _stamp(salt: int) -> int:
    """The solve's stamp on its table entries (K.STAMP_SHIFT): bits of its salt that
    differ between any two of 32,768 solves in a row (the multiplier is odd)."""
    return (salt >> 1) & K.STAMP_MASK


@dataclass(frozen=True)
class EndgameResult:
    """What :func:`solve_endgame` found.

    ``action``: the best action for the player to move (a place, or a pass when they
    cannot place).  ``spread``: the player to move's final score minus the other's,
    scores so far and the going-out bonus included, under best play by both.  ``pv``:
    the principal variation, from now to the end of the game (each action legal in
    turn; the game is over after the last), ``action`` first.  Where several moves
    later in the line are equally good, the line takes the one the search kept, so a
    large endgame solved twice may show two different best lines (an exact solve's
    ``action`` and ``spread`` are always the same).  ``nodes``: positions searched.
    ``exact``: False only when ``time_limit`` cut the search short: ``action`` is then
    the best of the deepest search completed, and ``pv`` that action followed by the
    highest-scoring placement for both players to the end, ``spread`` its outcome."""

    action: Action
    spread: int
    pv: list[Action]
    nodes: int
    exact: bool


def _check(game: object, time_limit: object) -> float | None:
    if not isinstance(game, Game):
        raise QwirkleError(f"solve_endgame takes a Game, got {show(game)}")
    if game.players != 2:
        raise QwirkleError(f"the endgame solver is for two players (perfect information), the game has {game.players}")
    if game.is_over:
        raise QwirkleError("the game is over: there is nothing to solve")
    if game.bag_size:
        raise QwirkleError(f"the bag holds {game.bag_size} tiles: the endgame starts when it is empty")
    if game.opening_size or game.board.is_empty():
        raise QwirkleError("the game has not opened yet: the solver starts from a board in play")
    if time_limit is None:
        return None
    if isinstance(time_limit, (bool, np.bool_)) or not isinstance(time_limit, (int, float, np.integer, np.floating)):
        raise QwirkleError(f"time_limit is a number of seconds or None, got {show(time_limit)}")
    seconds = as_seconds(time_limit)
    if seconds is None:
        raise QwirkleError(f"time_limit is a positive finite number of seconds, got {show(time_limit)}")
    return seconds


def padded_state(st: npt.NDArray[np.int64], tiles_left: int) -> npt.NDArray[np.int64]:
    """A copy of the board state ``st`` whose window keeps ``MARGIN + tiles_left`` empty
    cells around the tiles on every side.  A placement of n tiles reaches at most n
    cells beyond the tiles' box, so no sequence of the ``tiles_left`` tiles still in
    the hands brings a tile within MARGIN of this window's edge: the search never needs
    a larger window (``push_legal``'s NEED_REGROW)."""
    need = _state.MARGIN + tiles_left
    r0, r1, c0, c1 = (int(st[s]) for s in (_state.S_R0, _state.S_R1, _state.S_C0, _state.S_C1))
    height, width = int(st[_state.S_HEIGHT]), int(st[_state.S_WIDTH])
    if min(r0, c0, height - r1, width - c1) >= need:
        return st.copy()
    # regrown keeps GROW_MARGIN cells around the tiles and the cells of a move: a
    # move row of two cells beyond the box's corners (its kinds are not read) widens it.
    pad = max(0, need - _state.GROW_MARGIN)
    top, left = int(st[_state.S_TOP]), int(st[_state.S_LEFT])
    corners = np.zeros(ACTION_COLS, np.int64)
    corners[_layout.COL_N] = 2
    corners[_layout.COL_ROWS] = top + r0 - pad
    corners[_layout.COL_COLS] = left + c0 - pad
    corners[_layout.COL_ROWS + 1] = top + r1 - 1 + pad
    corners[_layout.COL_COLS + 1] = left + c1 - 1 + pad
    grown: npt.NDArray[np.int64] = _state.regrown(st, corners)
    return grown


class _Position:
    """The kernels' arrays for one solve."""

    def __init__(self, game: Game, use_bounds: bool = True) -> None:
        self.use_bounds = use_bounds  # off: the tests' check that the bounds change no answer
        mover = game.to_move
        hands = [game.hand(mover), game.hand(1 - mover)]
        self.counts = np.zeros((2, N_KINDS), np.int64)
        for side, hand in enumerate(hands):
            for tile in hand:
                self.counts[side, tile.kind] += 1
        self.masks = np.array([int(sum(1 << k for k in {t.kind for t in h})) for h in hands], np.int64)
        self.sizes = np.array([len(h) for h in hands], np.int64)
        st = game.board.state_arrays()[0]
        self.st = padded_state(st, int(self.sizes.sum()))
        self.base = game.scores[mover] - game.scores[1 - mover]
        # The kinds that no line of six can hold from here on (bounds the last tile's points).
        self.free_kinds = int(K.qwirkle_free_kinds(self.st, self.counts))


def _run_search(
    pos: _Position, scratch: _Scratch, stats: npt.NDArray[np.int64], use_tt: bool, depth: int, salt: int,
    best_row: npt.NDArray[np.int32],
) -> int:
    """One search from the root (growing the move tables when a position needs it);
    stats[S_STATUS] says whether it completed or ran out of nodes."""
    while True:
        scratch.log[0] = 0  # an empty undo log (the PV's walk leaves its pushes in it)
        value = int(K.search(
            pos.st, pos.counts, pos.masks, pos.sizes, scratch.tables, scratch.order, scratch.log,
            scratch.tt, use_tt, stats, depth, -K.INFINITY, K.INFINITY, 0, salt, best_row, pos.use_bounds, pos.free_kinds,
            _stamp(salt), scratch.work,
        ))
        status = int(stats[K.S_STATUS])
        if status == K.S_NEED_CAPACITY:
            scratch.grow(max(int(stats[K.S_NEED]), 2 * scratch.capacity))
            continue
        if status == K.S_BROKEN:
            raise AssertionError("the endgame search needed a larger window: padded_state is wrong")
        return value


def _place_or_pass(row: npt.NDArray[np.int32]) -> Action:
    if row[_layout.COL_N] == 0:
        return Action.pass_turn()
    action = np.zeros(ACTION_COLS, np.int64)
    action[:OUT_COLS] = row
    action[_layout.A_TYPE] = _layout.PLACE
    return action_from_row(action)


def _greedy_line(game: Game, first: Action) -> tuple[list[Action], int]:
    """``first``, then the highest-scoring placement (or a pass) for both players to the
    end; the line and the final spread for the player to move now."""
    mover = game.to_move
    play = game.copy()
    line = [play.push(first)]
    while not play.is_over:
        best = play.legal_moves().best()
        line.append(play.push(Action.pass_turn() if best is None else Action.place(best)))
    return line, play.scores[mover] - play.scores[1 - mover]


def _stoppable_exact(
    pos: _Position, scratch: _Scratch, stats: npt.NDArray[np.int64], use_tt: bool, salt: int,
    best_row: npt.NDArray[np.int32], should_stop: Callable[[], bool],
) -> tuple[int, bool]:
    """An exact solve that ``should_stop`` can end: depth 1 first (its best action is
    the answer if stopped; left in ``best_row``), then the whole game in calls of
    ``_poll_budget`` nodes each.  Not iterative deepening: deepening ply by ply searched
    2.1-2.6x the nodes of one full search (seeds 3, 4, 7, 8).  Returns (value, exact)."""
    stats[K.S_LIMIT] = UNLIMITED
    began = time.perf_counter()
    value = _run_search(pos, scratch, stats, use_tt, 1, salt, best_row)
    rate = int(stats[K.S_NODES]) / max(time.perf_counter() - began, 1e-6)
    if stats[K.S_HORIZON] == 0:
        return value, True
    first = best_row.copy()
    horizon = int(stats[K.S_HORIZON])
    began = time.perf_counter()
    while not should_stop():
        now = time.perf_counter()
        before = int(stats[K.S_NODES])
        stats[K.S_LIMIT] = before + _poll_budget(rate, now - began)
        got = _run_search(pos, scratch, stats, use_tt, K.MAX_PLY, salt, best_row)
        rate = (int(stats[K.S_NODES]) - before) / max(time.perf_counter() - now, 1e-6)
        if stats[K.S_STATUS] != K.S_ABORTED:
            stats[K.S_LIMIT] = UNLIMITED
            assert stats[K.S_HORIZON] == horizon, "a search of MAX_PLY plies reaches every end of the game"
            return got, True
    best_row[:] = first
    stats[K.S_LIMIT] = UNLIMITED
    return value, False


def solve_endgame(
    game: Game, *, time_limit: float | None = None, should_stop: Callable[[], bool] | None = None
) -> EndgameResult:
    """Solve a two-player game whose bag is empty: the best action for the player to
    move and the final spread under best play (see :class:`EndgameResult`).

    ``time_limit`` (seconds, or None for an exact solve however long it takes) stops
    the search, deepening one ply at a time, when it runs out; the result is then
    ``exact`` only if the last completed depth reached every end of the game.
    ``should_stop``: a function of no arguments, asked between kernel calls of about
    POLL_SECONDS each (or 1/POLL_SHARE of the time the search has taken, if more; a
    call cut short is searched again); True ends the search as a
    time limit does (``exact`` False, the best action of the deepest search completed).
    With a ``time_limit`` the search deepens as it does without ``should_stop``;
    without one, it searches depth 1 (the answer if stopped) and then the whole game,
    at about the cost of an exact solve.  A kernel call is not interrupted (it releases
    the GIL, but nothing reaches into it), so a stop takes effect within one call.  Raises
    QwirkleError for a game that is not a two-player endgame in play (tiles in the
    bag, more players, over, not opened) or a bad ``time_limit`` or ``should_stop``."""
    return _solve(game, time_limit, use_tt=True, should_stop=should_stop)


def _solve(
    game: Game, time_limit: object, use_tt: bool, should_stop: Callable[[], bool] | None = None, use_bounds: bool = True,
) -> EndgameResult:
    limit = _check(game, time_limit)
    if should_stop is not None and not callable(should_stop):
        raise QwirkleError(f"should_stop is None or a function of no arguments, got {show(should_stop)}")
    started = time.perf_counter()
    scratch = _scratch
    pos = _Position(game, use_bounds)
    salt = _next_salt()
    stats = np.zeros(K.N_STATS, np.int64)
    best_row = np.zeros(OUT_COLS, np.int32)
    if limit is None and should_stop is None:
        stats[K.S_LIMIT] = UNLIMITED
        value = _run_search(pos, scratch, stats, use_tt, K.MAX_PLY, salt, best_row)
        exact = stats[K.S_HORIZON] == 0
        assert exact, "a search of MAX_PLY plies reaches every end of the game"
    elif limit is None and should_stop is not None:
        value, exact = _stoppable_exact(pos, scratch, stats, use_tt, salt, best_row, should_stop)
    else:
        # The clock is here (numba has none): each depth gets the nodes that the rate
        # measured so far fits into the time left, and stops when they run out.
        deadline = math.inf if limit is None else started + limit
        value, exact = 0, False
        best_row_done = np.zeros(OUT_COLS, np.int32)
        rate = 0.0
        depth = 1
        depth_began = started
        while depth <= K.MAX_PLY:
            now = time.perf_counter()
            if depth > 1 and (now >= deadline or (should_stop is not None and should_stop())):
                break
            before_nodes = int(stats[K.S_NODES])
            before_horizon = int(stats[K.S_HORIZON])
            # Depth 1 always completes (a legal action at least); later depths run on
            # the budget.
            budget = UNLIMITED if depth == 1 or rate == 0.0 else max(1, int(min(rate * (deadline - now), UNLIMITED)))
            if should_stop is not None and depth > 1 and rate > 0.0:
                budget = min(budget, _poll_budget(rate, now - depth_began))
            stats[K.S_LIMIT] = min(UNLIMITED, before_nodes + budget)
            got = _run_search(pos, scratch, stats, use_tt, depth, salt, best_row)
            elapsed = time.perf_counter() - now
            rate = (int(stats[K.S_NODES]) - before_nodes) / max(elapsed, 1e-6)
            if stats[K.S_STATUS] == K.S_ABORTED:
                if should_stop is None:
                    break
                continue  # this depth again, unless stopped or out of time
            value = got
            best_row_done[:] = best_row
            if stats[K.S_HORIZON] == before_horizon:
                exact = True
                break
            depth += 1
            depth_began = time.perf_counter()
        best_row = best_row_done
        stats[K.S_LIMIT] = UNLIMITED
    if not exact:
        first = _place_or_pass(best_row)
        line, spread = _greedy_line(game, first)
        return EndgameResult(first, spread, line, int(stats[K.S_NODES]), False)
    pv_rows = np.zeros((K.MAX_PLY, ACTION_COLS), np.int64)
    while True:
        walk_pos = _Position(game, use_bounds)
        scratch.log[0] = 0
        turns = int(K.principal_variation(
            walk_pos.st, walk_pos.counts, walk_pos.masks, walk_pos.sizes, scratch.tables, scratch.order,
            scratch.log, scratch.tt, use_tt, stats, salt, value, scratch.walk, pv_rows, walk_pos.use_bounds,
            walk_pos.free_kinds, _stamp(salt), scratch.work,
        ))
        if turns < 0 and stats[K.S_STATUS] == K.S_NEED_CAPACITY:
            scratch.grow(max(int(stats[K.S_NEED]), 2 * scratch.capacity))
            continue
        if turns < 0:
            raise AssertionError("the endgame solver found no line of its own value")
        break
    pv = [action_from_row(pv_rows[i]) for i in range(turns)]
    return EndgameResult(pv[0], pos.base + value, pv, int(stats[K.S_NODES]), True)

