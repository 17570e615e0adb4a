"""Sanity tests of the reference implementation in tests/naive.py."""

from __future__ import annotations

import copy
import functools
import itertools
import os
import random
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import naive
from naive import (
    NaiveIllegal,
    kind,
    mirror,
    naive_board_problem,
    naive_legal_moves,
    naive_masks,
    naive_play_random_game,
    naive_score,
    rotate90,
    translate,
)

# These tests run tests/naive.py alone (no qwirkle_core, no kernel): the same in every
# run of .ci/test.sh, so only the JIT-on run runs them.
pytestmark = pytest.mark.reference

# colours
RED, ORANGE, YELLOW, GREEN, BLUE, PURPLE = range(6)
# shapes
CIRCLE, SQUARE, DIAMOND, CLOVER, STAR4, STAR8 = range(6)


def row(r, c0, tiles):
    """Board fragment: ``tiles`` placed eastward from (r, c0)."""
    return {(r, c0 + i): t for i, t in enumerate(tiles)}


def col(c, r0, tiles):
    """Board fragment: ``tiles`` placed southward from (r0, c)."""
    return {(r0 + i, c): t for i, t in enumerate(tiles)}


def moves_of(board, hand):
    return naive_legal_moves(board, hand)


# ------------------------------------------------------------ helpers


def test_kind_and_transforms():
    assert kind(0, 0) == 0
    assert kind(5, 5) == 35
    assert kind(ORANGE, DIAMOND) == 8
    b = {(0, 0): (1, 2), (0, 1): (1, 3), (2, -1): (4, 4)}
    assert translate(b, 1_000_000, -3) == {
        (1_000_000, -3): (1, 2),
        (1_000_000, -2): (1, 3),
        (1_000_002, -4): (4, 4),
    }
    assert rotate90(b) == {(0, 0): (1, 2), (1, 0): (1, 3), (-1, -2): (4, 4)}
    assert mirror(b) == {(0, 0): (1, 2), (0, -1): (1, 3), (2, 1): (4, 4)}
    assert rotate90(rotate90(rotate90(rotate90(b)))) == b


# --------------------------------------------------------- worked figures (docs/rules.md)


def test_figure_opening_three_yellow():
    assert (
        naive_score(
            {},
            [(0, 0, YELLOW, CIRCLE), (0, 1, YELLOW, SQUARE), (0, 2, YELLOW, DIAMOND)],
        )
        == 3
    )


def yellow_and_stars_board():
    b = row(0, 0, [(YELLOW, CIRCLE), (YELLOW, SQUARE), (YELLOW, DIAMOND)])
    return b


def test_figure_three_stars_extend_yellow():
    b = yellow_and_stars_board()
    pl = [(0, 3, YELLOW, STAR4), (1, 3, RED, STAR4), (2, 3, ORANGE, STAR4)]
    assert naive_score(b, pl) == 3 + 4
    assert (
        moves_of(b, [(YELLOW, STAR4), (RED, STAR4), (ORANGE, STAR4)])[frozenset(pl)]
        == 7
    )


def test_figure_two_purple_side_by_side():
    b = col(0, 0, [(ORANGE, STAR4), (ORANGE, SQUARE)])
    pl = [(0, 1, PURPLE, STAR4), (1, 1, PURPLE, SQUARE)]
    assert naive_score(b, pl) == 2 + 2 + 2
    assert moves_of(b, [(PURPLE, STAR4), (PURPLE, SQUARE)])[frozenset(pl)] == 6


def purple_gap_board():
    b = {}
    b[(0, 1)] = (PURPLE, SQUARE)
    b[(0, 3)] = (PURPLE, CLOVER)
    b.update(
        col(1, 1, [(RED, SQUARE), (ORANGE, SQUARE)])
    )  # column 1 below the purple square
    b[(1, 0)] = (RED, CIRCLE)  # row 1: red circle, red square
    b[(2, 2)] = (ORANGE, DIAMOND)  # row 2: orange square, diamond, clover
    b[(2, 3)] = (ORANGE, CLOVER)
    b[(1, 3)] = (GREEN, CLOVER)  # column 3: purple, green, orange clover
    assert naive_board_problem(b) is None
    return b


def test_figure_two_purple_around_a_board_tile():
    b = purple_gap_board()
    pl = [(0, 0, PURPLE, CIRCLE), (0, 2, PURPLE, DIAMOND)]
    # purple line (0,0)..(0,3) of four, circles (0,0),(1,0) of two
    assert naive_score(b, pl) == 4 + 2
    assert moves_of(b, [(PURPLE, CIRCLE), (PURPLE, DIAMOND)])[frozenset(pl)] == 6


def three_diamonds_board():
    b = row(
        0,
        0,
        [
            (YELLOW, CIRCLE),
            (YELLOW, SQUARE),
            (YELLOW, CLOVER),
            (YELLOW, STAR4),
            (YELLOW, STAR8),
        ],
    )
    b[(1, 4)] = (GREEN, STAR8)
    assert naive_board_problem(b) is None
    return b


