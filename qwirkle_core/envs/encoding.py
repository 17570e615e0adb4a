"""One action encoding for learning agents: a turn as sub-steps in one fixed space.

A turn is played as a sequence of *sub-steps*, each an integer in one fixed
``Discrete(action_count(width))`` space, so an action id means the same thing in
every state.  With ``W = width`` (32 by default) and ``A = 36 * W * W``:

====================  =================================  ==================================
id                    sub-step                           meaning
====================  =================================  ==================================
``k*W*W + i*W + j``   ``PLACE(kind k, cell (i, j))``     put a tile of kind k on window
                                                         cell (i, j)
``A + k``             ``MARK(kind k)``                   put a tile of kind k aside for an
                                                         exchange
``A + 36``            ``END``                            commit the placements, or the
                                                         exchange of the marked tiles
``A + 37``            ``PASS``                           pass (only when the rules allow)
====================  =================================  ==================================

So ``36 * W * W + 38`` ids: 36,902 for W = 32.  Kind ``k`` is ``color * 6 + shape``
(``Tile.kind``).  Window cell (i, j) is the board cell ``(top + i, left + j)``, where the
window is fixed at the start of each turn and centred as
:func:`qwirkle_core.queries.position_planes` centres it: its cell ``(W // 2, W // 2)``
is the middle cell of the tiles' bounding box (rounded down), or (0, 0) on the empty
board.  The PLACE block reshaped to ``(36, W, W)`` therefore lines up with planes
``PLANE_LEGAL + k`` of ``position_planes(board, W)``.

*Each legal turn is exactly one sequence of sub-steps*: the placements of a move come
in (row, col) order and then END; an exchange marks its tiles in non-decreasing kind
order and then END; a pass is the single sub-step PASS.  :func:`legal_substeps` gives the
legal next sub-steps after a partial turn (one kernel call: the game loop's move table
and exchange table, filtered for the turns that continue the partial one), so a policy
only ever chooses among legal sub-steps, and every complete sequence is one of
``Game.legal_actions()``.

*Moves outside the window.*  A legal move with a tile outside the window cannot be
encoded.  It is never dropped silently: :func:`legal_substeps` reports how many moves
of the turn lie outside (``SubstepMask.outside``), the environments put that count in
``info["moves_outside_window"]``, and when a turn has no legal sub-step left because
of the window (every placement outside, no exchange or pass allowed), the
environments end that game as *truncated* (``truncated=True``), never by a rule the
game does not have.  With W = 32 that has not been seen (a prototype saw no move
outside over 32,618 positions; W = 24 lost 0.56 % of moves); the tests count it.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from .._ints import int_value, read_int
from ..errors import IllegalMoveError, QwirkleError, show
from ..game import Action, Game
from ..moves import Move
from ..tiles import ALL_TILES, N_KINDS
from . import _kernels

__all__ = [
    "DEFAULT_WINDOW",
    "SubstepMask",
    "action_count",
    "action_from_substeps",
    "describe",
    "end_id",
    "legal_substeps",
    "mark_id",
    "pass_id",
    "place_id",
    "turn_substeps",
    "window",
]

DEFAULT_WINDOW = 32
# The widest window: 36 * 1024**2 actions (a mask of 36 MiB per env).  A wider one is
# refused at once, not allocated.
MAX_WINDOW = 1024


def _width(width: int) -> int:
    return read_int(width, "the window width", 1, MAX_WINDOW)


def _game(game: Game) -> Game:
    if not isinstance(game, Game):
        raise QwirkleError(f"expected a Game, got {show(game)}")
    return game


def action_count(width: int = DEFAULT_WINDOW) -> int:
    """The size of the action space: ``36 * width**2 + 38``."""
    return N_KINDS * _width(width) ** 2 + N_KINDS + 2


def place_id(kind: int, i: int, j: int, width: int = DEFAULT_WINDOW) -> int:
    """The id of PLACE(kind, window cell (i, j))."""
    width = _width(width)
    kind = read_int(kind, "kind", 0, N_KINDS - 1)
    i = read_int(i, "i", 0, width - 1)
    j = read_int(j, "j", 0, width - 1)
    return (kind * width + i) * width + j


def mark_id(kind: int, width: int = DEFAULT_WINDOW) -> int:
    """The id of MARK(kind): put a tile of that kind aside for an exchange."""
    width = _width(width)
    return N_KINDS * width * width + read_int(kind, "kind", 0, N_KINDS - 1)


def end_id(width: int = DEFAULT_WINDOW) -> int:
    """The id of END: commit the placements, or the exchange of the marked tiles."""
    width = _width(width)
    return N_KINDS * width * width + N_KINDS


def pass_id(width: int = DEFAULT_WINDOW) -> int:
    """The id of PASS (legal only when the rules allow a pass)."""
    width = _width(width)
    return N_KINDS * width * width + N_KINDS + 1


def describe(action: int, width: int = DEFAULT_WINDOW) -> tuple[str, int, int, int]:
    """``("place", kind, i, j)``, ``("mark", kind, -1, -1)``, ``("end", -1, -1, -1)`` or
    ``("pass", -1, -1, -1)`` for an action id."""
    width = _width(width)
    area = width**2
    a = int_value(action)
    if a is None or not 0 <= a < action_count(width):
        raise QwirkleError(f"no action {show(action)} among the {action_count(width)} (an integer 0..{action_count(width) - 1})")
    if a < N_KINDS * area:
        return "place", a // area, (a % area) // width, a % width
    if a < N_KINDS * area + N_KINDS:
        return "mark", a - N_KINDS * area, -1, -1
    return ("end", -1, -1, -1) if a == end_id(width) else ("pass", -1, -1, -1)


def window(game: Game, width: int = DEFAULT_WINDOW) -> tuple[int, int]:
    """Board coordinates (top, left) of window cell (0, 0) for the turn to play."""
    width = _width(width)
    st, meta, *_ = _game(game).engine_state(copy_state=False)
    top, left = _kernels.window_of(st, meta, width)
    return int(top), int(left)


@dataclass(frozen=True)
class SubstepMask:
    """The legal next sub-steps (``mask``: bool[action_count(width)]), how many legal
    moves of the turn lie outside the window (``outside``), and the score of the
    placement the partial turn already is (``end_score``, -1 if it is none)."""

    mask: npt.NDArray[np.bool_]
    outside: int
    end_score: int

    def actions(self) -> list[int]:
        """The legal next sub-steps, as action ids in increasing order."""
        return [int(a) for a in np.flatnonzero(self.mask)]


def _substeps(substeps: Sequence[int]) -> list[int]:
    """A turn's sub-steps as a list (of at most 13: six placements or marks, END);
    a longer or endless iterable is refused after that many, not walked."""
    if isinstance(substeps, (str, bytes)) or not isinstance(substeps, Iterable):
        raise QwirkleError(f"sub-steps are a sequence of action ids, got {show(substeps)}")
    steps = list(itertools.islice(substeps, 14))
    if len(steps) > 13:
        raise IllegalMoveError("a turn is at most 6 placements or marks and END")
    return steps


def _partial(substeps: Sequence[int], width: int) -> tuple[npt.NDArray[np.int64], int, int]:
    partial = np.full(12, -1, np.int64)
    placed = marked = 0
    for a in _substeps(substeps):
        what, kind, _, _ = describe(a, width)
        if what == "place" and not marked and placed < 6:
            partial[placed] = int(a)
            placed += 1
        elif what == "mark" and not placed and marked < 6:
            partial[6 + marked] = kind
            marked += 1
        else:
            raise IllegalMoveError(f"a partial turn is placements or marks (at most 6), not {what} here")
    return partial, placed, marked


def legal_substeps(game: Game, partial: Sequence[int] = (), width: int = DEFAULT_WINDOW) -> SubstepMask:
    """The legal next sub-steps of the player to move after the sub-steps ``partial``
    of the turn (PLACE ids, or MARK ids; empty at the start of a turn).  One kernel
    call.  A partial turn that no legal turn continues gives an empty mask."""
    width = _width(width)
    st, meta, hands, hand_sizes, *_ = _game(game).engine_state(copy_state=False)
    part, placed, marked = _partial(partial, width)
    mask = np.zeros(action_count(width), np.bool_)
    seat = game.to_move
    _, outside, end_score = _kernels.turn_mask(
        st, meta, hands[seat], hand_sizes[seat], width, part, placed, marked, mask
    )
    return SubstepMask(mask, int(outside), int(end_score))


def turn_substeps(game: Game, action: Action, width: int = DEFAULT_WINDOW) -> list[int]:
    """The sub-steps that play ``action`` (a legal action of the player to move).
    Raises IllegalMoveError for a placement with a tile outside the window."""
    width = _width(width)
    _game(game)
    if not isinstance(action, Action):
        raise QwirkleError(f"expected an Action, got {show(action)}")
    if action.kind == Action.PASS:
        return [pass_id(width)]
    if action.kind == Action.EXCHANGE:
        return [mark_id(t.kind, width) for t in sorted(action.tiles)] + [end_id(width)]
    assert action.move is not None
    top, left = window(game, width)
    steps = []
    for r, c, t in sorted(action.move.placements, key=lambda p: (p[0], p[1])):
        i, j = r - top, c - left
        if not (0 <= i < width and 0 <= j < width):
            raise IllegalMoveError(f"the placement at ({r}, {c}) lies outside the {width} x {width} window")
        steps.append(place_id(t.kind, i, j, width))
    return steps + [end_id(width)]


def action_from_substeps(game: Game, substeps: Sequence[int], width: int = DEFAULT_WINDOW) -> Action:
    """The action of a complete sub-step sequence (ending with END, or PASS alone);
    not checked against the rules (``game.push`` checks)."""
    width = _width(width)
    _game(game)
    substeps = _substeps(substeps)
    if substeps == [pass_id(width)]:
        return Action.pass_turn()
    if not substeps or substeps[-1] != end_id(width):
        raise IllegalMoveError("a complete turn ends with END (or is PASS alone)")
    _, placed, marked = _partial(substeps[:-1], width)
    if marked:
        return Action.exchange([ALL_TILES[describe(a, width)[1]] for a in substeps[:-1]])
    if not placed:
        raise IllegalMoveError("END needs placements or marks before it")
    top, left = window(game, width)
    placements = []
    for a in substeps[:-1]:
        _, kind, i, j = describe(a, width)
        placements.append((top + i, left + j, ALL_TILES[kind]))
    return Action.place(Move(placements))
