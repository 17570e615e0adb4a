"""Slow, independent reference implementation of the Qwirkle rules.

This module is the oracle that the fast move generator is checked against. It
reads nothing from ``qwirkle_core`` on purpose and uses the standard library
only. It follows ``shared/RULES.md``.

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
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterable, Sequence

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
    "NaiveIllegal",
    "kind",
    "mirror",
    "naive_board_problem",
    "naive_legal_moves",
    "naive_masks",
    "naive_play_random_game",
    "naive_score",
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