def test_figure_three_diamonds_17():
    b = three_diamonds_board()
    pl = [(0, 5, YELLOW, DIAMOND), (1, 5, GREEN, DIAMOND), (2, 5, RED, DIAMOND)]
    assert naive_score(b, pl) == 3 + 2 + 12
    assert (
        moves_of(b, [(YELLOW, DIAMOND), (GREEN, DIAMOND), (RED, DIAMOND)])[
            frozenset(pl)
        ]
        == 17
    )


def double_qwirkle_board():
    b = row(
        0,
        -5,
        [
            (ORANGE, CIRCLE),
            (ORANGE, DIAMOND),
            (ORANGE, CLOVER),
            (ORANGE, STAR4),
            (ORANGE, STAR8),
        ],
    )
    b.update(
        col(
            0,
            -5,
            [
                (RED, SQUARE),
                (YELLOW, SQUARE),
                (GREEN, SQUARE),
                (BLUE, SQUARE),
                (PURPLE, SQUARE),
            ],
        )
    )
    return b


def test_double_qwirkle_24():
    b = double_qwirkle_board()
    pl = [(0, 0, ORANGE, SQUARE)]
    assert naive_score(b, pl) == 24
    moves = moves_of(b, [(ORANGE, SQUARE)])
    assert moves[frozenset(pl)] == 24
    assert max(moves.values()) == 24
    assert (
        moves[frozenset({(-6, 0, ORANGE, SQUARE)})] == 12
    )  # closes only the square line
    assert naive_masks(b)[(0, 0)] == 1 << kind(ORANGE, SQUARE)


def test_single_qwirkle_12_and_plain_extension():
    b = row(0, 0, [(BLUE, s) for s in range(5)])
    assert naive_score(b, [(0, 5, BLUE, STAR8)]) == 12
    assert naive_score(b, [(0, -1, BLUE, STAR8)]) == 12
    assert naive_score(b, [(1, 0, RED, CIRCLE)]) == 2
    # a tile in two lines counts in both
    b2 = {(0, 0): (RED, CIRCLE), (1, 1): (RED, SQUARE)}
    assert naive_score(b2, [(0, 1, RED, DIAMOND)]) == 2 + 2


def test_single_tile_opening_scores_1():
    assert naive_score({}, [(0, 0, RED, CIRCLE)]) == 1
    assert naive_score({}, [(-7, 1_000_000, BLUE, STAR8)]) == 1
    assert moves_of({}, [(RED, CIRCLE)]) == {frozenset({(0, 0, RED, CIRCLE)}): 1}


def test_opening_six_is_qwirkle():
    pl = [(0, c, GREEN, c) for c in range(6)]
    assert naive_score({}, pl) == 12
    assert moves_of({}, [(GREEN, s) for s in range(6)])[frozenset(pl)] == 12


# ------------------------------------------------------------ rule checks in naive_score


def test_illegal_empty_placement():
    with pytest.raises(NaiveIllegal, match="empty"):
        naive_score({}, [])


def test_illegal_two_tiles_one_cell():
    with pytest.raises(NaiveIllegal, match="one cell"):
        naive_score({}, [(0, 0, RED, CIRCLE), (0, 0, RED, SQUARE)])


def test_illegal_cell_taken():
    b = {(0, 0): (RED, CIRCLE)}
    with pytest.raises(NaiveIllegal, match="taken"):
        naive_score(b, [(0, 0, RED, SQUARE)])


def test_illegal_not_in_one_line():
    with pytest.raises(NaiveIllegal, match="one row or column"):
        naive_score({}, [(0, 0, RED, CIRCLE), (1, 1, RED, SQUARE)])
    b = {(0, 0): (RED, CIRCLE), (0, 1): (RED, SQUARE)}
    with pytest.raises(NaiveIllegal, match="one row or column"):
        naive_score(b, [(1, 0, RED, DIAMOND), (0, 2, RED, CLOVER)])


def test_illegal_gap():
    with pytest.raises(NaiveIllegal, match="gap"):
        naive_score({}, [(0, 0, RED, CIRCLE), (0, 2, RED, SQUARE)])
    b = {(0, 0): (RED, CIRCLE)}
    with pytest.raises(NaiveIllegal, match="gap"):
        naive_score(b, [(0, 1, RED, SQUARE), (0, 3, RED, DIAMOND)])
    with pytest.raises(NaiveIllegal, match="gap"):
        naive_score(b, [(1, 0, RED, SQUARE), (3, 0, RED, DIAMOND)])
    # a board tile filling the space is fine: place on both ends of a line
    assert naive_score(b, [(0, -1, RED, SQUARE), (0, 1, RED, DIAMOND)]) == 3


