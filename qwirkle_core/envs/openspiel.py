"""Qwirkle as an OpenSpiel game, ``python_qwirkle`` (the ``rl`` extra).

>>> import pyspiel
>>> import qwirkle_core.envs.openspiel  # registers the game
>>> game = pyspiel.load_game("python_qwirkle", {"players": 3})
>>> state = game.new_initial_state()
>>> state.is_chance_node(), len(state.chance_outcomes())
(True, 36)

- Sequential, explicit stochastic, imperfect information.  Every tile drawn (the deal,
  the draws after a placement or an exchange) is a chance node whose outcomes are the
  kinds left in the bag, each with probability count / bag size.  The deal gives 6 tiles
  to seat 0, then 6 to seat 1, ...; then the opener is chosen as ``Game`` chooses it.
- Decisions are the sub-steps of :mod:`qwirkle_core.envs.encoding` (window 32, 36,902
  actions): a turn's placements or marks, then END; or PASS.  A turn ends by the
  kernels of ``_turn``: ``take_tiles`` (settle_turn's first part) and ``place_tiles``, one
  chance node per tile drawn (``draw_kind``), the exchanged tiles back into the bag
  (``return_to_bag``), then ``close_turn`` (the going-out bonus, the next seat) and
  ``ending`` (blocked or dead boards).
- Returns: +1 to each seat with the highest score, -1 to the others.  A game stopped at
  the turn cap (``MAX_TURNS`` = 256 turns, about three times the longest of 900 games
  of random sub-steps) or by a turn whose every move leaves the window is a terminal
  state with these returns too; ``state.truncated`` says so.
- A player sees the board, the scores, the hand sizes, the bag size and their own hand
  (and the tiles they drew; not the others' hands, draws or exchanged tiles, only how
  many): the observation string and tensor say so.  The tensor ends with the window's
  origin; with the game parameter ``observation="planes"`` it is the other envs' planes
  layout (``PLANES_PARTS``, :mod:`qwirkle_core.envs.observation`) instead.  The information state (string and
  tensor) has perfect recall: the observation plus everything the player saw happen, in
  order (their own deal and draws, every turn's placements with their cells and score,
  each exchange's size, and its tiles for their own, passes).  Both are functions of
  that sequence and determine it, so two states share the string exactly when they
  share the tensor.  See ``INFO_PARTS`` for the tensor's layout.
- ``resample_from_infostate`` deals what the player cannot see anew with the kernel
  behind ``Game.determinize`` (``redeal_unseen``); the twin has the player's information
  state.  (Its record of the others' private draws is the original's, so it is
  consistent only for that player.)
- Serialization is OpenSpiel's (the history, and the attributes pickled).  ``clone`` is
  cheap: the state is one attribute (``_Core``) whose deep copy copies the small arrays
  (meta, hands, bag, scores, the turn in progress) and shares the board state (only a
  placement writes it, and it writes a copy) and the turn records (immutable tuples).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt
import pyspiel

from .. import _bot_kernels, _constants, _layout, _turn
from .._ints import int_value, read_int
from .._jit import kernel
from .._layout import KArray, KInt
from .._prng import GAME_STREAM, new_state, state_text
from .._state import empty_state, new_log, tiles_of
from ..board import Board
from ..errors import IllegalMoveError, QwirkleError, show
from ..game import Action, Game
from ..tiles import ALL_TILES
from . import _kernels as k
from .encoding import DEFAULT_WINDOW, action_count, describe, end_id, mark_id, pass_id, turn_substeps
from .observation import N_FEATURES, N_PLANES, board_planes

__all__ = ["INFO_PARTS", "MAX_TURNS", "PLANES_PARTS", "IllegalActionError", "QwirkleGame", "QwirkleState"]

WIDTH = DEFAULT_WINDOW
N_ACTIONS = action_count(WIDTH)
MAX_TURNS = 256  # the game is stopped (truncated) after this many turns
# A turn: at most 6 placements or marks and END, then at most 6 draws; and the deal.
MAX_GAME_LENGTH = MAX_TURNS * 13 + 6 * _constants.MAX_PLAYERS

_GAME_TYPE = pyspiel.GameType(
    short_name="python_qwirkle",
    long_name="Python Qwirkle (qwirkle_core)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=_constants.MAX_PLAYERS,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification={"players": 2, "observation": "flat"},
)


class IllegalActionError(IllegalMoveError, pyspiel.SpielError):  # type: ignore[misc]
    """An action that is not legal in the state (``apply_action`` refuses it, the state
    unchanged): OpenSpiel's ``pyspiel.SpielError``, as ``apply_action_with_legality_check``
    raises, and the library's ``IllegalMoveError`` (a ``ValueError``), as its envs raise."""


class _Turn(NamedTuple):
    """One turn as the players saw it (immutable: a new one for each sub-step)."""

    mover: int
    places: tuple[tuple[int, int, int], ...] = ()  # (kind, row, col), board coordinates
    marks: tuple[int, ...] = ()  # the kinds marked for an exchange (the mover's secret)
    kind: int = -1  # _layout.PLACE, _layout.EXCHANGE or _layout.PASS once END or PASS is played
    score: int = 0  # the placement's points (the going-out bonus not included)
    drawn: tuple[int, ...] = ()  # the kinds drawn after it (the mover's secret)
    texts: tuple[str, str] = ("", "")  # once over: its text for the others, for the mover


