"""A whole game of Qwirkle: bag, hands, opening, exchanges, end of game, records.

>>> game = Game(players=2, seed=12)
>>> opening = game.legal_actions()[0]
>>> game.push(opening).kind
'place'
>>> Game.from_string(game.to_string()) == game
True

The rules are those of docs/rules.md.  Conventions this module fixes:

- The bag is a sequence; tiles are drawn from its end.  The deal gives 6 tiles to
  seat 0, then 6 to seat 1, and so on, in draw order; hands keep their draw order.
- An exchange first removes the tiles from the hand and draws as many, then mixes
  each returned tile (in ascending kind order) into the bag: it goes last, then
  swaps places with a uniformly chosen slot.
- The seeded generator (``qwirkle_core._prng``) shuffles the bag and mixes exchanges;
  ``qwirkle_core._batch`` plays the same games inside numba (both apply turns with ``_turn``).
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from . import _batch, _layout, _prng, _turn
from ._constants import GOING_OUT_BONUS, HAND_SIZE, MAX_PLAYERS
from ._ints import int_value, read_int
from ._iterables import items_of
from .board import Board, hand_kinds, tile_kinds
from .errors import (
    IllegalMoveError,
    InvalidMoveError,
    InvalidPositionError,
    InvalidRecordError,
    InvalidTileError,
    NothingToUndoError,
    QwirkleError,
    show,
)
from .moves import Move, MoveList
from .tiles import ALL_TILES, COPIES_PER_KIND, N_KINDS, N_TILES, Tile, as_tile, parse_tiles

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
# Scores are integers 0..MAX_SCORE (a whole game scores a few hundred points): a
# position string with more is refused, and so is a turn that would pass it, so every
# score the library writes it also reads, and none can wrap in the numba engine.
MAX_SCORE = 1_000_000_000
# More than a turn can score: a line of six (12) and six crossing lines of six, the bonus.
_TURN_POINTS_MAX = 7 * 12 + GOING_OUT_BONUS
# turn_verdict's scratch: the pass rule looks for any one placement (what the table
# then holds is never read, so every Game, in any thread, may share it).
_PASS_TABLE = np.empty((1, _layout.OUT_COLS), np.int32)
_NUMBER = re.compile(r"[0-9]{1,10}", re.ASCII)
_HEX_STATE = re.compile(r"[0-9a-fA-F]{32}", re.ASCII)


def _number(text: str, what: str) -> int:
    """A non-negative decimal number of a position string: ASCII digits only."""
    if not _NUMBER.fullmatch(text):
        raise InvalidPositionError(f"{what} is a number written in digits 0-9, got {show(text)}")
    return int(text)


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
        items = items_of(tiles)
        if items is None:
            raise InvalidTileError(f"an action's tiles are a sequence of Tiles, got {show(tiles)}")
        listed = []
        for t in itertools.islice(items, N_TILES + 1):  # a long iterable is never walked to its end
            listed.append(as_tile(t, "an action's tiles"))
        if len(listed) > N_TILES:
            raise InvalidTileError(f"an action's tiles are at most the game's {N_TILES}")
        tiles = tuple(sorted(listed))
        if kind == Action.PLACE:
            if not isinstance(move, Move):
                raise InvalidMoveError(f"a place action needs a Move, got {show(move)}")
            tiles = move.tiles
        elif kind == Action.EXCHANGE:
            if move is not None or not tiles:
                raise InvalidMoveError("an exchange action names one or more tiles and no move")
        elif kind == Action.PASS:
            if move is not None or tiles:
                raise InvalidMoveError("a pass has no move and no tiles")
        else:
            raise InvalidMoveError(f"an action is place, exchange or pass, got {show(kind)}")
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "move", move)
        object.__setattr__(self, "tiles", tiles)

    @classmethod
    def place(cls, move: Move | Iterable[Any]) -> Action:
        """A place action for ``move`` (a Move, or placements)."""
        return cls(cls.PLACE, move if isinstance(move, Move) else Move(move))

    @classmethod
    def exchange(cls, tiles: Iterable[Tile]) -> Action:
        """An exchange of ``tiles`` (one or more)."""
        return cls(cls.EXCHANGE, tiles=tiles)

    @classmethod
    def pass_turn(cls) -> Action:
        """A pass."""
        return cls(cls.PASS)

    @classmethod
    def from_text(cls, text: str) -> Action:
        """Read the notation: ``"Rc@0,0 Rs@0,1"`` places, ``"x Rc Yd"`` exchanges, ``"pass"`` passes."""
        if not isinstance(text, str):
            raise InvalidMoveError(f"expected action text, got {show(text)}")
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
        """The action in notation (see :meth:`from_text`)."""
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

    def __reduce__(self) -> tuple[Any, ...]:
        # Immutable with __slots__: rebuild through __init__ (pickle, copy, deepcopy).
        return (Action, (self.kind, self.move, self.tiles))


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


def _group_of(kinds: Iterable[int]) -> int:
    mask = 0
    for k in kinds:
        mask |= 1 << k
    return int(_turn.group_size(mask))


def largest_group(tiles: Iterable[Tile]) -> int:
    """The most tiles that share a colour or a shape, identical tiles counted once."""
    return _group_of(tile_kinds(_iterable(tiles, "tiles"), "tiles"))


def _iterable(value: Any, what: str) -> Iterable[Any]:
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise InvalidTileError(f"{what} is a sequence of Tiles, got {show(value)}")
    return value


def _part(value: Any, limit: int, what: str) -> list[Any]:
    """The items of ``value`` (a sequence, no text) as a list of at most ``limit``
    (a longer iterable is cut there, never walked to its end), else
    InvalidPositionError saying ``what``."""
    items = items_of(value)
    if items is None:
        raise InvalidPositionError(f"{what}, got {show(value)}")
    return list(itertools.islice(items, limit))


def _tie_rank(players: int, tie_break: Sequence[int] | None) -> list[int]:
    """rank[seat] = the seat's place in ``tie_break`` (seat order by default)."""
    if tie_break is None:
        return list(range(players))
    try:
        order = _part(tie_break, players + 1, "tie_break lists the seats in the order that wins a tie")
    except InvalidPositionError as exc:
        raise QwirkleError(str(exc)) from None
    if any(type(s) is not int for s in order) or sorted(order) != list(range(players)):
        raise QwirkleError(f"tie_break must list each seat 0..{players - 1} once, got {show(tie_break)}")
    rank = [0] * players
    for position, seat in enumerate(order):
        rank[seat] = position
    return rank