def test_illegal_not_touching():
    b = {(0, 0): (RED, CIRCLE)}
    with pytest.raises(NaiveIllegal, match="touch"):
        naive_score(b, [(0, 2, RED, SQUARE)])
    with pytest.raises(NaiveIllegal, match="touch"):
        naive_score(
            b, [(1, 1, RED, SQUARE), (1, 2, RED, DIAMOND)]
        )  # diagonal is not touching
    # only one placed tile needs to touch: the others join through the placed line
    assert (
        naive_score(b, [(0, 1, RED, SQUARE), (0, 2, RED, DIAMOND), (0, 3, RED, CLOVER)])
        == 4
    )


def test_illegal_invalid_lines():
    b = {(0, 0): (RED, CIRCLE)}
    with pytest.raises(NaiveIllegal, match="invalid line"):
        naive_score(b, [(0, 1, BLUE, SQUARE)])  # neither colour nor shape shared
    with pytest.raises(NaiveIllegal, match="invalid line"):
        naive_score(b, [(0, 1, RED, CIRCLE)])  # identical tile
    with pytest.raises(NaiveIllegal, match="invalid line"):
        naive_score(
            {}, [(0, 0, RED, CIRCLE), (0, 1, RED, SQUARE), (0, 2, BLUE, SQUARE)]
        )  # mixed
    with pytest.raises(NaiveIllegal, match="invalid line"):
        naive_score(
            {}, [(0, 0, RED, CIRCLE), (0, 1, BLUE, CIRCLE), (0, 2, RED, CIRCLE)]
        )  # repeat
    # perpendicular line broken by one placed tile
    b2 = {(0, 0): (RED, CIRCLE), (1, 0): (RED, SQUARE)}
    with pytest.raises(NaiveIllegal, match="invalid line"):
        naive_score(b2, [(0, 1, BLUE, CIRCLE), (1, 1, BLUE, DIAMOND)])
    # line of seven
    b3 = row(0, 0, [(GREEN, s) for s in range(6)])
    with pytest.raises(NaiveIllegal, match="invalid line"):
        naive_score(b3, [(0, 6, GREEN, CIRCLE)])
    # merging two lines into an invalid one
    b4 = {
        (0, 0): (RED, CIRCLE),
        (0, 2): (BLUE, CIRCLE),
        (1, 0): (RED, SQUARE),
        (1, 1): (RED, DIAMOND),
        (1, 2): (RED, CLOVER),
    }
    with pytest.raises(NaiveIllegal, match="invalid line"):
        naive_score(
            b4, [(0, 1, RED, STAR4)]
        )  # row 0 red circle, red star4, blue circle


def test_empty_board_accepts_any_straight_line():
    assert naive_score({}, [(5, 7, RED, CIRCLE), (5, 8, RED, SQUARE)]) == 2
    assert (
        naive_score(
            {}, [(9, -3, RED, CIRCLE), (7, -3, RED, SQUARE), (8, -3, RED, CLOVER)]
        )
        == 3
    )
    with pytest.raises(NaiveIllegal):
        naive_score({}, [(0, 0, RED, CIRCLE), (0, 1, RED, SQUARE), (0, 3, RED, CLOVER)])


def test_placement_order_irrelevant():
    b = three_diamonds_board()
    pl = [(0, 5, YELLOW, DIAMOND), (1, 5, GREEN, DIAMOND), (2, 5, RED, DIAMOND)]
    for perm in itertools.permutations(pl):
        assert naive_score(b, list(perm)) == 17


# ------------------------------------------------------------ move generation


def test_line_of_six_accepts_nothing():
    b = row(0, 0, [(BLUE, s) for s in range(6)])
    masks = naive_masks(b)
    assert masks[(0, -1)] == 0
    assert masks[(0, 6)] == 0
    assert masks[(1, 0)] == sum(
        1 << kind(c, CIRCLE) for c in range(6) if c != BLUE
    ) | sum(1 << kind(BLUE, s) for s in range(6) if s != CIRCLE)
    hand = [
        (BLUE, CIRCLE),
        (RED, CIRCLE),
        (GREEN, SQUARE),
        (BLUE, STAR8),
        (YELLOW, STAR8),
        (PURPLE, DIAMOND),
    ]
    moves = moves_of(b, hand)
    assert moves
    for mv in moves:
        for r, c, _, _ in mv:
            assert (r, c) not in ((0, -1), (0, 6))


def test_empty_board_canonical_frame():
    hand = [(RED, CIRCLE), (RED, SQUARE), (RED, DIAMOND)]
    moves = moves_of({}, hand)
    assert len(moves) == 3 + 6 + 6
    for mv, score in moves.items():
        cells = sorted((r, c) for r, c, _, _ in mv)
        assert cells == [(0, c) for c in range(len(mv))]
        assert score == (1 if len(mv) == 1 else len(mv))
    assert naive_masks({}) == {(0, 0): (1 << 36) - 1}


