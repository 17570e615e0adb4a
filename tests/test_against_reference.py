"""The kernels against the independent reference (tests/naive.py), on random games."""

from __future__ import annotations

from collections import Counter

import numba
import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from qwirkle_core import ALL_TILES, Board, Tile
from qwirkle_core._movegen import kinds_apart as _kinds_apart_helper
from qwirkle_core._movegen import row_live_tiles
from qwirkle_core._state import S_COL_AT, S_FULL, S_HEIGHT, S_LEFT, S_ONE, S_ROW_AT, S_TOP, S_TWO, S_WIDTH

from .games import Choices, as_naive, hand_as_naive, moves_as_naive, random_positions
from .naive import mirror, naive_board_problem, naive_legal_moves, naive_masks, rotate90, translate

# Without the JIT (the coverage run) a few games reach every line; the examples that
# hunt for wrong answers run in the JIT-on run, and a little over half as many in the
# bounds-checked run (its task is an index out of range; most of a test's time is the
# plain-Python reference, the same in every run).
SETTINGS = settings(
    deadline=None,
    max_examples=4 if numba.config.DISABLE_JIT else 5 if numba.config.BOUNDSCHECK else 14,
    suppress_health_check=[HealthCheck.too_slow],
)


def _sampled_positions(choices: Choices, players: int, every: int):  # type: ignore[no-untyped-def]
    for i, (board, hand) in enumerate(random_positions(choices, players)):
        if i % every == 0:
            yield board, hand


@SETTINGS
@given(data=st.data(), players=st.integers(2, 6))
def test_moves_equal_reference_through_a_game(data: st.DataObject, players: int) -> None:
    for board, hand in _sampled_positions(Choices(data), players, every=3):
        got = moves_as_naive(board.legal_moves(hand))
        want = naive_legal_moves(as_naive(board), hand_as_naive(hand))
        assert got == want, (repr(board), hand)


