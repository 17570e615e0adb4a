"""A slow, obviously correct twin of the endgame solver: plain minimax, no pruning, no
table, over the stdlib reference's move generation and scoring (tests/naive.py).  It
reads nothing from ``qwirkle_core``.

The rules with the bag empty (docs/rules.md, "End of the game"): the player to move
places any legal move and scores it; a player who empties their hand ends the game and
scores 6 more; a player who cannot place passes; when neither can place the game ends
at once with no bonus.
"""

from __future__ import annotations

from collections.abc import Sequence

from tests.naive import Board, Tile, naive_legal_moves

GOING_OUT_BONUS = 6


def _without(hand: Sequence[Tile], tiles: Sequence[Tile]) -> list[Tile]:
    rest = list(hand)
    for t in tiles:
        rest.remove(t)
    return rest


def _moves(board: Board, hand: Sequence[Tile], limit: int | None) -> dict[frozenset[tuple[int, int, int, int]], int]:
    """The legal moves, and with ``limit`` only those whose every tile lies in the
    playing area (|row|, |col| <= limit: a tile beyond it is not legal)."""
    moves = naive_legal_moves(board, hand)
    if limit is None:
        return moves
    return {m: v for m, v in moves.items() if all(abs(r) <= limit and abs(c) <= limit for r, c, _, _ in m)}


def naive_endgame_value(
    board: Board, hands: tuple[Sequence[Tile], Sequence[Tile]], to_move: int, limit: int | None = None
) -> int:
    """The points ``to_move`` scores from here on minus the other player's, under best
    play by both (every line of play tried to its end); ``limit``: the playing area's
    edge (|row|, |col| <= limit), None for a board far from it."""
    other = 1 - to_move
    moves = _moves(board, hands[to_move], limit)
    if not moves:
        if not _moves(board, hands[other], limit):
            return 0  # neither can place: the game ends, no bonus
        return -naive_endgame_value(board, hands, other, limit)  # a pass
    best: int | None = None
    for move, score in moves.items():
        placed = [(color, shape) for _, _, color, shape in move]
        rest = _without(hands[to_move], placed)
        if not rest:
            value = score + GOING_OUT_BONUS
        else:
            child = dict(board)
            for row, col, color, shape in move:
                child[(row, col)] = (color, shape)
            child_hands = (rest, hands[1]) if to_move == 0 else (hands[0], rest)
            value = score - naive_endgame_value(child, child_hands, other, limit)
        if best is None or value > best:
            best = value
    assert best is not None
    return best


def naive_endgame_values(board: Board, hands: tuple[Sequence[Tile], Sequence[Tile]], to_move: int) -> dict[frozenset[tuple[int, int, int, int]], int]:
    """Every move of the player to move with its exact value (as naive_endgame_value
    counts it): the solver's best action must be one of the best of these."""
    other = 1 - to_move
    out = {}
    for move, score in naive_legal_moves(board, hands[to_move]).items():
        placed = [(color, shape) for _, _, color, shape in move]
        rest = _without(hands[to_move], placed)
        if not rest:
            out[move] = score + GOING_OUT_BONUS
            continue
        child = dict(board)
        for row, col, color, shape in move:
            child[(row, col)] = (color, shape)
        child_hands = (rest, hands[1]) if to_move == 0 else (hands[0], rest)
        out[move] = score - naive_endgame_value(child, child_hands, other)
    return out
