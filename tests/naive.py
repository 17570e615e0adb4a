"""Slow, independent reference implementation of the Qwirkle rules.

This module is the oracle that the fast move generator is checked against. It
reads nothing from ``qwirkle_core`` on purpose and uses the standard library
only. It follows ``docs/rules.md``.

Data shapes
-----------
* tile: ``(color, shape)``, both in ``0..5``; ``kind = color * 6 + shape``.
* board: ``dict[(row, col)] -> (color, shape)``; row grows south, col east.
* hand: ``list[(color, shape)]`` of 0..6 tiles, duplicates allowed.
* placement: ``(row, col, color, shape)``; move: ``frozenset`` of placements.

Three parts are written separately so that they can be cross-checked:

* :func:`naive_legal_moves` enumerates moves by brute force (start cell,
  direction, ordered hand tiles) and scores them from the lines it walked.
* :func:`naive_score` checks one given placement directly against each rule,
  and scores it by listing every maximal line of the resulting board.
* :func:`naive_masks` checks single tiles cell by cell.

It also holds a game referee, :func:`referee_replay`: it replays a
``qwirkle-record/1`` game from its seed (its own xoshiro128** and deal, re-implemented
from the library's documented conventions) and checks every turn and the end of the
game against the rules, with :func:`naive_score` for the placements.
"""

from __future__ import annotations

import hashlib
import random
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

Tile = tuple[int, int]
Cell = tuple[int, int]
Board = dict[Cell, Tile]
Placement = tuple[int, int, int, int]
Move = frozenset[Placement]

N_COLORS = 6
N_SHAPES = 6
N_KINDS = 36
COPIES = 3
N_TILES = N_KINDS * COPIES  # 108
HAND_SIZE = 6
ALL_KINDS_MASK = (1 << N_KINDS) - 1

EAST: Cell = (0, 1)
SOUTH: Cell = (1, 0)
NEIGHBOURS: tuple[Cell, ...] = ((-1, 0), (1, 0), (0, -1), (0, 1))

__all__ = [
    "ENDS",
    "NaiveGame",
    "NaiveIllegal",
    "NaiveRng",
    "RefereeError",
    "RefereeResult",
    "kind",
    "mirror",
    "naive_board_from_text",
    "naive_board_problem",
    "naive_board_text",
    "naive_cell_masks",
    "naive_deal",
    "naive_fit_mask",
    "naive_largest_group",
    "naive_legal_moves",
    "naive_masks",
    "naive_moves_digest",
    "naive_placements_text",
    "naive_play_random_game",
    "naive_score",
    "naive_selfplay_record",
    "naive_tile_from_text",
    "naive_tile_text",
    "referee_replay",
    "referee_turns",
    "rotate90",
    "translate",
]


class NaiveIllegal(ValueError):
    """Raised by :func:`naive_score` for an illegal placement; ``str()`` is the reason."""


# ---------------------------------------------------------------- helpers


def kind(color: int, shape: int) -> int:
    """Tile kind as one integer, ``color * 6 + shape`` (0..35)."""
    return color * N_SHAPES + shape


def translate(board: Board, dr: int, dc: int) -> Board:
    """Copy of ``board`` shifted by ``dr`` rows and ``dc`` columns."""
    return {(r + dr, c + dc): t for (r, c), t in board.items()}


def rotate90(board: Board) -> Board:
    """Copy of ``board`` with every cell mapped ``(r, c) -> (c, -r)``."""
    return {(c, -r): t for (r, c), t in board.items()}


def mirror(board: Board) -> Board:
    """Copy of ``board`` with every cell mapped ``(r, c) -> (r, -c)``."""
    return {(r, -c): t for (r, c), t in board.items()}


def _line_points(n: int) -> int:
    """Points for one counted line of ``n`` tiles (n >= 2): n, +6 for a Qwirkle."""
    if n < 2:
        return 0
    return n + 6 if n == 6 else n


def _valid_line_sets(tiles: Sequence[Tile]) -> bool:
    """Line rule, formulated with sets (used by the move generator).

    A run of 0 or 1 tiles is not a line and always fine. A line of two or more
    is one colour with all shapes different, or one shape with all colours
    different (which also caps it at 6).
    """
    n = len(tiles)
    if n <= 1:
        return True
    if n > 6:
        return False
    colors = {c for c, _ in tiles}
    shapes = {s for _, s in tiles}
    return (len(colors) == 1 and len(shapes) == n) or (
        len(shapes) == 1 and len(colors) == n
    )


def _valid_line_dupes(tiles: Sequence[Tile]) -> bool:
    """The same line rule, formulated differently (used by score and masks).

    No identical tile twice, and either every colour equal or every shape equal.
    (Same colour + no identical tiles => distinct shapes, and at most 6.)
    """
    if len(tiles) <= 1:
        return True
    for i in range(len(tiles)):
        for j in range(i + 1, len(tiles)):
            if tiles[i] == tiles[j]:
                return False
    first_color, first_shape = tiles[0]
    same_color = all(c == first_color for c, _ in tiles)
    same_shape = all(s == first_shape for _, s in tiles)
    return same_color or same_shape


def _run(board: Board, cell: Cell, step: Cell) -> list[Tile]:
    """Tiles on ``board`` starting one step from ``cell`` and going ``step`` until a gap."""
    out: list[Tile] = []
    r, c = cell[0] + step[0], cell[1] + step[1]
    while (r, c) in board:
        out.append(board[(r, c)])
        r += step[0]
        c += step[1]
    return out


def _touches(board: Board, cell: Cell) -> bool:
    r, c = cell
    return any((r + dr, c + dc) in board for dr, dc in NEIGHBOURS)