def test_empty_board_mixed_hand():
    hand = [(RED, CIRCLE), (BLUE, CIRCLE), (BLUE, SQUARE), (GREEN, STAR4)]
    moves = moves_of({}, hand)
    singles = [m for m in moves if len(m) == 1]
    pairs = [m for m in moves if len(m) == 2]
    assert len(singles) == 4
    # red circle/blue circle and blue circle/blue square, each in two orders
    assert len(pairs) == 4
    assert len(moves) == 8


def test_duplicates_do_not_multiply_moves():
    hand_dup = [(RED, CIRCLE), (RED, CIRCLE), (RED, SQUARE)]
    hand_set = [(RED, CIRCLE), (RED, SQUARE)]
    assert moves_of({}, hand_dup) == moves_of({}, hand_set)
    assert len(moves_of({}, hand_dup)) == 2 + 2
    b = purple_gap_board()
    hand = [
        (PURPLE, CIRCLE),
        (PURPLE, CIRCLE),
        (PURPLE, DIAMOND),
        (PURPLE, DIAMOND),
        (RED, CIRCLE),
        (RED, CIRCLE),
    ]
    assert moves_of(b, hand) == moves_of(
        b, [(PURPLE, CIRCLE), (PURPLE, DIAMOND), (RED, CIRCLE)]
    )


def test_one_tile_move_counted_once():
    b = {(0, 0): (RED, CIRCLE)}
    moves = moves_of(b, [(RED, SQUARE)])
    assert moves == {
        frozenset({(-1, 0, RED, SQUARE)}): 2,
        frozenset({(1, 0, RED, SQUARE)}): 2,
        frozenset({(0, -1, RED, SQUARE)}): 2,
        frozenset({(0, 1, RED, SQUARE)}): 2,
    }


def test_small_board_all_moves():
    b = {(0, 0): (RED, CIRCLE)}
    moves = moves_of(b, [(RED, SQUARE), (RED, DIAMOND)])
    # singles: 2 tiles x 4 cells, 2 points each
    singles = {m: s for m, s in moves.items() if len(m) == 1}
    assert len(singles) == 8 and set(singles.values()) == {2}
    # pairs extending the tile's line: both on one side (2 sides x 2 orders x 2 axes) or one on
    # each side (2 orders x 2 axes): 3 points
    pairs3 = {m for m, s in moves.items() if len(m) == 2 and s == 3}
    assert len(pairs3) == 8 + 4
    # pairs across a neighbour cell (4 cells x partner on 2 sides x 2 orders): 2 + 2 points
    pairs4 = {m for m, s in moves.items() if len(m) == 2 and s == 4}
    assert len(pairs4) == 16
    assert len(moves) == 8 + 12 + 16
    assert frozenset({(0, -1, RED, SQUARE), (0, 1, RED, DIAMOND)}) in pairs3
    assert frozenset({(2, 0, RED, SQUARE), (1, 0, RED, DIAMOND)}) in pairs3


def test_far_coordinates():
    b = translate(three_diamonds_board(), 1_000_000, -1_000_000)
    pl = [
        (1_000_000, -999_995, YELLOW, DIAMOND),
        (1_000_001, -999_995, GREEN, DIAMOND),
        (1_000_002, -999_995, RED, DIAMOND),
    ]
    assert naive_score(b, pl) == 17
    assert (
        moves_of(b, [(YELLOW, DIAMOND), (GREEN, DIAMOND), (RED, DIAMOND)])[
            frozenset(pl)
        ]
        == 17
    )


def test_no_hand_no_moves():
    assert moves_of({}, []) == {}
    assert moves_of(three_diamonds_board(), []) == {}


# ------------------------------------------------------------ board problems


def test_board_problem():
    assert naive_board_problem({}) is None
    assert naive_board_problem(purple_gap_board()) is None
    assert "line" in naive_board_problem(
        {(0, 0): (RED, CIRCLE), (0, 1): (BLUE, SQUARE)}
    )
    assert "connected" in naive_board_problem(
        {(0, 0): (RED, CIRCLE), (0, 2): (RED, SQUARE)}
    )
    # four red circles (the count is checked whatever else is wrong)
    b = {(0, 2 * i): (RED, CIRCLE) for i in range(4)}
    assert "appears 4 times" in naive_board_problem(b)
    assert "out of range" in naive_board_problem({(0, 0): (6, 0)})


# ------------------------------------------------------------ cross-checks


def one_tile_moves_as_masks(board):
    out = {}
    for co in range(6):
        for sh in range(6):
            for mv in naive_legal_moves(board, [(co, sh)]):
                ((r, c, _, _),) = tuple(mv)
                out[(r, c)] = out.get((r, c), 0) | 1 << kind(co, sh)
    return out


def game_positions(seed, max_turns):
    return naive_play_random_game(random.Random(seed), max_turns=max_turns)


