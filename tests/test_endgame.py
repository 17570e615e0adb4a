"""The endgame solver (qwirkle_core.analysis.endgame) against its naive twin
(tests/naive_endgame.py: plain minimax over tests/naive.py), and through Game.push.

Positions are real games: seeded self-play (greedy until the bag is empty, then the
seeded random bot) played on until the hands hold few enough tiles for the naive
minimax, so every position is one a game reaches."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterator

import numba
import numpy as np
import pytest

from qwirkle_core import Tile, _layout, _movegen, _state
from qwirkle_core.analysis import _endgame_kernels as K
from qwirkle_core.analysis import endgame as E
from qwirkle_core.analysis.endgame import EndgameResult, solve_endgame
from qwirkle_core.board import Board
from qwirkle_core.bots import make_bot
from qwirkle_core.errors import QwirkleError
from qwirkle_core.game import Action, Game
from tests import golden_endgames as golden
from tests.games import as_naive, hand_as_naive, small_endgame
from tests.games import greedy_until_bag_empty as bag_empty
from tests.naive_endgame import naive_endgame_value, naive_endgame_values

# With the JIT off (the coverage run) the kernels run as plain Python, thousands of
# times slower: the naive comparison takes fewer seeds and the full-hand solves
# (millions of positions) are left to the compiled runs.
JIT_OFF = bool(numba.config.DISABLE_JIT)
# Bounds-checked, every access is checked whatever the position: a third of the
# endgames meets every kind of access the rest do, at a third of the time.
BOUNDS = bool(numba.config.BOUNDSCHECK)
compiled_only = pytest.mark.skipif(JIT_OFF, reason="millions of positions: compiled runs only")
# The kernels' helpers are called from the wrappers below with the argument types the
# search gives them where the tests can (np.int64 where it passes a variable, not a
# constant, which numba would compile a helper again for): each extra signature
# compiled costs the compiled runs about a second.
I64 = np.int64


def spread_of(game: Game, player: int) -> int:
    return game.scores[player] - game.scores[1 - player]


def replay(game: Game, pv: list[Action]) -> Game:
    """The principal variation pushed through Game.push on a copy (each must be legal)."""
    play = game.copy()
    for i, action in enumerate(pv):
        assert not play.is_over, f"the game ended before action {i} of the PV"
        play.push(action)
    assert play.is_over, "the PV does not end the game"
    return play


NaiveValues = dict[frozenset[tuple[int, int, int, int]], int]
# The naive minimax's answers by position (board, the mover's hand, the other's): read
# from tests/data/golden_endgames.txt.gz (the naive minimax's own answers, written once by
# it: tests/golden_endgames.py), and kept for the positions asked for again (a position
# after a reply, once for each beta); a naive solve of six tiles takes seconds.
_naive_answers = golden.read_golden()


def naive_values(game: Game) -> NaiveValues:
    """Every move of the player to move with its exact value, by the naive minimax (a
    fresh dict: callers may change it)."""
    mover = game.to_move
    hands = (hand_as_naive(game.hand(mover)), hand_as_naive(game.hand(1 - mover)))
    board = as_naive(game.board)
    key = golden.position_key(board, hands)
    if key not in _naive_answers:
        _naive_answers[key] = golden.solve_naively(board, hands)
    return dict(_naive_answers[key])


def as_naive_move(action: Action) -> frozenset[tuple[int, int, int, int]]:
    assert action.move is not None
    return frozenset((r, c, t.color, t.shape) for r, c, t in action.move.placements)


# Seeds 0..239 (0..79 bounds-checked), the hands cut to 2, 3 or 4 tiles in all (by play): 240 small endgames,
# of which the ones whose game ended first are skipped (counted below).
SEEDS = range(12) if JIT_OFF else range(80) if BOUNDS else range(240)
CHUNKS = [list(SEEDS[i : i + 40]) for i in range(0, len(SEEDS), 40)]  # one chunk with the JIT off
_seen: Counter[str] = Counter()


@pytest.mark.parametrize("seeds", CHUNKS, ids=[f"seeds{c[0]}-{c[-1]}" for c in CHUNKS])
def test_spread_and_action_agree_with_naive_minimax(seeds: list[int]) -> None:
    solved = 0
    for seed in seeds:
        game = small_endgame(seed, 2 + seed % 3)
        if game is None:
            continue
        mover = game.to_move
        result = solve_endgame(game)
        values = naive_values(game)
        if values:
            best = max(values.values())
            assert result.spread == spread_of(game, mover) + best, (seed, game.to_string())
            assert result.action.kind == Action.PLACE
            assert values[as_naive_move(result.action)] == best, (seed, game.to_string())
        else:
            # No placement: a pass; the value is then the other's, negated, which the
            # replay below checks through Game.
            assert result.action == Action.pass_turn()
            _seen["pass at the root"] += 1
        assert result.exact
        assert result.nodes >= 1
        assert result.action == result.pv[0]
        end = replay(game, result.pv)
        assert spread_of(end, mover) == result.spread, (seed, game.to_string())
        _seen["went out" if end.went_out is not None else "blocked"] += 1
        if any(a.kind == Action.PASS for a in result.pv):
            _seen["pass in the PV"] += 1
        if any(max(Counter(t.kind for t in h).values()) > 1 for h in game.hands):
            _seen["a hand with two copies"] += 1
        solved += 1
    assert solved >= len(seeds) // 2  # not vacuous: most seeds give a position


@pytest.mark.skipif(bool(golden.RECORD), reason="tests/make_golden_endgames.py is writing the file anew")
def test_the_golden_endgames_are_there() -> None:
    """tests/data/golden_endgames.txt.gz is there and holds hundreds of positions (a
    test that asks about a position it lacks still passes, solving it naively, only
    slower: after such a change, tests/make_golden_endgames.py writes it anew)."""
    golden_answers = golden.read_golden()
    assert len(golden_answers) >= 800
    assert sum(len(values) for values in golden_answers.values()) >= 10_000


@pytest.mark.reference
def test_golden_endgame_lines_are_the_naive_minimax_s() -> None:
    """Sixty lines of the file, spread over it, solved again by the naive minimax: a
    stale or hand-edited file shows up.  (The reference's own test: no kernel; the
    JIT-on run and everyday runs have it, the bounds-checked and JIT-off runs leave
    it out.)"""
    lines = sorted(golden.read_golden().items())
    sampled = min(60, len(lines))
    for i in range(sampled):
        key, values = lines[i * len(lines) // sampled]
        board, hands = golden.board_and_hands(key)
        assert naive_endgame_values(board, hands, 0) == values, key


def test_the_sample_covers_the_cases() -> None:
    """The positions above include games that end by going out, and hands with two
    copies of a kind (run after them; alone it plays its own)."""
    if not _seen:
        for seed in SEEDS[:80]:
            game = small_endgame(seed, 2 + seed % 3)
            if game is None:
                continue
            end = replay(game, solve_endgame(game).pv)
            _seen["went out" if end.went_out is not None else "blocked"] += 1
            if any(max(Counter(t.kind for t in h).values()) > 1 for h in game.hands):
                _seen["a hand with two copies"] += 1
    # (Blocked ends are rare this late: test_blocked_at_the_root_... builds one.)
    assert _seen["went out"] > 0 and _seen["a hand with two copies"] > 0, _seen


@compiled_only
@pytest.mark.parametrize("seed", range(4) if BOUNDS else range(8))
def test_full_hands_replay_and_table_changes_nothing(seed: int) -> None:
    """The position where the bag first empties (hands up to 6 and 6): the PV replays
    to the spread, and a search without the transposition table finds the same spread
    (its own PV replays too).  Too large for the naive twin."""
    game = bag_empty(seed)
    if game.is_over:
        pytest.skip("this game ended before its bag emptied")
    with_table = E._solve(game, None, use_tt=True)
    small = small_endgame(seed, 4)
    assert spread_of(replay(game, with_table.pv), game.to_move) == with_table.spread
    if small is not None:
        without = E._solve(small, None, use_tt=False)
        assert without.spread == solve_endgame(small).spread
        assert spread_of(replay(small, without.pv), small.to_move) == without.spread


@compiled_only
@pytest.mark.parametrize("seed", range(40, 60))
def test_table_off_agrees_on_mid_sized_endgames(seed: int) -> None:
    game = small_endgame(seed, 7)
    if game is None:
        pytest.skip("the game ended first")
    with_table = E._solve(game, None, use_tt=True)
    without = E._solve(game, None, use_tt=False)
    assert with_table.spread == without.spread
    assert with_table.exact and without.exact


def blocked_position() -> Game:
    """A game that ended blocked, set up again with the same board, hands and scores:
    not over as a Game, but neither player can place.  (Seed 390 is the first such game,
    searched from 0: the search starts there, or the JIT-off run spends a minute on it.)"""
    for seed in range(390, 800):
        game = small_endgame(seed, 12)
        if game is None:
            continue
        bots = [make_bot("greedy", seed=seed, seat=s) for s in range(2)]
        while not game.is_over:
            game.push(bots[game.to_move].choose(game))
        if game.end == "blocked":
            return Game.from_position(game.board, game.hands, [], game.scores, game.to_move)
    raise AssertionError("no blocked game in seeds 390..799")


def test_blocked_at_the_root_is_a_pass_that_ends_the_game() -> None:
    game = blocked_position()
    assert not game.is_over and not game.legal_moves()
    result = solve_endgame(game)
    assert result.action == Action.pass_turn() and result.pv == [Action.pass_turn()]
    assert result.spread == spread_of(game, game.to_move)
    end = replay(game, result.pv)
    assert end.end == "blocked"


@compiled_only
def test_a_pass_at_the_root_when_the_other_can_place() -> None:
    """Positions where the player to move cannot place but the other can: the solver
    passes, and its value is the other's position's, negated."""
    found = 0
    for seed in range(300):
        game = bag_empty(seed)
        bots = [make_bot("random", seed=seed, seat=s) for s in range(2)]
        while not game.is_over and game.legal_moves():
            game.push(bots[game.to_move].choose(game))
        if game.is_over:
            continue
        result = solve_endgame(game)
        assert result.action == Action.pass_turn()
        after = game.copy()
        after.push(Action.pass_turn())
        assert not after.is_over
        assert -solve_endgame(after).spread == result.spread
        assert spread_of(replay(game, result.pv), game.to_move) == result.spread
        found += 1
        if found == 3:
            break
    assert found > 0, "no position without a placement in 300 seeds"


# ------------------------------------------------------------------ refusals
def test_refuses_what_is_not_a_two_player_endgame() -> None:
    with pytest.raises(QwirkleError, match="takes a Game"):
        solve_endgame("not a game")  # type: ignore[arg-type]
    with pytest.raises(QwirkleError, match="two players"):
        solve_endgame(bag_empty(1, players=3))
    with pytest.raises(QwirkleError, match="bag holds"):
        game = Game(players=2, seed=1)
        game.push(game.legal_actions()[0])
        solve_endgame(game)
    with pytest.raises(QwirkleError, match="over"):
        game = bag_empty(2)
        bots = [make_bot("greedy", seed=2, seat=s) for s in range(2)]
        while not game.is_over:
            game.push(bots[game.to_move].choose(game))
        solve_endgame(game)


def test_refuses_the_empty_board_even_with_an_empty_bag() -> None:
    """A game before its opening always has tiles in the bag; the guard holds anyway
    (a Game with an empty board and an empty bag cannot be built, so the check is
    called directly on the parts it reads)."""
    game = Game(players=2, seed=3)
    with pytest.raises(QwirkleError, match="bag holds|not opened"):
        solve_endgame(game)

    class Opening(Game):
        @property
        def bag_size(self) -> int:
            return 0

    fake = Opening.__new__(Opening)
    fake.__dict__.update(game.__dict__)
    with pytest.raises(QwirkleError, match="not opened"):
        solve_endgame(fake)


@pytest.mark.parametrize(
    "bad",
    [0, -1, 0.0, -0.5, math.nan, math.inf, -math.inf, "1", True, [1.0], 10**400,
     np.bool_(True), np.float64(math.nan), np.float32(math.inf), np.int64(0)],
)
def test_refuses_a_bad_time_limit(bad: object) -> None:
    game = small_endgame(0, 4)
    assert game is not None
    with pytest.raises(QwirkleError, match="time_limit"):
        solve_endgame(game, time_limit=bad)  # type: ignore[arg-type]


# ------------------------------------------------------------- the time limit
def test_a_tiny_time_limit_gives_a_legal_inexact_answer() -> None:
    cut = 0
    for seed in range(6):
        game = bag_empty(seed)
        if game.is_over:
            continue
        result = solve_endgame(game, time_limit=1e-6)
        assert isinstance(result, EndgameResult)
        assert result.action in game.legal_actions()
        assert result.action == result.pv[0]
        assert spread_of(replay(game, result.pv), game.to_move) == result.spread
        if not result.exact:
            cut += 1
    assert cut > 0, "every full-hand endgame solved within a microsecond"


def test_a_generous_time_limit_is_exact_and_agrees() -> None:
    for seed in (0, 1, 2):
        game = small_endgame(seed, 5)
        assert game is not None
        timed = solve_endgame(game, time_limit=600.0)
        assert timed.exact
        assert timed.spread == solve_endgame(game).spread
        # Numpy seconds are seconds too (as numpy counts are counts).
        assert solve_endgame(game, time_limit=np.float32(600.0)).spread == timed.spread
        assert solve_endgame(game, time_limit=np.int64(600)).spread == timed.spread
        assert spread_of(replay(game, timed.pv), game.to_move) == timed.spread


def test_a_time_limit_in_between_deepens_and_stays_legal() -> None:
    game = bag_empty(3)
    result = solve_endgame(game, time_limit=0.05)
    assert result.action in game.legal_actions()
    assert spread_of(replay(game, result.pv), game.to_move) == result.spread


# --------------------------------------------------------- the board's window
def margins(st: np.ndarray) -> int:
    r0, r1, c0, c1 = (int(st[s]) for s in (_state.S_R0, _state.S_R1, _state.S_C0, _state.S_C1))
    return min(r0, c0, int(st[_state.S_HEIGHT]) - r1, int(st[_state.S_WIDTH]) - c1)


def test_padded_state_leaves_room_for_every_tile_left() -> None:
    """The search never regrows the window: it starts from a state with MARGIN cells
    plus one per tile left in the hands.  Most real endgames need the padding (the
    game's own window keeps only MARGIN), and the padded board is the same board."""
    padded = 0
    for seed in range(10 if JIT_OFF else 30):
        game = bag_empty(seed)
        if game.is_over:
            continue
        st = game.board.state_arrays()[0]
        tiles = sum(len(h) for h in game.hands)
        grown = E.padded_state(st, tiles)
        assert margins(grown) >= _state.MARGIN + tiles
        assert sorted(map(tuple, _state.tiles_of(grown).tolist())) == sorted(map(tuple, _state.tiles_of(st).tolist()))
        padded += margins(st) < _state.MARGIN + tiles
    assert padded > 0


def test_scratch_smaller_than_the_tables_is_asked_to_grow() -> None:
    """The search's scratch (new_search_work) sized for fewer move-table rows than the
    tables hold: the search writes nothing past it, answers S_NEED_CAPACITY with the
    tables' rows, and leaves the board as it was; the scratch made for those rows
    solves it."""
    game = small_endgame(0, 4)
    assert game is not None
    pos = E._Position(game)
    scratch = E._Scratch()
    before = pos.st.copy()
    for work, status in ((K.new_search_work(scratch.capacity // 2), K.S_NEED_CAPACITY), (scratch.work, K.OK)):
        stats = np.zeros(K.N_STATS, np.int64)
        stats[K.S_LIMIT] = E.UNLIMITED
        scratch.log[0] = 0
        value = int(K.search(
            pos.st, pos.counts, pos.masks, pos.sizes, scratch.tables, scratch.order, scratch.log, scratch.tt, True,
            stats, K.MAX_PLY, -K.INFINITY, K.INFINITY, 0, 11, np.zeros(_layout.OUT_COLS, np.int32), True,
            pos.free_kinds, 5, work,
        ))
        assert stats[K.S_STATUS] == status
        if status == K.S_NEED_CAPACITY:
            assert stats[K.S_NEED] == scratch.capacity
        assert np.array_equal(pos.st, before)
    assert value == solve_endgame(game).spread - pos.base


def test_without_the_padding_the_kernel_stops_instead_of_regrowing() -> None:
    """On a board whose window is tight, the search on the game's own state reaches a
    placement that needs a larger window and says so (S_BROKEN), leaving the board as
    it was; the solver's padded state answers, and agrees with the naive twin."""
    for seed in range(60):
        game = small_endgame(seed, 4)
        if game is None:
            continue
        st = game.board.state_arrays()[0].copy()
        pos = E._Position(game)
        scratch = E._Scratch()
        stats = np.zeros(K.N_STATS, np.int64)
        stats[K.S_LIMIT] = E.UNLIMITED
        before = st.copy()
        K.search(
            st, pos.counts, pos.masks, pos.sizes, scratch.tables, scratch.order, scratch.log, scratch.tt, True,
            stats, K.MAX_PLY, -K.INFINITY, K.INFINITY, 0, 7, np.zeros(20, np.int32), True, pos.free_kinds, 3,
            scratch.work,
        )
        if stats[K.S_STATUS] != K.S_BROKEN:
            continue
        assert np.array_equal(st, before)
        values = naive_values(game)
        assert solve_endgame(game).spread == spread_of(game, game.to_move) + max(values.values())
        return
    raise AssertionError("no tight window in 60 endgames: the test shows nothing")


def test_a_position_near_any_offset_solves_the_same() -> None:
    """The same endgame translated far away (Game.from_position) has the same spread."""
    game = small_endgame(5, 4)
    assert game is not None
    far = Board.from_placements([(r + 1_000_000, c - 2_000_000, t) for r, c, t in game.board.placements()])
    moved = Game.from_position(far, game.hands, [], game.scores, game.to_move)
    assert solve_endgame(moved).spread == solve_endgame(game).spread


# The playing area, as docs/rules.md states it: |row|, |col| <= 2**30 - 8.
PLAYING_AREA = 2**30 - 8


def against_the_edge(game: Game, corner: tuple[int, int]) -> Game:
    """``game``'s position moved so that its tiles touch the playing area's edge (the
    bottom edge for corner (1, 0), the left for (0, -1), both for (1, -1))."""
    placements = game.board.placements()
    down = PLAYING_AREA - max(r for r, _, _ in placements) if corner[0] else 0
    side = -PLAYING_AREA - min(c for _, c, _ in placements) if corner[1] else 0
    board = Board.from_placements([(r + down, c + side, t) for r, c, t in placements])
    return Game.from_position(board, game.hands, [], game.scores, game.to_move)


@pytest.mark.parametrize("seed", [71] if JIT_OFF else [71, 33, 5, 12, 40, 58])
def test_endgames_against_the_playing_area_s_edge_agree_with_naive_minimax(seed: int) -> None:
    """A move with a tile beyond the playing area's edge is not legal: not for the
    player to move, nor as a reply the solver fears, nor to decide whether a side must
    pass.  The solver counted them (seed 71's corner spread was 26 where 27 is best;
    seed 33's principal variation played a tile beyond the edge)."""
    tiles = 4 if seed in (71, 5, 12) else 3
    game = small_endgame(seed, tiles)
    assert game is not None
    mover = game.to_move
    for corner in ((1, 0), (0, -1), (1, -1)):
        far = against_the_edge(game, corner)
        result = solve_endgame(far)
        hands = (hand_as_naive(far.hand(mover)), hand_as_naive(far.hand(1 - mover)))
        best = naive_endgame_value(as_naive(far.board), hands, 0, PLAYING_AREA)
        assert result.exact and result.spread == spread_of(far, mover) + best, (seed, corner)
        assert spread_of(replay(far, result.pv), mover) == result.spread


def test_the_edge_changes_the_value_of_some_endgame() -> None:
    """The test above shows something: seed 71's endgame is worth less against the
    bottom edge than far from it (its best move there has no room)."""
    game = small_endgame(71, 4)
    assert game is not None
    far = against_the_edge(game, (1, 0))
    assert solve_endgame(far).spread != solve_endgame(game).spread


def test_many_solves_in_a_row_reuse_the_scratch() -> None:
    """The per-thread buffers (undo log, tables, transposition table) serve solve after
    solve: the same position gives the same answer every time."""
    game = small_endgame(8, 3 if JIT_OFF else 6)  # (6 tiles left: 5 s a solve with the JIT off)
    assert game is not None
    first = solve_endgame(game)
    for _ in range(3 if JIT_OFF else 200):
        again = solve_endgame(game)
        assert (again.spread, again.pv) == (first.spread, first.pv)


# ------------------------------------------------- the bounds that skip moves unsearched
@compiled_only
@pytest.mark.parametrize("seed", [1, 14] if BOUNDS else [1, 9, 12, 14, 19])
def test_the_bounds_change_no_value(seed: int) -> None:
    """The opponent's going-out threats and its replies to a move that leaves one tile
    skip moves unsearched; without them the search finds the same spread on the whole
    endgame (hands up to 6 and 6), and the bounds do skip: fewer positions."""
    game = bag_empty(seed)
    if game.is_over:
        pytest.skip("this game ended before its bag emptied")
    with_bounds = solve_endgame(game)
    without = E._solve(game, None, use_tt=True, use_bounds=False)
    assert with_bounds.spread == without.spread
    assert with_bounds.nodes < without.nodes
    assert spread_of(replay(game, with_bounds.pv), game.to_move) == with_bounds.spread


# Endgames of five tiles (3 and 2) whose naive solve takes under a second (the naive twin
# takes up to 20 s on others).
FIVE_TILE_SEEDS = [305, 311, 312] if BOUNDS else [305, 311, 312, 315, 317, 318]


@compiled_only
@pytest.mark.parametrize("seed", FIVE_TILE_SEEDS)
def test_spread_agrees_with_naive_minimax_on_five_tiles(seed: int) -> None:
    """Endgames of five tiles, two or more in each hand, where the replies' bound
    applies (a move that leaves one tile, answered by one that does not go out): the
    naive twin's value and best move."""
    game = small_endgame(seed, 5)
    assert game is not None and sorted(len(h) for h in game.hands) == [2, 3]
    values = naive_values(game)
    result = solve_endgame(game)
    best = max(values.values())
    assert result.spread == spread_of(game, game.to_move) + best, (seed, game.to_string())
    assert values[as_naive_move(result.action)] == best, (seed, game.to_string())


def test_a_kind_that_completes_a_line_of_five_may_make_six() -> None:
    """Five red tiles in a row with both ends open: the sixth red may complete a line of
    six (not free); a tile that no six cells can hold with tiles of one colour or one
    shape from the board and the hands is free."""
    board = Board.from_placements([(0, c, Tile(0, c)) for c in range(5)])
    sixth, lonely = Tile(0, 5), Tile(3, 3)
    counts = np.zeros((2, 36), np.int64)
    for side, hand in enumerate([[sixth, lonely], [Tile(4, 1), Tile(5, 2)]]):
        for tile in hand:
            counts[side, tile.kind] += 1
    st = E.padded_state(board.state_arrays()[0], int(counts.sum()))
    free = int(K.qwirkle_free_kinds(st, counts))
    assert not (free >> sixth.kind) & 1
    assert (free >> lonely.kind) & 1


def test_no_line_of_six_holds_a_kind_called_free() -> None:
    """qwirkle_free_kinds is a promise about every continuation: play endgames out
    (greedy, which makes lines of six where it can, and random) and check that no line
    of six made by a placement holds a tile of a kind called free at the start."""
    made = 0
    called_free = 0
    for seed in range(6 if JIT_OFF else 40):
        start = bag_empty(seed)
        if start.is_over:
            continue
        free = E._Position(start).free_kinds
        called_free += free.bit_count()
        for trial, name in enumerate(["greedy", "random"] if JIT_OFF else ["greedy", "random", "random"]):
            game = start.copy()
            bots = [make_bot(name, seed=seed * 10 + trial, seat=s) for s in range(2)]
            while not game.is_over:
                action = game.push(bots[game.to_move].choose(game))
                if action.move is None:
                    continue
                for row, col, tile in action.move.placements:
                    for dr, dc in ((0, 1), (1, 0)):
                        length = 1
                        for sign in (1, -1):
                            r, c = row + sign * dr, col + sign * dc
                            while game.board.tile_at(r, c) is not None:
                                length += 1
                                r, c = r + sign * dr, c + sign * dc
                        if length == 6:
                            made += 1
                            assert not (free >> tile.kind) & 1, (seed, trial, tile, start.to_string())
    assert called_free > 0, "no kind was ever called free: the test shows nothing"
    assert made > 0, "no line of six was made: the test shows nothing"


@numba.njit
def _order_first(
    st: np.ndarray, table: np.ndarray, rows: np.ndarray, n: int, hand_size: int, tt_move: int, killers: np.ndarray, ply: int,
) -> int:
    return K.order_first(st, table, rows, n, hand_size, tt_move, killers, ply)  # type: ignore[no-any-return]


@numba.njit
def _pick(table: np.ndarray, rows: np.ndarray, at: int, n: int, hand_size: int) -> int:
    return K.pick(table, rows, at, n, hand_size)  # type: ignore[no-any-return]


@numba.njit
def _row_keys(st: np.ndarray, table: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    move_keys = np.zeros(n, np.int64)
    order_keys = np.zeros(n, np.int64)
    for r in range(n):
        move_keys[r] = K.move_key(st, table, r)
        order_keys[r] = K.order_key(table, r)
    return move_keys, order_keys


def test_moves_are_tried_table_move_first_then_best_then_killers() -> None:
    """order_first: the transposition table's move, then (only when a killer of the ply
    is among the moves) the first in the selection's order (by score, the going-out
    bonus and four points a tile placed; of equal ones, the move of more tiles) and
    the killers; the rest left to selection, and every row once.  And the selection
    itself takes every row once, in that order."""
    game = bag_empty(1)
    pos = E._Position(game)
    side = 0
    table = np.zeros((4096, _layout.OUT_COLS), np.int32)
    n = int(_movegen.generate(pos.st, table, int(pos.masks[side]), _movegen.MODE_ALL))
    assert n > 20
    move_keys, order_keys = _row_keys(pos.st, table, n)
    assert len(set(order_keys.tolist())) == n, "two moves of one position share their order key"
    size = int(pos.sizes[side])

    def value(r: int) -> tuple[int, int]:  # what the selection orders by
        tiles = int(table[r, _layout.COL_N])
        return int(table[r, _layout.COL_SCORE]) + (6 if tiles == size else 0) + 4 * tiles, tiles

    by_value = sorted(range(n), key=value)
    quiet_a, quiet_b = by_value[0], by_value[1]  # killers are the moves the selection puts last
    tt_row = by_value[n // 2]
    killers = np.zeros((K.MAX_PLY + 1, K.N_KILLERS), np.int64)
    killers[3] = order_keys[quiet_a], order_keys[quiet_b]

    rows = np.arange(table.shape[0], dtype=np.int32)
    assert _order_first(pos.st, table, rows, n, size, move_keys[tt_row], killers, 3) == 4
    assert sorted(rows[:n].tolist()) == list(range(n))
    assert rows[0] == tt_row
    assert value(int(rows[1])) == max(value(r) for r in range(n) if r != tt_row)
    assert rows[2:4].tolist() == [quiet_a, quiet_b]

    # No killer at this ply: the table's move alone, the rest as they were.
    rows = np.arange(table.shape[0], dtype=np.int32)
    assert _order_first(pos.st, table, rows, n, size, move_keys[tt_row], killers, 4) == 1
    expected = list(range(n))
    expected[0], expected[tt_row] = tt_row, 0
    assert rows[:n].tolist() == expected

    # No table move: the first pick, then the killers.
    rows = np.arange(table.shape[0], dtype=np.int32)
    assert _order_first(pos.st, table, rows, n, size, 0, killers, 3) == 3
    assert value(int(rows[0])) == max(value(r) for r in range(n))
    assert rows[1:3].tolist() == [quiet_a, quiet_b]

    # A killer that is the table's move, or the first pick, is not put twice.
    killers[5] = order_keys[tt_row], order_keys[quiet_a]
    rows = np.arange(table.shape[0], dtype=np.int32)
    assert _order_first(pos.st, table, rows, n, size, move_keys[tt_row], killers, 5) == 3
    assert rows[0] == tt_row and rows[2] == quiet_a
    top = min(r for r in range(n) if value(r) == max(value(q) for q in range(n)))  # selection takes the first best
    killers[6] = order_keys[top], order_keys[quiet_b]
    rows = np.arange(table.shape[0], dtype=np.int32)
    assert _order_first(pos.st, table, rows, n, size, 0, killers, 6) == 2
    assert rows[:2].tolist() == [top, quiet_b]
    assert sorted(rows[:n].tolist()) == list(range(n))

    # Only the older killer among the moves; and a table of one move is left alone.
    killers[7] = (1 << 60) | 1, order_keys[quiet_b]
    rows = np.arange(table.shape[0], dtype=np.int32)
    assert _order_first(pos.st, table, rows, n, size, 0, killers, 7) == 2
    assert rows[1] == quiet_b
    rows = np.arange(table.shape[0], dtype=np.int32)
    assert _order_first(pos.st, table, rows, 1, size, move_keys[0], killers, 7) == 0
    assert rows[0] == 0

    rows = np.arange(table.shape[0], dtype=np.int32)
    picked = [_pick(table, rows, at, n, size) for at in range(n)]
    assert sorted(picked) == list(range(n)) and rows[:n].tolist() == picked
    assert [value(r) for r in picked] == sorted((value(r) for r in range(n)), reverse=True)
    # The test can tell: score order (the bonus counted) puts some pair the other way
    # round, and a selection of the same sums that ignored the tiles would not take
    # the rows in this order.
    def by_score(r: int) -> int:
        return int(table[r, _layout.COL_SCORE]) + (6 if table[r, _layout.COL_N] == size else 0)

    assert any(by_score(a) > by_score(b) and value(a) < value(b) for a in range(n) for b in range(n))
    untied = list(range(n))
    for at in range(n):  # pick's selection with the sums alone
        best_at = max(range(at, n), key=lambda i: (value(untied[i])[0], -i))
        untied[at], untied[best_at] = untied[best_at], untied[at]
    assert [value(r) for r in untied] != [value(r) for r in picked]


@numba.njit
def _prune(
    table: np.ndarray, rows: np.ndarray, at: int, end: int, hand_size: int, frame: np.ndarray, threats: np.ndarray,
    replies: np.ndarray, counts: np.ndarray, free_kinds: int, row_bounds: np.ndarray, hand_kinds: int = 3,
) -> int:
    # (No race bound: an opponent of no tiles has no reply that leaves it one.)
    return K.prune_unsearched(  # type: ignore[no-any-return]
        table, rows, at, end, hand_size, frame, threats, replies, counts, I64(0), I64(hand_kinds), free_kinds, row_bounds,
        np.zeros(1, np.int64), np.zeros(1, np.int64), table, I64(0), I64(0), I64(0),
        np.zeros((K.MAX_SPOTS, K.SP_COLS), np.int64), np.zeros((K.MAX_SPOTS, K.SP_COLS), np.int64), np.zeros(4, np.int64),
    )


def test_bulk_pruning_drops_what_the_bounds_skip_and_sorts_the_rest() -> None:
    """prune_unsearched drops from the rows not yet tried every move that does not go
    out and that the threats' bound (or, for a move that leaves one tile, the replies'
    bound) puts at or below alpha; a dropped move's bound joins the node's best where it
    beats it; the rest are left best first (by score, a move that goes out counting its
    bonus; equal ones in the order they had), each with the lower of its bounds kept for
    the loop, and the rows already tried are left alone."""
    game = bag_empty(1)
    pos = E._Position(game)
    table = np.zeros((4096, _layout.OUT_COLS), np.int32)
    n = int(_movegen.generate(pos.st, table, int(pos.masks[0]), _movegen.MODE_ALL))
    # A hand of two, as the pass sees it: its moves of two tiles go out (never dropped),
    # those of one leave one tile (the replies' bound applies to them).
    size = 2
    table = table[:n][table[:n, _layout.COL_N] <= size].copy()
    n = len(table)
    assert n > 20
    cells = [
        [(int(table[r, _layout.COL_ROWS + s]), int(table[r, _layout.COL_COLS + s])) for s in range(table[r, _layout.COL_N])]
        for r in range(n)
    ]
    # A threat on the cell of the first move's first tile and a reply on another move's:
    # a move sharing a row or a column with one touches it.
    t_cell = cells[0][0]
    r_cell = next(c[0] for c in cells if c[0][0] != t_cell[0] and c[0][1] != t_cell[1])
    threats = np.zeros((K.N_THREATS, K.TH_COLS), np.int64)
    threats[0, : K.TH_ROW] = 7, t_cell[0], t_cell[0], t_cell[1], t_cell[1]
    replies = np.zeros((K.N_THREATS, K.TH_COLS), np.int64)
    replies[0, : K.TH_ROW] = 30, r_cell[0], r_cell[0], r_cell[1], r_cell[1]
    alpha = -10
    free_kinds = -1  # every kind free: our last tile scores at most LAST_TILE_MAX

    def touches(r: int, cell: tuple[int, int]) -> bool:
        return any(row == cell[0] or col == cell[1] for row, col in cells[r])

    def bound(r: int) -> int | None:
        """The bound the loop would skip row r on, None where it would search it."""
        if table[r, _layout.COL_N] >= size:
            return None  # goes out
        score = int(table[r, _layout.COL_SCORE])
        if not touches(r, t_cell) and score - 7 - 6 <= alpha:
            return score - 7 - 6
        if not touches(r, r_cell) and score - (30 - 6 - K.LAST_TILE_MAX) <= alpha:
            return score - (30 - 6 - K.LAST_TILE_MAX)
        return None

    at = 2
    order = np.zeros(table.shape[0], np.int32)
    order[:n] = np.arange(n)[::-1]  # any order: it must be kept
    by_threat = [r for r in order[at:n].tolist() if not touches(r, t_cell) and bound(r) is not None]
    by_reply = [r for r in order[at:n].tolist() if touches(r, t_cell) and bound(r) is not None]
    going_out = [r for r in order[at:n].tolist() if table[r, _layout.COL_N] == size]
    assert by_threat and by_reply and going_out, "the position should test each case"
    def kept_bound(r: int) -> int:
        """What the loop reads for a row kept: the lower of the bounds that apply."""
        if table[r, _layout.COL_N] >= size:
            return K.INFINITY
        score = int(table[r, _layout.COL_SCORE])
        by_t = K.INFINITY if touches(r, t_cell) else score - 7 - 6
        by_r = K.INFINITY if touches(r, r_cell) else score - (30 - 6 - K.LAST_TILE_MAX)
        return min(by_t, by_r)

    def worth(r: int) -> int:
        return int(table[r, _layout.COL_SCORE]) + (6 if table[r, _layout.COL_N] == size else 0)

    dropped = [r for r in order[at:n].tolist() if bound(r) is not None]
    kept = sorted((r for r in order[at:n].tolist() if bound(r) is None), key=lambda r: -worth(r))  # (stable)
    assert len({worth(r) for r in kept}) < len(kept), "equal scores should test the order kept among them"
    best = max(bound(r) for r in dropped)  # type: ignore[type-var]
    for best_before in (-K.INFINITY, best - 1, best + 1):
        rows = order.copy()
        frame = np.zeros(K.N_FRAME, np.int64)
        frame[K.F_ALPHA] = alpha
        frame[K.F_BEST] = best_before
        frame[K.F_BEST_ROW] = -7
        frame[K.F_THREATS] = 1
        frame[K.F_REPLIES] = 1
        row_bounds = np.full(table.shape[0], 12345, np.int64)
        end = _prune(table, rows, at, n, size, frame, threats, replies, pos.counts, free_kinds, row_bounds)
        assert end == at + len(kept)
        assert rows[:at].tolist() == order[:at].tolist()
        assert rows[at:end].tolist() == kept
        # (No bound at all is INFINITY or more: a touched threat bounds a move by its score + INFINITY.)
        assert [min(int(row_bounds[r]), K.INFINITY) for r in kept] == [kept_bound(r) for r in kept]
        if best_before < best:
            assert frame[K.F_BEST] == best and bound(int(frame[K.F_BEST_ROW])) == best
        else:
            assert (frame[K.F_BEST], frame[K.F_BEST_ROW]) == (best_before, -7)


def test_bulk_pruning_bounds_a_hand_of_two_by_the_tile_each_move_leaves() -> None:
    """With a hand of two tiles of two kinds, a one-tile move leaves the other tile,
    and the replies' bound counts what that tile can score at most: LAST_TILE_MAX
    where it can never stand in a line of six (its bit in free_kinds), else
    LAST_TILE_MAX_SIX.  Here kind a is free and kind b is not, so a move of b (which
    leaves a) is bounded by 10 and a move of a (which leaves b) by 24."""
    game = bag_empty(1)
    pos = E._Position(game)
    table = move_table(pos.st, int(pos.masks[0]))
    singles = table[table[:, _layout.COL_N] == 1]
    kind_a, kind_b = sorted({int(k) for k in singles[:, _layout.COL_KINDS]})[:2]
    table = singles[np.isin(singles[:, _layout.COL_KINDS], (kind_a, kind_b))].copy()
    n = len(table)
    assert {int(k) for k in table[:, _layout.COL_KINDS]} == {kind_a, kind_b}
    counts = np.zeros_like(pos.counts)
    counts[0, kind_a] = counts[0, kind_b] = 1
    replies = np.zeros((K.N_THREATS, K.TH_COLS), np.int64)
    far = 10_000  # a reply no move touches
    replies[0, : K.TH_ROW] = 30, far, far, far, far
    frame = np.zeros(K.N_FRAME, np.int64)
    frame[K.F_ALPHA] = -K.INFINITY  # nothing dropped: every bound is kept
    frame[K.F_BEST] = -K.INFINITY
    frame[K.F_REPLIES] = 1
    rows = np.arange(n, dtype=np.int32)
    row_bounds = np.zeros(n, np.int64)
    free_kinds = ~(1 << kind_b)
    end = _prune(
        table, rows, 0, n, 2, frame, np.zeros_like(replies), replies, counts, free_kinds, row_bounds,
        (1 << kind_a) | (1 << kind_b),
    )
    assert end == n
    for r in range(n):
        most = K.LAST_TILE_MAX if table[r, _layout.COL_KINDS] == kind_b else K.LAST_TILE_MAX_SIX
        assert row_bounds[r] == table[r, _layout.COL_SCORE] - (30 - 6 - most), r


@numba.njit
def _race_bound(
    table: np.ndarray, r: int, counts: np.ndarray, free_kinds: int, replies: np.ndarray, k_replies: int,
    st: np.ndarray, log: np.ndarray, prev: np.ndarray, other_kinds: int, other_size: int,
) -> int:
    spots_0 = np.zeros((K.MAX_SPOTS, K.SP_COLS), np.int64)
    spots_1 = np.zeros((K.MAX_SPOTS, K.SP_COLS), np.int64)
    return _race_bound_kept(
        table, r, counts, free_kinds, replies, k_replies, st, log, prev, other_kinds, other_size,
        spots_0, spots_1, np.full(4, -1, np.int64),
    )


@numba.njit
def _race_bound_kept(
    table: np.ndarray, r: int, counts: np.ndarray, free_kinds: int, replies: np.ndarray, k_replies: int,
    st: np.ndarray, log: np.ndarray, prev: np.ndarray, other_kinds: int, other_size: int,
    spots_0: np.ndarray, spots_1: np.ndarray, race_kinds: np.ndarray,
) -> int:
    """race_bound with the spots found so far kept by the caller, as prune_unsearched keeps them."""
    hand_kinds = I64(0)
    for kind in range(36):
        if counts[1, kind] > 0:
            hand_kinds |= 1 << kind
    return K.race_bound(  # type: ignore[no-any-return]
        table, np.int32(r), counts, I64(1), hand_kinds, free_kinds, replies, k_replies, st, log, prev, len(prev), other_kinds,
        other_size, spots_0, spots_1, race_kinds,
    )


@numba.njit
def _race_replies(prev: np.ndarray, played: int, counts: np.ndarray, size: int, out: np.ndarray) -> int:
    return K.gather_moves(prev, len(prev), played, counts, I64(0), size, False, out)  # type: ignore[no-any-return]


def test_the_race_bound_never_bounds_a_move_below_its_value() -> None:
    """race_bound: after the opponent's move (side 0 here, its table ``prev`` made
    before it), each of our moves that leaves us two tiles that cannot share a line is
    worth at most its score less the bound, where the bound is finite: checked against
    the exact value of the move (the solver with the bounds off, itself checked against
    the naive minimax above).  The spots kept from one move to the next, as the pruning
    keeps them, give the same bounds; and the search with the bounds finds the value
    it finds without them."""
    bounded = 0
    # (Seeds 0-11 bound 3,782 moves, 0-39 12,521.)
    for seed in range(4 if JIT_OFF else 12 if BOUNDS else 40):
        for tiles in (6, 7):
            game = small_endgame(seed, tiles)
            if game is None or min(len(h) for h in game.hands) < 3:
                continue
            us = 1 - game.to_move
            pos = E._Position(game)  # side 0: the opponent, to move; side 1: us
            prev = move_table(pos.st, int(pos.masks[0]))
            for played in range(len(prev)):
                if not 2 <= len(game.hand(game.to_move)) - prev[played, _layout.COL_N] <= 3:
                    continue  # (a race needs the opponent to keep two tiles or three)
                st, log, counts = pos.st.copy(), _state.new_log(), pos.counts.copy()
                _state.push_legal(st, log, prev[played], int(prev[played, _layout.COL_SCORE]))
                for kind, n in kinds_placed(prev[played]).items():
                    counts[0, kind] -= n
                other_kinds = sum(1 << k for k in range(36) if counts[0, k] > 0)
                replies = np.zeros((K.N_THREATS, K.TH_COLS), np.int64)
                k_replies = _race_replies(prev, played, counts, int(counts[0].sum()), replies)
                after = game.copy()
                after.push(E._place_or_pass(prev[played]))
                ours = move_table(st, int(pos.masks[1]))
                kept_spots = (np.zeros((K.MAX_SPOTS, K.SP_COLS), np.int64), np.zeros((K.MAX_SPOTS, K.SP_COLS), np.int64))
                race_kinds = np.full(4, -1, np.int64)
                bounded_here = bounded
                for r in range(len(ours)):
                    if len(game.hand(us)) - ours[r, _layout.COL_N] != 2:
                        continue
                    bound = _race_bound(
                        ours, r, counts, pos.free_kinds, replies, k_replies, st, log, prev, other_kinds,
                        int(counts[0].sum()),
                    )
                    assert bound == _race_bound_kept(
                        ours, r, counts, pos.free_kinds, replies, k_replies, st, log, prev, other_kinds,
                        int(counts[0].sum()), *kept_spots, race_kinds,
                    ), (seed, tiles, played, r)
                    if bound == -K.INFINITY:
                        continue
                    child = after.copy()
                    child.push(E._place_or_pass(ours[r]))
                    value = -E._solve(child, None, use_tt=True, use_bounds=False).spread - spread_of(after, us)
                    assert value <= ours[r, _layout.COL_SCORE] - bound, (seed, tiles, played, r)
                    bounded += 1
                if JIT_OFF and bounded >= 3:
                    return
                if bounded > bounded_here:
                    with_bounds = E._solve(after, None, use_tt=True, use_bounds=True).spread
                    assert with_bounds == E._solve(after, None, use_tt=True, use_bounds=False).spread, (seed, tiles, played)
    assert bounded >= (3 if JIT_OFF else 1000), bounded


def move_table(st: np.ndarray, hand_mask: int) -> np.ndarray:
    """Every move of the kinds in ``hand_mask`` on the board ``st``: a move table."""
    table = np.zeros((4096, _layout.OUT_COLS), np.int32)
    n = int(_movegen.generate(st, table, hand_mask, _movegen.MODE_ALL))
    assert 0 <= n < len(table)
    return table[:n].copy()


def kinds_placed(row: np.ndarray) -> Counter[int]:
    return Counter(int(row[_layout.COL_KINDS + s]) for s in range(row[_layout.COL_N]))


def spots_anew(st: np.ndarray, kind: int) -> np.ndarray:
    """Where a tile of ``kind`` alone can go, by a move generation: (score, window
    cell, row, column) rows, best first."""
    table = np.zeros((4096, _layout.OUT_COLS), np.int32)
    n = int(_movegen.generate(st, table, 1 << kind, _movegen.MODE_ALL))
    assert 0 <= n < len(table)
    width, top, left = int(st[_state.S_WIDTH]), int(st[_state.S_TOP]), int(st[_state.S_LEFT])
    rows = sorted(
        (
            (int(table[r, _layout.COL_SCORE]), (int(table[r, _layout.COL_ROWS]) - top) * width + int(table[r, _layout.COL_COLS]) - left,
             int(table[r, _layout.COL_ROWS]), int(table[r, _layout.COL_COLS]))
            for r in range(n)
        ),
        key=lambda spot: -spot[0],
    )
    return np.array(rows, np.int64).reshape(-1, K.SP_COLS)


@numba.njit
def _last_tile_node(
    st: np.ndarray, log: np.ndarray, table: np.ndarray, n: int, hand_size: int, found: np.ndarray, kind: int,
    alpha: int, beta: int, counts: np.ndarray, hand_kinds: int,
) -> tuple[int, int]:
    spots = np.zeros((K.MAX_SPOTS, K.SP_COLS), np.int64)
    k = len(found)
    spots[:k] = found
    bounds = np.zeros(n, np.int64)
    stats = np.zeros(K.N_STATS, np.int64)
    own_spots = np.zeros((K.MAX_SPOTS, K.SP_COLS), np.int64)
    return K.last_tile_node(  # type: ignore[no-any-return]
        st, log, table, n, hand_size, spots, k, kind, alpha, beta, bounds, stats, counts, I64(0), hand_kinds, own_spots,
    )


def _last_tile_positions() -> list[Game]:
    """Small endgames whose player to move holds two or more tiles, the other one;
    seeds 32 and 108 (three and four tiles in all) have a move that leaves the other's
    tile no place, and in seeds 390 and 156 (three and four) it has no place at all."""
    games = [small_endgame(32, 3), small_endgame(108, 4), small_endgame(390, 3), small_endgame(156, 4)]
    for seed in range(12 if JIT_OFF else 60):
        games.append(small_endgame(seed, 3 + seed % 2))
    return [
        g for g in games
        if g is not None and len(g.hand(g.to_move)) >= 2 and len(g.hand(1 - g.to_move)) == 1
    ]


def test_the_last_tile_shortcut_is_exact_or_declines() -> None:
    """last_tile_node (a node whose opponent holds one tile, scored without children)
    against the naive minimax: the exact value in the whole window, a bound on the
    right side of a null window around it, also where a move leaves the other's tile
    no place and us one tile (it passes, and our last tile ends the game) or the
    other's tile has no place to begin with; and UNDECIDED (leaving the node to the
    search) only where a move leaves the other's tile no place and us two tiles or
    more.  The board and the log are as they were."""
    seen: Counter[str] = Counter()
    for game in _last_tile_positions():
        pos = E._Position(game)
        table = np.zeros((4096, _layout.OUT_COLS), np.int32)
        n = int(_movegen.generate(pos.st, table, int(pos.masks[0]), _movegen.MODE_ALL))
        if n == 0:
            continue
        kind = int(pos.masks[1]).bit_length() - 1
        log = _state.new_log()
        before = pos.st.copy()
        found = spots_anew(pos.st, kind)
        hand = (pos.counts, int(pos.masks[0]))
        value, row = _last_tile_node(pos.st, log, table, n, int(pos.sizes[0]), found, kind, -K.INFINITY, K.INFINITY, *hand)
        assert np.array_equal(pos.st, before) and log[0] == 0
        blocking = [
            a for a in game.legal_actions()
            if a.kind == Action.PLACE and not (after := game.copy(), after.push(a))[0].is_over
            and not any(b.kind == Action.PLACE for b in after.legal_actions())
        ]
        if value == K.UNDECIDED:
            assert row == -1 and any(len(game.hand(game.to_move)) - len(a.tiles) >= 2 for a in blocking), game.to_string()
            seen["declined"] += 1
            continue
        best = max(naive_values(game).values())
        assert value == best, game.to_string()
        assert row >= 0
        low, _ = _last_tile_node(pos.st, log, table, n, int(pos.sizes[0]), found, kind, best, best + 1, *hand)
        high, _ = _last_tile_node(pos.st, log, table, n, int(pos.sizes[0]), found, kind, best - 1, best, *hand)
        assert low == best == high, game.to_string()  # fail-soft, the value on the window's edge
        seen["exact"] += 1
        if blocking:
            seen["exact, with a move that leaves the other's tile no place"] += 1
        if len(found) == 0:
            seen["exact, the other's tile with no place to begin with"] += 1
    assert seen["exact"] >= 5 and seen["exact, with a move that leaves the other's tile no place"] >= 1, seen
    assert seen["exact, the other's tile with no place to begin with"] >= 1, seen


@numba.njit
def _spots_after(st: np.ndarray, log: np.ndarray, table: np.ndarray, n: int, kind: int, pushes: int = 1) -> np.ndarray:
    after = np.zeros((K.MAX_SPOTS, K.SP_COLS), np.int64)
    if pushes == 1:
        return after[: K.last_tile_spots_after(st, log, table, n, kind, after, 1)]
    if pushes == 3:
        return after[: K.last_tile_spots_after(st, log, table, n, kind, after, 3)]
    raise ValueError("the search reads spots one or three pushes on")


def _bag_empty_positions(seeds: int) -> Iterator[tuple[int, E._Position]]:
    """The solver's arrays for the benchmark's positions of seeds 0..seeds-1 (those
    whose game reaches an empty bag)."""
    for seed in range(seeds):
        game = bag_empty(seed)
        if game is not None:
            yield seed, E._Position(game)


def test_the_last_tiles_spots_after_a_move_are_those_found_anew() -> None:
    """last_tile_spots_after (the spots of the tile a move leaves in the hand, from the
    move table and what the push wrote) finds the spots that a move generation after
    the push finds, with the same scores."""
    checked = 0
    for seed, pos in _bag_empty_positions(3 if JIT_OFF else 12):
        table = move_table(pos.st, int(pos.masks[0]))
        n = len(table)
        log = _state.new_log()
        for r in range(0, n, max(1, n // 40)):
            placed = kinds_placed(table[r])
            for kind in [kind for kind in range(36) if pos.counts[0, kind] > placed[kind]]:  # still held
                _state.push_legal(pos.st, log, table[r], int(table[r, _layout.COL_SCORE]))
                after = _spots_after(pos.st, log, table, n, kind)
                anew = spots_anew(pos.st, kind)
                _state.pop(pos.st, log)
                # (A cell may be listed twice, with the same score.)
                assert set(map(tuple, after.tolist())) == set(map(tuple, anew.tolist())), (seed, r, kind)
                assert len(after) <= 2 * len(anew)
                checked += len(anew)
    assert checked > 1000, checked


def test_the_last_tiles_spots_after_three_moves_are_those_found_anew() -> None:
    """last_tile_spots_after over three pushes (a move from the table, one of the other
    side, another of the table's side: reply_to_one_tile_cut's case), moves of any
    size: the spots a move generation finds after them, with the same scores."""
    checked = 0
    for seed, pos in _bag_empty_positions(2 if JIT_OFF else 10):
        older = move_table(pos.st, int(pos.masks[0]))
        n = len(older)
        log = _state.new_log()
        for o in range(0, n, max(1, n // (3 if JIT_OFF else 12))):
            _state.push_legal(pos.st, log, older[o], int(older[o, _layout.COL_SCORE]))
            middle = move_table(pos.st, int(pos.masks[1]))
            for m in range(0, len(middle), max(1, len(middle) // 3)):
                _state.push_legal(pos.st, log, middle[m], int(middle[m, _layout.COL_SCORE]))
                placed = kinds_placed(older[o])
                held = [kind for kind in range(36) if pos.counts[0, kind] > placed[kind]]
                last = move_table(pos.st, sum(1 << kind for kind in held)) if held else older[:0]
                for r in range(0, len(last), max(1, len(last) // 3)):
                    _state.push_legal(pos.st, log, last[r], int(last[r, _layout.COL_SCORE]))
                    also = kinds_placed(last[r])
                    for kind in [kind for kind in held if pos.counts[0, kind] > placed[kind] + also[kind]]:
                        after = _spots_after(pos.st, log, older, n, kind, 3)
                        anew = spots_anew(pos.st, kind)
                        # (A cell may be listed more than once, with the same score.)
                        assert set(map(tuple, after.tolist())) == set(map(tuple, anew.tolist())), (seed, o, m, r, kind)
                        checked += len(anew)
                    _state.pop(pos.st, log)
                _state.pop(pos.st, log)
            _state.pop(pos.st, log)
    assert checked > (100 if JIT_OFF else 5000), checked


def _search_window(pos: E._Position, scratch: E._Scratch, use_tt: bool, salt: int, alpha: int, beta: int) -> int:
    stats = np.zeros(K.N_STATS, np.int64)
    stats[K.S_LIMIT] = 1 << 62
    best_row = np.zeros(_layout.OUT_COLS, np.int32)
    while True:
        scratch.log[0] = 0
        value = int(K.search(
            pos.st, pos.counts, pos.masks, pos.sizes, scratch.tables, scratch.order, scratch.log, scratch.tt,
            use_tt, stats, K.MAX_PLY, alpha, beta, 0, salt, best_row, True, pos.free_kinds, E._stamp(salt), scratch.work,
        ))
        if stats[K.S_STATUS] != K.S_NEED_CAPACITY:
            assert stats[K.S_STATUS] == K.OK
            return value
        scratch.grow(max(int(stats[K.S_NEED]), 2 * scratch.capacity))


def test_the_table_entries_of_last_tile_nodes_hold_under_any_window() -> None:
    """A node whose opponent holds one tile (scored by last_tile_node) stores a bound in
    the transposition table where the window cut it, and so do the shortcuts that cut
    a node off by a known reply (known_reply_cut, reply_to_one_tile_cut: endgames of
    seven tiles reach them): searches with null windows above and below the value, then
    one with the whole window reading their entries, find what a search without the
    table finds."""
    checked = 0
    for seed in range(6 if JIT_OFF else 40):
        game = small_endgame(seed, 5 if JIT_OFF or seed % 2 == 0 else 7)
        if game is None or min(len(h) for h in game.hands) < 2:
            continue
        pos = E._Position(game)
        exact = _search_window(pos, E._Scratch(), False, 0, -K.INFINITY, K.INFINITY)
        scratch = E._Scratch()
        salt = E._next_salt()
        above = _search_window(pos, scratch, True, salt, exact + 2, exact + 3)
        below = _search_window(pos, scratch, True, salt, exact - 3, exact - 2)
        assert exact <= above <= exact + 2 and exact - 2 <= below <= exact
        assert _search_window(pos, scratch, True, salt, -K.INFINITY, K.INFINITY) == exact, seed
        checked += 1
    assert checked >= 3, checked


@numba.njit
def _replies(older: np.ndarray, n_older: int, played: int, counts: np.ndarray, size: int) -> np.ndarray:
    replies = np.zeros((K.N_THREATS, K.TH_COLS), np.int64)
    return replies[: K.gather_moves(older, n_older, played, counts, I64(0), size, False, replies)]


@numba.njit
def _known_reply_cut(
    st: np.ndarray, log: np.ndarray, older: np.ndarray, parent: np.ndarray, m: int, replies: np.ndarray,
    found: np.ndarray, kind: int, beta: int, pushes: int = 0,
) -> tuple[int, int]:
    spots = np.zeros((K.MAX_SPOTS, K.SP_COLS), np.int64)
    spots[: len(found)] = found
    stats = np.zeros(K.N_STATS, np.int64)
    if pushes == 1:  # (as the search passes it)
        return K.known_reply_cut(st, log, older, parent, m, replies, len(replies), kind, spots, len(found), beta, stats, 1)
    if pushes == 0:  # (the tests' own case: the spots found on the board as it is)
        return K.known_reply_cut(st, log, older, parent, m, replies, len(replies), kind, spots, len(found), beta, stats, 0)
    raise ValueError("the tests read spots found zero or one push before")


def spots_of_table(st: np.ndarray, table: np.ndarray, kind: int) -> np.ndarray:
    """The one-tile rows of ``kind`` in ``table`` as spots (score, window cell, row,
    column), best first, scored as the table has them."""
    width, top, left = int(st[_state.S_WIDTH]), int(st[_state.S_TOP]), int(st[_state.S_LEFT])
    rows = sorted(
        (
            (int(r[_layout.COL_SCORE]), (int(r[_layout.COL_ROWS]) - top) * width + int(r[_layout.COL_COLS]) - left,
             int(r[_layout.COL_ROWS]), int(r[_layout.COL_COLS]))
            for r in table if r[_layout.COL_N] == 1 and r[_layout.COL_KINDS] == kind
        ),
        key=lambda spot: -spot[0],
    )
    return np.array(rows, np.int64).reshape(-1, K.SP_COLS)


def test_a_known_reply_answers_a_node_only_with_what_it_is_worth() -> None:
    """known_reply_cut (a node whose opponent holds one tile, answered at beta or more
    by one of its side's replies gathered two plies up, with no move generation),
    against the naive minimax: three plies played (a move of the side to move that
    keeps two tiles or more, a move of the other side that leaves it one tile, and the
    node), each beta from well below the node's value to above it.  When it answers,
    the reply is worth exactly what it says (the naive value of that move) and that is
    beta or more; when it declines, no reply it was given that the other side's move
    left untouched (and after which the last tile has a place) is worth beta.  The
    board and the log are as they were.  Given the last tile's spots before the other
    side's move instead (from that side's table, the move in the log: as the search
    gives them), it answers the same."""
    seen: Counter[str] = Counter()
    # Seed 36 (six tiles) has replies after which the last tile has no place.
    deals = [(36, 6)] + [(seed, 6 if seed % 2 else 5) for seed in range(2 if JIT_OFF else 12)]
    for deal, (seed, tiles) in enumerate(deals):
        every = deal == 0  # every line of play from the first deal, a sample from the rest
        start = small_endgame(seed, tiles)
        if start is None or len(start.hand(start.to_move)) < 3 or len(start.hand(1 - start.to_move)) < 2:
            continue
        first = E._Position(start)
        older = move_table(first.st, int(first.masks[0]))
        n_older = len(older)
        keeps_two = [o for o in range(n_older) if older[o, _layout.COL_N] <= first.sizes[0] - 2]
        lines = keeps_two[:: 1 if every else max(1, len(keeps_two) // (2 if JIT_OFF else 6))]
        if every and (JIT_OFF or BOUNDS):
            lines = [o for o in lines if o == 28]  # (the line with such a reply: the slow runs play it alone)
        for o in lines:
            middle = start.copy()
            middle.push(E._place_or_pass(older[o]))
            second = E._Position(middle)
            parent = move_table(second.st, int(second.masks[0]))
            leaves_one = [m for m in range(len(parent)) if parent[m, _layout.COL_N] == second.sizes[0] - 1]
            for m in leaves_one[:: 1 if every else max(1, len(leaves_one) // (2 if JIT_OFF else 4))]:
                node = middle.copy()
                node.push(E._place_or_pass(parent[m]))
                here = E._Position(node)
                kind = int(here.masks[1]).bit_length() - 1
                found = spots_anew(here.st, kind)
                if len(found) == 0:
                    continue
                worth = naive_values(node)
                best = max(worth.values())
                log = _state.new_log()
                before = here.st.copy()
                size = int(parent[m, _layout.COL_N])
                cells = (parent[m, _layout.COL_ROWS : _layout.COL_ROWS + size], parent[m, _layout.COL_COLS : _layout.COL_COLS + size])
                replies = _replies(older, n_older, o, here.counts, int(here.sizes[0]))
                # The search's way: the board before m, m pushed (in the log), the spots
                # of the parent's table (on the board before m).
                pushed = second.st.copy()
                pushed_log = _state.new_log()
                _state.push_legal(pushed, pushed_log, parent[m], parent[m, _layout.COL_SCORE])
                after_m = (pushed.copy(), pushed_log.copy())
                known = spots_of_table(pushed, parent, kind)
                for beta in range(best - 12, best + 3):
                    value, row = _known_reply_cut(here.st, log, older, parent, m, replies, found, kind, beta)
                    assert np.array_equal(here.st, before) and log[0] == 0
                    assert _known_reply_cut(pushed, pushed_log, older, parent, m, replies, known, kind, beta, 1) == (value, row)
                    used = 1 + 2 * int(after_m[1][0])  # (the log's words past its count are scratch)
                    assert np.array_equal(pushed, after_m[0]) and np.array_equal(pushed_log[:used], after_m[1][:used])
                    if value != K.UNDECIDED:
                        reply = as_naive_move(E._place_or_pass(older[row]))
                        assert value == worth[reply] and beta <= value <= best, (seed, o, m, beta)
                        seen["answered"] += 1
                        continue
                    assert row == -1
                    for i, gathered in enumerate(replies):
                        if cells[0].min() <= gathered[K.TH_ROW1] and gathered[K.TH_ROW0] <= cells[0].max():
                            continue  # a row in common with the other side's move: touched
                        if cells[1].min() <= gathered[K.TH_COL1] and gathered[K.TH_COL0] <= cells[1].max():
                            continue  # a column in common
                        reply = E._place_or_pass(older[gathered[K.TH_ROW]])
                        after = node.copy()
                        after.push(reply)
                        if not any(a.kind == Action.PLACE for a in after.legal_actions()):
                            # Passed over, whatever beta: the other side would pass.
                            alone = replies[[i]]
                            assert _known_reply_cut(here.st, log, older, parent, m, alone, found, kind, -K.INFINITY) == (K.UNDECIDED, -1)
                            seen["a reply leaves the last tile no place"] += 1
                            continue
                        assert worth[as_naive_move(reply)] < beta, (seed, o, m, beta)
                    seen["declined"] += 1
    assert seen["answered"] >= (5 if JIT_OFF else 100) and seen["declined"] >= (5 if JIT_OFF else 100), seen
    assert seen["a reply leaves the last tile no place"] >= 1, seen


@numba.njit
def _reply_to_one_tile_cut(
    st: np.ndarray, counts: np.ndarray, masks: np.ndarray, sizes: np.ndarray, older: np.ndarray, o: int,
    parent: np.ndarray, m: int, beta: int,
) -> tuple[int, int, np.ndarray, np.ndarray]:
    """Side 0 plays row o of ``older``, side 1 row m of ``parent``; then the kernel at
    ply 2 (side 0 to move), with side 1's replies gathered as its node would, and
    everything taken back; also the data words the kernel left in an empty
    transposition table."""
    tables = np.zeros((4, 4096, older.shape[1]), np.int32)
    tables[0, : len(older)] = older
    tables[1, : len(parent)] = parent
    frames = np.zeros((K.MAX_PLY + 1, K.N_FRAME), np.int64)
    frames[0, K.F_N], frames[0, K.F_ROW] = len(older), o
    frames[1, K.F_N], frames[1, K.F_ROW] = len(parent), m
    log = np.zeros(1 + 2 * 8 * 64, np.int64)
    key = K.apply_row(st, counts, masks, sizes, log, tables[0], o, I64(0), I64(0))
    key = K.apply_row(st, counts, masks, sizes, log, tables[1], m, I64(1), key)
    replies = np.zeros((K.N_THREATS, K.TH_COLS), np.int64)
    frames[1, K.F_REPLIES] = K.gather_moves(tables[0], len(older), o, counts, I64(0), sizes[0], False, replies)
    spots = np.zeros((K.MAX_SPOTS, K.SP_COLS), np.int64)
    bounds = np.zeros(tables.shape[1], np.int64)
    tt = np.zeros((1 << 10, K.TT_COLS), np.int64)
    stats = np.zeros(K.N_STATS, np.int64)
    value, row = K.reply_to_one_tile_cut(
        st, counts, masks, sizes, log, tables, frames, replies, tt, np.bool_(True), stats, I64(2), I64(0), key, beta, spots, bounds, I64(5),
        np.zeros_like(spots),
    )
    K.undo_row(st, counts, masks, sizes, log, tables[1], m, 1)
    K.undo_row(st, counts, masks, sizes, log, tables[0], o, 0)
    return value, row, replies[: frames[1, K.F_REPLIES]], tt[tt[:, K.T_KEY] != 0, K.T_DATA]


def test_a_known_reply_that_leaves_one_tile_cuts_only_where_it_refutes() -> None:
    """reply_to_one_tile_cut (a node of two tiles or more a side, answered at beta or
    more by playing its best reply gathered two plies up that leaves it one tile, the
    node after it scored by last_tile_node), against the naive minimax, three plies in
    (a move of the side to move that keeps two tiles or more, a move of the other side
    that keeps two or more, and the node), each beta from well below the node's value
    to above it.  When it answers, the reply it names is worth at least the value it
    gives, which is beta or more; when it declines although the reply it would try
    exists, that reply is worth less than beta, or after it a side could be left
    unable to place (the search's to take).  The bound it stores for the position after
    that reply holds there.  Hands and board are as they were."""
    seen: Counter[str] = Counter()
    for seed in range(3 if JIT_OFF else 4 if BOUNDS else 8):
        start = small_endgame(seed, 6)
        if start is None or min(len(h) for h in start.hands) < 3:
            continue
        first = E._Position(start)
        older = move_table(first.st, int(first.masks[0]))
        keeps_two = [o for o in range(len(older)) if older[o, _layout.COL_N] <= first.sizes[0] - 2]
        for o in keeps_two[:: max(1, len(keeps_two) // (2 if JIT_OFF else 3))]:
            middle = start.copy()
            middle.push(E._place_or_pass(older[o]))
            before = (first.st.copy(), first.counts.copy(), first.masks.copy(), first.sizes.copy())
            middle_pos = E._Position(middle)
            parent = move_table(middle_pos.st, int(middle_pos.masks[0]))
            keeps = [m for m in range(len(parent)) if parent[m, _layout.COL_N] <= middle_pos.sizes[0] - 2]
            for m in keeps[:: max(1, len(keeps) // (2 if JIT_OFF else 3))]:
                node = middle.copy()
                node.push(E._place_or_pass(parent[m]))
                worth = naive_values(node)
                best = max(worth.values())
                for beta in range(best - 10, best + 3):
                    value, row, replies, stored = _reply_to_one_tile_cut(
                        first.st, first.counts, first.masks, first.sizes, older, o, parent, m, beta,
                    )
                    assert all(np.array_equal(x, y) for x, y in zip(before, (first.st, first.counts, first.masks, first.sizes)))
                    # The reply it tries: the first gathered that leaves one tile and that
                    # the other side's move did not touch.
                    tried = [
                        r for r in replies[:, K.TH_ROW]
                        if older[r, _layout.COL_N] == len(node.hand(node.to_move)) - 1
                        and not touches(parent[m], older[r])
                    ]
                    for data in stored:  # the bound on the position after it
                        after = node.copy()
                        after.push(E._place_or_pass(older[tried[0]]))
                        truth = max(naive_values(after).values())
                        bound, flag = int((data >> 16) & K.VALUE_MASK) - K.VALUE_OFFSET, int(data & 3)
                        assert flag in (K.FLAG_UPPER, K.FLAG_LOWER), flag
                        assert (truth <= bound) if flag == K.FLAG_UPPER else (truth >= bound), (seed, o, m, beta)
                        seen["bound stored"] += 1
                    if value != K.UNDECIDED:
                        reply = E._place_or_pass(older[row])
                        assert row == tried[0]
                        assert beta <= value <= worth[as_naive_move(reply)], (seed, o, m, beta)
                        seen["answered"] += 1
                        continue
                    assert row == -1
                    if not tried:
                        seen["no reply to try"] += 1
                        continue
                    reply = E._place_or_pass(older[tried[0]])
                    if worth[as_naive_move(reply)] < beta:
                        seen["declined, short of beta"] += 1
                        continue
                    after = node.copy()
                    after.push(reply)
                    assert someone_could_be_stuck(after), (seed, o, m, beta)
                    seen["declined, a side could be left unable to place"] += 1
    assert seen["answered"] >= (3 if JIT_OFF else 100), seen
    assert seen["declined, short of beta"] >= (3 if JIT_OFF else 100), seen
    assert seen["bound stored"] >= seen["answered"] + seen["declined, short of beta"], seen


def touches(move: np.ndarray, other: np.ndarray) -> bool:
    """Whether two move rows share a row or a column of the board (their boxes)."""
    def span(row: np.ndarray, col: int) -> tuple[int, int]:
        cells = row[col : col + row[_layout.COL_N]]
        return int(cells.min()), int(cells.max())
    rows, cols = span(move, _layout.COL_ROWS), span(move, _layout.COL_COLS)
    other_rows, other_cols = span(other, _layout.COL_ROWS), span(other, _layout.COL_COLS)
    return not (other_rows[1] < rows[0] or other_rows[0] > rows[1]) or not (other_cols[1] < cols[0] or other_cols[0] > cols[1])


def someone_could_be_stuck(game: Game) -> bool:
    """Whether the player to move cannot place, or the other cannot now, or the player
    to move has a placement that does not go out after which the other cannot."""
    places = [a for a in game.legal_actions() if a.kind == Action.PLACE]
    if not places:
        return True
    if game.board.count_moves(game.hand(1 - game.to_move)) == 0:
        return True
    for action in places:
        after = game.copy()
        after.push(action)
        if not after.is_over and not any(a.kind == Action.PLACE for a in after.legal_actions()):
            return True
    return False
