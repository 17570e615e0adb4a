"""Bots: anything with ``choose(game) -> Action`` plays.

>>> from qwirkle_core.game import Game
>>> game = Game(players=2, seed=3)
>>> bots = [make_bot("greedy", seed=3, seat=0), make_bot("random", seed=3, seat=1)]
>>> play(game, bots).is_over
True

The built-in bots (``random``, ``greedy``, ``heuristic``) decide with the same numba
kernels that the self-play engine runs (qwirkle_core._bot_kernels), so a game played
here with ``play`` is, turn by turn, the game ``selfplay`` plays for the same seed.
A built-in bot for seat p of a game with seed S draws its tie-breaks from the
generator of that seed and stream ``1 + p``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt

from . import _batch, _bot_kernels, _constants, _layout, _prng, _turn
from ._batch import MAX_TURNS
from ._ints import read_int
from ._jit import interruptible
from ._layout import OUT_COLS
from ._seconds import as_seconds
from .errors import QwirkleError, RunawayGameError, show
from .game import Action, Game, _check_seed
from .moves import Move
from .tiles import ALL_TILES


class Bot(ABC):
    """The interface: look at the game (through its public reading methods), return
    one of ``game.legal_actions()``.  A bot must not change the game."""

    name: str = "bot"

    @abstractmethod
    def choose(self, game: Game) -> Action:
        """The action to play for ``game.to_move``; QwirkleError for a game that is over
        (it has no legal action) or for anything but a Game."""


def _check_game_in_play(game: object) -> None:
    """QwirkleError unless ``game`` is a Game that is not over: a finished game has no
    legal action, so no bot has one to choose."""
    if not isinstance(game, Game):
        raise QwirkleError(f"a bot chooses for a Game, got {show(game)}")
    if game.is_over:
        raise QwirkleError("the game is over: there is no action to choose")


class _EngineBot(Bot):
    """A built-in bot: its decision is a numba kernel, its randomness its own stream."""

    engine_id: int

    def __init__(self, seed: int = 0, seat: int = 0) -> None:
        seat = read_int(seat, "a seat", 0, _constants.MAX_PLAYERS - 1)
        self._rng = _prng.new_state(_check_seed(seed), _prng.bot_stream(seat))
        # This bot alone is compiled for it.
        self._in_play = _bot_kernels.bots_in_play(np.array([self.engine_id], np.int64), 1)

    def choose(self, game: Game) -> Action:
        _check_game_in_play(game)
        st, meta, hands, hand_sizes, _, _, _ = game.engine_state(copy_state=False)
        seat = game.to_move
        action = np.zeros(_layout.ACTION_COLS, np.int64)
        # The heuristic puts tiles on the board to look at them and takes them off
        # again: give it a copy so that a bot never writes to the game.
        if self.engine_id == _bot_kernels.BOT_HEURISTIC:
            st = st.copy()
        table = _turn.new_table()
        need = _bot_kernels.choose_action_of(
            self.engine_id, st, meta, hands[seat], hand_sizes[seat], self._rng, action, table, *self._in_play
        )
        if need > 0:  # more moves than the table holds: nothing was chosen yet
            table = np.empty((need, OUT_COLS), np.int32)
            _bot_kernels.choose_action_of(
                self.engine_id, st, meta, hands[seat], hand_sizes[seat], self._rng, action, table, *self._in_play
            )
        return action_from_row(action)


class RandomBot(_EngineBot):
    """Uniform over every legal action (placements, distinct exchanges, pass)."""

    name = "random"
    engine_id = _bot_kernels.BOT_RANDOM


class GreedyBot(_EngineBot):
    """The highest-scoring placement, ties broken at random; with no placement it
    exchanges as many tiles as the bag allows (lowest kinds first), else passes."""

    name = "greedy"
    engine_id = _bot_kernels.BOT_GREEDY


class HeuristicBot(_EngineBot):
    """Weighs the score against the hand it keeps (the largest group it can still
    grow, fewer identical tiles), avoids leaving a line of five that another player
    could make a Qwirkle of (by the unseen copies of the missing tile), and goes out
    when it can.  In a two-player endgame, where the other hand is known, it looks one
    reply ahead for its best candidates instead.  Without a placement it keeps its
    largest group and exchanges the rest.  It wins about 53% of two-player games
    against greedy (greedy about 45%, the rest ties)."""

    name = "heuristic"
    engine_id = _bot_kernels.BOT_HEURISTIC


class _SearchBot(Bot):
    """A bot that searches (``qwirkle_core.analysis``): with ``movetime`` it thinks for
    at most that many seconds a move; without, it does a fixed amount of work a move, so
    that its games are the same for the same seed on any machine."""

    def __init__(
        self,
        seed: int = 0,
        seat: int = 0,
        movetime: float | None = None,
    ) -> None:
        self._seed = _check_seed(seed)
        self._movetime = _check_movetime(movetime)  # (make_bot checks it too; a bot made directly here)
        # A caller's clock or stop button (stop_when): the search then plays the best
        # it found so far.
        self._should_stop: Callable[[], bool] | None = None
        self._greedy = GreedyBot(seed, seat)  # validates the seat
        # A plain int (a numpy integer seat would overflow the move seeds' arithmetic).
        self._seat = read_int(seat, "a seat", 0, _constants.MAX_PLAYERS - 1)

    def _solve(self, game: Game) -> Action | None:
        """The solver's action where it applies (two players, the bag empty: a player
        can then work out the other's hand), else None.  QwirkleError for anything but a
        game in play (the bots call it first)."""
        _check_game_in_play(game)
        if game.players != 2 or game.bag_size or game.board.is_empty():
            return None
        from .analysis.endgame import solve_endgame

        return solve_endgame(game, time_limit=self._movetime, should_stop=self._should_stop).action

    def _move_seed(self, game: Game) -> int:
        """A seed of its own for each move of a game, from the bot's seed."""
        return (self._seed * 1_000_003 + game.turn_count * 7 + self._seat) % _prng.SEED_LIMIT