def test_random_game_sane():
    positions = naive_play_random_game(random.Random(7))
    assert positions[0][0] == {}
    prev = -1
    for board, hand in positions:
        assert naive_board_problem(board) is None
        assert len(hand) <= 6
        assert len(board) >= prev
        prev = len(board)
    assert len(positions[-1][0]) > 60
    # deterministic
    assert naive_play_random_game(random.Random(7), max_turns=10) == positions[:10]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_generated_moves_agree_with_score_and_masks(seed):
    positions = game_positions(seed, 40)
    for board, hand in positions[::6]:
        moves = naive_legal_moves(board, hand)
        for mv, score in moves.items():
            assert naive_score(board, list(mv)) == score
        masks = naive_masks(board)
        one = one_tile_moves_as_masks(board)
        if board:
            assert {c: m for c, m in masks.items() if m} == one
        # every single-tile move of the hand shows up in the masks
        for mv in moves:
            if len(mv) == 1:
                ((r, c, co, sh),) = tuple(mv)
                if board:
                    assert masks[(r, c)] >> kind(co, sh) & 1


def test_exhaustive_pairs_match_naive_score():
    """Every legal 1- and 2-tile placement (found by naive_score) is generated, and nothing else."""
    board, _ = game_positions(11, 6)[-1]
    assert 6 <= len(board) <= 20
    hand = [
        (RED, CIRCLE),
        (RED, SQUARE),
        (BLUE, CIRCLE),
        (BLUE, SQUARE),
        (GREEN, DIAMOND),
        (YELLOW, STAR8),
    ]
    gen = {m: s for m, s in naive_legal_moves(board, hand).items() if len(m) <= 2}
    tiles = sorted(set(hand))
    frontier = sorted(
        {
            (r + dr, c + dc)
            for r, c in board
            for dr, dc in ((0, 1), (1, 0), (0, -1), (-1, 0))
        }
        - set(board)
    )
    found = {}

    def attempt(pl):
        try:
            found[frozenset(pl)] = naive_score(board, pl)
        except NaiveIllegal:
            pass

    for cell in frontier:
        for t in tiles:
            attempt([(*cell, *t)])
        # second cell on the same row/column, up to 5 away (a line is at most 6 long)
        for dr, dc in ((0, 1), (1, 0), (0, -1), (-1, 0)):
            for dist in range(1, 6):
                other = (cell[0] + dr * dist, cell[1] + dc * dist)
                if other in board:
                    continue
                for t1 in tiles:
                    for t2 in tiles:
                        if t1 != t2:
                            attempt([(*cell, *t1), (*other, *t2)])
    assert found == gen
    assert any(len(m) == 2 for m in gen)


@pytest.mark.parametrize("transform", ["rot", "rot2", "rot3", "mirror", "translate"])
def test_moves_invariant_under_symmetry(transform):
    board, hand = game_positions(5, 12)[-1]
    assert board
    fns = {
        "rot": (rotate90, lambda r, c: (c, -r)),
        "rot2": (lambda b: rotate90(rotate90(b)), lambda r, c: (-r, -c)),
        "rot3": (lambda b: rotate90(rotate90(rotate90(b))), lambda r, c: (-c, r)),
        "mirror": (mirror, lambda r, c: (r, -c)),
        "translate": (
            lambda b: translate(b, -1_000_000, 123_456),
            lambda r, c: (r - 1_000_000, c + 123_456),
        ),
    }
    tb, fn = fns[transform]
    base = naive_legal_moves(board, hand)
    moved = naive_legal_moves(tb(board), hand)
    assert {naive.transform_move(m, fn): s for m, s in base.items()} == moved
    masks = naive_masks(board)
    assert {fn(*cell): m for cell, m in masks.items()} == naive_masks(tb(board))


# ------------------------------------------------------------ the game referee

from naive import (
    NaiveGame,
    NaiveRng,
    RefereeError,
    naive_cell_masks,
    naive_deal,
    naive_largest_group,
    naive_selfplay_record,
    referee_replay,
    referee_turns,
)


def test_xoshiro128starstar_known_answers():
    # The reference implementation's outputs from the state {1, 2, 3, 4} (the test
    # vector of the Rust crate rand_xoshiro, made with Vigna's xoshiro128starstar.c).
    rng = NaiveRng.from_state([1, 2, 3, 4])
    assert [rng.next_u32() for _ in range(10)] == [
        11520, 0, 5927040, 70819200, 2031721883, 1637235492, 1287239034, 3734860849, 3729100597, 4258142804,
    ]


def test_rng_seeding_and_below():
    a, b = NaiveRng(7), NaiveRng(7)
    assert a.state == b.state and all(0 <= w < 2**32 for w in a.state)
    assert NaiveRng(7, 1).state != a.state and NaiveRng(8).state != a.state
    assert NaiveRng(2**64 - 1).state != NaiveRng(2**32 - 1).state  # the high word counts
    with pytest.raises(ValueError):
        NaiveRng(2**64)
    with pytest.raises(ValueError):
        NaiveRng(-1)
    draws = [a.below(6) for _ in range(600)]
    assert set(draws) == set(range(6)) and a.below(1) == 0