_ARRAYS = ("meta", "hands", "hand_sizes", "bag", "scores", "partial", "turn_action", "turn_row", "rec")
_FLAGS = ("players", "dealt", "placed", "marked", "pending", "n_drawn", "truncated", "deal", "turns", "cur")
# Caches, shared by clones (never written once made) and left out of serialization.
_CACHES = ("mask", "board_text", "turns_text")


class _Core:
    """Everything a state holds: OpenSpiel clones a Python state by deep-copying each
    attribute of a new initial state, and this is the only one."""

    __slots__ = ("st", *_ARRAYS, *_FLAGS, *_CACHES)

    def __init__(self, players: int) -> None:
        self.st = empty_state()  # never written in place: a placement pushes onto a copy
        self.meta = np.zeros(_layout.N_META, np.int64)
        self.meta[_layout.M_PLAYERS] = players
        self.meta[_layout.M_BAG] = _constants.N_TILES
        self.hands = np.zeros((_constants.MAX_PLAYERS, _constants.HAND_SIZE), np.int64)
        self.hand_sizes = np.zeros(_constants.MAX_PLAYERS, np.int64)
        self.bag = np.arange(_constants.N_TILES, dtype=np.int64) // 3  # a multiset: the order is not kept
        self.scores = np.zeros(_constants.MAX_PLAYERS, np.int64)
        self.partial = np.full(12, -1, np.int64)  # the turn in progress: placements, then marks
        self.turn_action = np.zeros(_layout.ACTION_COLS, np.int64)
        self.turn_row = np.zeros(_layout.LOG_COLS, np.int32)
        self.players = players
        self.dealt = 0  # tiles dealt so far
        self.placed = 0  # the turn in progress: placements (partial[:6]) and marks (partial[6:])
        self.marked = 0
        self.pending = 0  # draws left in the turn being settled
        self.n_drawn = 0
        self.truncated = False
        self.deal: tuple[int, ...] = ()  # the kinds dealt, in order (seat = index // 6)
        self.turns: tuple[_Turn, ...] = ()  # the turns over
        self.cur: _Turn | None = None  # the turn in progress
        # The legal sub-steps of the position and the partial turn's END score (read-only;
        # None until asked for, and again after each action).
        self.mask: tuple[npt.NDArray[np.bool_], int] | None = None
        self.board_text: str | None = None  # the board's tiles, for the strings
        # for each player, (n, the text of turns 0..n-1 in their information state string)
        self.turns_text: tuple[tuple[int, str], ...] | None = None
        # The turns as rows of the information state's turns table (the turn in progress
        # last), the mover's seat unrotated and every mover's marks and draws kept.
        self.rec = np.zeros((MAX_TURNS, TURN_COLS), np.int16)

    def __deepcopy__(self, memo: dict[int, Any]) -> _Core:
        c = _Core.__new__(_Core)
        c.st = self.st
        c.meta = self.meta.copy()
        c.hands = self.hands.copy()
        c.hand_sizes = self.hand_sizes.copy()
        c.bag = self.bag.copy()
        c.scores = self.scores.copy()
        c.partial = self.partial.copy()
        c.turn_action = self.turn_action.copy()
        c.turn_row = self.turn_row.copy()
        c.players = self.players
        c.dealt = self.dealt
        c.placed = self.placed
        c.marked = self.marked
        c.pending = self.pending
        c.n_drawn = self.n_drawn
        c.truncated = self.truncated
        c.deal = self.deal  # immutable tuples
        c.turns = self.turns
        c.cur = self.cur
        c.rec = self.rec.copy()
        c.mask = self.mask
        c.board_text = self.board_text
        c.turns_text = self.turns_text
        return c

    def __getstate__(self) -> dict[str, Any]:  # pickling (OpenSpiel's serialization)
        return {name: getattr(self, name) for name in self.__slots__ if name not in _CACHES}

    def __setstate__(self, state: dict[str, Any]) -> None:
        for name in _CACHES:
            setattr(self, name, None)
        for name, value in state.items():
            setattr(self, name, value)


_INITIAL: dict[int, _Core] = {}


def _initial_core(players: int) -> _Core:
    """The core of a new state of ``players`` (never written: see QwirkleState)."""
    core = _INITIAL.get(players)
    if core is None:
        core = _INITIAL[players] = _Core(players)
    return core