class EndgameBot(_SearchBot):
    """Greedy while the bag holds tiles; once it is empty in a two-player game, the
    exact endgame solver (:func:`qwirkle_core.analysis.endgame.solve_endgame`), cut at
    ``movetime`` seconds if given (then the best it found by iterative deepening)."""

    name = "endgame"

    def choose(self, game: Game) -> Action:
        solved = self._solve(game)
        return solved if solved is not None else self._greedy.choose(game)


class SimBot(_SearchBot):
    """Monte Carlo simulation (:func:`qwirkle_core.analysis.simulation.best_action`):
    its candidates played on samples of the tiles it cannot see, then greedy replies,
    ranked by equity (the mean spread gain; win probability breaks ties, as
    ``simulate`` ranks them); for ``movetime`` seconds a move if given, else the
    simulator's default iterations.  With the bag empty in a two-player game it plays
    the exact endgame solver instead (nothing is hidden any more)."""

    name = "sim"

    def choose(self, game: Game) -> Action:
        solved = self._solve(game)
        if solved is not None:
            return solved
        from .analysis.simulation import best_action, default_candidates, simulate

        if self._should_stop is None:
            return best_action(game, time_limit=self._movetime, seed=self._move_seed(game))
        # best_action as it is, with the caller's stop (best_action takes none).
        candidates = default_candidates(game)
        if len(candidates) == 1:
            return candidates[0]
        ranked = simulate(
            game, candidates=candidates, time_limit=self._movetime, seed=self._move_seed(game), should_stop=self._should_stop
        )
        return ranked[0].action


