"""The core API at its edges: tables handed in, iterables that never end, the playing
area's edge, the score limit, unreachable positions, pickle's old protocols and numpy
integers.  Each test reproduces a finding of a review of the core API (it failed
before its fix)."""

from __future__ import annotations

import itertools
import pickle
from collections.abc import Iterator

import numpy as np
import pytest

from qwirkle_core import Board, Move, MoveList, QwirkleError, Tile, parse_tiles, queries
from qwirkle_core._layout import COL_COLS, COL_KINDS, COL_N, COL_ROWS
from qwirkle_core.errors import InvalidMoveError, InvalidPositionError, NothingToUndoError
from qwirkle_core.game import MAX_SCORE, Game, largest_group
from qwirkle_core.moves import COORD_MAX
from qwirkle_core.queries import PLANE_LEGAL


def _opened(seed: int) -> Game:
    game = Game(2, seed)
    game.push(game.legal_moves().best())
    return game


# ------------------------------------------------------------- a table handed in
def test_every_generated_table_is_a_move_table() -> None:
    for seed in range(3):
        game = Game(2, seed)
        while not game.is_over:
            moves = game.legal_moves()
            assert MoveList(moves.table.copy()).table.shape == moves.table.shape
            game.push(moves.best() if moves else game.legal_actions()[0])


def _corrupted(col: int, value: int, n: int = 1) -> np.ndarray:
    moves = _opened(4).legal_moves()
    table = moves.table[moves.sizes == n][:1].copy()
    table[0, col] = value
    return table


@pytest.mark.parametrize(
    ("table", "rule"),
    [
        (_corrupted(COL_KINDS, 40), "tile kinds 0..35"),
        (_corrupted(COL_KINDS, -2), "tile kinds 0..35"),  # read as ALL_TILES[-2] before
        (_corrupted(COL_N, 0), "1 to 6 tiles"),
        (_corrupted(COL_N, 7), "1 to 6 tiles"),
        (_corrupted(COL_ROWS, COORD_MAX + 1), "playing area"),
        (_corrupted(COL_KINDS + 3, 5), "unused slots"),
        (_corrupted(COL_COLS + 1, -(2**20), n=2), "(row, col) order"),
    ],
)
def test_a_table_handed_in_is_checked_row_by_row(table: np.ndarray, rule: str) -> None:
    with pytest.raises(InvalidMoveError, match="row 0 of the move table is not a move") as caught:
        MoveList(table)
    assert rule in str(caught.value)


def test_a_kind_that_wraps_round_is_refused_before_any_push() -> None:
    # Kind k - 36 named the same tile as k through ALL_TILES, while the kernels read
    # the row as it was: a checked push then broke the board.
    game = _opened(4)
    table = game.legal_moves().table[:1].copy()
    table[0, COL_KINDS : COL_KINDS + table[0, COL_N]] -= 36
    with pytest.raises(InvalidMoveError):
        MoveList(table)


# ------------------------------------------------------------- endless iterables
def _endless(tile: str) -> Iterator[Tile]:
    """The same tile for ever; an AssertionError, not a hang, if read far."""
    for i in itertools.count():
        assert i < 10_000, "an endless iterable was walked on"
        yield Tile.from_text(tile)


@pytest.mark.parametrize(
    "call",
    [
        lambda b: queries.move_risk(b, _endless("Rs")),
        lambda b: queries.moves_with_tiles(b, _endless("Rs"), []),
        lambda b: queries.moves_with_tiles(b, [Tile.from_text("Rs")], _endless("Rs")),
        lambda b: queries.unseen_counts(b, None, _endless("Rs")),
        lambda b: largest_group(_endless("Rs")),
    ],
)
def test_an_endless_iterable_is_refused_not_walked(call) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(QwirkleError):
        call(Board("Rc@0,0"))


def test_a_hand_given_as_an_iterator_still_counts() -> None:
    board = Board("Rc@0,0")
    assert queries.unseen_counts(board, None, iter(parse_tiles("Rs")))[1] == 2


# ------------------------------------------------------------- the area's edge
def test_no_legal_plane_beyond_the_edge() -> None:
    board = Board(f"Rc@{COORD_MAX},0 Rs@{COORD_MAX},1")
    planes = queries.position_planes(board, 8, origin=(COORD_MAX - 3, -3))
    rows = np.flatnonzero(planes.planes[PLANE_LEGAL:].any(axis=(0, 2))) + planes.origin[0]
    assert rows.max() == COORD_MAX == board.legal_tile_masks().coords[:, 0].max()


def test_risk_counts_no_slot_beyond_the_edge() -> None:
    board = Board(" ".join(f"R{s}@{COORD_MAX - 4 + i},0" for i, s in enumerate("csdlx")))
    risk = queries.move_risk(board, parse_tiles("Yc"))
    assert len(risk.moves)
    for i, move in enumerate(risk.moves):
        after = board.copy()
        after.push(move)
        assert risk.open_after[i] == int((queries.qwirkle_slots(after).unseen != 0).sum()), move


# ------------------------------------------------------------- the score limit
def _near_the_limit(points_left: int) -> Game:
    fields = _opened(3).to_string().split("|")
    fields[3] = f"0,{MAX_SCORE - points_left}"
    return Game.from_string("|".join(fields))


def test_a_turn_that_stays_under_the_limit_is_played() -> None:
    # The bonus was counted for every placement, though none goes out with tiles in the bag.
    game = _near_the_limit(8)
    assert game.bag_size
    move = game.legal_moves().sorted()[0]
    assert move.score + 6 > 8 >= move.score
    assert game.push(move).move == move