def test_deal_conserves_the_tiles():
    bag, hands, _ = naive_deal(123, 4)
    assert len(bag) == 108 - 24 and all(len(h) == 6 for h in hands)
    tiles = bag + [t for h in hands for t in h]
    assert sorted(tiles) == sorted((co, sh) for co in range(6) for sh in range(6) for _ in range(3))
    assert naive_deal(123, 4)[:2] == (bag, hands)
    assert naive_deal(124, 4)[0] != bag


def test_largest_group_counts_identical_tiles_once():
    assert naive_largest_group([]) == 0
    assert naive_largest_group([(RED, CIRCLE), (RED, CIRCLE), (RED, SQUARE)]) == 2
    assert naive_largest_group([(RED, STAR4), (BLUE, STAR4), (GREEN, STAR4), (GREEN, STAR8)]) == 3
    assert naive_largest_group([(c, c) for c in range(6)]) == 1


def test_cell_masks_equal_naive_masks():
    positions = game_positions(7, None)  # the same game as test_random_game_sane, to the end
    for board, _ in positions[::4] + positions[-3:]:
        assert naive_cell_masks(board) == naive_masks(board)
        assert naive.naive_fit_mask(board) == functools.reduce(int.__or__, naive_masks(board).values(), 0)


_RECORDS: dict[tuple, dict] = {}


def good_record(kind_="finished"):
    """A few naive games, played once per session (each takes a second or so)."""
    if kind_ not in _RECORDS:
        if kind_ == "finished":
            record = naive_selfplay_record(4, 2)
        elif kind_ == "exchanges":  # random moves and many exchanges, 3 players
            record = naive_selfplay_record(5, 3, rng=random.Random(5), exchange_rate=0.4, max_turns=45)
        else:
            record = naive_selfplay_record(6, 2, max_turns=12)
        _RECORDS[kind_] = record
    return copy.deepcopy(_RECORDS[kind_])


def expect(record, rule, turn="any"):
    with pytest.raises(RefereeError) as info:
        referee_replay(record)
    assert info.value.rule == rule, str(info.value)
    if turn != "any":
        assert info.value.turn == turn, str(info.value)
    return info.value


def test_a_good_record_passes():
    record = good_record()
    res = referee_replay(record)
    assert res.end == "out" and record["end"] == "out"
    assert res.scores == record["scores"] and res.turns == len(record["turns"])
    assert res.went_out == record["turns"][-1]["player"] and not res.bag
    assert res.actions == {"place": len(record["turns"])}
    # The +6 is in the final scores, not in the last turn's score.
    placed = [sum(t["score"] for t in record["turns"] if t["player"] == p) for p in range(2)]
    assert [s - b for s, b in zip(res.scores, placed)] == [6 if p == res.went_out else 0 for p in range(2)]
    del record["end"]  # an old record, before the end field: fine
    assert referee_replay(record).end == "out"


def test_a_record_with_exchanges_and_an_unfinished_game_passes():
    record = good_record("exchanges")
    res = referee_replay(record)
    assert res.end is None and record["end"] is None and res.actions["exchange"] >= 5
    short = good_record("short")
    assert referee_replay(short).end is None
    short["turns"] = []
    short["scores"] = [0, 0]
    assert referee_replay(short).turns == 0


def test_tampered_score_fails():
    record = good_record()
    record["turns"][7]["score"] += 1
    expect(record, "score", 7)


def test_tampered_hand_fails():
    record = good_record()
    hand = record["turns"][9]["hand"]
    hand[0], hand[-1] = hand[-1], hand[0]  # the same tiles out of draw order
    if hand[0] == hand[-1]:
        hand[0] = [(hand[0][0] + 1) % 6, hand[0][1]]
    expect(record, "hand", 9)


def test_tampered_draw_fails():
    record = good_record()
    turn = next(i for i, t in enumerate(record["turns"]) if len(t["drawn"]) >= 2)
    drawn = record["turns"][turn]["drawn"]
    drawn[0] = [(drawn[0][0] + 1) % 6, drawn[0][1]]
    expect(record, "draw", turn)


def test_tampered_placement_fails():
    record = good_record()
    turn = record["turns"][12]
    turn["placements"][0][0] += 40  # far from the board
    expect(record, "placement", 12)
    record = good_record()
    record["turns"][12]["placements"] = [record["turns"][12]["placements"][0] * 2]
    expect(record, "format", 12)
    record = good_record()
    first = record["turns"][12]["placements"][0]
    record["turns"][12]["placements"] = [[500, -500, first[2], first[3]]]  # alone, far away
    assert "touch" in str(expect(record, "placement", 12))
    record = good_record()
    record["turns"][12]["placements"].append(list(record["turns"][3]["placements"][0]))  # a taken cell
    expect(record, "placement", 12)


