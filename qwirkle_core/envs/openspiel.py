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
  actions): a turn's placements or marks, then END; or PASS.  A turn ends by the game
  loop's kernels: ``take_tiles`` (settle_turn's first part) and ``place_tiles``, one
  chance node per tile drawn (``draw_kind``), the exchanged tiles back into the bag
  (``return_to_bag``), then ``close_turn`` (the going-out bonus, the next seat) and
  ``ending`` (blocked or dead boards).
- Returns: +1 to each seat with the highest score, -1 to the others (a game stopped at
  the turn cap, or by a turn whose every move leaves the window, is a terminal state
  with these returns too; ``state.truncated`` says so).
- A player sees the board, the scores, the hand sizes, the bag size and their own hand
  (and the tiles they drew; not the others' hands, draws or exchanged tiles): the
  observation string and tensor say so; the information state string adds what the
  player saw happen, in order (perfect recall); the information state tensor is the
  observation tensor with, per kind, the copies the player has not seen.
- ``resample_from_infostate`` deals what the player cannot see anew with the kernel
  behind ``Game.determinize`` (``redeal_unseen``).  Serialization is OpenSpiel's (the
  action history, replayed).  ``clone`` copies the arrays (OpenSpiel deep-copies a Python state's attributes).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import pyspiel

from .. import _gameloop as gl
from .._prng import GAME_STREAM, new_state
from .._state import empty_state, tiles_of
from ..tiles import ALL_TILES
from . import _kernels as k
from .encoding import DEFAULT_WINDOW, action_count, describe, end_id, pass_id

__all__ = ["QwirkleGame", "QwirkleState"]

WIDTH = DEFAULT_WINDOW
N_ACTIONS = action_count(WIDTH)
MAX_GAME_LENGTH = gl.MAX_TURNS * 14 + 6 * gl.MAX_PLAYERS  # a turn: <= 7 decisions + 6 draws

_GAME_TYPE = pyspiel.GameType(
    short_name="python_qwirkle",
    long_name="Python Qwirkle (qwirkle_core)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=gl.MAX_PLAYERS,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification={"players": 2},
)


class _Log(list[tuple[int, str]]):
    """The seen-events list; OpenSpiel clones a state by deep-copying its attributes,
    and the entries are immutable, so a shallow copy is enough (and 100x faster)."""

    def __deepcopy__(self, memo: dict[int, Any]) -> _Log:
        return _Log(self)


class QwirkleGame(pyspiel.Game):  # type: ignore[misc]
    """The game ``python_qwirkle`` (parameter ``players``, 2 to 6)."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = dict(params or {})
        players = int(params.get("players", 2))
        if not 2 <= players <= gl.MAX_PLAYERS:
            raise ValueError(f"python_qwirkle has 2 to {gl.MAX_PLAYERS} players, got {players}")
        info = pyspiel.GameInfo(
            num_distinct_actions=N_ACTIONS,
            max_chance_outcomes=36,
            num_players=players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=None,
            max_game_length=MAX_GAME_LENGTH,
        )
        super().__init__(_GAME_TYPE, info, {"players": players})
        self.players = players

    def new_initial_state(self) -> QwirkleState:
        return QwirkleState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> QwirkleObserver:
        """The observer of observation (or, with perfect recall, information-state)
        strings and tensors."""
        perfect_recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        return QwirkleObserver(perfect_recall)


class QwirkleState(pyspiel.State):  # type: ignore[misc]
    """A position of python_qwirkle: the game loop's arrays (board state, meta, hands,
    bag as a multiset, scores) and the turn in progress (sub-steps, draws pending)."""

    def __init__(self, game: QwirkleGame) -> None:
        super().__init__(game)
        self.players = game.players
        self.st = empty_state()  # the board state (qwirkle_core._state)
        self.meta = np.zeros(gl.N_META, np.int64)
        self.meta[gl.M_PLAYERS] = self.players
        self.meta[gl.M_BAG] = gl.N_TILES
        self.hands = np.zeros((gl.MAX_PLAYERS, gl.HAND_SIZE), np.int64)
        self.hand_sizes = np.zeros(gl.MAX_PLAYERS, np.int64)
        self.bag = np.arange(gl.N_TILES, dtype=np.int64) // 3
        self.scores = np.zeros(gl.MAX_PLAYERS, np.int64)
        self.dealt = 0
        self.partial = np.full(12, -1, np.int64)
        self.placed = 0
        self.marked = 0
        self.pending = 0  # draws left in the turn being settled
        self.n_drawn = 0
        self.turn_action = np.zeros(gl.ACTION_COLS, np.int64)
        self.turn_row = np.zeros(gl.LOG_COLS, np.int32)
        self.truncated = False
        # What each seat saw happen, in order: (-1: everyone; a seat: that seat; -2 - seat:
        # everyone but that seat), token.
        self.seen = _Log()

    # ----------------------------------------------------------- reading
    def _mover(self) -> int:
        return int(self.meta[gl.M_PLAYER])

    def current_player(self) -> int:
        if self.truncated or self.meta[gl.M_OVER]:
            return int(pyspiel.PlayerId.TERMINAL)
        if self.dealt < 6 * self.players or self.pending:
            return int(pyspiel.PlayerId.CHANCE)
        return self._mover()

    def is_terminal(self) -> bool:
        return bool(self.truncated or self.meta[gl.M_OVER])

    def _mask(self) -> tuple[npt.NDArray[np.bool_], int]:
        mask = np.zeros(N_ACTIONS, np.bool_)
        seat = self._mover()
        _, _, end_score = k.turn_mask(
            self.st, self.meta, self.hands[seat], self.hand_sizes[seat], WIDTH,
            self.partial, self.placed, self.marked, mask,
        )
        return mask, int(end_score)

    def _legal_actions(self, player: int) -> list[int]:
        return [int(a) for a in np.flatnonzero(self._mask()[0])]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        size = int(self.meta[gl.M_BAG])
        counts = np.bincount(self.bag[:size], minlength=36)
        return [(int(kind), float(c) / size) for kind, c in enumerate(counts) if c]

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0] * self.players
        scores = self.scores[: self.players]
        top = scores.max()
        return [1.0 if s == top else -1.0 for s in scores]

    # ----------------------------------------------------------- playing
    def _apply_action(self, action: int) -> None:
        if self.is_chance_node():
            self._draw(int(action))
            return
        seat = self._mover()
        what, kind, _, _ = describe(action, WIDTH)
        if what == "place":
            self.partial[self.placed] = action
            self.placed += 1
            self.seen.append((-1, str(action)))
            return
        if what == "mark":
            self.partial[6 + self.marked] = kind
            self.marked += 1
            self.seen.append((seat, f"m{kind}"))
            self.seen.append((-2 - seat, "m?"))
            return
        self.seen.append((-1, "end" if what == "end" else "pass"))
        act = self.turn_action
        if what == "pass":
            gl.set_pass(act)
        elif self.placed:
            _, end_score = self._mask()
            top, left = k.window_of(self.st, self.meta, WIDTH)
            act[gl.A_TYPE] = gl.PLACE
            act[gl.A_N] = self.placed
            act[gl.A_SCORE] = end_score
            for s in range(self.placed):
                code = int(self.partial[s])
                act[gl.A_KINDS + s] = code // (WIDTH * WIDTH)
                act[gl.A_ROWS + s] = (code % (WIDTH * WIDTH)) // WIDTH + top
                act[gl.A_COLS + s] = code % WIDTH + left
            self.st = gl.place_tiles(self.st, self.meta, act)
        else:
            gl.set_exchange(act, self.partial[6:], self.marked)
        size = gl.take_tiles(self.meta, self.hands, self.hand_sizes, self.scores, act, self.turn_row)
        self.hand_sizes[seat] = size
        self.n_drawn = 0
        if act[gl.A_TYPE] == gl.PLACE:
            self.pending = min(gl.HAND_SIZE - size, int(self.meta[gl.M_BAG]))
        elif act[gl.A_TYPE] == gl.EXCHANGE:
            self.pending = int(act[gl.A_N])
        else:
            self.pending = 0
        self.partial[:] = -1
        self.placed = self.marked = 0
        if not self.pending:
            self._finish_turn()

    def _draw(self, kind: int) -> None:
        if self.dealt < 6 * self.players:
            seat = self.dealt // 6
            self.hand_sizes[seat] = gl.draw_kind(self.hands[seat], self.hand_sizes[seat], self.bag, self.meta, kind)
            self.dealt += 1
            self.seen.append((seat, f"d{kind}"))
            self.seen.append((-2 - seat, "d?"))
            if self.dealt == 6 * self.players:
                gl.start_play(
                    self.meta, self.hands, self.hand_sizes, int(self.meta[gl.M_BAG]), self.players,
                    np.arange(gl.MAX_PLAYERS, dtype=np.int64),
                )
            return
        seat = self._mover()
        size = gl.draw_kind(self.hands[seat], self.hand_sizes[seat], self.bag, self.meta, kind)
        if size < 0:
            raise pyspiel.SpielError(f"no {ALL_TILES[kind]} left in the bag")
        self.hand_sizes[seat] = size
        self.seen.append((seat, f"d{kind}"))
        self.seen.append((-2 - seat, "d?"))
        self.n_drawn += 1
        self.pending -= 1
        if not self.pending:
            self._finish_turn()

    def _finish_turn(self) -> None:
        act = self.turn_action
        if act[gl.A_TYPE] == gl.EXCHANGE:
            gl.return_to_bag(self.bag, self.meta, act)
        gl.close_turn(self.meta, self.hand_sizes, self.scores, act, self.turn_row, self.n_drawn)
        if self.meta[gl.M_OVER]:
            return
        end = gl.ending(self.st, self.meta, self.hands, self.hand_sizes, self.bag)
        if end != gl.END_NONE:
            self.meta[gl.M_OVER] = 1
            self.meta[gl.M_END] = end
        elif self.meta[gl.M_TURNS] >= gl.MAX_TURNS or not self._mask()[0].any():
            self.truncated = True  # the turn cap, or every legal move outside the window

    # ----------------------------------------------------------- strings
    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"draw {ALL_TILES[action].text()}"
        what, kind, i, j = describe(action, WIDTH)
        if what == "place":
            return f"{ALL_TILES[kind].text()}@{i},{j}"
        if what == "mark":
            return f"mark {ALL_TILES[kind].text()}"
        return what

    def __str__(self) -> str:
        hands = "/".join("".join(ALL_TILES[int(t)].text() for t in self.hands[p, : self.hand_sizes[p]]) or "-"
                         for p in range(self.players))
        return (
            f"{_board_text(self)}|{hands}|bag {int(self.meta[gl.M_BAG])}|"
            f"{','.join(str(int(s)) for s in self.scores[: self.players])}|{self.current_player()}"
        )

    # ------------------------------------------------- hidden information
    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> QwirkleState:
        """A state the player cannot tell from this one: the bag and the other hands
        dealt anew (the kernel of ``Game.determinize``), seeded from the sampler."""
        if self.dealt < 6 * self.players:
            raise pyspiel.SpielError("resample_from_infostate needs the deal done")
        seed = int(probability_sampler() * 2**32) & 0xFFFFFFFF
        state: QwirkleState = self.clone()
        gl.redeal_unseen(state.meta, state.hands, state.hand_sizes, state.bag, player_id, new_state(seed, GAME_STREAM))
        return state


def _board_text(state: QwirkleState) -> str:
    tiles = tiles_of(state.st).tolist()
    return " ".join(f"{ALL_TILES[kind].text()}@{r},{c}" for r, c, kind in tiles) or "-"


# The observation tensor: 6 colour and 6 shape planes of the window, the tiles placed
# this turn (one plane), the hand (36 counts) and marks (36), the scores and hand sizes
# rotated to the player (6 + 6), the bag size, the opening size, whether the player is
# to move; the information state tensor adds the unseen copies of each kind (36).
PLANES = 13
OBS_SIZE = PLANES * WIDTH * WIDTH + 36 + 36 + 6 + 6 + 3
INFO_SIZE = OBS_SIZE + 36


class QwirkleObserver:
    """OpenSpiel's PyObserver for python_qwirkle (see the module docstring)."""

    def __init__(self, perfect_recall: bool) -> None:
        self.perfect_recall = perfect_recall
        self.tensor = np.zeros(INFO_SIZE if perfect_recall else OBS_SIZE, np.float32)
        self.dict = {"observation": self.tensor}
        self._board = np.zeros((WIDTH, WIDTH), np.int8)

    def set_from(self, state: QwirkleState, player: int) -> None:
        t = self.tensor
        t.fill(0)
        if state.dealt < 6 * state.players:
            held = state.hands[player, : state.hand_sizes[player]]
            np.add.at(t[PLANES * WIDTH * WIDTH : PLANES * WIDTH * WIDTH + 36], held, 1)
            return
        top, left = k.window_of(state.st, state.meta, WIDTH)
        k.write_board(state.st, state.meta, top, left, WIDTH, self._board)
        planes = t[: PLANES * WIDTH * WIDTH].reshape(PLANES, WIDTH, WIDTH)
        rows, cols = np.nonzero(self._board >= 0)
        kinds = self._board[rows, cols].astype(np.int64)
        planes[kinds // 6, rows, cols] = 1
        planes[6 + kinds % 6, rows, cols] = 1
        mover = state._mover()
        at = PLANES * WIDTH * WIDTH
        hand = t[at : at + 36]
        np.add.at(hand, state.hands[player, : state.hand_sizes[player]], 1)
        if player == mover:
            for s in range(state.placed):
                code = int(state.partial[s])
                planes[12, (code % (WIDTH * WIDTH)) // WIDTH, code % WIDTH] = 1
                hand[code // (WIDTH * WIDTH)] -= 1
            for s in range(state.marked):
                hand[state.partial[6 + s]] -= 1
                t[at + 36 + state.partial[6 + s]] += 1
        at += 72
        for j in range(state.players):
            seat = (player + j) % state.players
            t[at + j] = state.scores[seat]
            t[at + 6 + j] = state.hand_sizes[seat]
        at += 12
        t[at] = state.meta[gl.M_BAG]
        t[at + 1] = state.meta[gl.M_OPENING]
        t[at + 2] = float(player == mover)
        if self.perfect_recall:
            unseen = 3.0 - gl.board_counts(state.st).astype(np.float32)  # the whole board
            np.subtract.at(unseen, state.hands[player, : state.hand_sizes[player]], 1)
            t[OBS_SIZE:] = unseen

    def string_from(self, state: QwirkleState, player: int) -> str:
        hand = "".join(ALL_TILES[int(x)].text() for x in state.hands[player, : state.hand_sizes[player]])
        scores = ",".join(str(int(s)) for s in state.scores[: state.players])
        text = f"p{player} hand {hand or '-'} scores {scores} bag {int(state.meta[gl.M_BAG])} board {_board_text(state)}"
        if player == state._mover():
            text += f" turn {list(state.partial[: state.placed])}{list(state.partial[6 : 6 + state.marked])}"
        if self.perfect_recall:
            text += " | " + " ".join(tok for who, tok in state.seen if who in (-1, player) or (who <= -2 and -2 - who != player))
        return text


pyspiel.register_game(_GAME_TYPE, QwirkleGame)

# Referenced for completeness: the END and PASS ids of this game's window.
END = end_id(WIDTH)
PASS = pass_id(WIDTH)
