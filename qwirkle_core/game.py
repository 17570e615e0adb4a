"""A whole game of Qwirkle: bag, hands, opening, exchanges, end of game, records.

>>> game = Game(players=2, seed=12)
>>> opening = game.legal_actions()[0]
>>> game.push(opening).kind
'place'
>>> Game.from_string(game.to_string()) == game
True

The rules are RULES.md's.  Conventions this module fixes:

- The bag is a sequence; tiles are drawn from its end.  The deal gives 6 tiles to
  seat 0, then 6 to seat 1, and so on, in draw order; hands keep their draw order.
- An exchange first removes the tiles from the hand and draws as many, then mixes
  each returned tile (in ascending kind order) into the bag: it goes last, then
  swaps places with a uniformly chosen slot.
- The seeded generator (``qwirkle_core._prng``) shuffles the bag and mixes exchanges;
  ``qwirkle_core._gameloop`` plays the same games inside numba.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from . import _gameloop, _prng
from .board import Board, tile_kinds
from .errors import (
    IllegalMoveError,
    InvalidMoveError,
    InvalidPositionError,
    InvalidRecordError,
    InvalidTileError,
    QwirkleError,
)
from .moves import Move, MoveList
from .tiles import ALL_TILES, COPIES_PER_KIND, N_KINDS, Tile, parse_tiles

__all__ = [
    "Action",
    "Game",
    "InvalidRecordError",
    "Turn",
    "distinct_exchanges",
    "largest_group",
    "opening_player",
]

MIN_PLAYERS = 2
MAX_PLAYERS = 6
HAND_SIZE = 6
GOING_OUT_BONUS = 6


# ------------------------------------------------------------------- actions
class Action:
    """One turn's action: ``place`` a move, ``exchange`` tiles, or ``pass``.

    Immutable and hashable; two exchanges of the same tiles are equal whatever the
    order they were given in.  Text notation (``text`` / ``from_text``):
    ``"Rc@0,0 Rs@0,1"`` places, ``"x Rc Rc Yd"`` exchanges, ``"pass"`` passes.
    """

    PLACE = "place"
    EXCHANGE = "exchange"
    PASS = "pass"

    __slots__ = ("kind", "move", "tiles")
    kind: str
    move: Move | None
    tiles: tuple[Tile, ...]

    def __init__(self, kind: str, move: Move | None = None, tiles: Iterable[Tile] = ()) -> None:
        tiles = tuple(tiles)
        for t in tiles:
            if t.__class__ is not Tile:
                raise InvalidTileError(f"an action's tiles are Tiles, got {t!r}")
        tiles = tuple(sorted(tiles))
        if kind == Action.PLACE:
            if not isinstance(move, Move):
                raise InvalidMoveError(f"a place action needs a Move, got {move!r}")
            tiles = move.tiles
        elif kind == Action.EXCHANGE:
            if move is not None or not tiles:
                raise InvalidMoveError("an exchange action names one or more tiles and no move")
        elif kind == Action.PASS:
            if move is not None or tiles:
                raise InvalidMoveError("a pass has no move and no tiles")
        else:
            raise InvalidMoveError(f"an action is place, exchange or pass, got {kind!r}")
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "move", move)
        object.__setattr__(self, "tiles", tiles)

    @classmethod
    def place(cls, move: Move | Iterable[Any]) -> Action:
        return cls(cls.PLACE, move if isinstance(move, Move) else Move(move))

    @classmethod
    def exchange(cls, tiles: Iterable[Tile]) -> Action:
        return cls(cls.EXCHANGE, tiles=tiles)

    @classmethod
    def pass_turn(cls) -> Action:
        return cls(cls.PASS)

    @classmethod
    def from_text(cls, text: str) -> Action:
        if not isinstance(text, str):
            raise InvalidMoveError(f"expected action text, got {text!r}")
        words = text.split()
        if words == ["pass"]:
            return cls.pass_turn()
        if words and words[0] == "x":
            try:
                return cls.exchange(parse_tiles(" ".join(words[1:])))
            except InvalidTileError as exc:
                raise InvalidMoveError(str(exc)) from None
        return cls.place(Move.from_text(text))

    @property
    def score(self) -> int | None:
        """Points of a place action (None if unknown); 0 for exchange and pass."""
        return self.move.score if self.move is not None else 0

    def text(self) -> str:
        if self.kind == Action.PLACE:
            assert self.move is not None
            return self.move.text()
        if self.kind == Action.EXCHANGE:
            return "x " + " ".join(t.text() for t in self.tiles)
        return "pass"

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        return f"Action.from_text({self.text()!r})"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Action):
            return (self.kind, self.move, self.tiles) == (other.kind, other.move, other.tiles)
        return NotImplemented

    def __hash__(self) -> int:
        return hash((self.kind, self.move, self.tiles))

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Action is immutable")


@dataclass(frozen=True)
class Turn:
    """One played turn: who, the hand before, the action (a place carries its score),
    the tiles drawn after it, and the points it scored (the going-out bonus apart)."""

    player: int
    hand: tuple[Tile, ...]
    action: Action
    drawn: tuple[Tile, ...]
    score: int

    def to_json(self) -> dict[str, Any]:
        """This turn as a record's ``turns`` entry."""
        out: dict[str, Any] = {
            "player": self.player,
            "hand": [t.as_json() for t in self.hand],
            "action": self.action.kind,
        }
        if self.action.kind == Action.PLACE:
            assert self.action.move is not None
            out["placements"] = self.action.move.to_json()
            out["score"] = self.score
            out["drawn"] = [t.as_json() for t in self.drawn]
        elif self.action.kind == Action.EXCHANGE:
            out["tiles"] = [t.as_json() for t in self.action.tiles]
            out["drawn"] = [t.as_json() for t in self.drawn]
        return out