class QwirkleGame(pyspiel.Game):  # type: ignore[misc]
    """The game ``python_qwirkle`` (parameters ``players``, 2 to 6, and ``observation``:
    ``"flat"``, the default, or ``"planes"``, the other envs' planes layout)."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        if params is None:
            params = {}
        if not isinstance(params, dict) or any(key not in ("players", "observation") for key in params):
            raise QwirkleError(
                f"python_qwirkle's params are a dict {{'players': 2..6, 'observation': 'flat' or 'planes'}} (or None), "
                f"got {show(params)}"
            )
        layout = params.get("observation", "flat")
        if layout not in ("flat", "planes"):
            raise QwirkleError(f"python_qwirkle's observation is 'flat' or 'planes', got {show(layout)}")
        players = int_value(params.get("players", 2))
        if players is None or not 2 <= players <= _constants.MAX_PLAYERS:
            raise QwirkleError(f"python_qwirkle has 2 to {_constants.MAX_PLAYERS} players, got {show(params['players'])}")
        info = pyspiel.GameInfo(
            num_distinct_actions=N_ACTIONS,
            max_chance_outcomes=36,
            num_players=players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=None,
            max_game_length=MAX_GAME_LENGTH,
        )
        super().__init__(_GAME_TYPE, info, {"players": players, "observation": layout})
        self.players = players
        self.layout = str(layout)

    def new_initial_state(self) -> QwirkleState:
        return QwirkleState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> QwirkleObserver:
        """The observer of observation (or, with perfect recall, information-state)
        strings and tensors.  ``iig_obs_type`` is None or a ``pyspiel.IIGObservationType``;
        ``params`` None or a dict (none is read)."""
        if iig_obs_type is not None and not isinstance(iig_obs_type, pyspiel.IIGObservationType):
            raise QwirkleError(f"iig_obs_type is None or a pyspiel.IIGObservationType, got {show(iig_obs_type)}")
        if params is not None and not isinstance(params, dict):
            raise QwirkleError(f"params is None or a dict, got {show(params)}")
        if iig_obs_type is not None and (
            not iig_obs_type.public_info or iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER
        ):
            # The one kind of observation this game writes: the public information and the
            # player's own (its hand, its marks and draws).  Any other kind, given that
            # one, would show what it must not (a public observation, the player's hand).
            raise QwirkleError(
                "python_qwirkle observes the public information and one player's private information "
                f"(public_info=True, private_info=SINGLE_PLAYER), got {show(iig_obs_type)}"
            )
        perfect_recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        return QwirkleObserver(perfect_recall, self.layout)


class QwirkleState(pyspiel.State):  # type: ignore[misc]
    """A position of python_qwirkle: the game loop's arrays (board state, meta, hands,
    bag as a multiset, scores), the turn in progress (sub-steps, draws pending) and the
    record of the turns (for the information state), all in ``self._s``."""

    _s: _Core

    def __init__(self, game: QwirkleGame) -> None:
        if not isinstance(game, QwirkleGame):
            raise QwirkleError(f"a QwirkleState is a state of a QwirkleGame, got {show(game)}")
        super().__init__(game)
        # Shared with every new state until its first action (which copies it): a new
        # state is made for each clone, which then replaces this attribute.
        self._s = _initial_core(game.players)

    # The arrays and flags, for the examples and tests (the kernels' arguments).
    @property
    def st(self) -> npt.NDArray[np.int64]:
        """The board state (``qwirkle_core._state``; shared with clones, never written)."""
        return self._s.st

    @property
    def meta(self) -> npt.NDArray[np.int64]:
        """The game loop's meta array (``_layout.M_*``)."""
        return self._s.meta

    @property
    def hands(self) -> npt.NDArray[np.int64]:
        """int64[6, 6]: the hands (seat, slot)."""
        return self._s.hands

    @property
    def hand_sizes(self) -> npt.NDArray[np.int64]:
        """int64[6]: the hand sizes."""
        return self._s.hand_sizes

    @property
    def bag(self) -> npt.NDArray[np.int64]:
        """int64[108]: the bag's kinds (the first ``meta[M_BAG]``; a multiset)."""
        return self._s.bag

    @property
    def scores(self) -> npt.NDArray[np.int64]:
        """int64[6]: the scores."""
        return self._s.scores

    @property
    def turn_action(self) -> npt.NDArray[np.int64]:
        """The action of the turn being settled (``_layout.A_*``)."""
        return self._s.turn_action

    @property
    def players(self) -> int:
        """The number of players."""
        return self._s.players

    @property
    def pending(self) -> int:
        """Draws left in the turn being settled."""
        return self._s.pending

    @property
    def truncated(self) -> bool:
        """Whether the game was stopped (the turn cap, or no encodable move)."""
        return self._s.truncated

    # ----------------------------------------------------------- reading
    def current_player(self) -> int:
        s = self._s
        if s.truncated or s.meta[_layout.M_OVER]:
            return int(pyspiel.PlayerId.TERMINAL)
        if s.dealt < 6 * s.players or s.pending:
            return int(pyspiel.PlayerId.CHANCE)
        return int(s.meta[_layout.M_PLAYER])

    def is_terminal(self) -> bool:
        s = self._s
        return bool(s.truncated or s.meta[_layout.M_OVER])

    def _mask(self) -> tuple[npt.NDArray[np.bool_], int]:
        """The legal sub-steps of the player to move (read-only) and the partial turn's
        END score; one kernel call per position, kept until the next action."""
        s = self._s
        if s.mask is None:
            mask = np.zeros(N_ACTIONS, np.bool_)
            seat = int(s.meta[_layout.M_PLAYER])
            _, _, end_score = k.turn_mask(
                s.st, s.meta, s.hands[seat], s.hand_sizes[seat], WIDTH, s.partial, s.placed, s.marked, mask,
            )
            mask.flags.writeable = False
            s.mask = (mask, int(end_score))
        return s.mask

    def _legal_actions(self, player: int) -> list[int]:
        if self.is_terminal() or self.is_chance_node():
            return []
        return np.flatnonzero(self._mask()[0]).tolist()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        s = self._s
        size = int(s.meta[_layout.M_BAG])
        counts = np.bincount(s.bag[:size], minlength=36)
        return [(int(kind), float(c) / size) for kind, c in enumerate(counts) if c]

    def returns(self) -> list[float]:
        s = self._s
        if not self.is_terminal():
            return [0.0] * s.players
        scores = s.scores[: s.players]
        top = scores.max()
        return [1.0 if v == top else -1.0 for v in scores]

    # ----------------------------------------------------------- playing
    def _apply_action(self, action: int) -> None:
        self._check(action)  # refused: raises, the state unchanged
        s = self._s
        if s.pending or s.dealt < 6 * s.players:
            self._draw(int(action))
            return
        assert s.cur is not None
        _, end_score = self._mask()
        s.mask = None
        what, kind, i, j = describe(action, WIDTH)
        if what == "place":
            top, left = k.window_of(s.st, s.meta, WIDTH)
            s.partial[s.placed] = action
            s.placed += 1
            row = s.rec[len(s.turns)]
            row[T_PLACES + 3 * len(s.cur.places) : T_PLACES + 3 * len(s.cur.places) + 3] = (
                kind + 1, int(top) + i, int(left) + j,
            )
            row[T_N] += 1
            s.cur = s.cur._replace(places=(*s.cur.places, (kind, int(top) + i, int(left) + j)))
            return
        if what == "mark":
            s.partial[6 + s.marked] = kind
            s.marked += 1
            row = s.rec[len(s.turns)]
            row[T_MARKS + len(s.cur.marks)] = kind + 1
            row[T_N] += 1
            s.cur = s.cur._replace(marks=(*s.cur.marks, kind))
            return
        act = s.turn_action
        if what == "pass":
            _turn.set_pass(act)
        elif s.placed:
            top, left = k.window_of(s.st, s.meta, WIDTH)
            act[_layout.A_TYPE] = _layout.PLACE
            act[_layout.A_N] = s.placed
            act[_layout.A_SCORE] = end_score
            for n in range(s.placed):
                code = int(s.partial[n])
                act[_layout.A_KINDS + n] = code // (WIDTH * WIDTH)
                act[_layout.A_ROWS + n] = (code % (WIDTH * WIDTH)) // WIDTH + top
                act[_layout.A_COLS + n] = code % WIDTH + left
            s.st = _turn.place_tiles(s.st.copy(), s.meta, act, new_log(1))  # a copy: clones share the board state
            s.board_text = None
        else:
            _turn.set_exchange(act, s.partial[6:], s.marked)
        s.cur = s.cur._replace(kind=int(act[_layout.A_TYPE]), score=int(act[_layout.A_SCORE]) if s.placed else 0)
        row = s.rec[len(s.turns)]
        row[T_DONE] = 1
        row[T_PLACE + s.cur.kind] = 1
        row[T_SCORE] = s.cur.score
        seat = int(s.meta[_layout.M_PLAYER])
        size = _turn.take_tiles(s.meta, s.hands, s.hand_sizes, s.scores, act, s.turn_row)
        s.hand_sizes[seat] = size
        s.n_drawn = 0
        if act[_layout.A_TYPE] == _layout.PLACE:
            s.pending = min(_constants.HAND_SIZE - size, int(s.meta[_layout.M_BAG]))
        elif act[_layout.A_TYPE] == _layout.EXCHANGE:
            s.pending = int(act[_layout.A_N])
        else:
            s.pending = 0
        s.partial[:] = -1
        s.placed = s.marked = 0
        if not s.pending:
            self._finish_turn()

    def _check(self, action: int) -> None:
        """Raise IllegalActionError unless ``action`` is legal here: a kind left in the
        bag at a chance node, one of ``legal_actions()`` at a decision node."""
        s = self._s
        if self.is_terminal():
            raise IllegalActionError(f"python_qwirkle: the game is over, no action is legal (got {show(action)})")
        a = int_value(action)
        if s.pending or s.dealt < 6 * s.players:
            size = int(s.meta[_layout.M_BAG])
            if a is None or not 0 <= a < _constants.N_KINDS or not (s.bag[:size] == a).any():
                raise IllegalActionError(
                    f"python_qwirkle: chance outcome {show(action)} is not a kind left in the bag"
                    f" (its outcomes are the kinds 0..35 of chance_outcomes())"
                )
            return
        if a is None or not 0 <= a < N_ACTIONS:
            raise IllegalActionError(f"python_qwirkle: no action {show(action)} among the {N_ACTIONS} (0..{N_ACTIONS - 1})")
        if not self._mask()[0][a]:
            raise IllegalActionError(
                f"python_qwirkle: {self._action_to_string(self.current_player(), a)} ({a}) is not legal for"
                f" player {self.current_player()} here (see legal_actions())"
            )

    def _draw(self, kind: int) -> None:
        s = self._s
        if s.dealt == 0:  # the first action: the shared initial core is copied
            s = self._s = s.__deepcopy__({})
        s.mask = None
        if s.dealt < 6 * s.players:
            seat = s.dealt // 6
            s.hand_sizes[seat] = _turn.draw_kind(s.hands[seat], s.hand_sizes[seat], s.bag, s.meta, kind)
            s.dealt += 1
            s.deal = (*s.deal, kind)
            if s.dealt == 6 * s.players:
                _turn.start_play(
                    s.meta, s.hands, s.hand_sizes, int(s.meta[_layout.M_BAG]), s.players,
                    np.arange(_constants.MAX_PLAYERS, dtype=np.int64),
                )
                self._begin_turn()
            return
        seat = int(s.meta[_layout.M_PLAYER])
        size = _turn.draw_kind(s.hands[seat], s.hand_sizes[seat], s.bag, s.meta, kind)
        assert size >= 0 and s.cur is not None  # _check: the kind is in the bag
        s.hand_sizes[seat] = size
        row = s.rec[len(s.turns)]
        row[T_DRAWS + len(s.cur.drawn)] = kind + 1
        row[T_DRAWN] += 1
        s.cur = s.cur._replace(drawn=(*s.cur.drawn, kind))
        s.n_drawn += 1
        s.pending -= 1
        if not s.pending:
            self._finish_turn()

    def _finish_turn(self) -> None:
        s = self._s
        act = s.turn_action
        if act[_layout.A_TYPE] == _layout.EXCHANGE:
            _turn.return_to_bag(s.bag, s.meta, act)
        _turn.close_turn(s.meta, s.hand_sizes, s.scores, act, s.turn_row, s.n_drawn)
        assert s.cur is not None
        t = len(s.turns)
        s.turns = (*s.turns, s.cur._replace(texts=(_turn_text(t, s.cur, -1), _turn_text(t, s.cur, s.cur.mover))))
        s.cur = None
        if s.meta[_layout.M_OVER]:
            return
        end = _turn.ending(s.st, s.meta, s.hands, s.hand_sizes, s.bag)
        if end != _layout.END_NONE:
            s.meta[_layout.M_OVER] = 1
            s.meta[_layout.M_END] = end
        elif s.meta[_layout.M_TURNS] >= MAX_TURNS or not self._mask()[0].any():
            s.truncated = True  # the turn cap, or every legal move outside the window
        else:
            self._begin_turn()

    def _begin_turn(self) -> None:
        s = self._s
        s.cur = _Turn(int(s.meta[_layout.M_PLAYER]))
        row = s.rec[len(s.turns)]
        row[T_BEGUN] = 1
        row[T_MOVER] = s.cur.mover

    # ----------------------------------------------------------- strings
    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            if not 0 <= action < _constants.N_KINDS:
                return f"draw ? (no chance outcome {action})"
            return f"draw {ALL_TILES[action].text()}"
        if not 0 <= action < N_ACTIONS:
            return f"? (no action {action})"
        what, kind, i, j = describe(action, WIDTH)
        if what == "place":
            return f"{ALL_TILES[kind].text()}@{i},{j}"
        if what == "mark":
            return f"mark {ALL_TILES[kind].text()}"
        return what

    def __str__(self) -> str:
        s = self._s
        hands = "/".join("".join(ALL_TILES[int(t)].text() for t in s.hands[p, : s.hand_sizes[p]]) or "-"
                         for p in range(s.players))
        return (
            f"{_board_text(s)}|{hands}|bag {int(s.meta[_layout.M_BAG])}|"
            f"{','.join(str(int(v)) for v in s.scores[: s.players])}|{self.current_player()}"
        )

    # ----------------------------------------------- the library's Game
    def to_game(self, seed: int = 0) -> Game:
        """The position as a library ``Game`` (``Game.from_position``: no history but
        the turns played as its ``turn_count``, the bag in no particular order, its
        generator seeded with ``seed``), for the
        library's bots and analysis: ``make_bot("greedy").choose(state.to_game())``.
        Mid-turn it is the position at the start of the turn in progress (the sub-steps
        played so far are not moves yet); a finished game is a finished ``Game`` (a
        truncated one is a game in play).  Raises QwirkleError at a chance node (the
        deal, or the draws after a turn: play the outcomes first)."""
        s = self._s
        if self.is_chance_node():
            raise QwirkleError("to_game needs a decision node or a terminal state, not a chance node (the deal or a turn's draws)")
        tiles = tiles_of(s.st).tolist()
        board = Board.from_placements((r, c, ALL_TILES[kind]) for r, c, kind in tiles) if tiles else Board()
        hands = [[ALL_TILES[kind] for kind in s.hands[p, : s.hand_sizes[p]].tolist()] for p in range(s.players)]
        bag = [ALL_TILES[kind] for kind in s.bag[: s.meta[_layout.M_BAG]].tolist()]
        scores = [int(v) for v in s.scores[: s.players]]
        seat = int(s.meta[_layout.M_PLAYER])
        if not s.meta[_layout.M_OVER]:
            return Game.from_position(board, hands, bag, scores, seat, seed, turns_played=int(s.meta[_layout.M_TURNS]))
        went_out = int(s.meta[_layout.M_WENT_OUT])
        rng = state_text(new_state(read_int(seed, "seed", 0, 2**64 - 1), GAME_STREAM))
        text = "|".join([
            board.text() or "-", "/".join("".join(t.text() for t in h) or "-" for h in hands),
            "".join(t.text() for t in bag) or "-", ",".join(map(str, scores)), str(seat),
            "e" + (str(went_out) if went_out >= 0 else ""), rng,
        ])
        return Game.from_string(text)

    def action_ids(self, action: Action) -> list[int]:
        """The OpenSpiel actions that play ``action`` (a legal action of ``to_game()``'s
        player to move), in order: a placement's PLACE sub-steps in (row, col) order and
        END, an exchange's MARKs in kind order and END, or PASS.  Mid-turn, the rest of
        that sequence after the sub-steps already played (which must begin it).  Raises
        IllegalActionError for an action that is not legal here."""
        if not isinstance(action, Action):
            raise QwirkleError(f"expected an Action, got {show(action)}")
        game = self.to_game()
        if self.is_terminal() or action not in game.legal_actions():
            raise IllegalActionError(f"python_qwirkle: {action.text()} is not a legal action here")
        steps = turn_substeps(game, action, WIDTH)
        s = self._s
        done = s.partial[: s.placed].tolist() + [mark_id(kind, WIDTH) for kind in s.partial[6 : 6 + s.marked].tolist()]
        if steps[: len(done)] != done:
            raise IllegalActionError(
                f"python_qwirkle: {action.text()} does not continue the sub-steps played this turn ({done})"
            )
        return steps[len(done) :]

    # ------------------------------------------------- hidden information
    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> QwirkleState:
        """A state the player cannot tell from this one: the bag and the other hands
        dealt anew (the kernel of ``Game.determinize``), seeded from the sampler."""
        player_id = read_int(player_id, "player_id", 0, self._s.players - 1)
        if self._s.dealt < 6 * self._s.players:
            raise pyspiel.SpielError("resample_from_infostate needs the deal done")
        mover = int(self._s.meta[_layout.M_PLAYER])
        if player_id != mover and (self._s.placed or self._s.marked) and not self.is_terminal():
            # The mover's tiles placed (or marked) so far this turn are hidden from the
            # other seats, and a hand dealt anew would not hold them.
            raise pyspiel.SpielError(
                "resample_from_infostate for a seat not to move needs the start of a turn "
                "(the mover has placed or marked tiles of this turn)"
            )
        if player_id != mover and _exchange_pending(self._s):
            # The tiles the mover exchanged go back to the bag once its draws are done; the
            # other seats saw only how many, and a bag and hands dealt anew would not hold
            # them (the twin would keep the true kinds).
            raise pyspiel.SpielError(
                "resample_from_infostate for a seat not to move needs the start of a turn "
                "(the mover's exchanged tiles are still out of the bag)"
            )
        seed = int(probability_sampler() * 2**32) & 0xFFFFFFFF
        state: QwirkleState = self.clone()
        s = state._s
        _turn.redeal_unseen(s.meta, s.hands, s.hand_sizes, s.bag, player_id, new_state(seed, GAME_STREAM))
        s.mask = None  # the clone's legal sub-steps were the old hand's, where the mover's was dealt anew
        return state


