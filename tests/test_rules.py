"""One test per rule of docs/rules.md, through the public API, with its worked figures."""

from __future__ import annotations

import pytest

from qwirkle_core import Board, IllegalMoveError, InvalidPositionError, Move, Tile, parse_tiles


def T(text: str) -> Tile:
    return Tile.from_text(text)


def place(text: str) -> list[tuple[int, int, Tile]]:
    return list(Move.from_text(text).placements)


# --- the worked figures of the Basque text --------------------------------------
def test_opening_of_three_yellow_tiles_scores_3() -> None:
    assert Board().score(place("Yc@0,0 Ys@0,1 Yd@0,2")) == 3


def test_three_stars_one_extending_a_yellow_line_to_four_score_7() -> None:
    board = Board("Yc@0,0 Ys@1,0 Yd@2,0")
    assert board.score(place("Yx@3,0 Rx@3,1 Bx@3,2")) == 3 + 4


def test_two_purple_tiles_each_starting_a_line_of_two_score_6() -> None:
    board = Board("Rx@0,0 Rs@0,1")
    assert board.score(place("Px@1,0 Ps@1,1")) == 2 + 2 + 2


def test_two_purple_tiles_around_board_tiles_score_6() -> None:
    board = Board("Rc@-1,0 Rs@-1,1 Ps@0,1 Pd@0,2")
    assert board.score(place("Pc@0,0 Pl@0,3")) == 4 + 2


def test_three_diamonds_closing_a_qwirkle_score_17() -> None:
    board = Board("Yc@0,0 Ys@1,0 Yl@2,0 Yx@3,0 Yb@4,0 Gb@4,1")
    assert board.score(place("Yd@5,0 Gd@5,1 Bd@5,2")) == 3 + 2 + 12


def test_one_tile_completing_two_qwirkles_scores_24() -> None:
    board = Board("Rc@0,0 Rs@0,1 Rd@0,2 Rl@0,3 Rx@0,4 Ox@1,4 Ob@1,5 Yb@2,5 Gb@3,5 Bb@4,5 Pb@5,5")
    assert board.score(place("Rb@0,5")) == 24
    moves = board.legal_moves(parse_tiles("Rb"))
    assert [(m.text(), m.score) for m in moves if m.placements[0][:2] == (0, 5)] == [("Rb@0,5", 24)]


# --- lines ----------------------------------------------------------------------
def test_a_line_of_six_accepts_nothing() -> None:
    board = Board("Rc@0,0 Rs@0,1 Rd@0,2 Rl@0,3 Rx@0,4 Rb@0,5")
    coords, masks = board.legal_tile_masks()
    ends = {(int(r), int(c)): int(m) for (r, c), m in zip(coords, masks)}
    assert ends[(0, -1)] == 0 and ends[(0, 6)] == 0
    every_tile = [Tile(c, s) for c in range(6) for s in range(6) if c != 0][:6]
    for move in board.legal_moves(every_tile):
        assert all(c not in (-1, 6) or r != 0 for r, c, _ in move.placements)
    with pytest.raises(IllegalMoveError, match="invalid line"):
        board.score(place("Rc@0,6"))


def test_colour_line_needs_distinct_shapes_and_shape_line_distinct_colours() -> None:
    board = Board("Rc@0,0 Rs@0,1")
    assert board.score(place("Rd@0,2")) == 3
    with pytest.raises(IllegalMoveError, match="invalid line"):
        board.score(place("Rc@0,2"))  # duplicate in a colour line
    with pytest.raises(IllegalMoveError, match="invalid line"):
        board.score(place("Bd@0,2"))  # neither colour nor shape shared
    shapes = Board("Rc@0,0 Bc@0,1")
    assert shapes.score(place("Yc@0,2")) == 3
    with pytest.raises(IllegalMoveError, match="invalid line"):
        shapes.score(place("Rc@0,2"))


def test_a_cell_can_be_unplayable_for_every_tile() -> None:
    blocked = Board("Rc@0,0 Bc@1,0 Bs@1,1 Gs@2,1 Rs@3,1")
    coords, masks = blocked.legal_tile_masks()
    got = {(int(r), int(c)): int(m) for (r, c), m in zip(coords, masks)}
    # (0,1) joins the row after Rc (red or circle) and the column of squares Bs Gs Rs:
    # only a red square would do both, and Rs is already in the column.
    assert got[(0, 1)] == 0
    assert not any(r == 0 and c == 1 for m in blocked.legal_moves(parse_tiles("Rs Os Ys Ps Rd Oc"))
                   for r, c, _ in m.placements)


# --- a turn ---------------------------------------------------------------------
def test_placed_tiles_must_share_one_line() -> None:
    board = Board("Rc@0,0")
    with pytest.raises(IllegalMoveError, match="not in one line"):
        board.score(place("Rs@0,1 Rd@1,2"))


def test_placed_tiles_may_sit_apart_with_board_tiles_between() -> None:
    board = Board("Rs@0,1 Rd@0,2")
    assert board.score(place("Rc@0,0 Rl@0,3")) == 4


def test_a_gap_in_the_line_is_illegal() -> None:
    board = Board("Rc@0,0")
    with pytest.raises(IllegalMoveError, match="gap"):
        board.score(place("Rs@0,1 Rd@0,3"))
    with pytest.raises(IllegalMoveError, match="gap"):
        Board().score(place("Rs@5,1 Rd@5,3"))


