"""The array layouts that kernels share are defined once (``_layout``, ``_constants``);
where a layout keeps a name of its own for the same slots, the slots agree."""

from __future__ import annotations

import numpy as np

from qwirkle_core import _constants, _layout, _movegen, tiles


def test_an_action_row_is_a_move_row_then_its_type() -> None:
    assert (_layout.A_N, _layout.A_SCORE, _layout.A_ROWS, _layout.A_COLS, _layout.A_KINDS) == (
        _layout.COL_N, _layout.COL_SCORE, _layout.COL_ROWS, _layout.COL_COLS, _layout.COL_KINDS,
    )
    assert _layout.A_TYPE == _layout.OUT_COLS and _layout.ACTION_COLS == _layout.OUT_COLS + 1
    assert {_layout.PLACE, _layout.EXCHANGE, _layout.PASS} == {0, 1, 2}


def test_a_move_row_has_a_count_a_score_and_six_slots_of_each_part() -> None:
    h = _constants.HAND_SIZE
    assert (_layout.COL_N, _layout.COL_SCORE) == (0, 1)
    assert _layout.COL_COLS == _layout.COL_ROWS + h and _layout.COL_KINDS == _layout.COL_COLS + h
    assert _layout.OUT_COLS == _layout.COL_KINDS + h


def test_the_generator_writes_the_move_rows_of_the_layout() -> None:
    """A move the generator wrote, read slot by slot through the layout's names: two
    tiles east of the red circle at (0, 0), placed at (0, 1) and (0, 2), score 3."""
    from qwirkle_core import Board, Tile

    board = Board.from_placements([(0, 0, Tile.from_text("Rc"))])
    hand = [Tile.from_text("Rs"), Tile.from_text("Rd")]
    rows = [
        row for row in board.legal_moves(hand).table
        if row[_layout.COL_N] == 2 and {int(row[_layout.COL_ROWS + i]) for i in range(2)} == {0}
        and {int(row[_layout.COL_COLS + i]) for i in range(2)} == {1, 2}
    ]
    assert len(rows) == 2  # square at 1 and diamond at 2, or the other way round
    for row in rows:
        assert row[_layout.COL_SCORE] == 3
        kinds = {int(row[_layout.COL_KINDS + i]) for i in range(2)}
        assert kinds == {Tile.from_text("Rs").kind, Tile.from_text("Rd").kind}
        assert all(row[_layout.COL_KINDS + i] == -1 for i in range(2, _constants.HAND_SIZE))
    assert _movegen.generate is not None  # the generator is the module that writes them


def test_a_log_row_holds_a_hand_a_placement_and_the_draws_without_overlap() -> None:
    h = _constants.HAND_SIZE
    spans = sorted(
        [(getattr(_layout, n), 1) for n in ("L_PLAYER", "L_TYPE", "L_N", "L_SCORE", "L_HAND_SIZE", "L_DRAWN_N")]
        + [(getattr(_layout, n), h) for n in ("L_HAND", "L_ROWS", "L_COLS", "L_KINDS", "L_DRAWN")]
    )
    at = 0
    for start, width in spans:
        assert start == at, (start, at)
        at = start + width
    assert at == _layout.LOG_COLS


def test_the_meta_slots_are_distinct_and_fit() -> None:
    slots = [getattr(_layout, n) for n in dir(_layout) if n.startswith("M_")]
    assert len(set(slots)) == len(slots) and max(slots) < _layout.N_META


def test_the_game_numbers_have_one_home() -> None:
    assert tiles.N_KINDS is _constants.N_KINDS == 36 and tiles.N_TILES is _constants.N_TILES == 108
    assert tiles.COPIES_PER_KIND is _constants.COPIES_PER_KIND
    assert _constants.MAX_SPAN == _constants.N_TILES
    assert _constants.ALL_KINDS == (1 << _constants.N_KINDS) - 1
    assert _constants.WORD_LOW_63 == np.iinfo(np.int64).max
    for k in range(_constants.N_KINDS):
        same = [j for j in range(_constants.N_KINDS) if j // 6 == k // 6 or j % 6 == k % 6]
        assert int(_constants.NEIGHBOURS[k]) == sum(1 << j for j in same)