def _fill_hand(choices: Choices, board: Board, size: int, one_group: bool) -> list[Tile]:
    """A random hand that, with the board, keeps at most 3 copies of a kind."""
    left = Counter({k: 3 - n for k, n in enumerate(board.tile_counts())})
    if one_group:
        group = choices.randrange(12, "group")
        kinds = [g * 6 + s for g in range(6) for s in range(6)]
        kinds = [k for k in kinds if (k // 6 == group if group < 6 else k % 6 == group - 6)]
    else:
        kinds = list(range(36))
    pool = [k for k in kinds for _ in range(left[k])]
    return [ALL_TILES[k] for k in choices.sample(pool, min(size, len(pool)), "hand")]


@SETTINGS
@given(data=st.data(), size=st.integers(0, 6), one_group=st.booleans())
def test_moves_equal_reference_for_any_hand(data: st.DataObject, size: int, one_group: bool) -> None:
    choices = Choices(data)
    for board, _ in _sampled_positions(choices, 2, every=7):
        hand = _fill_hand(choices, board, size, one_group)
        got = moves_as_naive(board.legal_moves(hand))
        want = naive_legal_moves(as_naive(board), hand_as_naive(hand))
        assert got == want, (repr(board), hand)


@numba.njit
def kinds_apart(hand_mask: int) -> bool:
    return _kinds_apart_helper(hand_mask)  # type: ignore[no-any-return]  # (a helper: callable from kernels only)


@SETTINGS
@given(data=st.data(), size=st.integers(1, 6))
def test_a_hand_of_kinds_apart_places_one_tile_a_move(data: st.DataObject, size: int) -> None:
    """A hand whose kinds share no colour and no shape (a copy of a kind may repeat)
    has one-tile moves only, which the generator finds without its walks
    (``kinds_apart``): the reference's moves all the same."""
    choices = Choices(data)
    for board, _ in _sampled_positions(choices, 2, every=7):
        left = Counter({k: 3 - n for k, n in enumerate(board.tile_counts())})
        shapes = list(range(6))
        choices.shuffle(shapes, "shapes")
        kinds = [c * 6 + s for c, s in zip(range(6), shapes) if left[c * 6 + s] > 0][:size]
        if not kinds:
            continue
        hand = [ALL_TILES[k] for k in kinds]
        if len(hand) < 6 and left[kinds[0]] > 1 and choices.randrange(2, "copy"):
            hand.append(ALL_TILES[kinds[0]])
        assert kinds_apart(sum(1 << k for k in set(kinds)))
        got = moves_as_naive(board.legal_moves(hand))
        want = naive_legal_moves(as_naive(board), hand_as_naive(hand))
        assert got == want, (repr(board), hand)
        assert all(len(move) == 1 for move in want)


def test_kinds_apart_is_no_shared_colour_and_no_shared_shape() -> None:
    for a in range(36):
        for b in range(36):
            apart = a == b or (a // 6 != b // 6 and a % 6 != b % 6)
            assert kinds_apart((1 << a) | (1 << b)) == apart, (a, b)
    assert kinds_apart(0) and kinds_apart(1 << 35)
    assert kinds_apart(sum(1 << (c * 6 + c) for c in range(6)))


@SETTINGS
@given(data=st.data())
def test_every_generated_move_scores_the_same(data: st.DataObject) -> None:
    for board, hand in _sampled_positions(Choices(data), 3, every=2):
        for move in board.legal_moves(hand):
            assert board.score(move, hand) == move.score, (repr(board), move)


@SETTINGS
@given(data=st.data())
def test_masks_equal_reference(data: st.DataObject) -> None:
    for board, _ in _sampled_positions(Choices(data), 4, every=2):
        coords, masks = board.legal_tile_masks()
        got = {(int(r), int(c)): int(m) for (r, c), m in zip(coords, masks)}
        assert len(got) == len(masks)
        assert got == naive_masks(as_naive(board)), repr(board)


def _snapshot(board: Board) -> tuple[np.ndarray, np.ndarray]:
    """The board's state array and the used part of its undo log, copied."""
    state, log = board.state_arrays()
    return state.copy(), log[: 1 + 2 * int(log[0])].copy()


def _cells(board: Board) -> dict[tuple[int, int], tuple[int, int]]:
    """Every cell of the board's window that is a tile or an empty cell beside one,
    in caller coordinates: (row-info word, column-info word) -- what queries read."""
    state = board.state_arrays()[0]
    if not len(board):
        return {}
    height, width, top, left = (int(state[i]) for i in (S_HEIGHT, S_WIDTH, S_TOP, S_LEFT))
    row_at, col_at = int(state[S_ROW_AT]), int(state[S_COL_AT])
    out = {}
    for i in range(1, height - 1):
        for j in range(1, width - 1):
            p = i * width + j
            near = [int(state[row_at + q]) < 0 for q in (p, p - 1, p + 1, p - width, p + width)]
            if any(near):
                out[(top + i, left + j)] = (int(state[row_at + p]), int(state[col_at + p]))
    return out


@SETTINGS
@given(data=st.data(), trusted=st.booleans())
def test_push_then_pop_restores_bit_for_bit(data: st.DataObject, trusted: bool) -> None:
    for board, hand in _sampled_positions(Choices(data), 2, every=1):
        state, log = _snapshot(board)
        counts = board.tile_counts()
        stack = board.move_stack
        for move in board.legal_moves(hand)[:20]:
            board.push(move, trusted=trusted)
            board.pop()
            s2, l2 = _snapshot(board)
            assert np.array_equal(state, s2) and np.array_equal(log, l2)
            assert board.tile_counts() == counts and board.move_stack == stack


@SETTINGS
@given(data=st.data())
def test_pushed_state_equals_a_state_built_afresh(data: st.DataObject) -> None:
    """The cross-checks that push keeps up to date are those a fresh build computes,
    cell for cell, and so are the header's counts and box."""
    for board, hand in _sampled_positions(Choices(data), 3, every=2):
        for move in board.legal_moves(hand)[::7][:6]:
            board.push(move, trusted=True)
            fresh = Board.from_placements(board.placements())
            assert _cells(board) == _cells(fresh)
            assert board.tile_counts() == fresh.tile_counts() and board.bounds() == fresh.bounds()
            for slot in (S_ONE, S_TWO, S_FULL):
                assert board.state_arrays()[0][slot] == fresh.state_arrays()[0][slot]
            board.pop()


@SETTINGS
@given(
    data=st.data(),
    dr=st.integers(-1_000_000, 1_000_000),
    dc=st.integers(-1_000_000, 1_000_000),
)
def test_translation_translates_every_move(data: st.DataObject, dr: int, dc: int) -> None:
    for board, hand in _sampled_positions(Choices(data), 2, every=9):
        if board.is_empty():
            continue
        moved = Board.from_placements((r + dr, c + dc, t) for r, c, t in board.placements())
        want = {
            frozenset((r + dr, c + dc, co, sh) for r, c, co, sh in key): score
            for key, score in moves_as_naive(board.legal_moves(hand)).items()
        }
        assert moves_as_naive(moved.legal_moves(hand)) == want


@SETTINGS
@given(data=st.data())
def test_rotation_and_mirror_keep_counts_and_scores(data: st.DataObject) -> None:
    for board, hand in _sampled_positions(Choices(data), 2, every=9):
        if board.is_empty():
            continue
        base = sorted(board.legal_moves(hand).scores.tolist())
        nb = as_naive(board)
        for transformed in (rotate90(nb), mirror(nb), rotate90(rotate90(nb)), translate(nb, 5, -7)):
            other = Board.from_placements((r, c, co, sh) for (r, c), (co, sh) in transformed.items())
            assert sorted(other.legal_moves(hand).scores.tolist()) == base


@SETTINGS
@given(data=st.data())
def test_board_checks_equal_reference(data: st.DataObject) -> None:
    """Random edits of real boards: the library accepts exactly what the reference does."""
    positions = [b.copy() for b, _ in _sampled_positions(Choices(data), 2, every=10) if len(b) > 2]
    for board in positions:
        nb = as_naive(board)
        cells = sorted(nb)
        edit = data.draw(st.sampled_from(["recolor", "remove", "add"]))
        cell = data.draw(st.sampled_from(cells))
        if edit == "recolor":
            nb[cell] = (data.draw(st.integers(0, 5)), data.draw(st.integers(0, 5)))
        elif edit == "remove":
            del nb[cell]
        else:
            dr, dc = data.draw(st.sampled_from([(0, 1), (1, 0), (0, -1), (-1, 0), (0, 2), (3, 3)]))
            nb.setdefault((cell[0] + dr, cell[1] + dc), (data.draw(st.integers(0, 5)), data.draw(st.integers(0, 5))))
        problem = naive_board_problem(nb)
        try:
            Board.from_placements((r, c, co, sh) for (r, c), (co, sh) in nb.items())
            accepted = True
        except ValueError:
            accepted = False
        assert accepted == (problem is None), (nb, problem)


# A board 53 columns wide (a staircase of lines found by a random search, with its last
# corner written by hand): its state's window is 76 cells wide, two occupancy words a
# row.  The run Pd Rd Yd Od at row 20 ends on the first word's last cell, and the cell
# before it joins Rb, so it takes no tile: moves along that run (Gd and Bd after it
# make a Qwirkle) start from a run whose only usable end lies in the other word, which
# the move generator's filter of anchors must not lose.
WIDE = (
    "Gb@0,2 Rb@0,3 Ob@0,4 Bb@0,5 Pb@1,5 Gb@2,5 Bb@2,6 Rb@2,7 Yb@2,8 Ob@2,9 Pb@2,10 Px@3,10 Pl@4,10 Gl@4,11 "
    "Yl@4,12 Ol@4,13 Bl@4,14 Rl@4,15 Gl@5,15 Pl@6,15 Px@6,16 Ps@6,17 Pc@6,18 Pb@6,19 Pd@6,20 Rd@7,20 Od@8,20 "
    "Rd@8,21 Pd@8,22 Gd@8,23 Bd@8,24 Yd@8,25 Yc@9,25 Ys@10,25 Rs@10,26 Gs@10,27 Bs@10,28 Ps@10,29 Os@10,30 "
    "Ol@11,30 Ob@12,30 Od@12,31 Ol@12,32 Oc@12,33 Ox@12,34 Os@12,35 Rs@13,35 Ps@14,35 Gs@14,36 Rs@14,37 "
    "Ys@14,38 Os@14,39 Bs@14,40 Bx@15,40 Bc@16,40 Gc@16,41 Rc@16,42 Yc@16,43 Pc@16,44 Oc@16,45 Yc@17,45 "
    "Bc@18,45 Bl@18,46 Bx@18,47 Bb@18,48 Bs@18,49 Bd@18,50 Gd@19,50 Pd@20,50 Rd@20,51 Yd@20,52 Od@20,53 "
    "Yb@19,48 Rb@20,48"
)


def _wide_orientations() -> list[dict[tuple[int, int], tuple[int, int]]]:
    """WIDE east to west and with rows as columns too: every path of the filters."""
    nb = as_naive(Board(WIDE))
    return [nb, mirror(nb), rotate90(nb), rotate90(mirror(nb))]


def test_a_run_whose_usable_end_is_in_the_next_word_starts_its_moves() -> None:
    hand = [Tile(3, 2), Tile(4, 2)]  # Gd, Bd
    assert Board(WIDE).state_arrays()[0][S_WIDTH] > 64
    for nb in _wide_orientations():
        board = Board.from_placements((r, c, co, sh) for (r, c), (co, sh) in nb.items())
        got = moves_as_naive(board.legal_moves(hand))
        assert got == naive_legal_moves(nb, hand_as_naive(hand))
        assert any(len(move) == 2 and score == 12 for move, score in got.items())  # the Qwirkle


@SETTINGS
@given(data=st.data(), size=st.integers(1, 6), one_group=st.booleans())
def test_moves_equal_reference_on_a_board_wider_than_a_word(data: st.DataObject, size: int, one_group: bool) -> None:
    hand = _fill_hand(Choices(data), Board(WIDE), size, one_group)
    for nb in _wide_orientations():
        board = Board.from_placements((r, c, co, sh) for (r, c), (co, sh) in nb.items())
        assert moves_as_naive(board.legal_moves(hand)) == naive_legal_moves(nb, hand_as_naive(hand)), (nb, hand)


def _naive_live_run_starts(tiles: int, fit: int, fit_word_before: int, more_words: bool) -> int:
    """The run starts of a 64-cell occupancy word that have a fitting cell at either
    end of their run, cell by cell (a run ending on the last cell with ``more_words``:
    its end is in the next word, unknown here, so it counts as fitting)."""
    live = 0
    b = 0
    while b < 64:
        if not tiles >> b & 1:
            b += 1
            continue
        start = b
        while b < 64 and tiles >> b & 1:
            b += 1
        before_fits = (fit >> (start - 1) & 1) if start > 0 else (fit_word_before >> 63 & 1)
        after_fits = (fit >> b & 1) if b < 64 else more_words
        if before_fits or after_fits:
            live |= 1 << start
    return live


def _as_int64(word: int) -> np.int64:
    return np.int64(word - (1 << 64) if word >> 63 else word)


@settings(deadline=None, max_examples=500)
@given(
    first=st.integers(0, 2),
    runs=st.lists(st.tuples(st.integers(1, 8), st.integers(1, 6)), max_size=16),
    fit_bits=st.integers(0, (1 << 64) - 1),
    before_last_fits=st.booleans(),
    more_words=st.booleans(),
)
def test_live_tiles_of_a_row_word_are_the_run_starts_with_a_fitting_end(
    first: int, runs: list[tuple[int, int]], fit_bits: int, before_last_fits: bool, more_words: bool
) -> None:
    """The move generator's bit-parallel filter (row_live_tiles, plain Python here)
    against a cell-by-cell definition, on words of runs of 1 to 6 tiles (gaps of 1 to
    8 cells, the first run from cell 0, 1 or 2) with fitting cells among the empty ones, across the words' edges too."""
    tiles = 0
    at = first - 1  # the first run may start on the word's first cell
    for gap, length in runs:
        at += gap
        tiles |= ((1 << length) - 1) << at if at < 64 else 0
        at += length
    tiles &= (1 << 64) - 1
    fit = fit_bits & ~tiles & ((1 << 64) - 1)
    fit_word_before = (1 << 63 if before_last_fits else 0) | (fit_bits >> 1)  # (only its last cell counts)
    plain = getattr(row_live_tiles, "py_func", row_live_tiles)
    got = int(plain(_as_int64(tiles), _as_int64(fit), _as_int64(fit_word_before), more_words)) & ((1 << 64) - 1)
    starts = tiles & ~(tiles << 1)
    assert got & starts == _naive_live_run_starts(tiles, fit, fit_word_before, more_words)