def _exchange_pending(s: _Core) -> bool:
    """Whether the turn in progress is an exchange whose tiles are not back in the bag
    yet (its draws pending)."""
    return bool(s.pending) and int(s.turn_action[_layout.A_TYPE]) == _layout.EXCHANGE


_TEXT = [tile.text() for tile in ALL_TILES]  # a kind's two letters


def _board_text(s: _Core) -> str:
    """The board's tiles (kept in the state until a placement)."""
    if s.board_text is None:
        tiles = tiles_of(s.st).tolist()
        s.board_text = " ".join([f"{_TEXT[kind]}@{r},{c}" for r, c, kind in tiles]) or "-"
    return s.board_text


def _tiles_text(kinds: tuple[int, ...]) -> str:
    return "".join([_TEXT[kind] for kind in kinds])


# The observation tensor: 6 colour and 6 shape planes of the window, the tiles placed
# this turn (one plane), the hand (36 counts) and marks (36), the scores and hand sizes
# rotated to the player (6 + 6), the bag size, the opening size, whether the player is
# to move, then the window's origin (the board coordinates of window cell (0, 0); 0, 0
# until the deal is done): a PLACE id names a window cell, and the window is re-centred
# every turn, so without it an agent could not map an id to a board cell.
PLANES = 13
OBS_SIZE = PLANES * WIDTH * WIDTH + 36 + 36 + 6 + 6 + 3 + 2