_KERNEL_BOTS: dict[str, type[_EngineBot]] = {b.name: b for b in (RandomBot, GreedyBot, HeuristicBot)}
_SEARCH_BOTS: dict[str, type[_SearchBot]] = {b.name: b for b in (EndgameBot, SimBot)}
BOTS: dict[str, type[Bot]] = {**_KERNEL_BOTS, **_SEARCH_BOTS}
BOT_IDS: dict[str, int] = {name: b.engine_id for name, b in _KERNEL_BOTS.items()}
"""The bots that play inside numba (self-play, rollouts, the environments' opponents)."""


def _check_movetime(movetime: object) -> float | None:
    if movetime is None:
        return None
    seconds = as_seconds(movetime)
    if seconds is None:
        raise QwirkleError(f"movetime is a positive number of seconds, got {show(movetime)}")
    return seconds


def make_bot(name: str, seed: int = 0, seat: int = 0, movetime: float | None = None) -> Bot:
    """A bot by name (``random``, ``greedy``, ``heuristic``, ``endgame``, ``sim``),
    seeded as the self-play engine seeds the bot of ``seat`` in the game of ``seed``.
    ``movetime`` is a budget of seconds a move for the bots that search (``endgame``,
    ``sim``); the kernel bots answer in microseconds and need none."""
    if not isinstance(name, str) or name not in BOTS:
        raise QwirkleError(f"unknown bot {show(name)} (choose from {', '.join(BOTS)})")
    budget = _check_movetime(movetime)
    if name in _KERNEL_BOTS:
        return _KERNEL_BOTS[name](seed, seat)
    return _SEARCH_BOTS[name](seed, seat, budget)


def stop_when(bot: Bot, should_stop: Callable[[], bool]) -> Bot:
    """``bot``, its search (``sim``, ``endgame``) ending once ``should_stop()`` returns
    True, called between its steps (a caller's clock or stop button: the engine's
    timeout and ``stop``); it then plays the best it has found so far.  The kernel
    bots answer in microseconds and ignore it."""
    if not callable(should_stop):
        raise QwirkleError(f"should_stop must be callable, got {show(should_stop)}")
    if isinstance(bot, _SearchBot):
        bot._should_stop = should_stop
    return bot


def action_from_row(action: np.ndarray) -> Action:
    """An engine action row (an int64[ACTION_COLS] array, ``_layout.A_*``) as an
    Action; QwirkleError if it is not one."""
    if (
        not isinstance(action, np.ndarray)
        or action.shape != (_layout.ACTION_COLS,)
        or not np.issubdtype(action.dtype, np.integer)
    ):
        raise QwirkleError(f"an action row is an integer array of {_layout.ACTION_COLS}, got {show(action)}")
    n = int(action[_layout.A_N])
    kind = int(action[_layout.A_TYPE])
    if kind not in (_layout.PLACE, _layout.EXCHANGE, _layout.PASS):
        raise QwirkleError(f"an action row's type is PLACE, EXCHANGE or PASS (0..2), got {kind}")
    if kind != _layout.PASS:
        kinds = action[_layout.A_KINDS : _layout.A_KINDS + n] if 1 <= n <= 6 else None
        if kinds is None or bool(((kinds < 0) | (kinds >= len(ALL_TILES))).any()):
            raise QwirkleError(f"an action row places or exchanges 1..6 tiles of kinds 0..35, got {show(action)}")
    if kind == _layout.PLACE:
        placements = tuple(
            (int(action[_layout.A_ROWS + s]), int(action[_layout.A_COLS + s]), ALL_TILES[int(action[_layout.A_KINDS + s])])
            for s in range(n)
        )
        return Action(Action.PLACE, Move(placements, int(action[_layout.A_SCORE])))
    if kind == _layout.EXCHANGE:
        return Action.exchange(ALL_TILES[int(action[_layout.A_KINDS + s])] for s in range(n))
    return Action.pass_turn()


MAX_ROLLOUTS = 1_000_000  # per call: the seeds and the scores are held in memory