def _frontier(board: Board) -> list[Cell]:
    """Empty cells orthogonally adjacent to at least one tile, sorted."""
    out = set()
    for r, c in board:
        for dr, dc in NEIGHBOURS:
            cell = (r + dr, c + dc)
            if cell not in board:
                out.add(cell)
    return sorted(out)


# ---------------------------------------------------------------- move generation


def naive_legal_moves(board: Board, hand: Sequence[Tile]) -> dict[Move, int]:
    """Every legal move for ``hand`` on ``board``, each exactly once, with its score.

    Brute force: for each direction (east, south) and start cell, for each
    k = 1..len(hand), the tiles go on the first k EMPTY cells from the start in
    that direction (occupied cells in between become part of the line), for
    every ordered choice of hand tiles. Moves are collected in a dict keyed by
    the frozenset of placements, so the two directions of a one-tile move and
    duplicate hand tiles collapse into one entry.

    Pruning used (each one obviously sound):

    * Start cells: let e_0, e_1, ... be the placed cells of a connected move and
      e_j the first one next to an existing tile. No occupied cell lies between
      e_0 .. e_j (an occupied cell right before e_i would make e_i touch), so
      they are consecutive and ``start = e_j - j * dir`` with j < len(hand),
      where e_j is a frontier cell. Only such starts are tried.
    * Only cells within 6 of the start along the line can take tiles (the main
      line contains every cell from the start to the last placed tile, and no
      valid line is longer than 6).
    * A placed tile's perpendicular line contains no other tile of the same
      move, so if it is invalid, every extension of the move is invalid too.
    * The main line built so far (existing tiles before the start, the placed
      tiles, the existing tiles between and after them) is a contiguous part of
      the final main line; every contiguous part of a valid line is valid, so an
      invalid part means no extension is legal.

    On the empty board, moves are generated in the canonical frame only: the
    line starts at (0, 0) and runs east.
    """
    hand_list: list[Tile] = [(int(t[0]), int(t[1])) for t in hand]
    if not hand_list:
        return {}
    n_hand = len(hand_list)

    starts: list[tuple[Cell, Cell]]
    if not board:
        starts = [((0, 0), EAST)]
    else:
        start_set = set()
        for fr, fc in _frontier(board):
            for d in (EAST, SOUTH):
                for j in range(n_hand):
                    s = (fr - j * d[0], fc - j * d[1])
                    if s not in board:
                        start_set.add((s, d))
        starts = sorted(start_set)

    search = _MoveSearch(board, hand_list)
    for s, d in starts:
        search.from_start(s, d)
    return search.result


class _MoveSearch:
    """State of the brute-force search of :func:`naive_legal_moves`."""

    def __init__(self, board: Board, hand: list[Tile]) -> None:
        self.board = board
        self.counts: Counter[Tile] = Counter(hand)
        self.distinct: list[Tile] = sorted(self.counts)
        self.n_hand = len(hand)
        self.result: dict[Move, int] = {}
        self.perp_cache: dict[tuple[Cell, Cell, Tile], tuple[bool, int]] = {}
        self.placed: list[Placement] = []

    def perp(self, cell: Cell, d: Cell, tile: Tile) -> tuple[bool, int]:
        """(valid, points) of the line through ``cell`` perpendicular to ``d``."""
        key = (cell, d, tile)
        got = self.perp_cache.get(key)
        if got is None:
            p = (d[1], d[0])
            line = (
                _run(self.board, cell, (-p[0], -p[1]))
                + [tile]
                + _run(self.board, cell, p)
            )
            got = (_valid_line_sets(line), _line_points(len(line)))
            self.perp_cache[key] = got
        return got

    def from_start(self, s: Cell, d: Cell) -> None:
        """All moves whose first placed tile is at ``s`` and which run along ``d``."""
        board = self.board
        # The cells that can take tiles: the first n_hand empty cells among the
        # 6 cells s, s+d, ..., s+5d.
        empties: list[Cell] = []
        for t in range(6):
            cell = (s[0] + t * d[0], s[1] + t * d[1])
            if cell not in board:
                empties.append(cell)
                if len(empties) == self.n_hand:
                    break
        first_touch: int | None
        if board:
            first_touch = next(
                (i for i, e in enumerate(empties) if _touches(board, e)), None
            )
            if first_touch is None:
                return
        else:
            first_touch = 0  # the opening needs no contact
        before = _run(board, s, (-d[0], -d[1]))
        after = [
            _run(board, e, d) for e in empties
        ]  # existing tiles right after each cell
        self.extend(d, empties, after, first_touch, 0, before, 0)

    def extend(
        self,
        d: Cell,
        empties: list[Cell],
        after: list[list[Tile]],
        first_touch: int,
        i: int,
        line_so_far: list[Tile],
        perp_points: int,
    ) -> None:
        """Put each possible hand tile on ``empties[i]``, record, and go on to i + 1."""
        e = empties[i]
        counts = self.counts
        for tile in self.distinct:
            if counts[tile] == 0:
                continue
            ok, pts = self.perp(e, d, tile)
            if not ok:
                continue
            line = line_so_far + [tile] + after[i]
            if not _valid_line_sets(line):
                continue
            counts[tile] -= 1
            self.placed.append((e[0], e[1], tile[0], tile[1]))
            total_perp = perp_points + pts
            if i >= first_touch:
                score = _line_points(len(line)) + total_perp
                if score == 0:
                    score = 1  # a lone tile that forms no line (the opening)
                move = frozenset(self.placed)
                old = self.result.get(move)
                if old is not None and old != score:
                    raise AssertionError(
                        f"naive: move {sorted(move)} scored {old} and {score}"
                    )
                self.result[move] = score
            if i + 1 < len(empties):
                self.extend(d, empties, after, first_touch, i + 1, line, total_perp)
            self.placed.pop()
            counts[tile] += 1


# ---------------------------------------------------------------- direct check