def _hand_arrays(hands: Sequence[Sequence[Tile]]) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    kinds = np.zeros((MAX_PLAYERS, HAND_SIZE), np.int64)
    sizes = np.zeros(MAX_PLAYERS, np.int64)
    for p, h in enumerate(hands):
        sizes[p] = len(h)
        kinds[p, : len(h)] = [t.kind for t in h]
    return kinds, sizes


def opening_player(hands: Sequence[Sequence[Tile]], tie_break: Sequence[int] | None = None) -> int:
    """The seat that opens: the largest group (identical tiles counted once); on a tie,
    the first of the tied seats in ``tie_break`` (the seats in the order that wins a
    tie, e.g. oldest first), else the lowest seat."""
    if isinstance(hands, (str, bytes)) or not isinstance(hands, Sequence):
        raise InvalidPositionError(f"hands are a sequence of hands, one per seat, got {show(hands)}")
    if not 2 <= len(hands) <= MAX_PLAYERS:
        raise InvalidPositionError(f"a game has 2 to {MAX_PLAYERS} hands, got {len(hands)}")
    hands = [list(map(Tile.from_kind, hand_kinds(h))) for h in hands]
    kinds, sizes = _hand_arrays(hands)
    rank = np.array(_tie_rank(len(hands), tie_break) + [0] * (MAX_PLAYERS - len(hands)), np.int64)
    return int(_turn.choose_opener(kinds, sizes, len(hands), rank)[0])


def distinct_exchanges(hand: Sequence[Tile], bag_size: int) -> list[tuple[Tile, ...]]:
    """Every distinct multiset of 1..bag_size tiles of ``hand``, in the engine's order:
    the copies taken of each distinct kind (ascending) are the digits of a counter
    whose lowest digit is the lowest kind."""
    held = hand_kinds(hand)
    # Every argument typed before the kernel: an int64 bag size (a larger one takes as
    # many tiles as the hand holds).
    size = read_int(bag_size, "bag_size", 0, 2**62)
    kinds = np.array(held + [0] * (HAND_SIZE - len(held)), np.int64)
    table = _turn.exchange_table(kinds, len(held), min(size, HAND_SIZE))
    return [tuple(ALL_TILES[int(k)] for k in row[1 : 1 + row[0]]) for row in table]


def _check_seed(seed: int) -> int:
    """The seed as the number checked: read once (an int subclass may answer int() and
    index() differently each time)."""
    number = int_value(seed)
    try:
        _prng.new_state(seed if number is None else number, 0)
    except (TypeError, ValueError) as exc:
        raise QwirkleError(str(exc)) from None
    assert number is not None  # new_state refuses what int_value does not read
    return number