# The information state tensor: the observation, then what the player saw happen.  A
# row of "turns" per turn (turn t of the game in row t; zeros for turns not begun):
TURN_COLS = 39
T_BEGUN, T_DONE, T_MOVER, T_PLACE, T_EXCHANGE, T_PASS, T_N, T_SCORE, T_DRAWN = range(9)
T_PLACES = 9  # 6 x (kind + 1, row, col): the tiles placed, board coordinates
T_MARKS = 27  # 6 x (kind + 1): the tiles exchanged, for the player's own turns only
T_DRAWS = 33  # 6 x (kind + 1): the tiles drawn after it, in order, own turns only
INFO_PARTS: dict[str, tuple[int, ...]] = {
    "observation": (OBS_SIZE,),
    "unseen": (36,),  # per kind, the copies the player has not seen (bag and other hands)
    "board_turns": (WIDTH, WIDTH),  # per window cell, 1 + the turn its tile was placed at
    "deal": (7,),  # the player's 6 dealt kinds + 1, in order; the tiles dealt so far
    "turns": (MAX_TURNS, TURN_COLS),  # begun, done, mover (rotated to the player), type
    # (place, exchange, pass: one-hot, once done), tiles placed or marked so far, the
    # placement's points, tiles drawn after it, then T_PLACES, T_MARKS, T_DRAWS above
}
INFO_SIZE = sum(int(np.prod(shape)) for shape in INFO_PARTS.values())
# With observation="planes": the planes layout of the other envs (envs/observation.py),
# binary planes of the window, then the features (hand, marks, scalars as
# vector.SCALARS rotated to the player, the window's origin), in place of the tensor above.
PLANES_PARTS: dict[str, tuple[int, ...]] = {"planes": (N_PLANES, WIDTH, WIDTH), "features": (N_FEATURES,)}
PLANES_SIZE = N_PLANES * WIDTH * WIDTH + N_FEATURES
_NO_SUBSTEPS = np.zeros(N_ACTIONS, np.bool_)  # the mask of a seat not to move
_NO_SUBSTEPS.flags.writeable = False