def test_tampered_exchange_fails():
    record = good_record("exchanges")
    i = next(i for i, t in enumerate(record["turns"]) if t["action"] == "exchange")
    # giving back other tiles than the ones named: the next hand of that seat differs
    bad = copy.deepcopy(record)
    tile = bad["turns"][i]["tiles"][0]
    others = [t for t in bad["turns"][i]["hand"] if t not in bad["turns"][i]["tiles"]]
    if others:
        bad["turns"][i]["tiles"][0] = others[0]
        err = expect(bad, "hand")
        assert err.turn > i
    # a tile that is not in the hand
    bad = copy.deepcopy(record)
    bad["turns"][i]["tiles"][0] = next([c, s] for c in range(6) for s in range(6) if [c, s] not in bad["turns"][i]["hand"])
    expect(bad, "exchange", i)
    # no tile at all
    bad = copy.deepcopy(record)
    bad["turns"][i]["tiles"] = []
    expect(bad, "exchange", i)
    assert tile


@pytest.mark.parametrize("mix", ["descending", "not mixed", "swap below(size)"])
def test_a_wrong_mix_of_exchanged_tiles_fails(mix, monkeypatch):
    """Records of games that mix exchanged tiles some other way are caught at a later draw."""

    def wrong(self, tiles):
        if mix == "descending":
            order = sorted(tiles, reverse=True)
        else:
            order = sorted(tiles)
        for t in order:
            if mix == "not mixed":
                self.bag.insert(0, t)
                continue
            self.bag.append(t)
            j = self.rng.below(len(self.bag) - (1 if mix == "swap below(size)" else 0))
            self.bag[-1], self.bag[j] = self.bag[j], self.bag[-1]

    with monkeypatch.context() as m:
        m.setattr(NaiveGame, "mix_in", wrong)
        record = naive_selfplay_record(5, 3, rng=random.Random(5), exchange_rate=0.4, max_turns=45)
    err = expect(record, "draw")
    first = next(i for i, t in enumerate(record["turns"]) if t["action"] == "exchange")
    assert err.turn > first


def test_wrong_player_or_opening_fails():
    record = good_record()
    opener = record["turns"][0]["player"]
    bad = copy.deepcopy(record)
    bad["turns"][1]["player"] = opener
    expect(bad, "player to move", 1)
    # the other seat does not have a group as large, so it cannot open
    _, hands, _ = naive_deal(record["seed"], 2)
    if naive_largest_group(hands[1 - opener]) < naive_largest_group(hands[opener]):
        bad = copy.deepcopy(record)
        bad["turns"][0]["player"] = 1 - opener
        expect(bad, "player to move", 0)
    bad = copy.deepcopy(record)
    bad["turns"][0]["placements"].pop()
    expect(bad, "opening", 0)
    bad = copy.deepcopy(record)
    bad["turns"][0] = {"player": opener, "hand": record["turns"][0]["hand"], "action": "exchange",
                       "tiles": record["turns"][0]["hand"][:1], "drawn": []}
    expect(bad, "opening", 0)


def test_early_or_late_end_fails():
    record = good_record()
    late = copy.deepcopy(record)
    late["turns"].append(dict(late["turns"][-2]))
    expect(late, "game over", len(record["turns"]))
    early = copy.deepcopy(record)
    early["turns"].pop()
    expect(early, "end")  # the record says "out", the game goes on
    early["end"] = None
    expect(early, "final scores")
    wrong = copy.deepcopy(record)
    wrong["end"] = "blocked"
    expect(wrong, "end")
    wrong["end"] = None
    expect(wrong, "end")
    wrong["end"] = "over"
    expect(wrong, "format")
    unfinished = good_record("short")
    unfinished["end"] = "out"
    expect(unfinished, "end")


def test_wrong_bonus_fails():
    record = good_record()
    out = record["turns"][-1]["player"]
    no_bonus = copy.deepcopy(record)
    no_bonus["scores"][out] -= 6
    expect(no_bonus, "final scores")
    other = copy.deepcopy(record)
    other["scores"][out] -= 6
    other["scores"][1 - out] += 6
    expect(other, "final scores")


def test_bad_records_fail():
    expect({"format": "qwirkle-record/2"}, "format")
    record = good_record("short")
    for key, value in (("players", 7), ("players", True), ("seed", -1), ("seed", 2**64), ("turns", None)):
        bad = copy.deepcopy(record)
        bad[key] = value
        expect(bad, "format")
    bad = copy.deepcopy(record)
    bad["turns"][3]["action"] = "resign"
    expect(bad, "format", 3)
    bad = copy.deepcopy(record)
    bad["turns"][3]["hand"][0] = [6, 0]
    expect(bad, "format", 3)


# The dead and blocked ends, on a made-up position: all 18 orange tiles fill a 3 x 6
# block (rows are Qwirkles, columns three shapes of orange), so once it is complete no
# tile fits beside it.
ORANGE_BLOCK = {(r, c): (ORANGE, (c + r) % 6) for r in range(3) for c in range(6)}
OTHERS = [(co, sh) for co in (RED, YELLOW, GREEN) for sh in range(6)]