def _action_row(action: Action) -> npt.NDArray[np.int64]:
    """An action as the kernels' action row (``_layout.A_*``: type, tiles' cells and
    kinds, count; a placement's score where its move carries one, else 0).  The one
    place where an Action becomes a row: ``Game.push``, the simulator's candidates and
    the environments' search opponents all go through it."""
    row = np.zeros(_layout.ACTION_COLS, np.int64)
    if action.kind == Action.PLACE:
        move = action.move
        assert move is not None
        row[_layout.A_TYPE] = _layout.PLACE
        row[_layout.A_SCORE] = move.score or 0
        for s, (r, c, t) in enumerate(move.placements):
            row[_layout.A_ROWS + s] = r
            row[_layout.A_COLS + s] = c
            row[_layout.A_KINDS + s] = t.kind
        row[_layout.A_N] = len(move)
    elif action.kind == Action.EXCHANGE:
        row[_layout.A_TYPE] = _layout.EXCHANGE
        row[_layout.A_N] = len(action.tiles)
        row[_layout.A_KINDS : _layout.A_KINDS + len(action.tiles)] = [t.kind for t in action.tiles]
    else:
        row[_layout.A_TYPE] = _layout.PASS
    return row


def _turn_from_row(row: npt.NDArray[np.int32]) -> Turn:
    """A Turn from a row of the kernels' turn log (``_layout.L_*``)."""
    n = int(row[_layout.L_N])
    kind = int(row[_layout.L_TYPE])
    hand = tuple(ALL_TILES[int(k)] for k in row[_layout.L_HAND : _layout.L_HAND + row[_layout.L_HAND_SIZE]])
    drawn = tuple(ALL_TILES[int(k)] for k in row[_layout.L_DRAWN : _layout.L_DRAWN + row[_layout.L_DRAWN_N]])
    tiles = [ALL_TILES[int(k)] for k in row[_layout.L_KINDS : _layout.L_KINDS + n]]
    score = 0
    if kind == _layout.PLACE:
        score = int(row[_layout.L_SCORE])
        placements = [
            (int(row[_layout.L_ROWS + s]), int(row[_layout.L_COLS + s]), tiles[s]) for s in range(n)
        ]
        action = Action(Action.PLACE, Move._trusted(tuple(sorted(placements, key=lambda p: (p[0], p[1]))), score))
    elif kind == _layout.EXCHANGE:
        action = Action(Action.EXCHANGE, tiles=tiles)
    else:
        action = Action(Action.PASS)
    return Turn(int(row[_layout.L_PLAYER]), hand, action, drawn, score)


# How a game ended (Game.end, and the "end" field of records), by the kernels' END_* codes.
END_NAMES = {_layout.END_OUT: "out", _layout.END_BLOCKED: "blocked", _layout.END_DEAD: "dead"}