def rollouts(
    game: Game,
    bots: Sequence[str],
    count: int,
    seed: int = 0,
    viewer: int | None = None,
) -> npt.NDArray[np.int64]:
    """Final scores (count x players) of ``count`` games played on from ``game`` by the
    built-in ``bots`` (one name per seat), inside numba on every core.

    Rollout i uses seed ``seed + i`` for the bots and the bag mixing.  With ``viewer``,
    each rollout first deals what that seat cannot see anew (as
    :meth:`Game.determinize` does), which is what a search for that seat wants: the
    bag's order in ``game`` is otherwise known to every rollout.
    """
    if not isinstance(game, Game):
        raise QwirkleError(f"expected a Game, got {show(game)}")
    if isinstance(bots, (str, bytes)) or not isinstance(bots, Sequence) or len(bots) != game.players:
        raise QwirkleError(f"{game.players} players need a list of {game.players} bot names, got {show(bots)}")
    ids = np.zeros(_constants.MAX_PLAYERS, np.int64)
    for seat, name in enumerate(bots):
        if not isinstance(name, str) or name not in BOT_IDS:
            raise QwirkleError(f"unknown bot {show(name)} (choose from {', '.join(BOTS)})")
        ids[seat] = BOT_IDS[name]
    if type(count) is not int or not 0 <= count <= MAX_ROLLOUTS:
        raise QwirkleError(f"count is a number of rollouts, 0..{MAX_ROLLOUTS:,}, got {show(count)}")
    seed = _check_seed(seed)
    if viewer is not None and (type(viewer) is not int or not 0 <= viewer < game.players):
        raise QwirkleError(f"no seat {show(viewer)} in a game of {game.players}")
    seeds = [(int(seed) + i) % _prng.SEED_LIMIT for i in range(count)]
    low, high = _prng.seed_words(seeds)
    st, meta, hands, hand_sizes, bag, scores, _ = game.engine_state(copy_state=False)
    out, ends = interruptible(_batch.rollouts_parallel)(
        st, meta, hands, hand_sizes, bag, scores, ids, low, high, -1 if viewer is None else viewer,
        *_bot_kernels.bots_in_play(ids, game.players),  # only their code is compiled
    )
    runaway = np.flatnonzero(ends == _layout.END_RUNAWAY)
    if runaway.size:
        raise RunawayGameError(
            f"rollout {int(runaway[0])} (seed {seeds[int(runaway[0])]}) ran past {_batch.MAX_TURNS} turns"
        )
    return out[:, : game.players]


def play(
    game: Game, bots: Sequence[Bot], max_turns: int = MAX_TURNS, before_turn: Callable[[], None] | None = None
) -> Game:
    """Let ``bots[seat]`` play ``game`` to its end (in place); returns the game.
    ``before_turn``, if given, is called before each turn (the engine reads its clock
    and a stop there; what it raises ends the game where it stands).

    Raises :class:`RunawayGameError` once the game has ``max_turns`` turns without
    ending (bots that keep exchanging forever), rather than running forever."""
    if not isinstance(game, Game):
        raise QwirkleError(f"expected a Game, got {show(game)}")
    if isinstance(bots, (str, bytes)) or not isinstance(bots, Sequence) or len(bots) != game.players:
        raise QwirkleError(f"{game.players} players need {game.players} bots, got {show(bots)}")
    if before_turn is not None and not callable(before_turn):
        raise QwirkleError(f"before_turn is a function of no arguments, got {show(before_turn)}")
    max_turns = read_int(max_turns, "max_turns", 0, MAX_TURNS)
    while not game.is_over:
        if before_turn is not None:
            before_turn()
        if game.turn_count >= max_turns:  # (history would build every turn's object, each turn)
            raise RunawayGameError(f"the game ran past {max_turns} turns without ending")
        game.push(bots[game.to_move].choose(game))
    return game