@dataclass(frozen=True)
class _Snapshot:
    """Everything a turn changes apart from the board (which has its own undo)."""

    hands: tuple[tuple[int, ...], ...]
    bag: tuple[int, ...]
    scores: tuple[int, ...]
    player: int
    opening: int
    over: bool
    went_out: int
    rng: tuple[int, ...]
    placed: bool


def largest_group(tiles: Iterable[Tile]) -> int:
    """The most tiles that share a colour or a shape, identical tiles counted once."""
    kinds = {t.kind for t in tiles}
    best = 0
    for g in range(6):
        best = max(best, sum(1 for k in kinds if k // 6 == g), sum(1 for k in kinds if k % 6 == g))
    return best


def _tie_rank(players: int, tie_break: Sequence[int] | None) -> list[int]:
    """rank[seat] = the seat's place in ``tie_break`` (seat order by default)."""
    if tie_break is None:
        return list(range(players))
    order = list(tie_break)
    if sorted(order) != list(range(players)):
        raise QwirkleError(f"tie_break must list each seat 0..{players - 1} once, got {tie_break!r}")
    rank = [0] * players
    for position, seat in enumerate(order):
        rank[seat] = position
    return rank


def opening_player(hands: Sequence[Sequence[Tile]], tie_break: Sequence[int] | None = None) -> int:
    """The seat that opens: the largest group (identical tiles counted once); on a tie,
    the first of the tied seats in ``tie_break`` (the seats in the order that wins a
    tie, e.g. oldest first), else the lowest seat."""
    rank = _tie_rank(len(hands), tie_break)
    groups = [largest_group(h) for h in hands]
    top = max(groups)
    return min((p for p in range(len(hands)) if groups[p] == top), key=lambda p: rank[p])


def distinct_exchanges(hand: Sequence[Tile], bag_size: int) -> list[tuple[Tile, ...]]:
    """Every distinct multiset of 1..bag_size tiles of ``hand``, in the engine's order:
    the copies taken of each distinct kind (ascending) are the digits of a counter
    whose lowest digit is the lowest kind."""
    counts = sorted(Counter(t.kind for t in hand).items())
    combos = 1
    for _, c in counts:
        combos *= c + 1
    out = []
    for code in range(1, combos):
        taken: list[Tile] = []
        rest = code
        for kind, c in counts:
            taken.extend([ALL_TILES[kind]] * (rest % (c + 1)))
            rest //= c + 1
        if len(taken) <= bag_size:
            out.append(tuple(taken))
    return out


def _check_seed(seed: int) -> int:
    try:
        _prng.new_state(seed, 0)
    except (TypeError, ValueError) as exc:
        raise QwirkleError(str(exc)) from None
    return int(seed)


# ---------------------------------------------------------------------- game
class Game:
    """A game of 2 to 6 players, dealt from a seeded bag.

    ``tie_break`` lists the seats in the order that wins a tie for the opening (for
    example the oldest player first); by default the lowest seat wins.

    Play with :meth:`push` (an :class:`Action`, a :class:`Move`, or action text) and
    take turns back with :meth:`pop`.  An illegal action raises
    :class:`IllegalMoveError` naming the rule and leaves the game as it was.
    """

    def __init__(self, players: int = 2, seed: int = 0, tie_break: Sequence[int] | None = None) -> None:
        if type(players) is not int or not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise QwirkleError(f"a game has {MIN_PLAYERS} to {MAX_PLAYERS} players, got {players!r}")
        self._seed: int | None = _check_seed(seed)
        self._tie_rank = _tie_rank(players, tie_break)
        self._players = players
        self._board = Board()
        self._rng = _prng.new_state(self._seed, _prng.GAME_STREAM)
        # The deal, in Python (the engine's deal() does the same with the same numbers).
        bag = [i // COPIES_PER_KIND for i in range(N_KINDS * COPIES_PER_KIND)]
        for i in range(len(bag) - 1, 0, -1):
            j = int(_prng.below(self._rng, i + 1))
            bag[i], bag[j] = bag[j], bag[i]
        self._hands: list[list[Tile]] = []
        for _ in range(players):
            self._hands.append([ALL_TILES[bag.pop()] for _ in range(HAND_SIZE)])
        self._bag = bag
        self._scores = [0] * players
        self._player = opening_player(self._hands, tie_break)
        self._opening = largest_group(self._hands[self._player])
        self._over = False
        self._went_out = -1
        self._history: list[Turn] = []
        self._undo: list[_Snapshot] = []
        self._from_deal = True

    # ------------------------------------------------------------- reading
    @property
    def players(self) -> int:
        return self._players

    @property
    def seed(self) -> int | None:
        """The seed of the deal; None for a game loaded from a position string."""
        return self._seed

    @property
    def from_deal(self) -> bool:
        """Whether the game was played from its deal (then its history is a record);
        False for a game loaded from a position string or determinized."""
        return self._from_deal

    @property
    def board(self) -> Board:
        """The board (read it; change it only through push and pop)."""
        return self._board

    @property
    def to_move(self) -> int:
        return self._player

    @property
    def scores(self) -> list[int]:
        return list(self._scores)

    @property
    def bag_size(self) -> int:
        return len(self._bag)

    @property
    def bag(self) -> list[Tile]:
        """The bag in order; the next tile drawn is the last."""
        return [ALL_TILES[k] for k in self._bag]

    def hand(self, player: int | None = None) -> list[Tile]:
        """A seat's hand (default: the player to move), in draw order."""
        return list(self._hands[self._seat(player)])

    @property
    def hands(self) -> list[list[Tile]]:
        return [list(h) for h in self._hands]

    @property
    def opening_size(self) -> int:
        """Tiles the opening move must place (the opener's largest group); 0 once played."""
        return self._opening

    @property
    def is_over(self) -> bool:
        return self._over

    @property
    def went_out(self) -> int | None:
        """The seat that emptied their hand and took the bonus, if any."""
        return self._went_out if self._went_out >= 0 else None

    @property
    def history(self) -> list[Turn]:
        return list(self._history)

    def winners(self) -> list[int]:
        """The seats with the highest score (more than one on a tie)."""
        top = max(self._scores)
        return [p for p, s in enumerate(self._scores) if s == top]

    def _seat(self, player: int | None) -> int:
        if player is None:
            return self._player
        if type(player) is not int or not 0 <= player < self._players:
            raise QwirkleError(f"no seat {player!r} in a game of {self._players}")
        return player

    def unseen_tiles(self, player: int | None = None) -> list[Tile]:
        """What ``player`` cannot see: the bag and the other hands, in kind order."""
        seat = self._seat(player)
        kinds = list(self._bag)
        for p, h in enumerate(self._hands):
            if p != seat:
                kinds.extend(t.kind for t in h)
        return [ALL_TILES[k] for k in sorted(kinds)]

    # ------------------------------------------------------------- actions
    def legal_moves(self) -> MoveList:
        """The placements the player to move may make (the opening: exactly the
        largest group, in the canonical frame)."""
        if self._over:
            return MoveList(np.zeros((0, 20), np.int32))
        moves = self._board.legal_moves(self._hands[self._player])
        if self._opening:
            return MoveList(moves.table[moves.sizes == self._opening])
        return moves

    def legal_actions(self) -> list[Action]:
        """Every legal action: the placements (in generator order), then the distinct
        exchanges, then pass where it applies.  Empty once the game is over."""
        if self._over:
            return []
        moves = self.legal_moves()
        actions = [Action(Action.PLACE, m) for m in moves]
        if self._opening:
            return actions
        if self._bag:
            actions.extend(Action(Action.EXCHANGE, tiles=x) for x in distinct_exchanges(self._hands[self._player], len(self._bag)))
        elif not moves:
            actions.append(Action.pass_turn())
        return actions

    def push(self, action: Action | Move | str) -> Action:
        """Play ``action`` for the player to move; returns it (a place with its score).

        Raises IllegalMoveError, naming the rule, and changes nothing when it is illegal.
        """
        if isinstance(action, str):
            action = Action.from_text(action)
        elif isinstance(action, Move):
            action = Action(Action.PLACE, action)
        elif not isinstance(action, Action):
            raise InvalidMoveError(f"expected an Action, a Move or action text, got {action!r}")
        if self._over:
            raise IllegalMoveError("the game is over")
        hand = self._hands[self._player]
        if action.kind == Action.PLACE:
            assert action.move is not None
            move = action.move
            if self._opening and len(move) != self._opening:
                raise IllegalMoveError(
                    f"the opening move places the opener's largest group: {self._opening} tiles, "
                    f"not {len(move)}"
                )
            self._board.score(move, hand)  # raises IllegalMoveError naming the rule
        elif self._opening:
            raise IllegalMoveError(f"the opening player must place their largest group ({self._opening} tiles)")
        elif action.kind == Action.EXCHANGE:
            held = Counter(t.kind for t in hand)
            for kind, n in Counter(t.kind for t in action.tiles).items():
                if held[kind] < n:
                    raise IllegalMoveError(f"cannot exchange {ALL_TILES[kind]}: not that many in the hand")
            if len(action.tiles) > len(self._bag):
                raise IllegalMoveError(
                    f"cannot exchange {len(action.tiles)} tiles: the bag holds only {len(self._bag)}"
                )
        else:
            if self._bag:
                raise IllegalMoveError("a pass is only allowed when the bag is empty (exchange instead)")
            if self._board.has_move(hand):
                raise IllegalMoveError("a pass is only allowed when no tile can be placed")
        return self._apply(action)

    def _apply(self, action: Action) -> Action:
        """Play a legal action (push has checked it)."""
        player = self._player
        hand = self._hands[player]
        self._undo.append(
            _Snapshot(
                tuple(tuple(t.kind for t in h) for h in self._hands),
                tuple(self._bag),
                tuple(self._scores),
                player,
                self._opening,
                self._over,
                self._went_out,
                tuple(int(w) for w in self._rng),
                action.kind == Action.PLACE,
            )
        )
        hand_before = tuple(hand)
        drawn: list[Tile] = []
        score = 0
        if action.kind == Action.PLACE:
            assert action.move is not None
            move = self._board.push(action.move)
            action = Action(Action.PLACE, move)
            score = move.score or 0
            for t in move.tiles:
                hand.remove(t)
            drawn = self._draw(hand)
            self._scores[player] += score
            self._opening = 0
            if not hand:
                self._scores[player] += GOING_OUT_BONUS
                self._went_out = player
                self._over = True
        elif action.kind == Action.EXCHANGE:
            for t in action.tiles:
                hand.remove(t)
            drawn = self._draw(hand)
            for t in action.tiles:
                self._bag.append(t.kind)
                j = int(_prng.below(self._rng, len(self._bag)))
                self._bag[-1], self._bag[j] = self._bag[j], self._bag[-1]
        self._history.append(Turn(player, hand_before, action, tuple(drawn), score))
        self._player = (player + 1) % self._players
        if not self._over and not self._bag:
            self._over = not any(self._board.has_move(h) for h in self._hands)
        return action

    def _draw(self, hand: list[Tile]) -> list[Tile]:
        drawn = []
        while len(hand) < HAND_SIZE and self._bag:
            drawn.append(ALL_TILES[self._bag.pop()])
            hand.append(drawn[-1])
        return drawn

    def pop(self) -> Action:
        """Take back the last turn, draws included; returns its action."""
        if not self._undo:
            raise IndexError("no turn to take back")
        snap = self._undo.pop()
        turn = self._history.pop()
        if snap.placed:
            self._board.pop()
        self._hands = [[ALL_TILES[k] for k in h] for h in snap.hands]
        self._bag = list(snap.bag)
        self._scores = list(snap.scores)
        self._player = snap.player
        self._opening = snap.opening
        self._over = snap.over
        self._went_out = snap.went_out
        self._rng[:] = snap.rng
        return turn.action

    def copy(self) -> Game:
        game = Game.__new__(Game)
        game._seed = self._seed
        game._tie_rank = list(self._tie_rank)
        game._players = self._players
        game._board = self._board.copy()
        game._rng = self._rng.copy()
        game._hands = [list(h) for h in self._hands]
        game._bag = list(self._bag)
        game._scores = list(self._scores)
        game._player = self._player
        game._opening = self._opening
        game._over = self._over
        game._went_out = self._went_out
        game._history = list(self._history)
        game._undo = list(self._undo)
        game._from_deal = self._from_deal
        return game

    # ------------------------------------------------- hidden information
    def determinize(self, player: int | None = None, seed: int = 0) -> Game:
        """A copy where what ``player`` cannot see (the bag, the other hands) is dealt
        anew from a generator seeded with ``seed``; every hand keeps its size.  The
        copy's own generator is that one, so its future draws differ too.  Before the
        opening, the opener keeps the turn and opens with its new hand's largest group."""
        seat = self._seat(player)
        rng = _prng.new_state(_check_seed(seed), _prng.GAME_STREAM)
        _, meta, hands, hand_sizes, bag, _, _ = self.engine_state(copy_grid=False)
        _gameloop.redeal_unseen(meta, hands, hand_sizes, bag, seat, rng)
        game = self.copy()
        game._hands = [[ALL_TILES[int(k)] for k in hands[p, : hand_sizes[p]]] for p in range(self._players)]
        game._bag = [int(k) for k in bag[: meta[_gameloop.M_BAG]]]
        game._opening = int(meta[_gameloop.M_OPENING])
        game._rng = rng
        # The past no longer leads to this state: it can be played on, not popped.
        game._history = []
        game._undo = []
        game._from_deal = False
        game._board = self._board.copy(stack=False)
        return game

    def engine_state(
        self, copy_grid: bool = True
    ) -> tuple[
        npt.NDArray[np.int8],
        npt.NDArray[np.int64],
        npt.NDArray[np.int64],
        npt.NDArray[np.int64],
        npt.NDArray[np.int64],
        npt.NDArray[np.int64],
        npt.NDArray[np.int64],
    ]:
        """The position as the numba engine's arrays: (grid, meta, hands, hand_sizes,
        bag, scores, game_rng); see qwirkle_core._gameloop."""
        grid, (row_origin, col_origin), (r0, r1, c0, c1) = self._board.state_arrays()
        if copy_grid:
            grid = grid.copy()
        meta = np.zeros(_gameloop.N_META, np.int64)
        meta[_gameloop.M_R0], meta[_gameloop.M_R1], meta[_gameloop.M_C0], meta[_gameloop.M_C1] = r0, r1, c0, c1
        meta[_gameloop.M_ROW_ORIGIN] = row_origin
        meta[_gameloop.M_COL_ORIGIN] = col_origin
        meta[_gameloop.M_BOARD_TILES] = len(self._board)
        meta[_gameloop.M_BAG] = len(self._bag)
        meta[_gameloop.M_PLAYER] = self._player
        meta[_gameloop.M_PLAYERS] = self._players
        meta[_gameloop.M_OPENING] = self._opening
        meta[_gameloop.M_OVER] = int(self._over)
        meta[_gameloop.M_TURNS] = len(self._history)
        meta[_gameloop.M_WENT_OUT] = self._went_out
        hands = np.zeros((_gameloop.MAX_PLAYERS, HAND_SIZE), np.int64)
        hand_sizes = np.zeros(_gameloop.MAX_PLAYERS, np.int64)
        for p, h in enumerate(self._hands):
            hand_sizes[p] = len(h)
            hands[p, : len(h)] = [t.kind for t in h]
        bag = np.zeros(N_KINDS * COPIES_PER_KIND, np.int64)
        bag[: len(self._bag)] = self._bag
        scores = np.zeros(_gameloop.MAX_PLAYERS, np.int64)
        scores[: self._players] = self._scores
        return grid, meta, hands, hand_sizes, bag, scores, self._rng.copy()

    # ---------------------------------------------------- position string
    def to_string(self) -> str:
        """The position in one line, fields separated by ``|``::

            board | hands (seat 0 first, '/' between) | bag (next draw last) |
            scores | seat to move | state | generator

        Tiles are two letters (``Rc``), written without spaces in hands and bag; '-'
        stands for nothing.  The board is its placement text.  The state is ``o<n>``
        before the opening (which must place n tiles), ``p`` in play, ``e`` ended with
        no one going out, ``e<seat>`` ended by that seat going out.  The generator is
        32 hex digits.
        """
        board = self._board.text() or "-"
        hands = "/".join("".join(t.text() for t in h) or "-" for h in self._hands)
        bag = "".join(ALL_TILES[k].text() for k in self._bag) or "-"
        scores = ",".join(str(s) for s in self._scores)
        if self._opening:
            state = f"o{self._opening}"
        elif not self._over:
            state = "p"
        else:
            state = "e" + (str(self._went_out) if self._went_out >= 0 else "")
        return f"{board}|{hands}|{bag}|{scores}|{self._player}|{state}|{_prng.state_text(self._rng)}"

    @classmethod
    def from_string(cls, text: str) -> Game:
        """The game of a :meth:`to_string` position.  Raises InvalidPositionError for
        one that no game can reach (tiles not conserved, a hand over 6, ...)."""
        if not isinstance(text, str):
            raise InvalidPositionError(f"expected a position string, got {text!r}")
        fields = text.strip().split("|")
        if len(fields) != 7:
            raise InvalidPositionError(f"a position has 7 fields separated by '|', got {len(fields)}")
        board_text, hands_text, bag_text, scores_text, player_text, state, rng_text = (f.strip() for f in fields)
        try:
            board = Board() if board_text == "-" else Board(board_text)
            hands = [_tiles_run(h) for h in hands_text.split("/")]
            bag = _tiles_run(bag_text)
            scores = [int(s) for s in scores_text.split(",")]
            player = int(player_text)
            rng = _prng.state_from_text(rng_text)
        except (QwirkleError, ValueError) as exc:
            raise InvalidPositionError(f"bad position string: {exc}") from None
        return cls._checked(board, hands, bag, scores, player, state, rng)

    @classmethod
    def from_position(
        cls,
        board: Board,
        hands: Sequence[Sequence[Tile]],
        bag: Sequence[Tile],
        scores: Sequence[int] | None = None,
        to_move: int = 0,
        seed: int = 0,
    ) -> Game:
        """A game from its parts: the board, every hand (seat 0 first), the bag (the
        next draw last), the scores (default 0) and the seat to move; on an empty board
        the game is before its opening.  ``seed`` seeds the generator that mixes
        exchanged tiles into the bag.  Raises InvalidPositionError for a position that
        no game can reach (tiles not conserved, a hand over 6, ...)."""
        if not isinstance(board, Board):
            raise InvalidPositionError(f"expected a Board, got {board!r}")
        hands_list = [list(h) for h in hands]
        for h in hands_list:
            tile_kinds(h, "a hand")
        bag_list = list(bag)
        tile_kinds(bag_list, "the bag")
        scores_list = [0] * len(hands_list) if scores is None else list(scores)
        if any(type(s) is not int for s in scores_list):
            raise InvalidPositionError(f"scores are integers, got {scores_list!r}")
        if type(to_move) is not int:
            raise InvalidPositionError(f"to_move is a seat number, got {to_move!r}")
        rng = _prng.new_state(_check_seed(seed), _prng.GAME_STREAM)
        opening = 0
        if board.is_empty() and 0 <= to_move < len(hands_list):
            opening = largest_group(hands_list[to_move])
        state = f"o{opening}" if opening else "p"
        return cls._checked(board.copy(stack=False), hands_list, bag_list, scores_list, to_move, state, rng)

    @classmethod
    def _checked(
        cls,
        board: Board,
        hands: list[list[Tile]],
        bag: list[Tile],
        scores: list[int],
        player: int,
        state: str,
        rng: npt.NDArray[np.int64],
    ) -> Game:
        """The game of these parts, after checking that a game can reach them."""
        players = len(hands)
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise InvalidPositionError(f"a game has {MIN_PLAYERS} to {MAX_PLAYERS} players, got {players}")
        if len(scores) != players or any(s < 0 for s in scores):
            raise InvalidPositionError("one score, not negative, for each hand")
        if not 0 <= player < players:
            raise InvalidPositionError(f"no seat {player} to move in a game of {players}")
        if any(len(h) > HAND_SIZE for h in hands):
            raise InvalidPositionError(f"a hand holds at most {HAND_SIZE} tiles")
        counts = Counter(t.kind for t in bag)
        for h in hands:
            counts.update(t.kind for t in h)
        counts.update(t.kind for _, _, t in board.placements())
        wrong = [k for k in range(N_KINDS) if counts[k] != COPIES_PER_KIND]
        if wrong:
            k = wrong[0]
            raise InvalidPositionError(
                f"the tiles are not the game's 108: {counts[k]} of {ALL_TILES[k]} between board, hands and bag"
            )
        opening, over, went_out = 0, False, -1
        if state.startswith("o") and state[1:].isdigit():
            opening = int(state[1:])
            if not board.is_empty() or opening != largest_group(hands[player]) or opening == 0:
                raise InvalidPositionError("before the opening the board is empty and the opener places their largest group")
        elif state == "p":
            if board.is_empty():
                raise InvalidPositionError("a game in play has tiles on the board (else its state is o<n>)")
        elif state == "e" or (state.startswith("e") and state[1:].isdigit()):
            over = True
            if state != "e":
                went_out = int(state[1:])
                if not 0 <= went_out < players or hands[went_out] or bag:
                    raise InvalidPositionError(f"seat {went_out} cannot have gone out: their hand or the bag holds tiles")
        else:
            raise InvalidPositionError(f"the state field is o<n>, p, e or e<seat>, got {state!r}")
        if not over and any(not h for h in hands):
            raise InvalidPositionError("a game in play has no empty hand")
        game = cls.__new__(cls)
        game._seed = None
        game._tie_rank = list(range(players))
        game._players = players
        game._board = board
        game._rng = rng
        game._hands = hands
        game._bag = [t.kind for t in bag]
        game._scores = scores
        game._player = player
        game._opening = opening
        game._over = over
        game._went_out = went_out
        game._history = []
        game._undo = []
        game._from_deal = False
        return game

    def __eq__(self, other: object) -> bool:
        """Same position: board, hands, bag, scores, player to move, state, generator."""
        if not isinstance(other, Game):
            return NotImplemented
        return self.to_string() == other.to_string()

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        return f"Game.from_string({self.to_string()!r})"

    # --------------------------------------------------------------- records
    def to_record(self) -> dict[str, Any]:
        """The game so far as a ``qwirkle-record/1`` object (:func:`qwirkle_core.records.record_from_game`)."""
        from .records import record_from_game

        return record_from_game(self)

    @classmethod
    def from_record(cls, record: dict[str, Any] | str) -> Game:
        """Replay a record (an object, or one JSON line) and return the game at its end
        (:func:`qwirkle_core.records.game_from_record`)."""
        from .records import game_from_record

        return game_from_record(record)


def _tiles_run(text: str) -> list[Tile]:
    """Tiles written back to back ("RcRsYd"), or '-' for none."""
    if text == "-":
        return []
    if len(text) % 2:
        raise InvalidTileError(f"tiles are two letters each, got {text!r}")
    return [Tile.from_text(text[i : i + 2]) for i in range(0, len(text), 2)]