def test_placed_tiles_must_touch_the_board() -> None:
    board = Board("Rc@0,0")
    with pytest.raises(IllegalMoveError, match="touch"):
        board.score(place("Rs@2,2"))
    with pytest.raises(IllegalMoveError, match="touch"):
        board.score(place("Rs@900000,2"))


def test_a_taken_cell_is_illegal() -> None:
    with pytest.raises(IllegalMoveError, match="taken"):
        Board("Rc@0,0").score(place("Rs@0,0"))


def test_two_tiles_on_one_cell_is_illegal() -> None:
    with pytest.raises(IllegalMoveError, match="one cell"):
        Board("Rc@0,0").score([(0, 1, T("Rs")), (0, 1, T("Rd"))])


def test_a_tile_not_in_the_hand_is_illegal() -> None:
    board = Board("Rc@0,0")
    assert board.score(place("Rs@0,1"), hand=parse_tiles("Rs Bc")) == 2
    with pytest.raises(IllegalMoveError, match="not in the hand"):
        board.score(place("Rs@0,1"), hand=parse_tiles("Rd Bc"))
    with pytest.raises(IllegalMoveError, match="not in the hand"):
        board.score(place("Rs@0,1 Rd@0,2"), hand=parse_tiles("Rs"))


def test_only_three_copies_of_a_tile_exist() -> None:
    board = Board("Rc@0,0 Bc@0,1 Rs@1,0 Bs@1,1")
    with pytest.raises(InvalidPositionError, match="copies"):
        Board("Rc@0,0 Rs@0,1 Rc@1,1 Rd@1,0 Rc@2,0 Rx@3,0 Rc@3,1")
    with pytest.raises(InvalidPositionError, match="copies"):
        Board("Rc@0,0 Rs@0,1 Bs@1,1 Bc@1,2 Rc@2,2").legal_moves(parse_tiles("Rc Rc"))
    assert board.is_legal(place("Yc@0,2"))


def test_the_first_move_may_be_any_straight_valid_line_anywhere() -> None:
    assert Board().score(place("Rc@-40,7")) == 1
    assert Board().score(place("Rc@100,7 Bc@101,7")) == 2
    full = "Rc@3,-1 Rs@3,0 Rd@3,1 Rl@3,2 Rx@3,3 Rb@3,4"
    assert Board().score(place(full)) == 12
    with pytest.raises(IllegalMoveError, match="invalid line"):
        Board().score(place("Rc@0,0 Bs@0,1"))
    with pytest.raises(IllegalMoveError, match="not in one line"):
        Board().score(place("Rc@0,0 Rs@1,1"))


def test_a_single_tile_scores_every_line_it_joins() -> None:
    board = Board("Rs@0,1 Rd@0,2 Bs@1,1 Bc@1,0 Yc@2,0")
    # Rc at (0,0): row Rc Rs Rd (3) + column Rc Bc Yc (3)
    assert board.score(place("Rc@0,0")) == 6


# --- move generation conventions -------------------------------------------------
def test_empty_board_openings_in_the_canonical_frame() -> None:
    moves = Board().legal_moves(parse_tiles("Rc Rs Rd"))
    assert len(moves) == 3 + 6 + 6
    for move in moves:
        assert [(r, c) for r, c, _ in move.placements] == [(0, c) for c in range(len(move))]
    assert sorted(moves.scores.tolist()) == [1] * 3 + [2] * 6 + [3] * 6


def test_duplicates_in_the_hand_do_not_multiply_moves() -> None:
    board = Board("Rc@0,0 Rs@0,1")
    one = {m: m.score for m in board.legal_moves(parse_tiles("Rd Bs"))}
    two = {m: m.score for m in board.legal_moves(parse_tiles("Rd Rd Bs Bs Rd"))}
    assert one == two and len(board.legal_moves(parse_tiles("Rd Rd Bs Bs Rd"))) == len(one)
    assert len(Board().legal_moves(parse_tiles("Rc Rc Rc"))) == 1


def test_a_one_tile_move_is_found_once() -> None:
    moves = Board("Rc@0,0").legal_moves(parse_tiles("Rs"))
    assert sorted(m.text() for m in moves) == ["Rs@-1,0", "Rs@0,-1", "Rs@0,1", "Rs@1,0"]


def test_an_empty_hand_has_no_moves() -> None:
    assert len(Board("Rc@0,0").legal_moves([])) == 0
    assert not Board().legal_moves([])


def test_invalid_boards_are_rejected_with_the_reason() -> None:
    with pytest.raises(InvalidPositionError, match="invalid line"):
        Board("Rc@0,0 Bs@0,1")
    with pytest.raises(InvalidPositionError, match="not connected"):
        Board("Rc@0,0 Rs@0,2")
    with pytest.raises(InvalidPositionError, match="not connected"):
        Board("Rc@0,0 Rs@0,500")
    with pytest.raises(InvalidPositionError, match="one cell"):
        Board.from_placements([(0, 0, T("Rc")), (0, 0, T("Rs"))])
    with pytest.raises(InvalidPositionError, match="invalid line"):
        Board("Rc@0,0 Rs@0,1 Rd@0,2 Rl@0,3 Rx@0,4 Rb@0,5 Rc@0,6")