def _all_lines(board: Board) -> list[list[Cell]]:
    """Every maximal horizontal and vertical run of tiles (length >= 1) on ``board``."""
    lines: list[list[Cell]] = []
    for step in (EAST, SOUTH):
        for r, c in board:
            if (r - step[0], c - step[1]) in board:
                continue  # not the first cell of its run
            run = [(r, c)]
            nr, nc = r + step[0], c + step[1]
            while (nr, nc) in board:
                run.append((nr, nc))
                nr += step[0]
                nc += step[1]
            lines.append(run)
    return lines


def naive_score(board: Board, placements: Iterable[Sequence[int]]) -> int:
    """Score of placing ``placements`` (``(row, col, color, shape)`` each) on ``board``.

    Raises :class:`NaiveIllegal` (a ``ValueError``) with a reason if the
    placement breaks a rule. ``board`` is not modified.
    """
    pl: list[Placement] = []
    for p in placements:
        if len(p) != 4:
            raise NaiveIllegal(f"placement {p!r} is not (row, col, color, shape)")
        r, c, co, sh = (int(x) for x in p)
        if not (0 <= co < N_COLORS and 0 <= sh < N_SHAPES):
            raise NaiveIllegal(f"placement {p!r}: colour/shape out of range")
        pl.append((r, c, co, sh))
    if not pl:
        raise NaiveIllegal("empty placement")
    if len(pl) > HAND_SIZE:
        raise NaiveIllegal("more than 6 tiles")
    cells = [(r, c) for r, c, _, _ in pl]
    if len(set(cells)) != len(cells):
        raise NaiveIllegal("two tiles on one cell")
    for cell in cells:
        if cell in board:
            raise NaiveIllegal(f"cell {cell} is taken")

    rows = {r for r, _ in cells}
    cols = {c for _, c in cells}
    if len(rows) != 1 and len(cols) != 1:
        raise NaiveIllegal("tiles not in one row or column")

    new_board: Board = dict(board)
    for r, c, co, sh in pl:
        new_board[(r, c)] = (co, sh)

    # No gap: every cell between the outermost placed tiles is filled.
    if len(rows) == 1:
        (row,) = rows
        for col in range(min(cols), max(cols) + 1):
            if (row, col) not in new_board:
                raise NaiveIllegal(f"gap at {(row, col)}")
    else:
        (col,) = cols
        for row in range(min(rows), max(rows) + 1):
            if (row, col) not in new_board:
                raise NaiveIllegal(f"gap at {(row, col)}")

    # Connection: on a non-empty board some placed tile touches an old tile.
    if board:
        touching = False
        for r, c in cells:
            for dr, dc in NEIGHBOURS:
                if (r + dr, c + dc) in board:
                    touching = True
        if not touching:
            raise NaiveIllegal("placement does not touch the tiles on the board")

    placed_cells = set(cells)
    score = 0
    for line in _all_lines(new_board):
        if not placed_cells.intersection(line):
            continue  # neither formed nor extended by this placement
        if len(line) < 2:
            continue
        tiles = [new_board[cell] for cell in line]
        if not _valid_line_dupes(tiles):
            raise NaiveIllegal(f"invalid line {line[0]}..{line[-1]}: {tiles}")
        score += len(line)
        if len(line) == 6:
            score += 6
    if score == 0:
        score = 1  # a single tile forming no line (only on the empty board)
    return score


# ---------------------------------------------------------------- masks


def naive_masks(board: Board) -> dict[Cell, int]:
    """For every empty cell next to a tile, the mask of kinds that fit there alone.

    Bit ``k`` is set when a tile of kind ``k`` can be played there as a
    one-tile move. Cells where nothing fits are present with mask 0. On the
    empty board: ``{(0, 0): (1 << 36) - 1}``.
    """
    if not board:
        return {(0, 0): ALL_KINDS_MASK}
    out: dict[Cell, int] = {}
    for cell in _frontier(board):
        west = _run(board, cell, (0, -1))
        east = _run(board, cell, (0, 1))
        north = _run(board, cell, (-1, 0))
        south = _run(board, cell, (1, 0))
        mask = 0
        for co in range(N_COLORS):
            for sh in range(N_SHAPES):
                t = (co, sh)
                if _valid_line_dupes(west + [t] + east) and _valid_line_dupes(
                    north + [t] + south
                ):
                    mask |= 1 << kind(co, sh)
        out[cell] = mask
    return out


# ---------------------------------------------------------------- board sanity


def naive_board_problem(board: Board) -> str | None:
    """None if ``board`` could come from play as far as these checks go, else why not.

    Checks: at most 108 tiles, colours/shapes in range, no kind more than 3
    times, every line of two or more valid, all tiles orthogonally connected.
    """
    if len(board) > N_TILES:
        return f"{len(board)} tiles, more than {N_TILES}"
    for cell, t in board.items():
        if len(t) != 2 or not (0 <= t[0] < N_COLORS and 0 <= t[1] < N_SHAPES):
            return f"tile {t!r} at {cell} out of range"
    for t, n in Counter(board.values()).items():
        if n > COPIES:
            return f"kind {kind(*t)} {t} appears {n} times"
    for line in _all_lines(board):
        tiles = [board[cell] for cell in line]
        if len(line) >= 2 and not _valid_line_dupes(tiles):
            return f"invalid line {line[0]}..{line[-1]}: {tiles}"
    if board:
        first = min(board)
        seen = {first}
        todo = [first]
        while todo:
            r, c = todo.pop()
            for dr, dc in NEIGHBOURS:
                nb = (r + dr, c + dc)
                if nb in board and nb not in seen:
                    seen.add(nb)
                    todo.append(nb)
        if len(seen) != len(board):
            return f"tiles not connected ({len(seen)} of {len(board)} reachable from {first})"
    return None