def block_game(missing_holder, bag, hands_extra):
    """The block without its corner (0, 0), Oc; ``missing_holder`` holds that tile."""
    board = dict(ORANGE_BLOCK)
    del board[(0, 0)]
    hands = [list(h) for h in hands_extra]
    hands[missing_holder].append((ORANGE, CIRCLE))
    return NaiveGame(board, hands, bag, [0] * len(hands), 0, 0, NaiveRng(1))


def place_corner(player, hand):
    return {"player": player, "hand": [list(t) for t in hand], "action": "place",
            "placements": [[0, 0, ORANGE, CIRCLE]], "score": 12 + 3, "drawn": []}


def test_dead_board_ends_at_once():
    game = block_game(0, OTHERS[:5], [OTHERS[5:10], OTHERS[10:15]])
    assert game.rules_end() is None  # Oc still fits
    turns = [place_corner(0, game.hands[0])]
    turns[0]["drawn"] = [list(OTHERS[4])]  # the bag's last tile
    referee_turns(game, turns)
    assert game.end == "dead" and game.end_turn == 0 and game.scores == [15, 0]
    # nothing may follow, not even the exchange the rules would otherwise force
    more = {"player": 1, "hand": [list(t) for t in game.hands[1]], "action": "exchange",
            "tiles": [list(game.hands[1][0])], "drawn": [list(OTHERS[3])]}
    with pytest.raises(RefereeError) as info:
        referee_turns(block_game(0, OTHERS[:5], [OTHERS[5:10], OTHERS[10:15]]), [*turns, more])
    assert info.value.rule == "game over" and info.value.turn == 1


def test_pass_and_blocked_end():
    # Empty bag: seat 0 cannot place and passes; seat 1 places the corner and keeps
    # tiles, after which nobody can place: blocked, no bonus.
    game = block_game(1, [], [OTHERS[:6], OTHERS[6:11]])
    turns = [
        {"player": 0, "hand": [list(t) for t in game.hands[0]], "action": "pass"},
        place_corner(1, game.hands[1]),
    ]
    referee_turns(game, turns)
    assert game.end == "blocked" and game.end_turn == 1 and game.scores == [0, 15]
    assert game.went_out is None
    # a pass after the end is too late; a pass while holding a tile that fits is illegal
    with pytest.raises(RefereeError) as info:
        referee_turns(block_game(1, [], [OTHERS[:6], OTHERS[6:11]]), [*turns, turns[0]])
    assert (info.value.rule, info.value.turn) == ("game over", 2)
    game = block_game(0, [], [OTHERS[:5], OTHERS[6:11]])
    with pytest.raises(RefereeError) as info:
        referee_turns(game, [{"player": 0, "hand": [list(t) for t in game.hands[0]], "action": "pass"}])
    assert (info.value.rule, info.value.turn) == ("pass", 0)
    # a pass with tiles in the bag is illegal even when nothing fits
    game = block_game(1, OTHERS[11:13], [OTHERS[:6], OTHERS[6:11]])
    with pytest.raises(RefereeError) as info:
        referee_turns(game, [{"player": 0, "hand": [list(t) for t in game.hands[0]], "action": "pass"}])
    assert info.value.rule == "pass"
    # the passes alone do not end a game that someone can still play
    game = block_game(1, [], [OTHERS[:6], OTHERS[6:11]])
    referee_turns(game, turns[:1])
    assert game.end is None


def test_going_out_on_the_last_tile():
    game = block_game(1, [], [OTHERS[:6], []])
    referee_turns(game, [
        {"player": 0, "hand": [list(t) for t in game.hands[0]], "action": "pass"},
        place_corner(1, game.hands[1]),
    ])
    assert game.end == "out" and game.went_out == 1 and game.scores == [0, 15 + 6]


def test_exchange_needs_enough_tiles_in_the_bag():
    game = block_game(1, OTHERS[11:13], [OTHERS[:6], OTHERS[6:11]])
    hand = [list(t) for t in game.hands[0]]
    with pytest.raises(RefereeError) as info:
        referee_turns(game, [{"player": 0, "hand": hand, "action": "exchange", "tiles": hand[:3], "drawn": []}])
    assert (info.value.rule, info.value.turn) == ("exchange", 0)
    game = block_game(1, OTHERS[11:13], [OTHERS[:6], OTHERS[6:11]])
    referee_turns(game, [{"player": 0, "hand": hand, "action": "exchange", "tiles": hand[:2],
                          "drawn": [list(OTHERS[12]), list(OTHERS[11])]}])
    assert sorted(game.bag) == sorted(OTHERS[:2]) and game.hands[0] == OTHERS[2:6] + [OTHERS[12], OTHERS[11]]


def test_naive_uses_the_standard_library_only():
    """The reference and the referee share no code with qwirkle_core (or numpy)."""
    import ast

    with open(naive.__file__) as f:
        tree = ast.parse(f.read())
    modules = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            modules.add((node.module or "").split(".")[0])
    assert modules - {"__future__"} <= set(sys.stdlib_module_names), modules
