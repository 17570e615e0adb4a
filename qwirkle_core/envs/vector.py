"""N games stepped by one numba kernel call (:class:`VectorQwirkle`).

>>> env = VectorQwirkle(4, players=2, seed=1, opponents="greedy")
>>> obs, masks, info = env.reset()
>>> masks.shape, masks.dtype
((4, 36902), dtype('bool'))
>>> obs, masks, rewards, terminated, truncated, info = env.step(env.random_actions())
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
from numba.typed import List

from .. import _bot_kernels, _constants, _layout
from .._constants import EMPTY
from .._ints import int_value, read_int
from .._prng import new_state
from .._state import LOG_PER_PUSH, empty_state, tiles_of
from .._turn import new_table
from ..board import Board
from ..bots import BOTS, Bot, make_bot
from ..errors import IllegalMoveError, QwirkleError, show
from ..game import Action, Game, _action_row
from ..tiles import ALL_TILES
from . import _kernels as k
from .encoding import DEFAULT_WINDOW, MAX_WINDOW, action_count, describe
from .observation import board_planes

__all__ = ["BOT_IDS", "SEARCH_BOTS", "VectorQwirkle"]

BOT_IDS = {"random": _bot_kernels.BOT_RANDOM, "greedy": _bot_kernels.BOT_GREEDY, "heuristic": _bot_kernels.BOT_HEURISTIC}
# The opponents played in Python between kernel calls (qwirkle_core.bots.make_bot's).
SEARCH_BOTS = tuple(name for name in BOTS if name not in BOT_IDS)
OPPONENTS = (*BOT_IDS, *SEARCH_BOTS)
MOVE_CACHE = 1024  # encoded moves kept per env for a turn (more: re-encoded per sub-step)
SET_LIST = 2048  # mask bits remembered per env, so a mask is cleared bit by bit
MAX_ENVS = 1 << 16  # the most envs one VectorQwirkle steps (each takes ~100 KiB); more is refused at once
# An environment's narrowest window: one that holds every opening.  On the empty board
# window cell (W // 2, W // 2) is board cell (0, 0) (as queries.position_planes centres
# it), and an opening runs east or south from there: a line of six needs W // 2 + 5 < W.
MIN_WINDOW = 11
# Derived game seeds stay below this, so base + k·n never reaches int64's end (the kernels
# count the seeds in int64) however many games an env plays.
DERIVED_SEED_BITS = 62

# Columns of obs["scalars"] (seats rotated: column 0 is the player to move).
SCALARS = {
    "scores": slice(k.O_SCORES, k.O_SCORES + 6),
    "hand_sizes": slice(k.O_HAND_SIZES, k.O_HAND_SIZES + 6),
    "bag": k.O_BAG,
    "players": k.O_PLAYERS,
    "opening": k.O_OPENING,
    "seat": k.O_SEAT,
    "placed": k.O_PLACED,
    "marked": k.O_MARKED,
}


def _length(value: Any) -> int:
    """``len(value)``, or -1 where it has none (a scalar, a generator)."""
    try:
        return len(value)
    except (TypeError, OverflowError):
        return -1


class VectorQwirkle:
    """``n`` games of ``players`` stepped together by one kernel call per step.

    The games are the game loop's arrays and every turn is played by its kernels
    (``deal``, ``place_tiles`` + ``settle_turn``, ``ending``, the bots): env i's k-th game
    (from the last seeded reset) is ``Game(players, bases[i] + k·n)``'s, where

    - ``seed=s`` (an integer >= 0): ``bases`` are derived from numpy's
      ``SeedSequence(s)``: ``SeedSequence(s).generate_state(n + 1, numpy.uint64)[:n] >> 2``
      (the last word seeds ``random_actions``), so seeds s and s + 1 share no deals
      (as the sub-envs of frameworks that seed sub-env j with s + j need) and the same s
      replays the same games;
    - ``seed=None`` (the default): the same from the operating system's entropy, so two
      processes never play the same games;
    - ``game_seeds=g`` instead of a seed: ``bases[i] = g + i``, so env i plays
      ``Game(players, g + i)``, ``Game(players, g + i + n)``, ...: a given deal, as
      ``Game`` and self-play's ``seed + i`` deal it (mirrors, datasets); past 2**64
      the count goes on from 0, as self-play's does.

    ``reset()`` without a seed continues every env's seeds (its next game is the one
    after its last: new deals); ``reset(seed=...)`` or ``reset(game_seeds=...)`` starts
    over.  ``info["seed"]`` (or ``game_seed(i)``) is each game's seed.

    Actions are the sub-steps of :mod:`qwirkle_core.envs.encoding` (window ``window``).
    With ``opponents=None`` the caller plays every seat (the observation is the player
    to move's); with a bot name (``"random"``, ``"greedy"``, ``"heuristic"``), or one
    name per seat, the caller plays seat ``learner`` and the bots play the other seats
    inside the kernel, with the built-in bots' seeds (stream 1 + seat of the game's seed).
    A search bot (``"sim"``, ``"endgame"``: ``SEARCH_BOTS``) plays its seats in Python
    between the kernel calls, within the same ``step`` (or ``reset``): seat p of the game
    of seed S is ``make_bot(name, seed=S, seat=p, movetime=opponent_movetime)``, made
    afresh for each game and asked to choose on ``to_game(i)`` (the position, without its
    history but with its turn count, from which the bot seeds each move); ``opponent_movetime`` (seconds a move, only with a search opponent) bounds
    its search, else it does a fixed amount of work a move and the games are the same
    for the same seeds.  Without a search opponent nothing of this runs.

    ``step(actions)`` returns ``(obs, masks, rewards, terminated, truncated, info)``.
    ``obs`` and ``masks`` are the env's own buffers, the same objects at every call and
    rewritten by it (copy what you keep: a copy of the masks would cost n × 36,902
    bytes a step); ``rewards``, ``terminated``, ``truncated`` and ``info``'s arrays are
    new arrays each call (n entries each):

    - ``obs["board"]``: int8[n, 2, W, W]: the kinds on the board (-1 empty) in the turn's
      window, and the tiles placed so far this turn;
    - ``obs["hand"]``: int8[n, 2, 36]: copies of each kind still in the hand, and marked
      for the exchange this turn;
    - ``obs["scalars"]``: int32[n, 18]: see ``SCALARS`` (scores and hand sizes rotated so
      that column 0 is the player to move, the bag, players, the opening size, the seat
      to move, the sub-steps of the turn so far);
    - ``masks``: bool[n, 36·W² + 38], the legal sub-steps;
    - ``rewards``: float32[n]: the points the acting seat scored in the step (the going-out
      bonus included); against bots, the learner's points less the mean of the bots'
      points over the step (their turns are played within it), and in a game's first
      step also over the bots' turns before it (inside ``reset`` or an autoreset), so
      a game's rewards sum to its final margin;
    - ``terminated``: the game ended by the rules; ``truncated``: stopped at MAX_TURNS, or
      a turn whose every legal move left the window (see the encoding).  Either way the
      env starts its next game in the same step (autoreset, unless ``autoreset=False``):
      the observation is the new game's, ``info["final_scores"]`` the ended game's.
    - ``info``: ``to_move`` (seat), ``seed`` (the game's), ``games`` (finished games),
      ``moves_outside_window`` (legal moves of the turn outside the window),
      ``games_skipped`` (games over or truncated before the caller's first turn: dealt
      again with the next seed, and counted here, never silently),
      ``final_scores`` (int64[n, 6], rows written when a game ends), and ``illegal``
      (bool[n]: the env's action was refused, with ``illegal_reward``), ``window_origin``
      (int64[n, 2]: the board coordinates of window cell (0, 0) this turn).

    ``illegal_reward=None`` (the default): an action that is not a legal sub-step (in a
    finished game without autoreset, any action) raises IllegalMoveError and no env
    moves.  A number: that env alone is left as it was and rewarded it, and the others
    play their actions.
    """

    def __init__(
        self,
        n: int,
        players: int = 2,
        seed: int | None = None,
        opponents: str | Sequence[str | None] | None = None,
        learner: int = 0,
        window: int = DEFAULT_WINDOW,
        autoreset: bool = True,
        opponent_movetime: float | None = None,
        illegal_reward: float | None = None,
        game_seeds: int | None = None,
    ) -> None:
        # (An int or a numpy integer: qwirkle_core._ints.)
        n = read_int(n, "n, the number of games,", 1, MAX_ENVS)
        players = read_int(players, "players", 2, 6)
        seat = int_value(learner)
        if seat is None or not 0 <= seat < players:
            raise QwirkleError(f"no seat {show(learner)} in a game of {players}")
        learner = seat
        # A narrower window cannot hold every opening (the largest line of a hand, up to
        # six tiles, from the window's middle cell): the deals whose opening did not fit
        # would be skipped, so a seed would not replay its game, and with many players
        # dealing would not end.
        window = read_int(
            window, "an environment's window width (it holds an opening of six from its middle)", MIN_WINDOW, MAX_WINDOW
        )
        self.n = n
        self.players = players
        self.window = window
        self.learner = learner
        self.autoreset = bool(autoreset)
        self.action_count = action_count(window)
        self.bots = np.full(_constants.MAX_PLAYERS, -1, np.int64)
        # Seat -> the search bot's name, for the seats Python plays (k.SEARCH_SEAT in bots).
        self._search_names: dict[int, str] = {}
        if opponents is not None:
            try:
                # At most one name a seat (one more, to tell): never walked to its end.
                names = [opponents] * players if isinstance(opponents, str) else list(
                    itertools.islice(iter(opponents), players + 1)
                )
            except TypeError:  # neither a name nor a sequence of them
                raise QwirkleError(f"opponents is a bot name or one per seat ({players}), got {show(opponents)}") from None
            if len(names) != players:
                raise QwirkleError(f"one opponent per seat ({players}), got {show(names)}")
            for p, name in enumerate(names):
                if p == learner:
                    # The learner plays its own seat: a name there was ignored without a word.
                    if name is not None and not isinstance(opponents, str):
                        raise QwirkleError(f"opponents[{p}] is the learner's seat: None there, got {show(name)}")
                    continue
                if not isinstance(name, str) or name not in OPPONENTS:
                    raise QwirkleError(f"opponents are {sorted(OPPONENTS)}, got {show(name)}")
                if name in BOT_IDS:
                    self.bots[p] = BOT_IDS[str(name)]
                else:
                    self.bots[p] = k.SEARCH_SEAT
                    self._search_names[p] = str(name)
        self.opponent_movetime = self._check_movetime(opponent_movetime)
        self.illegal_reward = self._check_illegal_reward(illegal_reward)
        # Per env: (games played, game seed) of the game its search bots were made for.
        self._search_bots: list[tuple[tuple[int, int], dict[int, Bot]] | None] = [None] * n
        self._bases, sample_seed = self._seeding(seed, game_seeds, n)
        self._sample_rng = new_state(sample_seed, 99)
        try:
            self._allocate(n, window)
        except MemoryError:
            mask_bytes = n * self.action_count
            raise QwirkleError(
                f"n={n} envs of window {window} need more memory than there is: their action masks alone "
                f"take n × {self.action_count:,} bytes ({mask_bytes / 2**30:,.1f} GiB); use fewer envs or a "
                "narrower window"
            ) from None

    def _allocate(self, n: int, window: int) -> None:
        """The envs' arrays (``MemoryError`` where they do not fit)."""
        # One board state per env (layout in qwirkle_core._state): a typed list, since a
        # state is replaced by a larger array when its board grows.
        self._sts = List([empty_state() for _ in range(n)])
        self._metas = np.zeros((n, _layout.N_META), np.int64)
        self._hands = np.zeros((n, _constants.MAX_PLAYERS, _constants.HAND_SIZE), np.int64)
        self._hand_sizes = np.zeros((n, _constants.MAX_PLAYERS), np.int64)
        self._bags = np.zeros((n, _constants.N_TILES), np.int64)
        self._scores = np.zeros((n, _constants.MAX_PLAYERS), np.int64)
        self._rngs = np.zeros((n, 4), np.int64)
        self._bot_rngs = np.zeros((n, _constants.MAX_PLAYERS, 4), np.int64)
        self._env = np.zeros((n, k.N_ENV), np.int64)
        self._partial = np.full((n, 12), -1, np.int64)
        self._cache_ids = np.zeros((n, MOVE_CACHE, k.MOVE_COLS), np.int32)
        self._cache_scores = np.zeros((n, MOVE_CACHE), np.int32)
        self._ex = np.zeros((n, 64, 1 + _constants.HAND_SIZE), np.int64)
        self._set_lists = np.zeros((n, SET_LIST), np.int32)
        self.masks: npt.NDArray[np.bool_] = np.zeros((n, self.action_count), np.bool_)
        self.obs: dict[str, npt.NDArray[Any]] = {
            "board": np.full((n, 2, window, window), EMPTY, np.int8),
            "hand": np.zeros((n, 2, 36), np.int8),
            "scalars": np.zeros((n, k.N_SCALARS), np.int32),
        }
        self.rewards: npt.NDArray[np.float32] = np.zeros(n, np.float32)
        self.terminated: npt.NDArray[np.bool_] = np.zeros(n, np.bool_)
        self.truncated: npt.NDArray[np.bool_] = np.zeros(n, np.bool_)
        self._final_scores = np.zeros((n, _constants.MAX_PLAYERS), np.int64)
        self._before = np.zeros((n, _constants.MAX_PLAYERS), np.int64)  # the scores before the last step
        self._illegal = np.zeros(n, np.bool_)  # whose action the last step refused (illegal_reward)
        self._started = False

    def __getstate__(self) -> dict[str, Any]:
        """Pickling and ``copy.deepcopy``: numba's typed list of board states does not
        pickle, so the states travel as a plain list and are listed again on arrival."""
        state = self.__dict__.copy()
        state["_sts"] = list(self._sts)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        state = dict(state)
        sts = state.pop("_sts")
        self.__dict__.update(state)
        self._sts = List(sts)

    def _check_movetime(self, movetime: Any) -> float | None:
        """``opponent_movetime``: None, or seconds a move for the search opponents."""
        if movetime is None:
            return None
        from ..match import check_movetime  # here: qwirkle_core.match imports self-play

        seconds = check_movetime(movetime)  # a QwirkleError unless 0 < seconds <= MAX_MOVETIME
        if not self._search_names:
            raise QwirkleError(
                f"opponent_movetime is for the search opponents ({', '.join(SEARCH_BOTS)}): none plays here"
            )
        return seconds

    @staticmethod
    def _check_illegal_reward(value: Any) -> float | None:
        """``illegal_reward``: None (an illegal action raises) or a finite number."""
        if value is None:
            return None
        try:
            number = float(value) if isinstance(value, (int, float, np.integer, np.floating)) else math.nan
        except OverflowError:  # an int past the floats
            number = math.nan
        if isinstance(value, (bool, np.bool_)) or not math.isfinite(number):
            raise QwirkleError(f"illegal_reward is None or a finite number, got {show(value)}")
        return number

    @staticmethod
    def _seeding(seed: Any, game_seeds: Any, n: int) -> tuple[npt.NDArray[np.int64], int]:
        """The first game seed of each env and the seed of ``random_actions``' stream,
        from ``seed`` (None: entropy) or ``game_seeds`` (see the class's docstring)."""
        if game_seeds is not None:
            if seed is not None:
                raise QwirkleError("seed or game_seeds, not both")
            number = int_value(game_seeds)
            if number is None:
                raise QwirkleError(f"game_seeds is an integer, got {show(game_seeds)}")
            # Room for the seeds of all n envs' games (the kernels count them in int64).
            if not 0 <= number < 2**63 - 2 * n:
                raise QwirkleError(f"game_seeds of {n} envs is an integer 0..2**63 - {2 * n + 1}, got {show(number)}")
            return number + np.arange(n, dtype=np.int64), number
        if seed is not None:
            number = int_value(seed)
            if number is None or not 0 <= number < 2**63:
                raise QwirkleError(f"a seed is None or an integer 0..2**63 - 1, got {show(seed)}")
            seed = number
        words = np.random.SeedSequence(seed).generate_state(n + 1, np.uint64) >> np.uint64(64 - DERIVED_SEED_BITS)
        return words[:n].astype(np.int64), int(words[n])

    # -------------------------------------------------------------- stepping
    def reset(
        self, seed: int | None = None, *, game_seeds: int | None = None
    ) -> tuple[dict[str, npt.NDArray[Any]], npt.NDArray[np.bool_], dict[str, Any]]:
        """Deal a new game in every env; returns (obs, masks, info).  With ``seed`` or
        ``game_seeds`` the envs' seeds start over from it (the class's docstring has the
        mapping); without, the first reset plays the construction's seeds and later ones
        continue each env's seeds (new deals, never the last reset's again)."""
        if seed is not None or game_seeds is not None:  # checked whole before anything is stored
            self._bases, sample_seed = self._seeding(seed, game_seeds, self.n)
            self._sample_rng = new_state(sample_seed, 99)
            self._started = False
        # A started env's next seed is the one after its last game's: continued.
        next_seeds = self._env[:, k.E_NEXT_SEED].copy() if self._started else self._bases
        self._env[:] = 0
        self._env[:, k.E_NEXT_SEED] = next_seeds
        self.masks[:] = False
        self._final_scores[:] = 0
        for i in range(self.n):
            self._start_game(i)
        self._started = True
        self.rewards[:] = 0
        self.terminated[:] = False
        self.truncated[:] = False
        self._illegal[:] = False
        if self._search_names:
            self._search_bots = [None] * self.n
            self._play_search_seats(np.ones(self.n, np.bool_))
        self._before[:] = self._scores  # no step yet: no seat has scored in one
        return self.obs, self.masks, self.info()

    def _start_next(self, envs: npt.NDArray[np.bool_]) -> None:
        """Deal the next game in the finished envs ``envs`` (without autoreset: the
        caller read the ended games first) and play to the caller's turn, as an
        autoreset would: each env's next seed, the next step's rewards counted from 0."""
        for i in np.flatnonzero(envs).tolist():
            self._start_game(i)
        if self._search_names:
            self._play_search_seats(envs.copy())

    def _start_game(self, i: int) -> None:
        """Deal env i's next game and let the kernel bots play to the caller's turn (or
        a search seat's)."""
        k.start_game(
            i, self._sts, self._metas, self._hands, self._hand_sizes, self._bags, self._scores, self._rngs,
            self._bot_rngs, self.bots, self._env, self._partial, self._cache_ids, self._cache_scores, self._ex,
            self.masks, self._set_lists, self.obs["board"], self.obs["hand"], self.obs["scalars"],
            self.players, self.n,
        )

    def step(
        self, actions: npt.ArrayLike
    ) -> tuple[
        dict[str, npt.NDArray[Any]], npt.NDArray[np.bool_], npt.NDArray[np.float32],
        npt.NDArray[np.bool_], npt.NDArray[np.bool_], dict[str, Any],
    ]:
        """Play one sub-step in every env (``actions``: int[n]).  Raises
        IllegalMoveError, changing nothing, if an action is not legal; with
        ``illegal_reward`` set, that env alone is left as it was, rewarded
        ``illegal_reward``, with ``info["illegal"]`` True.  ``obs`` and ``masks`` are the
        env's buffers (rewritten by the next call); the rest are new arrays."""
        self._step(actions)
        return self.obs, self.masks, self.rewards.copy(), self.terminated.copy(), self.truncated.copy(), self.info()

    def _step(self, actions: npt.ArrayLike) -> None:
        """``step``, leaving its results in the env's buffers (``rewards``,
        ``terminated``, ``truncated``, ...): the single-env wrappers read one entry of
        each, and copies and an info dict would cost them more than the step."""
        try:
            if not isinstance(actions, np.ndarray) and _length(actions) not in (-1, self.n):
                raise ValueError  # the wrong length: never converted (a range of 10**12)
            acts = np.asarray(actions)
        except (TypeError, ValueError, OverflowError, RecursionError, MemoryError):  # ragged, or no array at all
            raise QwirkleError(f"actions are {self.n} integers, got {show(actions)}") from None
        if acts.shape != (self.n,) or not np.issubdtype(acts.dtype, np.integer):
            raise QwirkleError(f"actions are {self.n} integers, got {acts.dtype} of shape {acts.shape}")
        if not self._started:  # after the checks: a refused call changes nothing
            self.reset()
        acts = acts.astype(np.int64, copy=False)
        games_before = self._env[:, k.E_GAMES].copy() if self._search_names else self._env[:, k.E_GAMES]
        bad = k.step_envs(
            acts, self._sts, self._metas, self._hands, self._hand_sizes, self._bags, self._scores, self._rngs,
            self._bot_rngs, self.bots, self._env, self._partial, self._cache_ids, self._cache_scores, self._ex,
            self.masks, self._set_lists, self.obs["board"], self.obs["hand"], self.obs["scalars"], self.rewards,
            self.terminated, self.truncated, self._final_scores, self.players, int(self.autoreset),
            self._illegal, int(self.illegal_reward is not None), self._before,
        )
        if bad >= 0:
            if self._env[bad, k.E_DONE]:
                raise IllegalMoveError(f"env {bad}: the game is over (reset it: autoreset is off)")
            a = int(acts[bad])
            what = describe(a, self.window) if 0 <= a < self.action_count else a
            raise IllegalMoveError(f"env {bad}: action {a} {what} is not a legal sub-step")
        # The kernel wrote into self._before the scores each env's step is measured
        # from: 0 in a game's first step, so that what the bots scored before it (inside
        # reset or an autoreset) counts there.
        if self._search_names:
            self._after_search_step(games_before)
        if self.illegal_reward is not None:
            self.rewards[self._illegal] = self.illegal_reward

    def seat_rewards(self) -> npt.NDArray[np.float32]:
        """float32[n, players], a new array: the points each seat scored in the last step
        (as pgx's ``rewards[n, players]``), the going-out bonus included, and the bots'
        turns within the step included; for a game that ended in the step, up to its end
        (its final scores), also where autoreset has dealt the next; in a game's first
        step, also the bots' turns before it (inside ``reset`` or an autoreset).  Summed
        over a game's steps, a seat's entries are its final score.  Zeros before any
        step."""
        gains: npt.NDArray[np.float32] = self._seat_points().astype(np.float32)
        return gains

    def _seat_points(self) -> npt.NDArray[np.int64]:
        """int64[n, players]: ``seat_rewards`` as integers (exact, for the rewards that
        divide them)."""
        ended = (self.terminated | self.truncated)[:, None]
        after = np.where(ended, self._final_scores, self._scores)
        points: npt.NDArray[np.int64] = (after - self._before)[:, : self.players]
        return points

    # -------------------------------------------------------------- search opponents
    def _waiting(self) -> npt.NDArray[np.bool_]:
        """Per env: a search seat is to move in a game in play (the kernels stopped)."""
        to_move = self._metas[:, _layout.M_PLAYER]
        waiting: npt.NDArray[np.bool_] = (
            (self.bots[to_move] == k.SEARCH_SEAT) & (self._metas[:, _layout.M_OVER] == 0) & (self._env[:, k.E_DONE] == 0)
        )
        return waiting

    def _search_bot(self, i: int, seat: int) -> Bot:
        """The search bot of ``seat`` in env i's game: made for that game (its seed)."""
        key = (int(self._env[i, k.E_GAMES]), int(self._env[i, k.E_SEED]))
        held = self._search_bots[i]
        if held is None or held[0] != key:
            held = (key, {})
            self._search_bots[i] = held
        bots = held[1]
        if seat not in bots:
            options = {} if self.opponent_movetime is None else {"movetime": self.opponent_movetime}
            seed = key[1] % (1 << 64)
            bots[seat] = make_bot(self._search_names[seat], seed=seed, seat=seat, **options)
        return bots[seat]

    def _play_search_turn(self, i: int) -> int:
        """Env i's search seat plays its turn (chosen in Python), then the kernels go
        on as after the caller's turn: returns finish_turn's status."""
        game = self.to_game(i)
        seat = game.to_move
        chosen = self._search_bot(i, seat).choose(game)
        if not isinstance(chosen, Action):
            raise QwirkleError(f"the {self._search_names[seat]} bot chose {show(chosen)}, not an Action")
        played = game.push(chosen)  # legal (IllegalMoveError otherwise), with its score
        action = _action_row(played)
        row = np.zeros(_layout.LOG_COLS, np.int32)
        scratch_log = np.zeros(1 + 2 * LOG_PER_PUSH, np.int64)
        status: int = k.finish_turn(
            i, action, self._sts, self._metas, self._hands, self._hand_sizes, self._bags, self._scores, self._rngs,
            self._bot_rngs, self.bots, self._env, self._partial, self._cache_ids, self._cache_scores, self._ex,
            self.masks, self._set_lists, self.obs["board"], self.obs["hand"], self.obs["scalars"], row, scratch_log,
            new_table(),
        )
        return int(status)

    def _play_search_seats(self, fresh: npt.NDArray[np.bool_]) -> None:
        """Play the search seats' turns of every env where one is to move, until the
        caller's turn (or the game's end).  ``fresh[i]``: env i's game was dealt in
        this call, so a game that ends before the caller's first turn is skipped, as
        the kernels skip it (counted in ``games_skipped``, the next seed dealt)."""
        for i in np.flatnonzero(self._waiting()).tolist():
            while self._waiting()[i]:
                status = self._play_search_turn(i)
                if status in (k.BEGUN, k.WAITING):
                    continue
                if fresh[i]:
                    self._env[i, k.E_GAMES] += 1
                    self._env[i, k.E_SKIPPED] += 1
                    self._start_game(i)
                    continue
                k.close_game(
                    i, status, self._sts, self._metas, self._hands, self._hand_sizes, self._bags, self._scores,
                    self._rngs, self._bot_rngs, self.bots, self._env, self._partial, self._cache_ids,
                    self._cache_scores, self._ex, self.masks, self._set_lists, self.obs["board"], self.obs["hand"],
                    self.obs["scalars"], self.terminated, self.truncated, self._final_scores, self.players,
                    int(self.autoreset), self.n,
                )
                fresh[i] = True  # the next game (autoreset) is this step's too

    def _after_search_step(self, games_before: npt.NDArray[np.int64]) -> None:
        """After the kernel's step: the search seats' turns, then the rewards, over all
        the bots' turns of the step (from ``_before``, which the kernel wrote)."""
        # A game the kernel ended in this step and dealt again (autoreset) is fresh.
        fresh = self._env[:, k.E_GAMES] != games_before
        self._play_search_seats(fresh.copy())
        ended = self.terminated | self.truncated
        after = np.where(ended[:, None], self._final_scores, self._scores)
        gains = (after - self._before)[:, : self.players].astype(np.float64)
        mine = gains[:, self.learner]
        self.rewards[:] = mine - (gains.sum(axis=1) - mine) / (self.players - 1)

    def info(self) -> dict[str, Any]:
        """Per env (new numpy arrays): the seat to move, the game's seed, the games played
        and skipped, the moves outside the window, the final scores of the last game,
        whether the last step refused the env's action (``illegal_reward``), and the
        window's origin (the board coordinates (row, col) of window cell (0, 0))."""
        env = self._env.copy()  # one copy, whose columns the entries view
        return {
            "to_move": self._metas[:, _layout.M_PLAYER].copy(),
            # (uint64: a game's seed is counted modulo 2**64, as Game and self-play count
            # seeds, and the kernels count in int64, which wraps to negative past 2**63.)
            "seed": env[:, k.E_SEED].view(np.uint64),
            "games": env[:, k.E_GAMES],
            "games_skipped": env[:, k.E_SKIPPED],
            "moves_outside_window": env[:, k.E_DROPPED],
            "final_scores": self._final_scores.copy(),
            "illegal": self._illegal.copy(),
            "window_origin": env[:, k.E_TOP : k.E_LEFT + 1],
        }

    def legal_ids(self) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int64]]:
        """The masks as index lists: (ids int32[n, K], counts int64[n]), new arrays, where
        row i holds env i's legal sub-step ids in increasing order, then -1 up to K (the
        largest count).  A few dozen ids a row instead of a 36,902-entry mask: what a
        policy that scores only the legal sub-steps needs, and what to keep in a rollout
        buffer.  Read from the lists the kernels keep to clear the masks (no scan of the
        masks, except for a row with more than SET_LIST legal sub-steps)."""
        counts = self._env[:, k.E_SET].copy()
        width = int(counts.max()) if self.n else 0
        listed = np.minimum(counts, SET_LIST)
        ids = self._set_lists[:, : min(width, SET_LIST)].copy()
        ids[np.arange(ids.shape[1]) >= listed[:, None]] = np.iinfo(np.int32).max  # sorted last
        ids.sort(axis=1)
        ids[ids == np.iinfo(np.int32).max] = -1
        if width > SET_LIST:  # a row too long for its list: read from its mask
            ids = np.concatenate((ids, np.full((self.n, width - SET_LIST), -1, np.int32)), axis=1)
            for i in np.flatnonzero(counts > SET_LIST).tolist():
                ids[i, : counts[i]] = np.flatnonzero(self.masks[i])
        return ids, counts

    def packed_masks(self) -> npt.NDArray[np.uint8]:
        """The masks bit-packed (``numpy.packbits(masks, axis=1, bitorder="little")``: bit
        a % 8 of byte a // 8 is sub-step a), uint8[n, ceil((36·W² + 38) / 8)], a new array:
        an eighth of the bytes to store or send (``numpy.unpackbits(packed, axis=1,
        count=env.action_count, bitorder="little").view(bool)`` gives the masks back)."""
        packed: npt.NDArray[np.uint8] = np.packbits(self.masks, axis=1, bitorder="little")
        return packed

    def planes(self) -> npt.NDArray[np.uint8]:
        """uint8[n, N_PLANES, W, W], a new array: ``obs["board"]`` and the masks as binary
        planes (colour and shape planes of the board and of the tiles placed this turn,
        empty cells, cells with a legal PLACE: :mod:`qwirkle_core.envs.observation`), for
        a convolutional network; ``info["window_origin"]`` places the window on the board."""
        return board_planes(self.obs["board"], self.masks)

    def random_actions(self) -> npt.NDArray[np.int64]:
        """A uniformly random legal sub-step for each env (one kernel call; -1 where an
        env has none, which only a finished game without autoreset has)."""
        out = np.empty(self.n, np.int64)
        k.random_substeps(self.masks, self._set_lists, self._env, self._sample_rng, out)
        return out

    # -------------------------------------------------------------- reading
    def _env_index(self, i: int) -> int:
        """An env's index 0..n-1 (no negative index from the end: i names one env)."""
        return read_int(i, "the env index i", 0, self.n - 1)

    def scores(self, i: int) -> list[int]:
        """The scores of env i's game, seat 0 first."""
        i = self._env_index(i)
        return [int(s) for s in self._scores[i, : self.players]]

    def engine_state(self, i: int) -> tuple[npt.NDArray[Any], ...]:
        """Env i's game as the game loop's arrays (board state, meta, hands, hand_sizes,
        bag, scores, game_rng): copies."""
        i = self._env_index(i)
        arrays = (self._metas, self._hands, self._hand_sizes, self._bags, self._scores, self._rngs)
        return (np.array(self._sts[i]),) + tuple(a[i].copy() for a in arrays)

    def partial_turn(self, i: int) -> list[int]:
        """The sub-steps env i's player to move has played this turn."""
        i = self._env_index(i)
        placed = int(self._env[i, k.E_PLACED])
        marked = int(self._env[i, k.E_MARKED])
        if placed:
            return [int(a) for a in self._partial[i, :placed]]
        base = 36 * self.window * self.window
        return [base + int(kind) for kind in self._partial[i, 6 : 6 + marked]]

    def window_origin(self, i: int) -> tuple[int, int]:
        """Board coordinates of window cell (0, 0) of env i's turn."""
        i = self._env_index(i)
        return int(self._env[i, k.E_TOP]), int(self._env[i, k.E_LEFT])

    def game_seed(self, i: int) -> int:
        """The seed of env i's current game (0 <= seed < 2**64)."""
        i = self._env_index(i)
        return int(self._env[i, k.E_SEED]) % (1 << 64)

    def board(self, i: int) -> Board:
        """Env i's board (a copy, as a Board)."""
        i = self._env_index(i)
        tiles = tiles_of(self._sts[i]).tolist()
        return Board.from_placements((r, c, ALL_TILES[kind]) for r, c, kind in tiles) if tiles else Board()

    def to_game(self, i: int) -> Game:
        """Env i's position as a Game (no history: ``Game.from_position``, with the
        turns played so far as its ``turn_count``; a game in play)."""
        i = self._env_index(i)
        _, meta, hands, hand_sizes, bag, scores, _ = self.engine_state(i)
        return Game.from_position(
            self.board(i),
            [[ALL_TILES[int(t)] for t in hands[p, : hand_sizes[p]]] for p in range(self.players)],
            [ALL_TILES[int(t)] for t in bag[: meta[_layout.M_BAG]]],
            [int(s) for s in scores[: self.players]],
            int(meta[_layout.M_PLAYER]),
            turns_played=int(meta[_layout.M_TURNS]),
        )