# ---------------------------------------------------------------- random games


def _move_sort_key(move: Move) -> list[Placement]:
    return sorted(move)


def naive_play_random_game(
    rng: random.Random,
    n_players: int = 2,
    max_turns: int | None = None,
) -> list[tuple[Board, list[Tile]]]:
    """Play a simple random game; return ``(board, hand of player to move)`` before each turn.

    A bag of 108 tiles (36 kinds x 3) is shuffled with ``rng``; each player
    draws 6; player 0 starts (no largest-group opening rule). Each turn the
    player plays a uniformly random legal move from :func:`naive_legal_moves`
    and refills from the bag; with no legal move the player exchanges
    ``min(len(hand), len(bag))`` random tiles, or passes if the bag is empty.
    The game ends when a player empties their hand (only possible with an
    empty bag), when every player in a row passes with an empty bag, or after
    ``max_turns`` turns if given. The returned boards and hands are copies.
    Deterministic for a given ``rng`` state.
    """
    if not 2 <= n_players <= 6:
        raise ValueError("n_players must be 2..6")
    bag: list[Tile] = [
        (co, sh)
        for co in range(N_COLORS)
        for sh in range(N_SHAPES)
        for _ in range(COPIES)
    ]
    rng.shuffle(bag)
    hands: list[list[Tile]] = []
    for _ in range(n_players):
        hands.append([bag.pop() for _ in range(HAND_SIZE)])
    board: Board = {}
    positions: list[tuple[Board, list[Tile]]] = []
    player = 0
    passes = 0
    turns = 0
    while max_turns is None or turns < max_turns:
        turns += 1
        hand = hands[player]
        positions.append((dict(board), list(hand)))
        moves = naive_legal_moves(board, hand)
        if moves:
            move = rng.choice(sorted(moves, key=_move_sort_key))
            for r, c, co, sh in sorted(move):
                board[(r, c)] = (co, sh)
                hand.remove((co, sh))
            while len(hand) < HAND_SIZE and bag:
                hand.append(bag.pop())
            passes = 0
            if not hand:
                break
        elif bag:
            n = min(len(hand), len(bag))
            out_idx = sorted(rng.sample(range(len(hand)), n), reverse=True)
            put_aside = [hand.pop(i) for i in out_idx]
            for _ in range(n):
                hand.append(bag.pop())
            bag.extend(put_aside)
            rng.shuffle(bag)
            passes = 0
        else:
            passes += 1
            if passes >= n_players:
                break
        player = (player + 1) % n_players
    return positions


def transform_move(move: Iterable[Placement], fn: Callable[[int, int], Cell]) -> Move:
    """Apply a cell mapping (e.g. ``lambda r, c: (c, -r)``) to every placement of a move."""
    return frozenset((*fn(r, c), co, sh) for r, c, co, sh in move)


# ---------------------------------------------------------------- the game referee
#
# qwirkle_core's games fix conventions that the rules leave open (qwirkle_core/game.py,
# _prng.py, _turn.py); they are re-implemented here from their description:
#
# * The generator is xoshiro128** (Blackman and Vigna), seeded as NaiveRng says;
#   stream 0 deals and mixes exchanges, stream 1 + seat drives that seat's bot.
# * The bag starts as kinds ``[i // 3 for i in range(108)]`` and is shuffled by
#   Fisher-Yates from the end: for i = 107 .. 1, swap slots i and ``below(i + 1)``.
# * Tiles are drawn from the END of the bag.  The deal gives 6 to seat 0, then 6 to
#   seat 1, ...; hands keep their draw order.
# * A placement removes the placed tiles from the hand (the first copy of each), then
#   draws back to 6.  An exchange removes the tiles, draws as many, then mixes each
#   returned tile into the bag in ascending kind order: it goes last, then swaps
#   places with slot ``below(bag size)``.
# * The opener has the largest group (identical tiles counted once); a tie goes to
#   the lowest seat unless the record's first turn is another tied seat (a tie-break
#   order given to the game).  The opening places exactly that many tiles.
# * The end (docs/rules.md): "out" (a hand emptied, +6), "blocked" (bag empty, no hand can
#   place), "dead" (bag not empty, no tile of the bag or of a hand fits any empty
#   cell beside the board, each tested alone).  The game ends right after the turn
#   that makes one of them true.

ENDS = ("out", "blocked", "dead")
GOING_OUT_BONUS = 6
_MASK32 = 0xFFFFFFFF


def _rotl32(x: int, k: int) -> int:
    return ((x << k) | (x >> (32 - k))) & _MASK32


def _fmix32(h: int) -> int:
    """murmur3's 32-bit finaliser."""
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & _MASK32
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & _MASK32
    h ^= h >> 16
    return h