@kernel
def write_observation(
    st: KArray, meta: KArray, hands: KArray, hand_sizes: KArray, scores: KArray, partial: KArray,
    placed: KInt, marked: KInt, dealt: KInt, players: KInt, player: KInt, board: KArray, out: KArray,
) -> None:
    """The observation tensor of ``player`` into ``out`` (float32[OBS_SIZE], zeroed here);
    ``board`` is scratch (int8[WIDTH, WIDTH])."""
    area = WIDTH * WIDTH
    out[:] = 0
    at = PLANES * area
    for n in range(hand_sizes[player]):
        out[at + hands[player, n]] += 1
    if dealt < 6 * players:
        return
    top, left = k.window_of(st, meta, WIDTH)
    k.write_board(st, meta, top, left, WIDTH, board)
    for i in range(WIDTH):
        for j in range(WIDTH):
            kind = np.int64(board[i, j])  # int8 in the board: widened (no JIT: numpy scalars)
            if kind >= 0:
                out[(kind // 6) * area + i * WIDTH + j] = 1
                out[(6 + kind % 6) * area + i * WIDTH + j] = 1
    mover = meta[_layout.M_PLAYER]
    if player == mover:
        for n in range(placed):
            code = partial[n]
            out[12 * area + code % area] = 1
            out[at + code // area] -= 1
        for n in range(marked):
            kind = partial[6 + n]
            out[at + kind] -= 1
            out[at + 36 + kind] += 1
    at += 72
    for j in range(players):
        seat = (player + j) % players
        out[at + j] = scores[seat]
        out[at + 6 + j] = hand_sizes[seat]
    at += 12
    out[at] = meta[_layout.M_BAG]
    out[at + 1] = meta[_layout.M_OPENING]
    out[at + 2] = 1 if player == mover else 0
    out[at + 3] = top
    out[at + 4] = left


@kernel
def write_recall(
    st: KArray, meta: KArray, hands: KArray, hand_sizes: KArray, deal: KArray, dealt: KInt, players: KInt,
    rec: KArray, n_turns: KInt, player: KInt, out: KArray,
) -> None:
    """The information state's parts after the observation into ``out`` (float32,
    INFO_SIZE - OBS_SIZE, zeroed here): ``deal`` holds the kinds dealt in order,
    ``rec`` the first ``n_turns`` turns' rows (int16[MAX_TURNS, TURN_COLS]: the turns
    table's with the mover's seat and every mover's marks and draws)."""
    out[:] = 0
    counts = _bot_kernels.board_counts(st)
    for kind in range(36):
        out[kind] = 3 - counts[kind]
    for n in range(hand_sizes[player]):
        out[hands[player, n]] -= 1
    at = 36
    board_turns = at
    at += WIDTH * WIDTH
    for n in range(6):
        if 6 * player + n < dealt:
            out[at + n] = deal[6 * player + n] + 1
    out[at + 6] = dealt
    at += 7
    if dealt < 6 * players:
        return
    top, left = k.window_of(st, meta, WIDTH)
    for t in range(n_turns):
        row = at + t * TURN_COLS
        for c in range(TURN_COLS):
            out[row + c] = rec[t, c]
        mover = rec[t, T_MOVER]
        out[row + T_MOVER] = (mover - player) % players
        if mover != player:
            for c in range(T_MARKS, TURN_COLS):  # the marks and the draws: the mover's secret
                out[row + c] = 0
            if not rec[t, T_DONE]:
                # To the other seats a turn is one move, seen once it ends: of a turn in
                # progress, only that it began and whose it is.
                for c in range(T_N, T_MARKS):
                    out[row + c] = 0
        if rec[t, T_DONE] and rec[t, T_PLACE + _layout.PLACE]:
            for n in range(6):
                if rec[t, T_PLACES + 3 * n] > 0:
                    i = rec[t, T_PLACES + 3 * n + 1] - top
                    j = rec[t, T_PLACES + 3 * n + 2] - left
                    if 0 <= i < WIDTH and 0 <= j < WIDTH:
                        out[board_turns + i * WIDTH + j] = t + 1


class QwirkleObserver:
    """OpenSpiel's PyObserver for python_qwirkle (see the module docstring).  The tensor
    is written by two kernels (``write_observation``, ``write_recall``) from the state's
    arrays and its turn table (``_Core.rec``); the string joins texts the state keeps
    (the board's, each finished turn's for each player)."""

    def __init__(self, perfect_recall: bool, layout: str = "flat") -> None:
        self.perfect_recall = perfect_recall
        self.layout = layout
        first = dict(PLANES_PARTS) if layout == "planes" else {"observation": (OBS_SIZE,)}
        size_first = PLANES_SIZE if layout == "planes" else OBS_SIZE
        parts = {**first, **{k: v for k, v in INFO_PARTS.items() if k != "observation"}} if perfect_recall else first
        self.tensor = np.zeros(size_first + (INFO_SIZE - OBS_SIZE if perfect_recall else 0), np.float32)
        self.dict: dict[str, npt.NDArray[np.float32]] = {}
        at = 0
        for name, shape in parts.items():
            size = int(np.prod(shape))
            self.dict[name] = self.tensor[at : at + size].reshape(shape)
            at += size
        # The flat observation: the tensor's first part, or scratch the planes are made from.
        self._obs = self.tensor[:OBS_SIZE] if layout == "flat" else np.zeros(OBS_SIZE, np.float32)
        self._rest = self.tensor[size_first:]
        self._board = np.zeros((WIDTH, WIDTH), np.int8)
        self._deal = np.zeros(6 * _constants.MAX_PLAYERS, np.int64)

    def set_from(self, state: QwirkleState, player: int) -> None:
        s = state._s
        write_observation(
            s.st, s.meta, s.hands, s.hand_sizes, s.scores, s.partial, s.placed, s.marked, s.dealt, s.players,
            player, self._board, self._obs,
        )
        if self.layout == "planes":
            self._write_planes(state, player)
        if self.perfect_recall:
            own = s.deal[6 * player : 6 * player + 6]
            self._deal[6 * player : 6 * player + len(own)] = own
            write_recall(
                s.st, s.meta, s.hands, s.hand_sizes, self._deal, s.dealt, s.players, s.rec,
                len(s.turns) + (s.cur is not None), player, self._rest,
            )

    def _write_planes(self, state: QwirkleState, player: int) -> None:
        """The planes layout from the flat observation just written: the planes by
        :func:`~qwirkle_core.envs.observation.board_planes` itself, given the board and
        the mask as the other envs give them.  One difference: the tiles placed so far
        this turn are in the mover's observation only, as in this game's flat tensor
        (to the other seats a turn is one move, seen once it ends), where the PettingZoo
        env shows them, and the sub-steps' count, to every seat."""
        s, flat, area = state._s, self._obs, WIDTH * WIDTH
        dealt = s.dealt == 6 * s.players
        mover = dealt and player == int(s.meta[_layout.M_PLAYER])
        layers = np.full((1, 2, WIDTH, WIDTH), -1, np.int8)  # kinds at the turn's start; placed this turn
        if dealt:
            layers[0, 0] = self._board  # written by write_observation once the deal is done
        if mover:  # the tiles placed this turn, which only the mover's observation holds
            placed = layers[0, 1].reshape(area)
            for code in s.partial[: s.placed].tolist():
                kind, cell = divmod(code, area)
                placed[cell] = kind
        legal = mover and not state.is_terminal() and not state.is_chance_node()
        mask = state._mask()[0] if legal else _NO_SUBSTEPS
        self.dict["planes"][:] = board_planes(layers, mask[None])[0]
        features = self.dict["features"]
        at = 12 * area + area  # after the 13 planes: hand (36), marks (36), scores, hand sizes (6 + 6), ...
        features[:72] = flat[at : at + 72]
        features[72:84] = flat[at + 72 : at + 84]  # scores, hand sizes rotated to the player (SCALARS)
        features[84] = s.meta[_layout.M_BAG]
        features[85] = s.players
        features[86] = s.meta[_layout.M_OPENING]
        features[87] = player
        features[88] = s.placed if mover else 0
        features[89] = s.marked if mover else 0
        features[90:92] = flat[OBS_SIZE - 2 :]  # the window's origin

    def string_from(self, state: QwirkleState, player: int) -> str:
        s = state._s
        hand = "".join([_TEXT[x] for x in s.hands[player, : s.hand_sizes[player]].tolist()])
        scores = ",".join([str(v) for v in s.scores[: s.players].tolist()])
        text = f"p{player} hand {hand or '-'} scores {scores} bag {int(s.meta[_layout.M_BAG])} board {_board_text(s)}"
        if s.dealt == 6 * s.players:  # the window's origin, as in the tensor
            top, left = k.window_of(s.st, s.meta, WIDTH)
            text += f" window {int(top)},{int(left)}"
        if s.dealt == 6 * s.players and player == int(s.meta[_layout.M_PLAYER]):
            text += f" turn {s.partial[: s.placed].tolist()}{s.partial[6 : 6 + s.marked].tolist()}"
        if self.perfect_recall:
            text += f" | deal {_tiles_text(s.deal[6 * player : 6 * player + 6]) or '-'} of {s.dealt}"
            text += _turns_text(s, player)
            if s.cur is not None and (s.cur.mover == player or s.cur.kind >= 0):
                text += _turn_text(len(s.turns), s.cur, player)
            elif s.cur is not None:  # another seat's turn in progress: only whose it is (as the tensor)
                text += f" | t{len(s.turns)} p{s.cur.mover}"
        return text


def _turn_text(t: int, turn: _Turn, player: int) -> str:
    """Turn ``t`` in ``player``'s information state string."""
    text = f" | t{t} p{turn.mover}"
    mine = turn.mover == player
    if turn.places:
        text += " " + " ".join([f"{_TEXT[kind]}@{r},{c}" for kind, r, c in turn.places])
    if turn.marks:
        text += f" mark {_tiles_text(turn.marks) if mine else len(turn.marks)}"
    if turn.kind == _layout.PLACE:
        text += f" +{turn.score}"
    elif turn.kind == _layout.EXCHANGE:
        text += " exchange"
    elif turn.kind == _layout.PASS:
        text += " pass"
    if turn.drawn:
        text += f" draw {_tiles_text(turn.drawn) if mine else len(turn.drawn)}"
    return text


def _turns_text(s: _Core, player: int) -> str:
    """The finished turns' text in ``player``'s information state string: the turns'
    texts (made as each turn ends), joined and kept in the state, extended as asked."""
    cache = s.turns_text if s.turns_text is not None else ((0, ""),) * s.players
    done, text = cache[player]
    if done < len(s.turns):
        text += "".join([turn.texts[turn.mover == player] for turn in s.turns[done:]])
        s.turns_text = (*cache[:player], (len(s.turns), text), *cache[player + 1 :])
    return text


def _turns(s: _Core) -> tuple[_Turn, ...]:
    return s.turns if s.cur is None else (*s.turns, s.cur)


pyspiel.register_game(_GAME_TYPE, QwirkleGame)

# Referenced for completeness: the END and PASS ids of this game's window.
END = end_id(WIDTH)
PASS = pass_id(WIDTH)