def test_near_the_limit_every_listed_action_is_played() -> None:
    game = _near_the_limit(3)
    moves = game.legal_moves()
    assert len(moves) and int(moves.scores.max()) <= 3
    for action in game.legal_actions():
        game.copy().push(action)


# ------------------------------------------------------------- positions
def test_a_game_in_play_is_not_over() -> None:
    fields = Game(2, 1).to_string().split("|")
    fields[5] = "e"  # was taken as a dead board, with 96 tiles in the bag and nothing placed
    with pytest.raises(InvalidPositionError, match="a tile can still be placed"):
        Game.from_string("|".join(fields))


def test_a_seed_is_read_once() -> None:
    class Shifty(int):  # its value is checked, its __int__ and __index__ were dealt from
        def __int__(self) -> int:
            return 2**70

        def __index__(self) -> int:
            return 2**70

    assert Game(2, seed=Shifty(3)) == Game(2, seed=3)


# ------------------------------------------------------------- small contracts
def test_the_last_turn_of_a_new_game_is_nothing_to_undo() -> None:
    with pytest.raises(NothingToUndoError):
        _ = Game(2, 1).last_turn


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_every_pickle_protocol(protocol: int) -> None:
    game = _opened(5)
    moves = game.legal_moves()
    board = pickle.loads(pickle.dumps(game.board, protocol))
    assert board == game.board
    assert pickle.loads(pickle.dumps(game, protocol)) == game
    table = pickle.loads(pickle.dumps(moves, protocol)).table
    assert (table == moves.table).all()
    board.push(MoveList(table)[0])
    board.pop()


def test_numpy_integers_name_kinds_and_seats() -> None:
    assert Tile.from_kind(np.int32(1)) == Tile.from_kind(1)
    game = Game(2, 1)
    assert game.hand(np.int64(1)) == game.hand(1)
    assert game.unseen_tiles(np.int8(0)) == game.unseen_tiles(0)


def test_leading_zeros_are_no_digits() -> None:
    assert Board("Rc@00000000001,0") == Board("Rc@1,0")


def test_tiles_order_every_way_and_a_move_is_a_set() -> None:
    low, high = Tile(0, 0), Tile(0, 1)
    assert low <= high and high >= low and high > low and not low >= high
    assert Move.from_text("Rc@0,0 Rs@0,0") == Move.from_text("Rs@0,0 Rc@0,0")


# ------------------------------------------------------------------ the playing area's edge
def test_the_bots_play_inside_the_playing_area_and_games_end_there() -> None:
    """The kernel bots chose moves with a tile beyond the edge (``Move`` then refused
    them: seed 0, turns 1, 9, 16 and 17, moved against the bottom edge), and the rule
    that a pass needs no placement counted such moves.  Positions of a game moved
    against the edge, each played to its end by the bots through ``Game.push``."""
    from qwirkle_core.bots import make_bot

    game = Game(2, seed=0)
    greedy = [make_bot("greedy", seed=0, seat=s) for s in range(2)]
    for turn in range(24):
        placements = game.board.placements()
        if placements and turn in (1, 9, 16, 17, 23):
            down = COORD_MAX - max(r for r, _, _ in placements)
            board = Board.from_placements([(r + down, c, t) for r, c, t in placements])
            far = Game.from_position(board, game.hands, game.bag, game.scores, game.to_move)
            for name in ("greedy", "heuristic", "random"):
                action = make_bot(name, seed=turn, seat=far.to_move).choose(far)
                assert action in far.legal_actions(), (turn, name)
            bots = [make_bot("greedy", seed=turn, seat=s) for s in range(2)]
            while not far.is_over:
                far.push(bots[far.to_move].choose(far))
            assert all(abs(r) <= COORD_MAX and abs(c) <= COORD_MAX for r, c, _ in far.board.placements())
        game.push(greedy[game.to_move].choose(game))


def test_the_kinds_that_fit_somewhere_leave_out_cells_beyond_the_edge() -> None:
    """Whether anyone can place again (a blocked or dead game) is asked of the kinds
    that fit some cell alone: near the edge, only cells inside the playing area count,
    as ``legal_tile_masks`` lists them (for boards moved against each edge, the cells
    beyond it changed the answer on a quarter of them)."""
    from qwirkle_core import _frontier
    from qwirkle_core.bots import make_bot

    changed = 0
    for seed in range(4):
        game = Game(2, seed=seed)
        bots = [make_bot("greedy", seed=seed, seat=s) for s in range(2)]
        for turn in range(30):
            if game.is_over:
                break
            placements = game.board.placements()
            if placements and turn % 3 == 0:
                rows = [r for r, _, _ in placements]
                cols = [c for _, c, _ in placements]
                for down, side in ((COORD_MAX - max(rows), 0), (0, -COORD_MAX - min(cols))):
                    far = Board.from_placements([(r + down, c + side, t) for r, c, t in placements])
                    listed = 0
                    for mask in far.legal_tile_masks().masks.tolist():
                        listed |= int(mask)
                    assert int(_frontier.fitting_kinds(far._st)) == listed
                    everywhere = 0
                    for mask in _frontier.cell_masks(far._st)[1].tolist():
                        everywhere |= int(mask)
                    changed += everywhere != listed
            game.push(bots[game.to_move].choose(game))
    assert changed > 0  # the edge mattered on some board