class NaiveRng:
    """xoshiro128** on Python integers, seeded the way qwirkle_core seeds it.

    Seeding from a seed in [0, 2**64) and a stream number (all arithmetic mod 2**32):
    ``x = seed's low word``, ``y = fmix32(high word ^ ((stream + 1) * 0x27D4EB2F))``,
    then for i = 0..3: ``x += 0x9E3779B9`` and ``state[i] = fmix32(x ^ fmix32(y + i))``;
    an all-zero state becomes ``[1, 0, 0, 0]``.  ``below(n)`` is uniform in [0, n) by
    rejection: draw words until one is below ``(2**32 // n) * n``, return it mod n.
    """

    def __init__(self, seed: int, stream: int = 0) -> None:
        if type(seed) is not int or not 0 <= seed < 1 << 64:
            raise ValueError(f"a seed is an integer in [0, 2**64), got {seed!r}")
        x = seed & _MASK32
        y = _fmix32((seed >> 32) ^ (((stream + 1) * 0x27D4EB2F) & _MASK32))
        words = []
        for i in range(4):
            x = (x + 0x9E3779B9) & _MASK32
            words.append(_fmix32(x ^ _fmix32((y + i) & _MASK32)))
        if not any(words):
            words[0] = 1
        self.state = words

    @classmethod
    def from_state(cls, words: Sequence[int]) -> NaiveRng:
        rng = cls.__new__(cls)
        rng.state = [int(w) & _MASK32 for w in words]
        return rng

    def next_u32(self) -> int:
        s0, s1, s2, s3 = self.state
        result = (_rotl32((s1 * 5) & _MASK32, 7) * 9) & _MASK32
        t = (s1 << 9) & _MASK32
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = _rotl32(s3, 11)
        self.state = [s0, s1, s2, s3]
        return result

    def below(self, n: int) -> int:
        if not 1 <= n < 1 << 32:
            raise ValueError(f"below(n) needs 1 <= n < 2**32, got {n}")
        limit = ((1 << 32) // n) * n
        while True:
            x = self.next_u32()
            if x < limit:
                return x % n


def naive_deal(seed: int, players: int) -> tuple[list[Tile], list[list[Tile]], NaiveRng]:
    """(bag, hands, game generator) right after the deal; the bag's last tile is drawn next."""
    rng = NaiveRng(seed, 0)
    kinds = [i // COPIES for i in range(N_TILES)]
    for i in range(N_TILES - 1, 0, -1):
        j = rng.below(i + 1)
        kinds[i], kinds[j] = kinds[j], kinds[i]
    bag = [(k // N_SHAPES, k % N_SHAPES) for k in kinds]
    hands = [[bag.pop() for _ in range(HAND_SIZE)] for _ in range(players)]
    return bag, hands, rng


def naive_largest_group(hand: Iterable[Tile]) -> int:
    """The most tiles of ``hand`` sharing a colour or a shape, identical tiles counted once."""
    distinct = set(hand)
    best = 0
    for g in range(6):
        best = max(best, sum(1 for c, _ in distinct if c == g), sum(1 for _, s in distinct if s == g))
    return best


_ACCEPTS: dict[tuple[Tile, ...], int] = {}


def _line_accepts(tiles: Sequence[Tile]) -> int:
    """Mask of the kinds t for which ``tiles`` (the run on both sides of a cell) plus t
    is a valid line; brute force over the 36 kinds, remembered per run."""
    key = tuple(sorted(tiles))
    got = _ACCEPTS.get(key)
    if got is None:
        got = 0
        for co in range(N_COLORS):
            for sh in range(N_SHAPES):
                if _valid_line_dupes([*key, (co, sh)]):
                    got |= 1 << kind(co, sh)
        _ACCEPTS[key] = got
    return got


def naive_cell_masks(board: Board) -> dict[Cell, int]:
    """Like :func:`naive_masks` (the kinds that fit each empty cell beside the board
    alone), from the runs through each cell; checked against naive_masks in the tests."""
    if not board:
        return {(0, 0): ALL_KINDS_MASK}
    out: dict[Cell, int] = {}
    for cell in _frontier(board):
        row_run = _run(board, cell, (0, -1)) + _run(board, cell, (0, 1))
        col_run = _run(board, cell, (-1, 0)) + _run(board, cell, (1, 0))
        out[cell] = _line_accepts(row_run) & _line_accepts(col_run)
    return out


def naive_fit_mask(board: Board) -> int:
    """The kinds that fit, alone, at least one empty cell beside the board (every kind
    on the empty board).  A hand can place iff one of its kinds is in this mask: any
    legal move has a tile touching the board, and that tile alone is legal there."""
    mask = 0
    for m in naive_cell_masks(board).values():
        mask |= m
    return mask


class RefereeError(NaiveIllegal):
    """A record that breaks a rule.  ``turn`` is the index of the turn at fault (None
    for the record as a whole), ``rule`` a short name of the rule; str() says both."""

    def __init__(self, turn: int | None, rule: str, detail: str) -> None:
        self.turn = turn
        self.rule = rule
        where = "the record" if turn is None else f"turn {turn}"
        super().__init__(f"{where}: {rule}: {detail}")


def _tile_text(t: Tile) -> str:
    return "ROYGBP"[t[0]] + "csdlxb"[t[1]]


def _is_int(x: object) -> bool:
    return type(x) is int


def _json_tile(value: object, turn: int | None, what: str) -> Tile:
    if type(value) is not list or len(value) != 2 or type(value[0]) is not int or type(value[1]) is not int:
        raise RefereeError(turn, "format", f"{what}: a tile is [color, shape], got {value!r}")
    co, sh = value
    if not (0 <= co < N_COLORS and 0 <= sh < N_SHAPES):
        raise RefereeError(turn, "format", f"{what}: no tile {value!r}")
    return (co, sh)


def _json_tiles(value: object, turn: int | None, what: str) -> list[Tile]:
    if not isinstance(value, list):
        raise RefereeError(turn, "format", f"{what}: expected a list of tiles, got {value!r}")
    return [_json_tile(v, turn, what) for v in value]


def _tiles_json(tiles: Iterable[Tile]) -> list[list[int]]:
    return [[co, sh] for co, sh in tiles]


def _remove_tiles(hand: list[Tile], tiles: Sequence[Tile], turn: int, what: str) -> None:
    """Remove the first copy of each of ``tiles`` from ``hand``, or raise."""
    if Counter(tiles) - Counter(hand):
        missing = sorted((Counter(tiles) - Counter(hand)).elements())
        raise RefereeError(
            turn, what, f"{' '.join(map(_tile_text, missing))} not in the hand {' '.join(map(_tile_text, hand))}"
        )
    for t in tiles:
        hand.remove(t)


class NaiveGame:
    """A game's state as the referee keeps it, and the rules of one turn.

    ``board`` (dict), ``hands`` (lists of tiles in draw order), ``bag`` (the next
    draw last), ``scores``, ``player`` to move, ``opening`` (tiles the opening must
    place; 0 once played), ``rng`` (the game generator), ``end`` (None while the game
    goes on) and ``went_out``.
    """

    def __init__(
        self,
        board: Board,
        hands: list[list[Tile]],
        bag: list[Tile],
        scores: list[int],
        player: int,
        opening: int,
        rng: NaiveRng,
    ) -> None:
        self.board = dict(board)
        self.hands = [list(h) for h in hands]
        self.bag = list(bag)
        self.scores = list(scores)
        self.player = player
        self.opening = opening
        self.rng = rng
        self.end: str | None = None
        self.end_turn: int | None = None  # the turn after which the game ended
        self.went_out: int | None = None
        self.turns = 0
        self.counts: Counter[str] = Counter()
        self._fit: tuple[int, int] | None = None  # (board size, naive_fit_mask)

    @classmethod
    def from_deal(cls, players: int, seed: int, tie_winner: object = None) -> NaiveGame:
        """The game right after the deal.  The opener is the lowest seat with the largest
        group, or ``tie_winner`` if that seat's group is as large (a tie-break order)."""
        if not _is_int(players) or not 2 <= players <= 6:
            raise RefereeError(None, "format", f"a game has 2 to 6 players, got {players!r}")
        if not _is_int(seed) or not 0 <= seed < 1 << 64:
            raise RefereeError(None, "format", f"a seed is an integer in [0, 2**64), got {seed!r}")
        bag, hands, rng = naive_deal(seed, players)
        groups = [naive_largest_group(h) for h in hands]
        top = max(groups)
        opener = groups.index(top)
        if _is_int(tie_winner) and 0 <= tie_winner < players and groups[tie_winner] == top:  # type: ignore[operator]
            opener = tie_winner  # type: ignore[assignment]
        return cls({}, hands, bag, [0] * players, opener, top, rng)

    # ------------------------------------------------------------ questions
    def fit_mask(self) -> int:
        """naive_fit_mask of the board, remembered until the board changes."""
        if self._fit is None or self._fit[0] != len(self.board):
            self._fit = (len(self.board), naive_fit_mask(self.board))
        return self._fit[1]

    def can_place(self, tiles: Iterable[Tile]) -> bool:
        mask = self.fit_mask()
        return any(mask >> kind(*t) & 1 for t in tiles)

    def rules_end(self) -> str | None:
        """How the rules say the game stands now: "out", "blocked", "dead" or None,
        computed from the position (no witness)."""
        if self.went_out is not None:
            return "out"
        if not self.board:
            return None
        if not self.bag:
            return None if any(self.can_place(h) for h in self.hands) else "blocked"
        left = set(self.bag)
        for h in self.hands:
            left.update(h)
        return None if self.can_place(left) else "dead"

    def mix_in(self, tiles: Sequence[Tile]) -> None:
        """Mix exchanged tiles into the bag: in ascending kind order, each goes last,
        then swaps places with slot ``below(bag size)``."""
        for t in sorted(tiles):  # (color, shape) order is kind order
            self.bag.append(t)
            j = self.rng.below(len(self.bag))
            self.bag[-1], self.bag[j] = self.bag[j], self.bag[-1]

    # ------------------------------------------------------------ one turn
    def step(
        self,
        turn: int,
        action: object,
        placements: object = None,
        tiles: object = None,
    ) -> tuple[int, list[Tile]]:
        """Check one action of the player to move against the rules and play it.
        Returns (points scored, going-out bonus apart; tiles drawn).  Raises
        RefereeError naming ``turn`` and the rule broken."""
        if self.end is not None:
            raise RefereeError(
                turn, "game over", f"the game ended ({self.end}) after turn {self.end_turn}; no turn may follow"
            )
        p = self.player
        hand = self.hands[p]
        points = 0
        drawn: list[Tile] = []
        if action == "place":
            if not isinstance(placements, list) or not placements:
                raise RefereeError(turn, "format", f"a placement lists [row, col, color, shape], got {placements!r}")
            pl: list[Placement] = []
            for item in placements:
                if not isinstance(item, list) or len(item) != 4 or not all(_is_int(v) for v in item):
                    raise RefereeError(turn, "format", f"a placement is [row, col, color, shape], got {item!r}")
                pl.append((item[0], item[1], item[2], item[3]))
            if self.opening and len(pl) != self.opening:
                raise RefereeError(
                    turn, "opening", f"the opener places their largest group, {self.opening} tiles, not {len(pl)}"
                )
            # naive_score looks at the placed cells, their neighbours, the cells between
            # them and the lines through them: all in the rows and columns of the placed
            # cells.  Giving it those tiles alone is the same and saves walking every line
            # of the board; only "does it touch" needs the whole board's emptiness.
            rows = {r for r, _, _, _ in pl}
            cols = {c for _, c, _, _ in pl}
            near = {cell: t for cell, t in self.board.items() if cell[0] in rows or cell[1] in cols}
            try:
                if self.board and not near:
                    raise NaiveIllegal("placement does not touch the tiles on the board")
                points = naive_score(near, pl)
            except NaiveIllegal as exc:
                raise RefereeError(turn, "placement", str(exc)) from None
            _remove_tiles(hand, [(co, sh) for _, _, co, sh in pl], turn, "placement")
            for r, c, co, sh in pl:
                self.board[(r, c)] = (co, sh)
            while len(hand) < HAND_SIZE and self.bag:
                drawn.append(self.bag.pop())
                hand.append(drawn[-1])
            self.scores[p] += points
            self.opening = 0
            if not hand:
                self.scores[p] += GOING_OUT_BONUS
                self.went_out = p
                self.end = "out"
                self.end_turn = turn
        elif action == "exchange":
            if self.opening:
                raise RefereeError(turn, "opening", f"the opener must place their largest group ({self.opening} tiles)")
            out = _json_tiles(tiles, turn, "exchange")
            if not out:
                raise RefereeError(turn, "exchange", "an exchange gives back one tile or more")
            if len(out) > len(self.bag):
                raise RefereeError(turn, "exchange", f"{len(out)} tiles given back, but the bag holds {len(self.bag)}")
            _remove_tiles(hand, out, turn, "exchange")
            for _ in out:
                drawn.append(self.bag.pop())
                hand.append(drawn[-1])
            self.mix_in(out)
        elif action == "pass":
            if self.opening:
                raise RefereeError(turn, "opening", f"the opener must place their largest group ({self.opening} tiles)")
            if self.bag:
                raise RefereeError(turn, "pass", f"a pass needs an empty bag, it holds {len(self.bag)} (exchange instead)")
            if self.can_place(hand):
                raise RefereeError(turn, "pass", f"seat {p} can place ({' '.join(map(_tile_text, hand))} fit the board)")
        else:
            raise RefereeError(turn, "format", f"an action is place, exchange or pass, got {action!r}")
        self.counts[str(action)] += 1
        self.turns += 1
        self.player = (p + 1) % len(self.hands)
        return points, drawn

    def play(self, turn: int, entry: object) -> None:
        """Check one turn of a record (its player, hand, action, score and draws) and play it."""
        if not isinstance(entry, dict):
            raise RefereeError(turn, "format", f"a turn is an object, got {entry!r}")
        if self.end is not None:
            self.step(turn, None)  # raises "game over"
        if entry.get("player") != self.player or not _is_int(entry.get("player")):
            why = " (the opener: largest group)" if self.opening else ""
            raise RefereeError(
                turn, "player to move", f"seat {entry.get('player')!r} plays, but seat {self.player} is to move{why}"
            )
        hand = _json_tiles(entry.get("hand"), turn, "hand")
        if hand != self.hands[self.player]:
            raise RefereeError(
                turn,
                "hand",
                f"the record's hand {' '.join(map(_tile_text, hand))} is not the deal's "
                f"{' '.join(map(_tile_text, self.hands[self.player]))}",
            )
        action = entry.get("action")
        points, drawn = self.step(turn, action, entry.get("placements"), entry.get("tiles"))
        if action == "place" and (not _is_int(entry.get("score")) or entry.get("score") != points):
            raise RefereeError(turn, "score", f"the record scores {entry.get('score')!r}, the rules {points}")
        if action in ("place", "exchange"):
            said = _json_tiles(entry.get("drawn"), turn, "drawn")
            if said != drawn:
                raise RefereeError(
                    turn,
                    "draw",
                    f"the record draws {' '.join(map(_tile_text, said)) or 'nothing'}, "
                    f"the bag gives {' '.join(map(_tile_text, drawn)) or 'nothing'}",
                )


@dataclass
class RefereeResult:
    """What a replay found: the end ("out", "blocked", "dead", or None for a game
    that is not over), who went out, the final scores, and the final position."""

    players: int
    seed: int
    opener: int
    turns: int
    end: str | None
    went_out: int | None
    scores: list[int]
    board: Board
    hands: list[list[Tile]]
    bag: list[Tile]
    actions: dict[str, int] = field(default_factory=dict)


def referee_turns(game: NaiveGame, turns: Sequence[object]) -> None:
    """Check and play ``turns`` (record entries) from ``game``'s position; afterwards
    ``game.end`` says how the rules end the game after the last of them (None: it goes
    on).  Raises RefereeError at the first turn that breaks a rule, including a turn
    played after the end.  See :func:`referee_replay` on how the end is found."""
    last_place = max(
        (i for i, t in enumerate(turns) if isinstance(t, dict) and t.get("action") == "place"), default=-1
    )
    for i, entry in enumerate(turns):
        game.play(i, entry)
        if game.end is None and i >= last_place:  # no later placement vouches for this position
            end = game.rules_end()
            if end is not None:
                game.end, game.end_turn = end, i


def referee_replay(record: object) -> RefereeResult:
    """Replay a ``qwirkle-record/1`` game from its seed and check every rule.

    The deal, the opener and the opening group, every turn's player and hand, each
    placement's legality and score (:func:`naive_score`), each exchange (tiles held,
    bag large enough, the tiles drawn, the mixing), passes (empty bag, nothing fits),
    going out (+6), the end (the record stops exactly when the rules end the game; an
    ``"end"`` field, if present, must name that end, ``null`` for an unfinished game)
    and the final scores.  Raises :class:`RefereeError` naming the turn and the rule.

    Whether the game is over is known at once for "out".  "Blocked" and "dead" can only
    start with a placement and do not change until the next one (exchanges and passes
    leave the board and the tiles off it as they are); a later legal placement proves
    that neither holds in between, so the rules' full test runs only after the last
    placement of the record, and for each pass (the passer must have no tile that fits).
    """
    if not isinstance(record, dict) or record.get("format") != "qwirkle-record/1":
        raise RefereeError(None, "format", "not a qwirkle-record/1 object")
    turns = record.get("turns")
    if not isinstance(turns, list):
        raise RefereeError(None, "format", f"turns is a list, got {turns!r}")
    first = turns[0].get("player") if turns and isinstance(turns[0], dict) else None
    game = NaiveGame.from_deal(record.get("players"), record.get("seed"), first)  # type: ignore[arg-type]
    opener = game.player
    referee_turns(game, turns)
    if "end" in record:
        claimed = record["end"]
        if claimed is not None and claimed not in ENDS:
            raise RefereeError(None, "format", f"end is one of {ENDS} or null, got {claimed!r}")
        if claimed != game.end:
            if game.end is None:
                raise RefereeError(None, "end", f"the record says the game ended ({claimed}), but it goes on")
            raise RefereeError(
                None, "end", f"the record says {claimed!r}, but the game ended ({game.end}) after turn {game.end_turn}"
            )
    scores = record.get("scores")
    if scores != game.scores:
        raise RefereeError(None, "final scores", f"the record says {scores!r}, the rules {game.scores}")
    return RefereeResult(
        players=len(game.hands),
        seed=record["seed"],
        opener=opener,
        turns=len(turns),
        end=game.end,
        went_out=game.went_out,
        scores=list(game.scores),
        board=dict(game.board),
        hands=[list(h) for h in game.hands],
        bag=list(game.bag),
        actions=dict(game.counts),
    )


def naive_selfplay_record(
    seed: int,
    players: int = 2,
    rng: random.Random | None = None,
    exchange_rate: float = 0.0,
    max_turns: int | None = None,
) -> dict[str, object]:
    """A ``qwirkle-record/1`` game played by the rules above, for the referee's own tests.

    Each turn places a best-scoring move of :func:`naive_legal_moves` (a uniformly
    random one if ``rng`` is given), or, with probability ``exchange_rate`` or when
    nothing fits, exchanges ``min(hand, bag)`` random tiles; with an empty bag and
    nothing to place it passes.  Stops at the rules' end (the record's ``end``) or
    after ``max_turns`` turns (``end`` null)."""
    game = NaiveGame.from_deal(players, seed)
    pick = rng or random.Random(seed)
    turns: list[dict[str, object]] = []
    while game.end is None and (max_turns is None or len(turns) < max_turns):
        p = game.player
        hand = list(game.hands[p])
        moves = naive_legal_moves(game.board, hand)
        if game.opening:
            moves = {m: s for m, s in moves.items() if len(m) == game.opening}
        entry: dict[str, object] = {"player": p, "hand": _tiles_json(hand)}
        ordered = sorted(moves, key=_move_sort_key)
        if moves and not (game.bag and not game.opening and pick.random() < exchange_rate):
            if rng is None:
                best = max(moves.values())
                move = next(m for m in ordered if moves[m] == best)
            else:
                move = pick.choice(ordered)
            placements = [list(pl) for pl in sorted(move)]
            points, drawn = game.step(len(turns), "place", placements)
            entry.update(action="place", placements=placements, score=points, drawn=_tiles_json(drawn))
        elif game.bag:
            tiles = _tiles_json(pick.sample(hand, min(len(hand), len(game.bag))))
            _, drawn = game.step(len(turns), "exchange", tiles=tiles)
            entry.update(action="exchange", tiles=tiles, drawn=_tiles_json(drawn))
        else:
            game.step(len(turns), "pass")
            entry["action"] = "pass"
        turns.append(entry)
        if game.end is None:
            end = game.rules_end()
            if end is not None:
                game.end, game.end_turn = end, len(turns) - 1
    return {
        "format": "qwirkle-record/1",
        "players": players,
        "seed": seed,
        "turns": turns,
        "scores": list(game.scores),
        "end": game.end,
    }


# ---------------------------------------------------------------- text forms (golden files)

COLOR_LETTERS = "ROYGBP"
SHAPE_LETTERS = "csdlxb"


def naive_tile_text(t: Tile) -> str:
    """Two letters: colour ``ROYGBP``, shape ``csdlxb`` (``(0, 1)`` -> ``"Rs"``)."""
    return COLOR_LETTERS[t[0]] + SHAPE_LETTERS[t[1]]


def naive_tile_from_text(text: str) -> Tile:
    if len(text) != 2 or text[0] not in COLOR_LETTERS or text[1] not in SHAPE_LETTERS:
        raise ValueError(f"not a tile: {text!r}")
    return (COLOR_LETTERS.index(text[0]), SHAPE_LETTERS.index(text[1]))


def naive_placements_text(placements: Iterable[Placement]) -> str:
    """``"Rc@0,0 Rs@0,1"``: the placements in (row, col) order."""
    return " ".join(f"{naive_tile_text((co, sh))}@{r},{c}" for r, c, co, sh in sorted(placements))


def naive_board_text(board: Board) -> str:
    return naive_placements_text((r, c, co, sh) for (r, c), (co, sh) in board.items())


def naive_board_from_text(text: str) -> Board:
    board: Board = {}
    for word in text.split():
        tile, _, cell = word.partition("@")
        r, c = cell.split(",")
        board[(int(r), int(c))] = naive_tile_from_text(tile)
    return board


def naive_moves_digest(moves: dict[Move, int]) -> str:
    """First 16 hex digits of the sha256 of the moves in a canonical text: one line per
    move, ``"<placements text> <score>"``, the lines sorted, joined by newlines."""
    lines = sorted(f"{naive_placements_text(m)} {s}" for m, s in moves.items())
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()[:16]


def _main(argv: Sequence[str]) -> int:
    """``python tests/naive.py FILE...``: referee every record of JSON-lines files
    (``-`` or nothing: standard input); print how the games ended, or the first
    record that breaks a rule (exit status 1)."""
    import json
    import sys

    ends: Counter[str] = Counter()
    for name in argv or ["-"]:
        stream = sys.stdin if name == "-" else open(name)  # noqa: SIM115
        with stream:
            for number, line in enumerate(stream, 1):
                if not line.strip():
                    continue
                try:
                    result = referee_replay(json.loads(line))
                except (ValueError, RefereeError) as exc:
                    print(f"{name}:{number}: {exc}")
                    return 1
                ends[str(result.end)] += 1
    print(f"{sum(ends.values())} records follow the rules; ends: {dict(sorted(ends.items()))}")
    return 0


if __name__ == "__main__":
    import sys

    sys.exit(_main(sys.argv[1:]))
