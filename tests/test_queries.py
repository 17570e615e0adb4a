"""The exhaustive queries (qwirkle_core.queries) against slow, obvious computations."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

import numba
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from qwirkle_core import (
    ALL_TILES,
    Board,
    IllegalMoveError,
    InvalidMoveError,
    InvalidPositionError,
    InvalidTileError,
    Move,
    QwirkleError,
    Tile,
    parse_tiles,
    queries,
)
from qwirkle_core.moves import COORD_MAX

from .games import Choices, as_naive, hand_as_naive, moves_as_naive, random_positions
from .naive import naive_legal_moves, naive_masks, naive_score

# Fewer examples without the JIT (the coverage run): see test_against_reference.py.
SETTINGS = settings(
    deadline=None,
    max_examples=3 if numba.config.DISABLE_JIT else 8,
    suppress_health_check=[HealthCheck.too_slow],
)

NaiveBoard = dict[tuple[int, int], tuple[int, int]]


def _sampled(choices: Choices, players: int = 2, every: int = 4) -> Iterator[tuple[Board, list[Tile]]]:
    for i, (board, hand) in enumerate(random_positions(choices, players, greedy=0.6)):
        if i % every == 0:
            yield board, hand


def _random_unseen(rng: Choices, board: Board) -> list[int]:
    return [rng.randint(0, 3 - n) for n in board.tile_counts()]


def _mask(counts: list[int]) -> int:
    return sum(1 << k for k, n in enumerate(counts) if n > 0)


# ------------------------------------------------------------ obvious versions
def _valid(tiles: list[tuple[int, int]]) -> bool:
    if len(tiles) <= 1:
        return True
    if len(tiles) > 6 or len(set(tiles)) != len(tiles):
        return False
    return len({c for c, _ in tiles}) == 1 or len({s for _, s in tiles}) == 1


def _run(nb: NaiveBoard, r: int, c: int, dr: int, dc: int) -> list[tuple[int, int]]:
    out = []
    r, c = r + dr, c + dc
    while (r, c) in nb:
        out.append(nb[(r, c)])
        r, c = r + dr, c + dc
    return out


def naive_slots(nb: NaiveBoard) -> dict[tuple[int, int], int]:
    """Empty cells where one tile, legal alone, makes a line of six -> kind mask."""
    out = {}
    cells = {(r + dr, c + dc) for r, c in nb for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1))}
    for r, c in cells - nb.keys():
        row = _run(nb, r, c, 0, -1) + _run(nb, r, c, 0, 1)
        col = _run(nb, r, c, -1, 0) + _run(nb, r, c, 1, 0)
        if len(row) != 5 and len(col) != 5:
            continue
        mask = 0
        for k in range(36):
            t = (k // 6, k % 6)
            if _valid(row + [t]) and _valid(col + [t]):
                mask |= 1 << k
        if mask:
            out[(r, c)] = mask
    return out


def _unseen_slots(nb: NaiveBoard, unseen_mask: int) -> set[tuple[int, int]]:
    return {cell for cell, mask in naive_slots(nb).items() if mask & unseen_mask}


# ------------------------------------------------------------ best k
@SETTINGS
@given(data=st.data(), k=st.integers(0, 40))
def test_best_moves_are_the_top_k_in_generation_order(data: st.DataObject, k: int) -> None:
    for board, hand in _sampled(Choices(data), every=5):
        all_moves = board.legal_moves(hand)
        scores = all_moves.scores.tolist()
        want = sorted(range(len(scores)), key=lambda i: -scores[i])[:k]  # sorted() is stable
        got = queries.top_moves(board, hand, k)
        assert np.array_equal(got.table, all_moves.table[want]), repr(board)
        naive_scores = sorted(naive_legal_moves(as_naive(board), hand_as_naive(hand)).values(), reverse=True)
        assert got.scores.tolist() == naive_scores[:k]
        assert np.array_equal(board.top_moves(hand, k).table, got.table)


def test_best_moves_ties_and_edges() -> None:
    board = Board("Rc@0,0 Rs@0,1")
    hand = parse_tiles("Rd Bc Yl")
    every = board.legal_moves(hand)
    for k in range(len(every) + 3):
        got = queries.top_moves(board, hand, k)
        assert len(got) == min(k, len(every))
        assert list(got.scores) == sorted(every.scores.tolist(), reverse=True)[:k]
    assert len(queries.top_moves(Board(), parse_tiles("Rc Rs Rd"), 2)) == 2
    assert queries.top_moves(Board(), parse_tiles("Rc Rs Rd"), 1)[0].score == 3
    assert len(queries.top_moves(board, [], 5)) == 0
    for bad in (-1, 1.5, "3", None):
        with pytest.raises(QwirkleError):
            queries.top_moves(board, hand, bad)  # type: ignore[arg-type]


# ------------------------------------------------------------ restricted moves
@SETTINGS
@given(data=st.data())
def test_moves_with_tiles_equal_reference(data: st.DataObject) -> None:
    rng = Choices(data)
    for board, hand in _sampled(rng, every=6):
        tiles = rng.sample(hand, rng.randint(0, len(hand)))
        only = queries.moves_with_tiles(board, hand, tiles)
        assert moves_as_naive(only) == naive_legal_moves(as_naive(board), hand_as_naive(tiles))
        everything = list(board.legal_moves(hand))
        kinds = {t.kind for t in tiles}
        assert list(only) == [m for m in everything if all(t.kind in kinds for t in m.tiles)]
        some = queries.moves_with_tiles(board, hand, tiles, any_of=True)
        want = [m for m in everything if any(t.kind in kinds for t in m.tiles)]
        assert list(some) == want and [m.score for m in some] == [m.score for m in want]
        assert list(board.moves_with_tiles(hand, tiles, any_of=True)) == want


@SETTINGS
@given(data=st.data())
def test_moves_on_cells_equal_filter(data: st.DataObject) -> None:
    rng = Choices(data)
    for board, hand in _sampled(rng, every=6):
        everything = list(board.legal_moves(hand))
        if board.is_empty():
            near = [(0, c) for c in range(7)] + [(1, 0), (-1, 3)]
        else:
            near = [(int(r), int(c)) for r, c in board.legal_tile_masks().coords]
            near += [(r, c) for r, c, _ in board.placements()]  # occupied: never used
            r0, r1, c0, c1 = board.bounds()  # type: ignore[misc]
            near += [(rng.randint(r0 - 8, r1 + 8), rng.randint(c0 - 8, c1 + 8)) for _ in range(10)]
        near += [(10**6, -(10**6)), (-COORD_MAX, COORD_MAX)]
        cells = rng.sample(near, rng.randint(0, min(len(near), 12)))
        wanted = set(cells)
        want = [m for m in everything if any((r, c) in wanted for r, c, _ in m.placements)]
        got = queries.moves_on_cells(board, hand, cells)
        assert list(got) == want, (repr(board), hand, cells)
        assert [m.score for m in got] == [m.score for m in want]
        as_array = np.array(cells, dtype=np.int32).reshape(-1, 2)
        assert np.array_equal(board.moves_on_cells(hand, as_array).table, got.table)


def test_restricted_moves_reject_bad_input() -> None:
    board = Board("Rc@0,0")
    hand = parse_tiles("Rs Rd")
    with pytest.raises(InvalidPositionError):
        queries.moves_with_tiles(board, hand, parse_tiles("Rs Rs"))
    with pytest.raises(InvalidPositionError):
        queries.moves_with_tiles(board, hand, parse_tiles("Bs"))
    with pytest.raises(InvalidTileError):
        queries.moves_with_tiles(board, hand, ["Zz"])  # type: ignore[list-item]
    by_text = queries.moves_with_tiles(board, hand, ["Rs"])  # type: ignore[list-item]
    assert by_text.table.tolist() == queries.moves_with_tiles(board, hand, hand[:1]).table.tolist()
    with pytest.raises(InvalidTileError):
        queries.moves_with_tiles(board, hand, "Rs")  # type: ignore[arg-type]
    for bad in ([(0, 1, 2)], [(0, "1")], [(0, 2**31)], "0,1", np.zeros((2, 3), np.int64),
                np.zeros((2, 2)), np.array([[2**40, 0]])):
        with pytest.raises(InvalidMoveError):
            queries.moves_on_cells(board, hand, bad)
    assert len(queries.moves_on_cells(board, hand, [])) == 0
    assert len(queries.moves_on_cells(board, hand, np.zeros((0, 2), np.int64))) == 0
    with pytest.raises(InvalidPositionError):
        queries.moves_on_cells("Rc@0,0", hand, [(0, 1)])  # type: ignore[arg-type]


# ------------------------------------------------------------ Qwirkle slots
@SETTINGS
@given(data=st.data(), players=st.integers(2, 4))
def test_qwirkle_slots_equal_naive(data: st.DataObject, players: int) -> None:
    rng = Choices(data)
    for board, _ in _sampled(rng, players, every=3):
        _check_slots(board, rng)


def _check_slots(board: Board, rng: Choices) -> int:
    nb = as_naive(board)
    want = naive_slots(nb)
    counts = _random_unseen(rng, board)
    unseen_arg: object = counts
    if rng.random() < 0.5:  # as a list of tiles instead
        unseen_arg = [ALL_TILES[k] for k, n in enumerate(counts) for _ in range(n)]
    got = queries.qwirkle_slots(board, unseen_arg)
    cells = [(int(r), int(c)) for r, c in got.coords]
    assert len(set(cells)) == len(cells)
    assert dict(zip(cells, [int(m) for m in got.kinds])) == want, repr(board)
    for i, cell in enumerate(cells):
        mask = want[cell]
        assert int(got.unseen[i]) == mask & _mask(counts)
        assert int(got.unseen_copies[i]) == sum(counts[k] for k in range(36) if mask >> k & 1)
        k = (mask & -mask).bit_length() - 1
        assert int(got.points[i]) == naive_score(nb, [(cell[0], cell[1], k // 6, k % 6)])
        assert [t.kind for t in got.tiles(i)] == [k for k in range(36) if mask >> k & 1]
        assert [t.kind for t in got.unseen_tiles(i)] == [
            k for k in range(36) if (mask & _mask(counts)) >> k & 1
        ]
    # Default: every copy not on the board is unseen.
    default = queries.qwirkle_slots(board)
    left = [3 - n for n in board.tile_counts()]
    assert [int(m) for m in default.unseen] == [int(m) & _mask(left) for m in default.kinds]
    return len(cells)


def test_qwirkle_slots_examples() -> None:
    # A row of five reds: both ends take the missing red; the cell above the middle
    # tile ends nothing of five.
    board = Board("Rc@0,0 Rs@0,1 Rd@0,2 Rl@0,3 Rx@0,4")
    slots = queries.qwirkle_slots(board)
    assert slots.coords.tolist() == [[0, -1], [0, 5]]
    assert [str(t) for t in slots.tiles(0)] == ["Rb"] and slots.points.tolist() == [12, 12]
    assert slots.unseen_copies.tolist() == [3, 3]
    gone = queries.qwirkle_slots(board, parse_tiles("Rb Gb"))
    assert gone.unseen_copies.tolist() == [1, 1] and [str(t) for t in gone.unseen_tiles(1)] == ["Rb"]
    assert queries.qwirkle_slots(board, []).unseen.tolist() == [0, 0]
    # Runs of three and two with one cell between (joined through row 1): filling it
    # with the red clover makes six, and a line of two in its column.
    board = Board("Rc@0,0 Rs@0,1 Rd@0,2 Rx@0,4 Rb@0,5 Yd@1,2 Yl@1,3 Yx@1,4")
    slots = queries.qwirkle_slots(board)
    assert slots.coords.tolist() == [[0, 3]] and [str(t) for t in slots.tiles(0)] == ["Rl"]
    assert slots.points.tolist() == [14]
    # A cell that completes a row AND a column: 24 points.
    board = Board(
        "Rc@0,0 Rs@0,1 Rd@0,2 Rl@0,3 Rx@0,4 Px@-1,4 "
        "Bb@-5,5 Gb@-4,5 Yb@-3,5 Ob@-2,5 Pb@-1,5"
    )
    slots = queries.qwirkle_slots(board)
    assert [int(r) for r in slots.points[(slots.coords == [0, 5]).all(axis=1)]] == [24]
    # A line of five whose end cell no tile fits (the blue column refuses the red starburst).
    board = Board("Rc@0,0 Rs@0,1 Rd@0,2 Rl@0,3 Rx@0,4 Bx@-1,4 Bc@-1,5 Bs@-2,5")
    assert queries.qwirkle_slots(board).coords.tolist() == [[0, -1]]
    assert len(queries.qwirkle_slots(Board()).coords) == 0


def test_unseen_is_checked() -> None:
    board = Board("Rc@0,0 Rs@0,1")
    for bad in ([0] * 35, [-1] + [0] * 35, [4] + [0] * 35, np.zeros(36, float), np.zeros((6, 6), np.int64)):
        with pytest.raises(InvalidPositionError):
            queries.qwirkle_slots(board, bad)
    with pytest.raises(InvalidPositionError):  # three Rc unseen, one on the board
        queries.qwirkle_slots(board, parse_tiles("Rc Rc Rc"))
    with pytest.raises(InvalidTileError):
        queries.qwirkle_slots(board, ["Zz"])
    assert queries.unseen_counts(board, ["Rc", "Rc"]).tolist() == queries.unseen_counts(board, parse_tiles("Rc Rc")).tolist()
    with pytest.raises(InvalidTileError):
        queries.qwirkle_slots(board, 5)
    assert queries.unseen_counts(board, np.ones(36, np.int8)).tolist() == [1] * 36
    assert queries.unseen_counts(board, hand=parse_tiles("Rc Yd")).tolist()[:3] == [1, 2, 3]


# ------------------------------------------------------------ risk
@SETTINGS
@given(data=st.data(), explicit=st.booleans())
def test_move_risk_equal_naive(data: st.DataObject, explicit: bool) -> None:
    rng = Choices(data)
    for board, hand in _sampled(rng, every=5):
        _check_risk(board, hand, rng, explicit)


def _check_risk(board: Board, hand: list[Tile], rng: Choices, explicit: bool) -> tuple[int, int, int]:
    if explicit:
        counts = _random_unseen(rng, board)
        risk = queries.move_risk(board, hand, counts)
    else:
        counts = [3 - n for n in board.tile_counts()]
        for t in hand:
            counts[t.kind] -= 1
        risk = queries.move_risk(board, hand)
    unseen = _mask(counts)
    moves = list(board.legal_moves(hand))
    assert list(risk.moves) == moves and [m.score for m in risk.moves] == [m.score for m in moves]
    nb = as_naive(board)
    before = _unseen_slots(nb, unseen)
    for i, move in enumerate(moves):
        after_board = dict(nb)
        for r, c, t in move.placements:
            after_board[(r, c)] = (int(t.color), int(t.shape))
        after = _unseen_slots(after_board, unseen)
        assert int(risk.open_after[i]) == len(after), (repr(board), move)
        assert int(risk.opened[i]) == len(after - before), (repr(board), move)
        assert bool(risk.risky[i]) == bool(after) and bool(risk.opens[i]) == bool(after - before)
    return len(moves), int(risk.risky.sum()), int(risk.opens.sum())


def test_move_risk_examples() -> None:
    board = Board("Rc@0,0 Rs@0,1 Rd@0,2 Rl@0,3")
    risk = queries.move_risk(board, parse_tiles("Rx Yc"))
    risky = {str(m) for m, r in zip(risk.moves, risk.risky) if r}
    assert risky == {"Rx@0,-1", "Rx@0,4"}
    assert {int(n) for n, r in zip(risk.opened, risk.risky) if r} == {2}
    # With every red starburst seen (e.g. all three in other places), nothing is risky.
    counts = [3] * 36
    for t in parse_tiles("Rc Rs Rd Rl Rx Yc Rb"):
        counts[t.kind] = 0 if t.text() == "Rb" else counts[t.kind] - 1
    assert not queries.move_risk(board, parse_tiles("Rx Yc"), counts).risky.any()
    # An open slot stays open unless the move fills it; filling it closes it.
    board = Board("Rc@0,0 Rs@0,1 Rd@0,2 Rl@0,3 Rx@0,4")
    risk = queries.move_risk(board, parse_tiles("Rb Yc"))
    by_move = {str(m): (int(a), int(o)) for m, a, o in zip(risk.moves, risk.open_after, risk.opened)}
    assert by_move["Rb@0,5"] == (0, 0) and by_move["Rb@0,-1"] == (0, 0)
    assert by_move["Yc@1,0"] == (2, 0)
    # Openings: five tiles in a row leave both ends open.
    risk = queries.move_risk(Board(), parse_tiles("Rc Rs Rd Rl Rx"))
    five = [i for i, m in enumerate(risk.moves) if len(m) == 5]
    assert five and all(risk.opened[i] == 2 for i in five)
    assert not any(risk.risky[i] for i, m in enumerate(risk.moves) if len(m) < 5)
    assert len(queries.move_risk(board, []).moves) == 0
    # A hand given as a one-shot iterator is read once.
    assert np.array_equal(
        queries.move_risk(board, iter(parse_tiles("Rb Yc"))).open_after,
        queries.move_risk(board, parse_tiles("Rb Yc")).open_after,
    )
    assert len(queries.moves_with_tiles(board, iter(parse_tiles("Rb Yc")), parse_tiles("Yc"))) == 2


def test_slots_and_risk_meet_real_cases() -> None:
    """The property tests above are only as good as their positions: random games do
    produce slots, risky moves and moves that open a Qwirkle (and moves that do not)."""
    rng = Choices(7)
    slots = moves = risky = opens = 0
    for seed in range(3):
        for board, hand in _sampled(Choices(seed), every=3):
            slots += _check_slots(board, rng)
            n, r, o = _check_risk(board, hand, rng, explicit=False)
            moves += n
            risky += r
            opens += o
    assert slots > 0 and 0 < opens <= risky < moves


# ------------------------------------------------------------ batch
def _positions(rng: Choices) -> list[tuple[Board, list[Tile]]]:
    out = [(Board(), parse_tiles("Rc Rs Bc")), (Board(), [])]
    for board, hand in _sampled(rng, rng.randint(2, 4), every=4):
        out.append((board.copy(stack=False), hand))
        if rng.random() < 0.2:
            out.append((board.copy(stack=False), hand[:1]))
    rng.shuffle(out)
    return out


@SETTINGS
@given(data=st.data(), threads=st.sampled_from([None, 1, numba.config.NUMBA_NUM_THREADS]))
def test_batch_equals_one_by_one(data: st.DataObject, threads: int | None) -> None:
    items = _positions(Choices(data))
    before = numba.get_num_threads()
    assert queries.batch_counts(items, threads).tolist() == [b.count_moves(h) for b, h in items]
    assert queries.batch_best_scores(items, threads).tolist() == [
        max(naive_legal_moves(as_naive(b), hand_as_naive(h)).values(), default=0) for b, h in items
    ]
    got = queries.batch_moves(items, threads)
    assert len(got) == len(items)
    for (board, hand), moves in zip(items, got):
        assert np.array_equal(moves.table, board.legal_moves(hand).table)
    assert numba.get_num_threads() == before


def test_batch_moves_grow_past_the_first_buffer() -> None:
    six_reds = parse_tiles("Rc Rs Rd Rl Rx Rb")  # 1956 openings
    items = [(Board(), six_reds), (Board("Rc@0,0"), parse_tiles("Rs Rd Bc")), (Board(), six_reds)] * 2
    want = [b.legal_moves(h).table for b, h in items]
    assert sum(len(t) for t in want) > queries._queries.INITIAL_BATCH_ROWS
    for threads in (1, None):
        got = queries.batch_moves(items, threads)
        assert all(np.array_equal(g.table, w) for g, w in zip(got, want))


def test_batch_edges() -> None:
    assert queries.batch_counts([]).tolist() == []
    assert queries.batch_best_scores([]).tolist() == []
    assert queries.batch_moves([]) == []
    board = Board("Rc@0,0")
    assert queries.batch_counts(((board, parse_tiles("Rs")),)).tolist() == [4]
    for bad in ([(board,)], [board], 5, [("Rc@0,0", [])], [(board, parse_tiles("Rc Rc Rc"))]):
        with pytest.raises(QwirkleError):
            queries.batch_counts(bad)  # type: ignore[arg-type]
    for threads in (0, -1, 1.0, "2", numba.config.NUMBA_NUM_THREADS + 1):
        with pytest.raises(QwirkleError):
            queries.batch_moves([], threads)  # type: ignore[arg-type]


# ------------------------------------------------------------ planes
def _naive_planes(board: Board, top: int, left: int, height: int, width: int) -> np.ndarray:
    out = np.zeros((queries.N_PLANES, height, width), np.uint8)
    masks = naive_masks(as_naive(board))
    for i in range(height):
        for j in range(width):
            tile = board.tile_at(top + i, left + j)
            if tile is not None:
                out[int(tile.color), i, j] = 1
                out[6 + int(tile.shape), i, j] = 1
                out[12, i, j] = 1
            for k in range(36):
                if masks.get((top + i, left + j), 0) >> k & 1:
                    out[13 + k, i, j] = 1
    return out


@SETTINGS
@given(
    data=st.data(),
    height=st.integers(1, 40),
    width=st.integers(1, 40),
    shift=st.tuples(st.integers(-30, 30), st.integers(-30, 30)),
)
def test_planes_equal_naive(data: st.DataObject, height: int, width: int, shift: tuple[int, int]) -> None:
    for board, _ in _sampled(Choices(data), every=9):
        planes, (top, left) = queries.position_planes(board, (height, width), dtype=np.uint8)
        bounds = board.bounds()
        if bounds is None:
            assert (top + height // 2, left + width // 2) == (0, 0)
        else:
            assert top + height // 2 == (bounds[0] + bounds[1]) // 2
            assert left + width // 2 == (bounds[2] + bounds[3]) // 2
        assert planes.dtype == np.uint8 and planes.shape == (49, height, width)
        assert np.array_equal(planes, _naive_planes(board, top, left, height, width)), repr(board)
        origin = (top + shift[0], left + shift[1])
        moved = queries.position_planes(board, (height, width), origin)
        assert moved.origin == origin and moved.planes.dtype == np.float32
        assert np.array_equal(moved.planes, _naive_planes(board, *origin, height, width))


def test_planes_edges() -> None:
    planes, origin = queries.position_planes(Board(), 3)
    assert origin == (-1, -1)
    assert planes[:13].sum() == 0 and planes[13:, 1, 1].tolist() == [1.0] * 36 and planes[13:].sum() == 36
    # The whole board, far from the window: all zero.
    board = Board("Rc@0,0 Rs@0,1")
    far, _ = queries.position_planes(board, 4, origin=(100, 100))
    assert far.sum() == 0
    planes, origin = queries.position_planes(board, (1, 2))
    assert origin == (0, -1) and planes[12].tolist() == [[0, 1]]
    for bad_size in (0, -3, (2,), (2, 0), 2.0, (2, "3")):
        with pytest.raises(QwirkleError):
            queries.position_planes(board, bad_size)  # type: ignore[arg-type]
    for bad_origin in ((1,), "0,0", (0, 2**31), (0.5, 0)):
        with pytest.raises(InvalidMoveError):
            queries.position_planes(board, 2, bad_origin)  # type: ignore[arg-type]


# ------------------------------------------------------------ the rest
def test_count_and_has_move_delegate() -> None:
    board = Board("Rc@0,0")
    assert queries.count_moves(board, parse_tiles("Rs")) == 4
    assert queries.has_move(board, parse_tiles("Rs"))
    assert not queries.has_move(board, parse_tiles("Bs"))
    with pytest.raises(InvalidPositionError):
        queries.count_moves(None, [])  # type: ignore[arg-type]
    with pytest.raises(IllegalMoveError):
        board.push(Move.from_text("Bs@0,1"))


def test_mask_tiles() -> None:
    assert [str(t) for t in queries.mask_tiles(0b101)] == ["Rc", "Rd"]
    assert queries.mask_tiles(np.uint64(0)) == []
    assert len(queries.mask_tiles((1 << 36) - 1)) == 36
    assert Counter(t.kind for t in queries.mask_tiles(1 << 35)) == {35: 1}


def test_risk_kernel_reads_nothing_outside_the_window() -> None:
    """move_risk's scratch region reaches beyond the board state's window (by
    RISK_MARGIN around every move) and must read those cells as empty, wherever the
    board lies: far away, and on the empty board (no window at all)."""
    from qwirkle_core import _queries

    hand = parse_tiles("Rc Rs Rd Rl Rx")
    mask = sum(1 << t.kind for t in hand)
    every = np.ones(36, np.int64)
    table, open_after, opened = _queries.move_risk(Board().state_arrays()[0], mask, every)
    want = queries.move_risk(Board(), hand)
    assert np.array_equal(table, want.moves.table)
    assert np.array_equal(open_after, want.open_after) and np.array_equal(opened, want.opened)
    assert open_after.max() == 2
    near = Board("Rb@0,0 Ob@0,1 Yb@0,2 Gb@0,3")
    far = Board("Rb@1000000,-1000000 Ob@1000000,-999999 Yb@1000000,-999998 Gb@1000000,-999997")
    a, b = queries.move_risk(near, hand), queries.move_risk(far, hand)
    assert len(a.moves) == len(b.moves) > 0
    assert np.array_equal(a.open_after, b.open_after) and np.array_equal(a.opened, b.opened)