# ---------------------------------------------------------------------- game
class Game:
    """A game of 2 to 6 players, dealt from a seeded bag.

    ``tie_break`` lists the seats in the order that wins a tie for the opening (for
    example the oldest player first); by default the lowest seat wins.

    Play with :meth:`push` (an :class:`Action`, a :class:`Move`, or action text) and
    take turns back with :meth:`pop`.  An illegal action raises
    :class:`IllegalMoveError` naming the rule and leaves the game as it was.

    Threads: like :class:`~qwirkle_core.Board`, a Game may be read from several
    threads at once (``legal_moves``, ``legal_actions``, ``to_string``, ``copy``,
    ``determinize``, ...), but not changed (``push``, ``pop``) while another thread
    uses it; give each thread its own ``copy()`` or use a lock.  Scores are at
    most ``MAX_SCORE``: a position string with more is refused, and so is a turn
    that would pass it.

    The state is the numba game loop's arrays (``engine_state``): every turn goes
    through the same kernels as self-play (``settle_turn`` for hands, draws, scores
    and the bag; ``ending`` for the blocked and dead ends), so a Game and the numba
    loop agree by construction; this class checks actions and explains errors.
    A Game pickles, and ``copy.deepcopy`` is :meth:`copy`.
    """

    def __init__(self, players: int = 2, seed: int = 0, tie_break: Sequence[int] | None = None) -> None:
        count = int_value(players)  # an int or a numpy integer (qwirkle_core._ints)
        if count is None or not MIN_PLAYERS <= count <= MAX_PLAYERS:
            raise QwirkleError(f"a game has {MIN_PLAYERS} to {MAX_PLAYERS} players, got {show(players)}")
        players = count
        self._seed: int | None = _check_seed(seed)
        self._tie_rank = _tie_rank(players, tie_break)
        self._board = Board()
        self._rng = _prng.new_state(self._seed, _prng.GAME_STREAM)
        self._meta = np.zeros(_layout.N_META, np.int64)
        self._hands = np.zeros((MAX_PLAYERS, HAND_SIZE), np.int64)
        self._hand_sizes = np.zeros(MAX_PLAYERS, np.int64)
        self._bag = np.zeros(N_TILES, np.int64)
        self._scores = np.zeros(MAX_PLAYERS, np.int64)
        rank = np.array(self._tie_rank + [0] * (MAX_PLAYERS - players), np.int64)
        _turn.deal(self._meta, self._hands, self._hand_sizes, self._bag, self._scores, self._rng, players, rank)
        self._log = np.zeros((0, _layout.LOG_COLS), np.int32)  # one row per turn played
        self._turns_before = 0  # turns played before the log's first (a loaded position's)
        self._undo: list[tuple[npt.NDArray[np.int64], ...]] = []
        self._from_deal = True

    # ------------------------------------------------------------- reading
    @property
    def players(self) -> int:
        """The number of players (2 to 6)."""
        return int(self._meta[_layout.M_PLAYERS])

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
        """The seat whose turn it is."""
        return int(self._meta[_layout.M_PLAYER])

    @property
    def scores(self) -> list[int]:
        """The scores, one per seat."""
        return [int(s) for s in self._scores[: self.players]]

    @property
    def bag_size(self) -> int:
        """How many tiles are left in the bag."""
        return int(self._meta[_layout.M_BAG])

    @property
    def bag(self) -> list[Tile]:
        """The bag in order; the next tile drawn is the last."""
        return [ALL_TILES[int(k)] for k in self._bag[: self.bag_size]]

    def hand(self, player: int | None = None) -> list[Tile]:
        """A seat's hand (default: the player to move), in draw order."""
        seat = self._seat(player)
        return [ALL_TILES[int(k)] for k in self._hands[seat, : self._hand_sizes[seat]]]

    @property
    def hands(self) -> list[list[Tile]]:
        """Every seat's hand (a referee's view: all of them)."""
        return [self.hand(p) for p in range(self.players)]

    @property
    def opening_size(self) -> int:
        """Tiles the opening move must place (the opener's largest group); 0 once played."""
        return int(self._meta[_layout.M_OPENING])

    @property
    def is_over(self) -> bool:
        """Whether the game has ended."""
        return bool(self._meta[_layout.M_OVER])

    @property
    def end(self) -> str | None:
        """How the game ended: ``"out"`` (a player emptied their hand and took the
        bonus), ``"blocked"`` (the bag is empty and no one can place), ``"dead"``
        (tiles are left in the bag, but no tile left anywhere fits the board); None
        while it goes on."""
        return END_NAMES.get(int(self._meta[_layout.M_END]))

    @property
    def went_out(self) -> int | None:
        """The seat that emptied their hand and took the bonus, if any."""
        seat = int(self._meta[_layout.M_WENT_OUT])
        return seat if seat >= 0 else None

    @property
    def turn_count(self) -> int:
        """Turns played since the deal: for a game from ``from_position``, the
        ``turns_played`` it was given and the turns played since (``history`` holds only
        those)."""
        return self._turns_before + int(self._log.shape[0])

    @property
    def history(self) -> list[Turn]:
        """The turns played, oldest first (built from the turn log on each call)."""
        return [_turn_from_row(row) for row in self._log]

    @property
    def last_turn(self) -> Turn:
        """The turn played last."""
        if not self._log.shape[0]:
            raise NothingToUndoError("no turn played yet")
        return _turn_from_row(self._log[-1])

    def turn_log(self) -> npt.NDArray[np.int32]:
        """The turns as the kernels log them (one int32 row per turn; the columns are
        ``_layout.L_*``): a copy."""
        return self._log.copy()

    def winners(self) -> list[int]:
        """The seats with the highest score (more than one on a tie)."""
        scores = self.scores
        top = max(scores)
        return [p for p, s in enumerate(scores) if s == top]

    def _seat(self, player: int | None) -> int:
        if player is None:
            return self.to_move
        seat = int_value(player)
        if seat is None or not 0 <= seat < self.players:
            raise QwirkleError(f"no seat {show(player)} in a game of {self.players}")
        return seat

    def unseen_tiles(self, player: int | None = None) -> list[Tile]:
        """What ``player`` cannot see: the bag and the other hands, in kind order."""
        seat = self._seat(player)
        kinds = [int(k) for k in self._bag[: self.bag_size]]
        for p in range(self.players):
            if p != seat:
                kinds.extend(int(k) for k in self._hands[p, : self._hand_sizes[p]])
        return [ALL_TILES[k] for k in sorted(kinds)]

    # ------------------------------------------------------------- actions
    def legal_moves(self) -> MoveList:
        """The placements the player to move may make (the opening: exactly the
        largest group, in the canonical frame)."""
        if self.is_over:
            return MoveList._trusted(np.zeros((0, 20), np.int32))
        moves = self._board.legal_moves(self.hand())
        opening = self.opening_size
        if opening:
            return MoveList._trusted(moves.table[moves.sizes == opening])
        room = MAX_SCORE - int(self._scores[self.to_move])
        if room < _TURN_POINTS_MAX:
            # Near the score limit: only the placements push accepts (a going-out
            # placement counts its bonus).
            hand_size, bag = int(self._hand_sizes[self.to_move]), self.bag_size
            bonus = np.where((moves.sizes == hand_size) & (bag == 0), GOING_OUT_BONUS, 0)
            moves = MoveList._trusted(moves.table[moves.scores + bonus <= room])
        return moves

    def legal_actions(self) -> list[Action]:
        """Every legal action: the placements (in generator order), then the distinct
        exchanges, then pass where it applies.  Empty once the game is over."""
        if self.is_over:
            return []
        moves = self.legal_moves()
        actions = [Action(Action.PLACE, m) for m in moves]
        if self.opening_size:
            return actions
        if self.bag_size:
            actions.extend(Action(Action.EXCHANGE, tiles=x) for x in distinct_exchanges(self.hand(), self.bag_size))
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
            raise InvalidMoveError(f"expected an Action, a Move or action text, got {show(action)}")
        # More tiles than an action row holds: refused here, in the order the verdict
        # would have refused them (the game's end and the opening first).
        n = len(action.move) if action.move is not None else len(action.tiles)
        if n > HAND_SIZE:
            if self.is_over:
                raise IllegalMoveError("the game is over")
            opening = self.opening_size
            if opening:
                self._refuse(action, _turn.V_OPENING_SIZE if action.move is not None else _turn.V_OPENING_ONLY, opening)
            if action.move is not None:
                raise IllegalMoveError(f"a move places at most {HAND_SIZE} tiles, got {n}")
            raise IllegalMoveError(f"cannot exchange {n} tiles: a hand holds at most {HAND_SIZE}")
        verdict, arg = _turn.turn_verdict(
            self._board.state_arrays()[0], self._meta, self._hands, self._hand_sizes, self._scores,
            _action_row(action), MAX_SCORE, _PASS_TABLE,
        )
        if verdict != _turn.LEGAL:
            self._refuse(action, int(verdict), int(arg))
        return self._apply(action, int(arg))

    def _refuse(self, action: Action, verdict: int, arg: int) -> None:
        """Raise the IllegalMoveError that words ``_turn.turn_verdict``'s verdict."""
        hand = self.hand()
        if verdict == _turn.V_PASS_MOVE and not self._board.has_move(hand):
            # The kernel's search knows no playing area's edge: a placement it found
            # past the coordinate limit is none (the board's query knows the edge).
            return
        if action.kind == Action.PLACE and verdict in (_turn.V_NOT_HELD, _turn.V_PLACEMENT):
            assert action.move is not None
            self._board.score(action.move, hand)  # raises, naming the rule and the cell
        n = len(action.move) if action.move is not None else len(action.tiles)
        words = {
            _turn.V_OVER: "the game is over",
            _turn.V_OPENING_SIZE: f"the opening move places the opener's largest group: {arg} tiles, not {n}",
            _turn.V_OPENING_ONLY: f"the opening player must place their largest group ({arg} tiles)",
            _turn.V_NOT_HELD: f"cannot exchange {ALL_TILES[arg]}: not that many in the hand",
            _turn.V_SCORE_LIMIT: f"the score would pass the limit of {MAX_SCORE:,} points",
            _turn.V_EXCHANGE_BAG: f"cannot exchange {n} tiles: the bag holds only {arg}",
            _turn.V_PASS_BAG: "a pass is only allowed when the bag is empty (exchange instead)",
            _turn.V_PASS_MOVE: "a pass is only allowed when no tile can be placed",
        }
        raise IllegalMoveError(words.get(verdict, f"the rules refuse this turn (verdict {verdict})"))

    def _arrays(self) -> tuple[npt.NDArray[np.int64], ...]:
        return (self._meta, self._hands, self._hand_sizes, self._bag, self._scores, self._rng)

    def _apply(self, action: Action, score: int) -> Action:
        """Play a legal action (push has judged it: a placement's ``score``) through the
        game loop's kernels."""
        self._undo.append(tuple(a.copy() for a in self._arrays()))
        if action.kind == Action.PLACE:
            move = action.move
            assert move is not None
            if move.score != score:
                move = Move._trusted(move.placements, score, None)
            action = Action(Action.PLACE, self._board.push(move, trusted=True))  # judged once, by the verdict
        row = _action_row(action)
        log_row = np.zeros((1, _layout.LOG_COLS), np.int32)
        _turn.settle_turn(
            self._meta, self._hands, self._hand_sizes, self._bag, self._scores, self._rng, row, log_row[0]
        )
        self._log = np.concatenate((self._log, log_row))
        if not self.is_over:
            self._sync_board_meta()
            end = _turn.ending(
                self._board.state_arrays()[0], self._meta, self._hands, self._hand_sizes, self._bag
            )
            if end != _layout.END_NONE:
                self._meta[_layout.M_OVER] = 1
                self._meta[_layout.M_END] = end
        return action

    def _sync_board_meta(self) -> None:
        """Copy the board's tile count into meta, where the loop's kernels read it (the
        board state itself holds the rest)."""
        self._meta[_layout.M_BOARD_TILES] = len(self._board)

    def pop(self) -> Action:
        """Take back the last turn, draws included; returns its action."""
        if not self._undo:
            raise NothingToUndoError("no turn to take back")
        saved = self._undo.pop()
        turn = _turn_from_row(self._log[-1])
        if turn.action.kind == Action.PLACE:
            self._board.pop()
        for array, before in zip(self._arrays(), saved):
            array[:] = before
        self._log = self._log[:-1]
        return turn.action

    def copy(self) -> Game:
        """An independent copy, history and undo included."""
        game = Game.__new__(Game)
        game._seed = self._seed
        game._tie_rank = list(self._tie_rank)
        game._board = self._board.copy()
        game._rng = self._rng.copy()
        game._meta = self._meta.copy()
        game._hands = self._hands.copy()
        game._hand_sizes = self._hand_sizes.copy()
        game._bag = self._bag.copy()
        game._scores = self._scores.copy()
        game._log = self._log  # never written in place: push and pop make new arrays
        game._turns_before = self._turns_before
        game._undo = list(self._undo)  # the saved arrays are never written either
        game._from_deal = self._from_deal
        return game

    def __copy__(self) -> Game:
        return self.copy()

    def __deepcopy__(self, memo: dict[int, Any]) -> Game:
        return self.copy()

    # ------------------------------------------------- hidden information
    def determinize(self, player: int | None = None, seed: int = 0) -> Game:
        """A copy where what ``player`` cannot see (the bag, the other hands) is dealt
        anew from a generator seeded with ``seed``; every hand keeps its size.  The
        copy's own generator is that one, so its future draws differ too.  Before the
        opening, the opener keeps the turn and opens with its new hand's largest group."""
        seat = self._seat(player)
        rng = _prng.new_state(_check_seed(seed), _prng.GAME_STREAM)
        game = self.copy()
        _turn.redeal_unseen(game._meta, game._hands, game._hand_sizes, game._bag, seat, rng)
        game._rng = rng
        # The past no longer leads to this state: it can be played on, not popped (its
        # turns still count, as turn_count and the game loops' turn cap read them).
        game._turns_before = self.turn_count
        game._log = np.zeros((0, _layout.LOG_COLS), np.int32)
        game._undo = []
        game._from_deal = False
        game._board = self._board.copy(stack=False)
        return game

    def engine_state(
        self, copy_state: bool = True
    ) -> tuple[
        npt.NDArray[np.int64],
        npt.NDArray[np.int64],
        npt.NDArray[np.int64],
        npt.NDArray[np.int64],
        npt.NDArray[np.int64],
        npt.NDArray[np.int64],
        npt.NDArray[np.int64],
    ]:
        """The position as the numba game loop's arrays: (board state, meta, hands,
        hand_sizes, bag, scores, game_rng), copies except the board state unless
        ``copy_state`` (read it only); see ``_turn``, ``_layout`` and ``_state``."""
        st = self._board.state_arrays()[0]
        if copy_state:
            st = st.copy()
        self._sync_board_meta()
        meta = self._meta.copy()
        meta[_layout.M_TURNS] = self.turn_count
        return (
            st, meta, self._hands.copy(), self._hand_sizes.copy(), self._bag.copy(),
            self._scores.copy(), self._rng.copy(),
        )

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
        hands = "/".join("".join(t.text() for t in h) or "-" for h in self.hands)
        bag = "".join(t.text() for t in self.bag) or "-"
        scores = ",".join(str(s) for s in self.scores)
        if self.opening_size:
            state = f"o{self.opening_size}"
        elif not self.is_over:
            state = "p"
        else:
            went_out = self.went_out
            state = "e" + (str(went_out) if went_out is not None else "")
        return f"{board}|{hands}|{bag}|{scores}|{self.to_move}|{state}|{_prng.state_text(self._rng)}"

    @classmethod
    def from_string(cls, text: str) -> Game:
        """The game of a :meth:`to_string` position.  Raises InvalidPositionError for
        one that breaks the game's invariants (tiles not conserved, a hand over 6, an
        opening state whose opener does not hold that group, a game said to be over
        that is not, ...).  A position set up for study may hold hands of fewer than six
        tiles while the bag holds some, and any seat may be the one to open."""
        if not isinstance(text, str):
            raise InvalidPositionError(f"expected a position string, got {show(text)}")
        fields = text.strip().split("|")
        if len(fields) != 7:
            raise InvalidPositionError(f"a position has 7 fields separated by '|', got {len(fields)}")
        board_text, hands_text, bag_text, scores_text, player_text, state, rng_text = (f.strip() for f in fields)
        try:
            board = Board() if board_text == "-" else Board(board_text)
            hands = [_tiles_run(h) for h in hands_text.split("/")]
            bag = _tiles_run(bag_text)
            scores = [_number(s, "a score") for s in scores_text.split(",")]
            player = _number(player_text, "the seat to move")
            if not _HEX_STATE.fullmatch(rng_text):
                raise InvalidPositionError(f"the generator is 32 hex digits, got {show(rng_text)}")
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
        turns_played: int = 0,
    ) -> Game:
        """A game from its parts: the board, every hand (seat 0 first), the bag (the
        next draw last), the scores (default 0) and the seat to move; on an empty board
        the game is before its opening.  ``seed`` seeds the generator that mixes
        exchanged tiles into the bag; ``turns_played`` is the game's ``turn_count`` (the
        turns played to reach the position: the search bots seed each move from it).
        Raises InvalidPositionError for a position that breaks the game's invariants
        (tiles not conserved, a hand over 6, ...; as :meth:`from_string`)."""
        if not isinstance(board, Board):
            raise InvalidPositionError(f"expected a Board, got {show(board)}")
        seats = _part(hands, MAX_PLAYERS + 1, "hands: expected a sequence")
        hands_list = [_part(h, HAND_SIZE + 1, "a hand is a sequence of Tiles") for h in seats]
        if len(hands_list) > MAX_PLAYERS:
            raise InvalidPositionError(f"a game has {MIN_PLAYERS} to {MAX_PLAYERS} players, got more")
        # Checked, and tile texts ("Rc") read as their tiles.
        hands_list = [[ALL_TILES[k] for k in tile_kinds(h, "a hand")] for h in hands_list]
        bag_list = [ALL_TILES[k] for k in tile_kinds(_part(bag, N_TILES + 1, "the bag: expected a sequence"), "the bag")]
        scores_list = (
            [0] * len(hands_list) if scores is None else _part(scores, MAX_PLAYERS + 1, "scores are a sequence of integers")
        )
        read_scores = [int_value(s) for s in scores_list]
        if any(s is None for s in read_scores):
            raise InvalidPositionError(f"scores are integers, got {show(scores_list)}")
        scores_list = [int(s) for s in read_scores if s is not None]
        seat = int_value(to_move)
        if seat is None:
            raise InvalidPositionError(f"to_move is a seat number, got {show(to_move)}")
        to_move = seat
        if type(turns_played) is not int or not 0 <= turns_played <= _batch.MAX_TURNS:
            raise InvalidPositionError(f"turns_played is a count of turns, 0 to {_batch.MAX_TURNS:,}, got {show(turns_played)}")
        rng = _prng.new_state(_check_seed(seed), _prng.GAME_STREAM)
        opening = 0
        if board.is_empty() and 0 <= to_move < len(hands_list):
            opening = largest_group(hands_list[to_move])
        state = f"o{opening}" if opening else "p"
        game = cls._checked(board.copy(stack=False), hands_list, bag_list, scores_list, to_move, state, rng)
        game._turns_before = turns_played
        return game

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
        if len(scores) != players or any(not 0 <= s <= MAX_SCORE for s in scores):
            raise InvalidPositionError(f"one score, 0 to {MAX_SCORE:,}, for each hand")
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
        if state.startswith("o") and _NUMBER.fullmatch(state[1:]):
            opening = int(state[1:])
            if not board.is_empty() or opening != largest_group(hands[player]) or opening == 0:
                raise InvalidPositionError("before the opening the board is empty and the opener places their largest group")
        elif state == "p":
            if board.is_empty():
                raise InvalidPositionError("a game in play has tiles on the board (else its state is o<n>)")
        elif state == "e" or (state.startswith("e") and _NUMBER.fullmatch(state[1:])):
            over = True
            if state != "e":
                went_out = int(state[1:])
                if not 0 <= went_out < players or hands[went_out] or bag:
                    raise InvalidPositionError(f"seat {went_out} cannot have gone out: their hand or the bag holds tiles")
        else:
            raise InvalidPositionError(f"the state field is o<n>, p, e or e<seat>, got {show(state)}")
        if not over and any(not h for h in hands):
            raise InvalidPositionError("a game in play has no empty hand")
        game = cls.__new__(cls)
        game._seed = None
        game._tie_rank = list(range(players))
        game._board = board
        game._rng = rng
        game._hands, game._hand_sizes = _hand_arrays(hands)
        game._bag = np.zeros(N_TILES, np.int64)
        game._bag[: len(bag)] = [t.kind for t in bag]
        game._scores = np.zeros(MAX_PLAYERS, np.int64)
        game._scores[:players] = scores
        meta = np.zeros(_layout.N_META, np.int64)
        meta[_layout.M_BAG] = len(bag)
        meta[_layout.M_PLAYER] = player
        meta[_layout.M_PLAYERS] = players
        meta[_layout.M_OPENING] = opening
        meta[_layout.M_OVER] = int(over)
        meta[_layout.M_WENT_OUT] = went_out
        if over:
            # The state string says who went out; otherwise the bag tells the end apart:
            # with an empty bag a game without a move is blocked, with tiles left, dead.
            meta[_layout.M_END] = (
                _layout.END_OUT if went_out >= 0 else _layout.END_BLOCKED if not bag else _layout.END_DEAD
            )
        game._meta = meta
        game._log = np.zeros((0, _layout.LOG_COLS), np.int32)
        game._turns_before = 0
        game._undo = []
        game._from_deal = False
        game._sync_board_meta()
        if over and went_out < 0:
            # "e": blocked or dead, which the rules' own test (_turn.ending) must agree with.
            st = game._board.state_arrays()[0]
            if _turn.ending(st, game._meta, game._hands, game._hand_sizes, game._bag) == _layout.END_NONE:
                raise InvalidPositionError("the state says the game is over (e), but a tile can still be placed")
        return game

    def __eq__(self, other: object) -> bool:
        """Same position: board, hands, bag, scores, player to move, state, generator."""
        if not isinstance(other, Game):
            return NotImplemented
        return self.to_string() == other.to_string()

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        return f"Game.from_string({self.to_string()!r})"

    def __str__(self) -> str:
        """The board drawn as text, then the scores, the bag and the player to move
        (with their hand); other hands are shown by their size only.

        >>> print(Game(players=2, seed=1))
        (empty board)
        scores: 0 0   bag: 96
        seat 0 to move, opens with 2 tiles; hand: Gc Pb Rb Pl Ys Rx; seat 1: 6 tiles
        """
        from .render import board_text

        player = self.to_move
        if self.is_over:
            winners = self.winners()
            status = f"game over ({self.end}), winner{'s' if len(winners) > 1 else ''}: "
            status += " ".join(f"seat {w}" for w in winners)
        else:
            opening = f", opens with {self.opening_size} tiles" if self.opening_size else ""
            hand = " ".join(t.text() for t in self.hand(player)) or "-"
            status = f"seat {player} to move{opening}; hand: {hand}"
            others = [f"seat {p}: {len(h)} tiles" for p, h in enumerate(self.hands) if p != player]
            status += "; " + ", ".join(others)
        scores = " ".join(str(s) for s in self.scores)
        return f"{board_text(self.board)}\nscores: {scores}   bag: {self.bag_size}\n{status}"

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
        raise InvalidTileError(f"tiles are two letters each, got {show(text)}")
    return [Tile.from_text(text[i : i + 2]) for i in range(0, len(text), 2)]
