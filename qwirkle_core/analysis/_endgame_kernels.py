"""The endgame solver's kernels: alpha-beta (negamax on the spread) over one board
state, for two players once the bag is empty (perfect information).

A position of the search is the board state ``st`` (pushed with ``_state.push_legal``,
taken back with ``_state.pop``), both hands as counts per kind (``counts[side, kind]``,
a hand may hold two copies of a kind) with their kind masks (``masks[side]``, what
``_movegen.generate`` takes) and sizes, and the side to move.  Side 0 is the player to
move at the solver's root; a search started elsewhere (the principal variation's walk)
says which side moves at its own root.

A node's value is the points the side to move will score from here on minus the other
side's, under best play by both (the going-out bonus included); the caller adds the
scores so far.  The rules with the bag empty (``_turn.settle_turn``, ``close_turn``,
``ending``): a placement scores its points; one that empties the hand ends the game and
scores GOING_OUT_BONUS more; a side that cannot place passes; when neither side can
place the game ends at once, with no bonus.

The search is iterative (numba compiles a loop over an explicit stack of frames more
readily than recursion, and the frames are preallocated): per ply a move table
(``tables[ply]``, written by ``generate``) and an order (``order[ply]``, the table's rows
picked by selection, so a cut-off early in the list sorts nothing more): best by
score, with four points more for each tile placed (:func:`pick`: of two moves that
refute a node, the one that places more tiles leaves a smaller game below it; 11 %
fewer positions than score order alone over the 1,000-position benchmark).  Before
selection come the transposition table's move for the position and, where one of the
ply's two *killer moves* (the last moves that cut a node off at that ply, found again
by :func:`order_key`) is among the moves, the first pick and then the killers
(:func:`order_first`).  Score order alone was right almost everywhere (the first move
refuted 98 % of the nodes refuted over seeds 0-19), but where the refutation is a
quiet move that scores little, it is the same in many sibling positions, and without
the killers such a position searched every scoring move
first: 64 M positions instead of 0.9 M (seed 156 of the 1,000-position benchmark).
The transposition table is keyed by a Zobrist-style hash kept incrementally: each
feature (a tile of a kind on a window cell; the c-th copy of a kind in a side's hand;
the side to move) has a fixed pseudo-random word (``feature_word``: a mixing function
instead of a table of random numbers, so nothing is allocated per window), and a
position's key is the XOR of the words of the features it differs from the root by,
XOR a per-solve salt.  So an entry of an earlier solve is, but for a 2**-62 chance,
never found again, and the table needs no clearing between solves.

Two shortcuts cut the tree where most of it lies, near the end, where the hands are
down to a tile or two (measured over seeds 0-19: 3.2 times fewer positions, the same
values).  A side to move that holds one tile ends the game with any placement, so its
value is its best placement plus the bonus (one ``MODE_BEST`` query, no children).  And
the opponent's *going-out threats* bound a move from above without searching it: a
move of ours that leaves the opponent a way to go out that our move does not touch
(no row and no column in common with it, so every line through that move's cells is
unchanged: still legal, the same score) is worth at most its score minus that
threat's score and bonus; when that is no better than alpha, the move is skipped
unsearched (fail-soft: the bound joins the node's best, an upper bound).  The threats
are read from the opponent's own move table one ply up (its rows that use exactly
the tiles it holds now and that its move there did not touch: a subset of its
going-out moves, which is all a lower bound needs), so they cost no move generation;
at the root they come from one.

A third bound reaches one ply further.  When our move leaves us a last tile b, the
opponent may answer with a move r that does not end the game, after which we score at
most one placement of b and the bonus: so the opponent's value is at least r's score
less that.  Our b scores
at most 5 a line, 10 in all, unless b could ever stand in a line of six
(:func:`qwirkle_free_kinds` finds, once a solve, the kinds that cannot: no six cells of
any row or column can hold it with tiles of one colour or one shape, counting the tiles
on the board and in both hands).  The opponent's answers are read from its table one
ply up, like its threats.  Once the moves a node tries first (those put first on
entry, or else the first picked) have not cut it off, the moves that either bound
skips are dropped in one pass (:func:`prune_unsearched`), not one pick at a time.

The pass applies a fourth bound, a race (:func:`race_bound`), to a move that leaves us
two tiles that can never share a line, so that we cannot go out in one move: the
opponent answers with a reply that leaves it one tile b, and after our next move
(one tile, at most LAST_TILE_MAX or LAST_TILE_MAX_SIX) b goes out on a spot that no
tile of ours can take: of three of b's spots that share no row and no column with one
another (nor with our move or the reply), one tile placed anywhere writes at most two.
Measured before it over the 30 median positions of the benchmark, more than half of
the moves searched that fell short of alpha fell short by ten points or more, and
their positions were mostly answered at once (by the table, or by the opponent's
known reply that leaves it one tile): each still cost a push, a pop and an answer.
The race bound skips such moves unpushed: over those positions 19 % fewer positions
and 6 % less time, over ten of the slowest 19 % and 9 %; the same values on all
1,000.

A node whose opponent holds one tile (about half of the search's time before this
shortcut; with it, 22 % less time over the 1,000-position benchmark) has no children
(:func:`last_tile_node`): each of our moves either goes out or is answered by the
opponent's best placement, which ends the game.  That placement after our move is
found without a move generation.  A push rewrites the info of exactly the cells whose
row or column it changes, and logs each word; every other spot of the tile is still
legal with the same score.  So the tile's spots are the one-tile rows of the
opponent's table one ply up and the cells its move wrote, each scored on the board as
it is; after our move, only the cells our push wrote are scored anew, and of the
rest the first spot whose score is unchanged is the best.  A move that leaves the
tile no place (the opponent passes, and we move again) and us one tile is worth its
score and our last tile's best placement (and the bonus), or its score alone where
that tile has no place either (the game ends); one that leaves us more tiles hands
the node back to the search.  Where the opponent has just passed, its tile has no
place now.  (Scoring those too: 7 % less time over nine of the benchmark's slowest,
where passes are frequent, whose search entered 1.25 M nodes of one tile a side.)

Such a node is most often the opponent's refutation of a move that left it one tile,
and the refutation is most often a move we could already make two plies up, which
neither our move there nor the opponent's since has touched: the replies the
opponent's node gathered to bound its own moves.  So before its move generation the
node tries those replies that the opponent's move left untouched, best score first,
each answered by the opponent's best placement of its last tile
(:func:`known_reply_cut`): the first worth beta or more answers the node (a lower
bound, with no move generation).  Over the five slowest positions of the benchmark
that is 9 % less time; the values are the same.

One ply higher the same holds.  A node where both sides hold two tiles or more is
most often the refutation of the opponent's move, and the refutation most often our
best reply from two plies up that leaves us one tile, untouched since.  So the node
first plays that reply and scores the opponent's node after it as the search would
(whose opponent, we, now holds one tile: :func:`last_tile_node`, with our last
tile's spots read from our table two plies up and the three pushes since), with a
null window at what our node needs (:func:`reply_to_one_tile_cut`).  Where that
node fails low, ours is cut off with no move generation of its own: 25 % less time
over the 30 median positions of the benchmark and 22 % over the five slowest, the
same values.

The search and this module's helpers count no references (``borrowing_kernel``,
``borrowing_helper``): with counting, every array a helper takes, and every view of a
ply's row passed to one, cost two atomic operations per call, and those were a third of
the search's time (perf, over the 30 median positions of the benchmark: NRT_incref and
NRT_decref 17 % each; without them 24 % less time, the same positions).  So the search
allocates nothing: its scratch (``new_search_work``) is the caller's, like the move
tables.  (The move generator and the board state's ``push_legal`` and ``pop`` stay
counted kernels, shared with the rest of the library; the arrays that Python passes to
a kernel that does not count come without a count, so their increfs and decrefs skip
them: none was left in the profile.)  Three small helpers called from many places,
which LLVM left as calls (``box``, ``move_key``, ``undo_row``: 7 % of the time in
the profile), are inlined by numba instead (``inline_helper``): 3-5 % less time.

The window never grows during a search: the Python layer gives the kernels a state
whose margin is MARGIN plus every tile left in both hands (``padded_state``), and no
sequence of placements can reach farther out than the tiles placed, so ``push_legal``
never answers NEED_REGROW (should it, the search stops with S_BROKEN rather than
carry on a wrong board).

Depth-limited searches (iterative deepening under a time limit) count the leaves cut
at the horizon; a value whose subtree met no horizon is exact and is stored as
RESOLVED, usable at any depth.  numba's nopython mode has no clock, so the clock and
the deepening loop are the Python layer's: each search gets a node budget (from the
time left and the rate measured so far) and stops with S_ABORTED when it runs out,
having taken back every move it pushed.
"""

from __future__ import annotations

import numpy as np

from .._constants import GOING_OUT_BONUS, N_KINDS
from .._frontier import in_area, window_leaves_area
from .._jit import borrowing_helper, borrowing_kernel, inline_helper, kernel
from .._layout import (
    A_TYPE,
    COL_COLS,
    COL_KINDS,
    COL_N,
    COL_ROWS,
    COL_SCORE,
    OUT_COLS,
    PASS,
    PLACE,
    KArray,
    KInt,
)
from .._lines import lowest_kind
from .._movegen import MODE_ALL, MODE_ANY, MODE_BEST, generate, kinds_apart, placement_points
from .._prefetch import prefetch
from .._state import (
    NEED_REGROW,
    S_C0,
    S_C1,
    S_COL_AT,
    S_HEIGHT,
    S_LEFT,
    S_OCC_AT,
    S_R0,
    S_R1,
    S_ROW_AT,
    S_TOP,
    S_WIDTH,
    pop,
    push_legal,
)

# Plies a search can go: every turn but a pass places a tile, at most 12 tiles are left
# in two hands, and a pass is followed by a placement (or the game is over).
MAX_PLY = 32
INFINITY = 1 << 30  # beyond any spread

# The transposition table: int64[size, TT_COLS], size a power of two.
T_KEY = 0  # the position's key (0: empty slot)
T_MOVE = 1  # the best move's key (move_key), 0 for a pass
T_DATA = 2  # stamp << STAMP_SHIFT | (value + VALUE_OFFSET) << 16 | ply << 10 | depth << 2 | flag
TT_COLS = 3
VALUE_OFFSET = 1 << 30
VALUE_MASK = (1 << 31) - 1  # value + VALUE_OFFSET, in bits 16-46
# Which solve stored an entry (the caller's per-solve stamp, 15 bits): an entry of an
# earlier solve is never found again (its key has another salt), so its slot is free
# whatever ply it was stored from.  Without the stamp the first slot of a bucket kept
# an earlier solve's entries near its root for ever: after 200 solves 85 % of them
# held ply 2-3 entries of old solves, and a large solve had the second slots alone
# (9-10 % more positions and 7-15 % more time on three of the benchmark's slowest).
STAMP_SHIFT = 47
STAMP_MASK = (1 << 15) - 1
FLAG_EXACT = 1
FLAG_LOWER = 2  # the value is at least this
FLAG_UPPER = 3  # the value is at most this
RESOLVED = 255  # the depth of a value whose subtree met no horizon: exact at any depth

# stats: int64[N_STATS], what a search reports (and the node budget it is given).
S_NODES = 0  # positions searched (cumulative over calls)
S_HORIZON = 1  # leaves cut at the depth limit, or inexact entries used (cumulative)
S_STATUS = 2  # how the last search ended, OK or ...
S_NEED = 3  # with S_NEED_CAPACITY: the rows of move table a position needs
S_LIMIT = 4  # the node count at which a search stops (S_ABORTED)
N_STATS = 5
OK = 0
S_ABORTED = 1  # the node budget ran out: nothing pushed is left on the board
S_NEED_CAPACITY = 2  # a move table is too small: grow ``tables`` to S_NEED rows, search again
S_BROKEN = 3  # the board needed a larger window, or generate refused the hand (a bug)

# A search frame: int64[MAX_PLY + 1, N_FRAME], one row per ply.
F_ALPHA = 0
F_BETA = 1
F_ALPHA0 = 2  # alpha when the node was entered (for the table's flag)
F_BEST = 3  # best value so far
F_BEST_ROW = 4  # its row of the ply's table, -1 for a pass
F_N = 5  # moves (rows of the table); 0 for a pass node
F_NEXT = 6  # next position in order[ply] to pick
F_ROW = 7  # the row being searched, -1 for a pass
F_HASH = 8  # the position's key
F_HORIZON0 = 9  # stats[S_HORIZON] when the node was entered
F_PRESET = 10  # how many rows at the front of order[ply] were put there on entry (tried first)
F_DEPTH = 11  # plies left to the horizon
F_PROBE = 12  # 1 while the row being searched has a null window (principal variation search)
F_THREATS = 13  # how many of the opponent's going-out threats threats[ply] holds
F_REPLIES = 14  # how many of the opponent's other moves replies[ply] holds (REPLIES_LATER: not gathered yet)
F_END = 15  # order[ply][:F_END] holds the rows still to try (fewer once pruned in bulk)
F_PRUNED = 16  # 1 once prune_unsearched has run at the node
F_SPOTS_KIND = 17  # the kind whose one-tile rows of the node's table known_spots[ply] holds, or -1
F_SPOTS_N = 18  # how many (-1: too many)
N_FRAME = 19
# F_REPLIES of a node whose replies are gathered when first needed (gather_replies): a
# node cut off by the moves it tries first, before any move leaves one tile that the
# threats did not bound, never reads them (the gathering was a tenth of the search).
REPLIES_LATER = -1

# Killer moves: per ply, the last N_KILLERS moves (by order_key) that cut a node off.
N_KILLERS = 2  # remember_killer and order_first hold two

# The opponent's going-out threats at a ply: int64[MAX_PLY + 1, N_THREATS, TH_COLS], the
# best N_THREATS by score (keeping more bounded no more moves over seeds 0-19), each
# its score and the box its cells lie in.
N_THREATS = 8
TH_SCORE = 0
TH_ROW0 = 1  # rows [TH_ROW0, TH_ROW1] and columns [TH_COL0, TH_COL1], inclusive
TH_ROW1 = 2
TH_COL0 = 3
TH_COL1 = 4
TH_ROW = 5  # the move's row in the table it was read from (the known-reply cuts play it)
TH_COLS = 6
# Threats are gathered while the opponent holds at most this many tiles (measured on
# seeds 0-19: 1 tile 8.3 M positions, 2 tiles 7.03 M, 3 or 6 tiles 7.02 M; larger hands
# rarely go out in one move, and scanning for it costs more than it saves).
THREAT_TILES = 2
# What a last tile scores at most: two lines of at most five, or, for a kind that may
# stand in a line of six (12 points), two such lines.
LAST_TILE_MAX = 10
LAST_TILE_MAX_SIX = 24

# Where the opponent's last tile can go: int64[MAX_SPOTS, SP_COLS], best first (a board
# of 108 tiles has fewer than 220 empty cells beside a tile).
SP_SCORE = 0
SP_CELL = 1  # window cell
SP_ROW = 2  # the caller's coordinates
SP_COL = 3
SP_COLS = 4
MAX_SPOTS = 256
UNDECIDED = -(1 << 40)  # last_tile_node's answer when the opponent could be left no place

MASK_62 = (1 << 62) - 1  # hash words keep 62 bits: the same in compiled code and plain Python
MIX_1 = 0x3F58476D1CE4E5B9 & MASK_62
MIX_2 = 0x14D049BB133111EB
TAG_CELL = 1
TAG_HAND = 2
SIDE_WORD_SEED = 3


# The search's own scratch (its frames, the gathered threats and replies, the killers,
# the spots, the bounds), the caller's, so that the search allocates nothing: ten int64
# arrays, made by new_search_work for a move-table capacity.
SearchWork = tuple[KArray, KArray, KArray, KArray, KArray, KArray, KArray, KArray, KArray, KArray]


def new_search_work(capacity: int) -> SearchWork:
    """Scratch for :func:`search` with move tables of ``capacity`` rows."""
    return (
        np.zeros((MAX_PLY + 1, N_FRAME), np.int64),  # frames
        np.zeros((MAX_PLY + 1, N_THREATS, TH_COLS), np.int64),  # threats
        np.zeros((MAX_PLY + 1, N_THREATS, TH_COLS), np.int64),  # replies
        np.zeros((MAX_PLY + 1, N_KILLERS), np.int64),  # killers
        np.zeros((MAX_SPOTS, SP_COLS), np.int64),  # spots
        np.zeros((MAX_SPOTS, SP_COLS), np.int64),  # own_spots
        np.zeros((MAX_PLY + 1, MAX_SPOTS, SP_COLS), np.int64),  # known_spots
        np.zeros((MAX_PLY + 1, capacity), np.int64),  # row_bounds
        np.zeros(capacity, np.int64),  # bounds
        np.zeros(4, np.int64),  # race_kinds
    )


@borrowing_helper
def mix(x: KInt) -> KInt:
    """A 62-bit mixing function (splitmix64's finaliser, on 62 bits).  Every product is
    taken modulo 2**62 by the mask, which compiled code (wrapping int64) and plain
    Python (exact ints) agree on."""
    x &= MASK_62
    x = ((x ^ (x >> 31)) * MIX_1) & MASK_62
    x = ((x ^ (x >> 29)) * MIX_2) & MASK_62
    return x ^ (x >> 32)


@borrowing_helper
def feature_word(tag: KInt, a: KInt, b: KInt) -> KInt:
    """The Zobrist word of a feature: TAG_CELL (a = window cell, b = kind), TAG_HAND
    (a = side * N_KINDS + kind, b = which copy), or the side word."""
    return mix(((a * 64 + b) << 2) | tag)


@borrowing_helper
def side_word() -> KInt:
    return mix(SIDE_WORD_SEED)


@inline_helper
def move_key(st: KArray, table: KArray, r: KInt) -> KInt:
    """The key of row ``r`` of a move table: the XOR of its tiles' cell words (never 0
    but by chance)."""
    width = st[S_WIDTH]
    top = st[S_TOP]
    left = st[S_LEFT]
    key = 0
    for s in range(table[r, COL_N]):
        cell = (table[r, COL_ROWS + s] - top) * width + (table[r, COL_COLS + s] - left)
        key ^= feature_word(TAG_CELL, cell, table[r, COL_KINDS + s])
    return key


@borrowing_helper
def apply_row(
    st: KArray, counts: KArray, masks: KArray, sizes: KArray, log: KArray, table: KArray, r: KInt, side: KInt, key: KInt,
) -> KInt:
    """Push row ``r`` of ``table`` for ``side`` and take its tiles from the hand; the
    child's key, or -1 (nothing changed) when the board would need a larger window."""
    if push_legal(st, log, table[r], table[r, COL_SCORE]) == NEED_REGROW:
        return -1
    key ^= move_key(st, table, r) ^ side_word()
    for s in range(table[r, COL_N]):
        kind = table[r, COL_KINDS + s]
        c = counts[side, kind] - 1
        counts[side, kind] = c
        key ^= feature_word(TAG_HAND, side * N_KINDS + kind, c)
        if c == 0:
            masks[side] &= ~(np.int64(1) << kind)
    sizes[side] -= table[r, COL_N]
    return key


@inline_helper
def undo_row(st: KArray, counts: KArray, masks: KArray, sizes: KArray, log: KArray, table: KArray, r: KInt, side: KInt) -> None:
    """Take back :func:`apply_row` (the caller restores the key it kept)."""
    pop(st, log)
    for s in range(table[r, COL_N]):
        kind = table[r, COL_KINDS + s]
        counts[side, kind] += 1
        masks[side] |= np.int64(1) << kind
    sizes[side] += table[r, COL_N]


@borrowing_helper
def order_key(table: KArray, r: KInt) -> KInt:
    """A cheap identity of row ``r`` for the killer moves (never 0): its first and last
    tiles' cells and kinds, and its size.  On one board that fixes the move but for the
    kinds of its middle tiles (its cells are those two and the empty cells between
    them), and two moves that share it only swap places in the order moves are tried:
    no value depends on it."""
    last = table[r, COL_N] - 1
    key = np.int64(1) | (np.int64(table[r, COL_N]) << 4)  # (int64 first: the table is int32)
    key |= (np.int64(table[r, COL_KINDS]) << 14) | (np.int64(table[r, COL_KINDS + last]) << 8)
    key |= (np.int64(table[r, COL_ROWS + last]) & 1023) << 30 | (np.int64(table[r, COL_COLS + last]) & 1023) << 20
    key |= (np.int64(table[r, COL_ROWS]) & 1023) << 50 | (np.int64(table[r, COL_COLS]) & 1023) << 40
    return key


@borrowing_helper
def remember_killer(killers: KArray, ply: KInt, key: KInt) -> None:
    """A move cut a node off at ``ply``: the newest killer there, the older one kept."""
    if killers[ply, 0] != key:
        killers[ply, 1] = killers[ply, 0]
        killers[ply, 0] = key


@borrowing_helper
def move_to_front(st: KArray, table: KArray, rows: KArray, n: KInt, key: KInt) -> bool:
    """Swap the row whose move_key is ``key`` (not 0) to the front of ``rows``; whether
    one was found."""
    for i in range(n):
        if move_key(st, table, i) == key:
            rows[0] = i
            rows[i] = 0
            return True
    return False


@borrowing_helper
def order_first(
    st: KArray, table: KArray, rows: KArray, n: KInt, hand_size: KInt, tt_move: KInt, killers: KArray, ply: KInt,
) -> KInt:
    """Put the rows to try first at the front of ``rows`` (the identity on entry):
    the transposition table's move (``tt_move``, a move_key, 0 for none), then, when a
    killer of ``ply`` is among the moves, the first :func:`pick` would take and the
    killers after it.  Returns how many rows were put there.  Moves by score alone
    refuted 98 % of the nodes that a move refutes with their first move (seeds 0-19,
    before :func:`pick` weighed the tiles placed); the killers rescue
    the positions where the refutation is a quiet move that scores little, the same
    in many sibling positions: one such position of 64 M positions searched needs
    0.88 M with them (seed 156 of the endgame benchmark)."""
    if n <= 1:
        return 0
    preset = 1 if tt_move != 0 and move_to_front(st, table, rows, n, tt_move) else 0
    killer_0 = killers[ply, 0]
    killer_1 = killers[ply, 1]
    found_0 = -1
    found_1 = -1
    if killer_0 != 0:
        for i in range(n):
            if preset == 1 and i == rows[0]:
                continue
            key = order_key(table, i)
            if key == killer_0:
                found_0 = i
            elif key == killer_1:
                found_1 = i
    if found_0 < 0 and found_1 < 0:
        return preset
    top = pick(table, rows, preset, n, hand_size)
    preset += 1
    for want in (found_0, found_1):
        if want >= 0 and want != top:
            j = preset
            while rows[j] != want:
                j += 1
            rows[j] = rows[preset]
            rows[preset] = want
            preset += 1
    return preset


# pick's order: a move's score (with the bonus, for one that goes out) and TILE_WEIGHT
# points for each tile it places.
TILE_WEIGHT = 4


@borrowing_helper
def pick(table: KArray, order: KArray, at: KInt, n: KInt, hand_size: KInt) -> KInt:
    """Selection step: bring the next row to try to ``order[at]`` and return it: the
    best by score, a move that goes out counting its bonus, and TILE_WEIGHT more for
    each tile placed (of equal ones, the move of more tiles).  Most nodes are refuted
    by the first move tried, and of two moves that refute, the one that places more
    tiles leaves a smaller game below it (fewer tiles left in all, sooner within
    reach of the last-tile shortcuts and the bounds).  Over the 1,000 positions of the
    benchmark, against score order alone: 11 % fewer positions in all, the median
    solve 14 % fewer (63,538 to 54,969); a weight of 3 or 5, or the tiles placed
    first and then the score, 0.2-3 % more than 4.  Not every position gains (a
    refutation that places more tiles may cost more below): seed 460 searched 3.9 M
    positions instead of 2.4 M, and seed 341 0.11 M instead of 1.6 M."""
    best_at = at
    best_key = -1
    for i in range(at, n):
        r = order[i]
        k = table[r, COL_SCORE] + (GOING_OUT_BONUS if table[r, COL_N] == hand_size else 0)
        k = (k + TILE_WEIGHT * table[r, COL_N]) * 8 + table[r, COL_N]  # (a move places at most 6 tiles)
        if k > best_key:
            best_key = k
            best_at = i
    r = order[best_at]
    order[best_at] = order[at]
    order[at] = r
    return r


@borrowing_helper
def unwind(
    st: KArray, counts: KArray, masks: KArray, sizes: KArray, log: KArray, tables: KArray, frames: KArray, ply: KInt, root_side: KInt,
) -> None:
    """Take back every move pushed on the way to ``ply`` (an aborted search)."""
    for p in range(ply - 1, -1, -1):
        r = frames[p, F_ROW]
        if r >= 0:
            undo_row(st, counts, masks, sizes, log, tables[p], r, (root_side + p) & 1)


@borrowing_helper
def tt_slot(tt: KArray, key: KInt) -> KInt:
    """The slot holding ``key``, or -1.  Slots go in pairs (a bucket): see tt_store."""
    slot = key & (tt.shape[0] - 2)
    if tt[slot, T_KEY] == key:
        return slot
    if tt[slot + 1, T_KEY] == key:
        return slot + 1
    return -1


@borrowing_helper
def tt_prefetch(tt: KArray, key: KInt) -> None:
    """Ask the CPU for the bucket of ``key`` (see tt_slot), to be read soon."""
    prefetch(np.int64(tt.ctypes.data) + (key & (tt.shape[0] - 2)) * (TT_COLS * 8))


@borrowing_helper
def tt_store(tt: KArray, key: KInt, move: KInt, value: KInt, depth: KInt, flag: KInt, ply: KInt, stamp: KInt) -> None:
    """Two slots a bucket: the first keeps the entry nearest the root (the largest
    subtree, the costliest to search again) of this solve (``stamp``: an entry of an
    earlier solve is replaced whatever its ply), the second takes whatever else comes.
    An exact solve stores millions of positions in a table of a million entries, and a
    table that always replaced its one slot lost the entries that save the most."""
    slot = key & (tt.shape[0] - 2)
    data = tt[slot, T_DATA]
    if tt[slot, T_KEY] != key and tt[slot, T_KEY] != 0 and (data >> STAMP_SHIFT) == stamp and ((data >> 10) & 63) < ply:
        slot += 1
    tt[slot, T_KEY] = key
    tt[slot, T_MOVE] = move
    # (int64 first: a value made from a move table's int32 scores would overflow when
    # shifted in plain Python, the JIT off; compiled, numba widens it anyway.)
    tt[slot, T_DATA] = (
        (np.int64(stamp) << STAMP_SHIFT) | ((np.int64(value) + VALUE_OFFSET) << 16) | (ply << 10) | (depth << 2) | flag
    )


@borrowing_helper
def tt_value(data: KInt) -> KInt:
    """The value in an entry's data word."""
    return ((data >> 16) & VALUE_MASK) - VALUE_OFFSET


@inline_helper
def box(table: KArray, r: KInt) -> tuple[KInt, KInt, KInt, KInt]:
    """The rows and columns (inclusive) that row ``r``'s cells span."""
    row0 = table[r, COL_ROWS]
    row1 = row0
    col0 = table[r, COL_COLS]
    col1 = col0
    for s in range(1, table[r, COL_N]):
        row0 = min(row0, table[r, COL_ROWS + s])
        row1 = max(row1, table[r, COL_ROWS + s])
        col0 = min(col0, table[r, COL_COLS + s])
        col1 = max(col1, table[r, COL_COLS + s])
    return row0, row1, col0, col1


@borrowing_helper
def apart(row0: KInt, row1: KInt, col0: KInt, col1: KInt, threat: KArray) -> bool:
    """Whether a move spanning rows [row0, row1] and columns [col0, col1] shares no row
    and no column with the threat: every line through the threat's cells, and every
    cell between them, is then untouched by the move."""
    rows_apart = threat[TH_ROW1] < row0 or threat[TH_ROW0] > row1
    cols_apart = threat[TH_COL1] < col0 or threat[TH_COL0] > col1
    return bool(rows_apart and cols_apart)


@borrowing_helper
def gather_moves(
    table: KArray, n: KInt, played: KInt, counts: KArray, side: KInt, size: KInt, going_out: bool, out: KArray,
) -> KInt:
    """The moves of ``side`` (holding ``size`` tiles) among the ``n`` rows of its move
    ``table`` that go out (``going_out``: all ``size`` tiles; its threats) or that do
    not (fewer: its replies), whose tiles it holds and, when ``played`` is a row (the
    move it made from this table), that the played move does not touch, so that they
    are still legal with the same score.  The best N_THREATS by score go into ``out``,
    best first, as (score, box, row); returns how many."""
    if played >= 0:
        row0, row1, col0, col1 = box(table, played)
    k = 0
    for r in range(n):
        if (table[r, COL_N] == size) != going_out or table[r, COL_N] > size:
            continue
        score = table[r, COL_SCORE]
        if k == N_THREATS and score <= out[k - 1, TH_SCORE]:
            continue
        held = True
        for s in range(table[r, COL_N]):
            if counts[side, table[r, COL_KINDS + s]] == 0:
                held = False
        if not held:
            continue
        t_row0, t_row1, t_col0, t_col1 = box(table, r)
        if played >= 0 and not ((t_row1 < row0 or t_row0 > row1) and (t_col1 < col0 or t_col0 > col1)):
            continue
        i = min(k, N_THREATS - 1)  # insertion, best first; a full list drops its last
        while i > 0 and out[i - 1, TH_SCORE] < score:
            for c in range(TH_COLS):
                out[i, c] = out[i - 1, c]
            i -= 1
        out[i, TH_SCORE] = score
        out[i, TH_ROW0] = t_row0
        out[i, TH_ROW1] = t_row1
        out[i, TH_COL0] = t_col0
        out[i, TH_COL1] = t_col1
        out[i, TH_ROW] = r
        k = min(k + 1, N_THREATS)
    return k


@borrowing_helper
def gather_replies(
    tables: KArray, frames: KArray, ply: KInt, counts: KArray, side: KInt, sizes: KArray, out: KArray,
) -> KInt:
    """The replies of the node at ``ply`` (``side`` to move): the opponent's moves
    that do not go out, from its table one ply up (:func:`gather_moves`)."""
    return gather_moves(
        tables[ply - 1], frames[ply - 1, F_N], frames[ply - 1, F_ROW], counts, 1 - side, sizes[1 - side], False, out,
    )


@borrowing_helper
def copies_left(table: KArray, r: KInt, counts: KArray, side: KInt, kind: KInt) -> KInt:
    """How many tiles of ``kind`` ``side``'s hand holds after its move ``r``."""
    c = counts[side, kind]
    for s in range(table[r, COL_N]):
        if table[r, COL_KINDS + s] == kind:
            c -= 1
    return c


@borrowing_helper
def kinds_left(table: KArray, r: KInt, counts: KArray, side: KInt, hand_kinds: KInt) -> KInt:
    """The kinds that ``side``'s hand holds after its move ``r`` (``hand_kinds``: the
    kinds it holds before r), as a mask."""
    left = 0
    held = hand_kinds
    while held:
        kind = lowest_kind(held)
        held &= held - 1
        if copies_left(table, r, counts, side, kind) > 0:
            left |= np.int64(1) << kind
    return left


@borrowing_helper
def kind_left(table: KArray, r: KInt, counts: KArray, side: KInt, hand_kinds: KInt) -> KInt:
    """The kind of the one tile that ``side``'s move ``r`` leaves in its hand."""
    return lowest_kind(kinds_left(table, r, counts, side, hand_kinds))


@borrowing_helper
def reply_bound(
    table: KArray, r: KInt, counts: KArray, side: KInt, hand_kinds: KInt, replies: KArray, k: KInt, free_kinds: KInt,
) -> KInt:
    """A lower bound on the opponent's value after our move ``r``, which leaves us one
    tile b (``hand_kinds``: the kinds our hand holds before r): its best reply that
    ``r`` does not touch (so still legal, the same score),
    less the most we can score from then on: one placement of b, at most LAST_TILE_MAX
    (LAST_TILE_MAX_SIX where b may stand in a line of six), and the bonus (the
    opponent scores nothing less than 0 meanwhile); -INFINITY when ``r`` touches every
    reply."""
    left = kind_left(table, r, counts, side, hand_kinds)
    most = LAST_TILE_MAX if (free_kinds >> left) & 1 else LAST_TILE_MAX_SIX
    row0, row1, col0, col1 = box(table, r)
    for i in range(k):
        if apart(row0, row1, col0, col1, replies[i]):
            return replies[i, TH_SCORE] - GOING_OUT_BONUS - most
    return -INFINITY


@borrowing_helper
def bits(mask: KInt) -> KInt:
    count = 0
    while mask:
        mask &= mask - 1
        count += 1
    return count


# The kinds of colour 0 (shapes 0-5) and of shape 0 (colours 0-5): shifted, a colour's or
# a shape's kinds (kind = colour * 6 + shape).
COLOUR_0_KINDS = (1 << 6) - 1
SHAPE_0_KINDS = sum(1 << (6 * c) for c in range(6))


@borrowing_helper
def line_mates(k: KInt, by_shape: KInt) -> KInt:
    """The kinds that share kind ``k``'s colour (or, ``by_shape``, its shape), k too."""
    if by_shape:
        return SHAPE_0_KINDS << (k % 6)
    return COLOUR_0_KINDS << (k - k % 6)


@kernel
def qwirkle_free_kinds(st: KArray, counts: KArray) -> KInt:
    """The kinds held by either side (``counts[side, kind]``) of which no tile can be
    in a line of six in any continuation of the position: bit k set when no six cells
    of a row or a column can come to hold k beside five tiles of k's colour (or of its
    shape), each kind once.  Such six cells have both end cells empty (else the line
    would grow past six); their tiles now share k's colour (or shape) and are all
    different, and not k; and the other kinds of that colour (or shape) in the hands
    could fill the cells left.  Six cells with no tile in them need five such kinds
    from the hands, wherever they are."""
    width = st[S_WIDTH]
    at = st[S_ROW_AT]
    held = 0
    for kind in range(N_KINDS):
        if counts[0, kind] + counts[1, kind] > 0:
            held |= 1 << kind
    free = held
    for k in range(N_KINDS):
        for by_shape in range(2):
            if (held >> k) & 1 and bits(line_mates(k, by_shape) & held & ~(1 << k)) >= 5:
                free &= ~(1 << k)
    for along_columns in range(2):
        # Six cells along a line through the tiles, starting up to five before them.
        lines0 = st[S_R0] if along_columns == 0 else st[S_C0]
        lines1 = st[S_R1] if along_columns == 0 else st[S_C1]
        span0 = st[S_C0] if along_columns == 0 else st[S_R0]
        span1 = st[S_C1] if along_columns == 0 else st[S_R1]
        limit = width if along_columns == 0 else st[S_HEIGHT]
        for line in range(lines0, lines1):
            for start in range(span0 - 5, span1):
                seen = 0
                tiles = 0
                ok = True
                for t in range(-1, 7):  # the two end cells and the six between
                    x = start + t
                    if x < 0 or x >= limit:
                        continue  # outside the window: empty
                    word = st[at + (line * width + x if along_columns == 0 else x * width + line)]
                    if word >= 0:
                        continue  # an empty cell
                    if t == -1 or t == 6 or (seen >> ~word) & 1:
                        ok = False  # longer than six, or a kind twice
                        break
                    seen |= 1 << ~word
                    tiles += 1
                if not ok or tiles == 0 or tiles == 6:
                    continue
                candidates = free & ~seen
                while candidates:
                    k = lowest_kind(candidates)
                    candidates &= candidates - 1
                    for by_shape in range(2):
                        mates = line_mates(k, by_shape)
                        if seen & ~mates == 0 and 5 - tiles <= bits(mates & held & ~seen & ~(1 << k)):
                            free &= ~(1 << k)
    return free


@borrowing_helper
def threat_bound(table: KArray, r: KInt, threats: KArray, k: KInt) -> KInt:
    """A lower bound on the opponent's value after our move ``r``: its best going-out
    threat that ``r`` does not touch, plus the bonus (going out ends the game, so that
    is what the threat alone is worth); -INFINITY when ``r`` touches every one."""
    row0, row1, col0, col1 = box(table, r)
    for i in range(k):
        if apart(row0, row1, col0, col1, threats[i]):
            return threats[i, TH_SCORE] + GOING_OUT_BONUS
    return -INFINITY


@borrowing_helper
def one_tile_a_move(
    table: KArray, r: KInt, counts: KArray, side: KInt, hand_kinds: KInt, free_kinds: KInt,
) -> KInt:
    """Where no two of the tiles that ``side``'s move ``r`` leaves in its hand
    (``hand_kinds``: the kinds it holds before r) can ever stand in one line
    (``kinds_apart``), so that each of its later moves places one tile, the most such
    a tile can score: LAST_TILE_MAX, or LAST_TILE_MAX_SIX where one of them may stand
    in a line of six (``free_kinds``); else -1."""
    left = kinds_left(table, r, counts, side, hand_kinds)
    if not kinds_apart(left):
        return -1
    return LAST_TILE_MAX if left & ~free_kinds == 0 else LAST_TILE_MAX_SIX


@borrowing_helper
def third_spot_apart(
    spots: KArray, k: KInt, row0: KInt, row1: KInt, col0: KInt, col1: KInt, reply_row0: KInt, reply_row1: KInt,
    reply_col0: KInt, reply_col1: KInt,
) -> KInt:
    """Of the spots ``spots[:k]`` (best first), the first three that share no row and no
    column with one another, with the move spanning rows [row0, row1] and columns
    [col0, col1], or with the reply spanning [reply_row0, reply_row1] and [reply_col0,
    reply_col1], taken greedily: the score of the third, or -1 when there are not
    three.  One tile placed anywhere writes cells of its own row and its own column
    only, so of three such spots it leaves at least one as it was (legal, the same
    score).  (Scalars, not the reply's row of its array: when the search counted
    references, a view passed to a helper cost 5 % of its time here.)"""
    got = 0
    row_a = -INFINITY
    col_a = -INFINITY
    row_b = -INFINITY
    col_b = -INFINITY
    for j in range(k):
        row = spots[j, SP_ROW]
        col = spots[j, SP_COL]
        if row == row_a or col == col_a or row == row_b or col == col_b:
            continue
        if not ((row < row0 or row > row1) and (col < col0 or col > col1)):
            continue
        if not ((row < reply_row0 or row > reply_row1) and (col < reply_col0 or col > reply_col1)):
            continue
        if got == 2:
            return spots[j, SP_SCORE]
        if got == 0:
            row_a = row
            col_a = col
        else:
            row_b = row
            col_b = col
        got += 1
    return -1


@borrowing_helper
def race_bound(
    table: KArray, r: KInt, counts: KArray, side: KInt, hand_kinds: KInt, free_kinds: KInt, replies: KArray,
    k_replies: KInt, st: KArray, log: KArray, prev: KArray, n_prev: KInt, other_kinds: KInt, other_size: KInt,
    spots_0: KArray, spots_1: KArray, race_kinds: KArray,
) -> KInt:
    """A lower bound on the opponent's value after our move ``r``, which leaves us two
    tiles or more, no two of which can ever stand in one line (so that each of our
    moves places one, and none goes out: :func:`one_tile_a_move`), or -INFINITY.  The
    opponent answers with a reply that leaves it one tile b (one of ``replies``, its
    moves of its table one ply up, ``prev``, that neither its move there nor ``r``
    touches: still legal, the same score), and then wins the race: our next move
    places one tile, scoring at most LAST_TILE_MAX (or LAST_TILE_MAX_SIX where the tile
    may stand in a line of six), after which b goes out on a spot that no tile of ours
    can take from it.  Such a spot is one of three of b's spots now that share no row
    and no column with one another, with ``r`` or with the reply
    (:func:`third_spot_apart`): it scores at least the third's score.  Where we have no
    move, we pass and b goes out all the same.  So the opponent's value is at least
    the reply's score less (our tile's most, less the bonus and the spot).  b's spots
    are found on the board as it is (before ``r``: the opponent's table one ply up and
    the cells its move wrote), at most two kinds at a time, kept in ``spots_0`` and
    ``spots_1`` with their kinds and counts in ``race_kinds`` (-1: none yet)."""
    most = one_tile_a_move(table, r, counts, side, hand_kinds, free_kinds)
    if most < 0:
        return -INFINITY
    row0, row1, col0, col1 = box(table, r)
    for t in range(k_replies):
        reply = replies[t, TH_ROW]
        if prev[reply, COL_N] != other_size - 1 or not apart(row0, row1, col0, col1, replies[t]):
            continue
        kind = kind_left(prev, reply, counts, 1 - side, other_kinds)
        slot = 0 if race_kinds[0] == kind else 1
        if race_kinds[2 * slot] != kind:
            slot = 0 if race_kinds[0] < 0 else 1
            race_kinds[2 * slot] = kind
            race_kinds[2 * slot + 1] = last_tile_spots_after(
                st, log, prev, n_prev, kind, spots_0 if slot == 0 else spots_1, 1,
            )
        k = race_kinds[2 * slot + 1]
        spot = -1
        if k >= 0:
            spot = third_spot_apart(
                spots_0 if slot == 0 else spots_1, k, row0, row1, col0, col1,
                replies[t, TH_ROW0], replies[t, TH_ROW1], replies[t, TH_COL0], replies[t, TH_COL1],
            )
        if spot >= 0:
            return replies[t, TH_SCORE] - (most - GOING_OUT_BONUS - spot)
    return -INFINITY


@borrowing_helper
def prune_unsearched(
    table: KArray, rows: KArray, at: KInt, end: KInt, hand_size: KInt, frame: KArray, threats: KArray,
    replies: KArray, counts: KArray, side: KInt, hand_kinds: KInt, free_kinds: KInt, row_bounds: KArray,
    st: KArray, log: KArray, prev: KArray, n_prev: KInt, other_kinds: KInt, other_size: KInt,
    spots_0: KArray, spots_1: KArray, race_kinds: KArray,
) -> KInt:
    """Drop from ``rows[at:end]`` every move that the opponent's threats or replies
    bound at or below the node's alpha now (the loop's own test in :func:`search`, and
    :func:`race_bound`, which only this pass applies; the bound joins the node's best,
    fail-soft), and return the new end.  The others are
    left best first by score (a move that goes out counting its bonus; equal ones as
    they were), each with the lower of its bounds
    in ``row_bounds[r]`` (INFINITY or more: none), so that the loop takes them in turn
    and tests each again, at the alpha of then, with no scan and no bound worked out
    again.  The loop would skip those moves one at a time as it picked them, but each
    pick scans every row left: over the benchmark's slowest positions the picks and the
    bounds took a fifth to a quarter of the search, most of it at nodes of a hand of
    two (and, once pruned, picking the rest one scan at a time and working out their
    bounds again still took 8 %).  Done once the moves put first on entry (or else the
    first picked) have not cut the node off.  The sort is by score, not in the picks'
    order (see the comment at the sort), so the positions searched differ from
    picking the moves one at a time, never a value."""
    alpha = frame[F_ALPHA]
    kept = at
    k_threats = frame[F_THREATS]
    k_replies = frame[F_REPLIES]
    race_kinds[0] = -1  # no spots of the opponent's last tile found yet (race_bound)
    race_kinds[2] = -1
    # A hand of two (most of the nodes that prune): the tile a one-tile move leaves is
    # the other one, so what it can score at most is known once (reply_bound works it
    # out a move at a time; this, and one box a move for both bounds: 1.6 % less time
    # over the benchmark's slowest positions).
    kind_a = 0
    most_a = LAST_TILE_MAX_SIX  # after a move of kind_a
    most_b = LAST_TILE_MAX_SIX  # after a move of the other kind
    if hand_size == 2:
        kind_a = lowest_kind(hand_kinds)
        kind_b = lowest_kind(hand_kinds & (hand_kinds - 1)) if counts[side, kind_a] == 1 else kind_a
        most_a = LAST_TILE_MAX if (free_kinds >> kind_b) & 1 else LAST_TILE_MAX_SIX
        most_b = LAST_TILE_MAX if (free_kinds >> kind_a) & 1 else LAST_TILE_MAX_SIX
    for i in range(at, end):
        r = rows[i]
        bound = INFINITY
        if table[r, COL_N] != hand_size:  # (a move that goes out is a leaf: never skipped)
            score = table[r, COL_SCORE]
            row0, row1, col0, col1 = box(table, r)
            for t in range(k_threats):  # (threat_bound's test)
                if apart(row0, row1, col0, col1, threats[t]):
                    bound = score - threats[t, TH_SCORE] - GOING_OUT_BONUS
                    break
            if bound > alpha and k_replies > 0 and table[r, COL_N] == hand_size - 1:
                if hand_size == 2:  # (reply_bound's test)
                    most = most_a if table[r, COL_KINDS] == kind_a else most_b
                    for t in range(k_replies):
                        if apart(row0, row1, col0, col1, replies[t]):
                            bound = min(bound, score - (replies[t, TH_SCORE] - GOING_OUT_BONUS - most))
                            break
                else:
                    bound = min(bound, score - reply_bound(
                        table, r, counts, side, hand_kinds, replies, k_replies, free_kinds,
                    ))
            if bound > alpha and k_replies > 0 and table[r, COL_N] == hand_size - 2:
                # (Moves that leave three tiles or more as well: 5 % fewer positions over
                # the 30 median positions, no less time.)
                bound = min(bound, score - race_bound(
                    table, r, counts, side, hand_kinds, free_kinds, replies, k_replies, st, log, prev, n_prev,
                    other_kinds, other_size, spots_0, spots_1, race_kinds,
                ))
            if bound <= alpha:
                if bound > frame[F_BEST]:
                    frame[F_BEST] = bound
                    frame[F_BEST_ROW] = r
                continue
        rows[kept] = r
        row_bounds[r] = bound
        kept += 1
    # Best first by score (a move that goes out counting its bonus): insertion, stable.
    # Not the picks' order (which weighs the tiles placed): the node's first tries did
    # not cut it off, so most of the rest fail low, and the better scores first raise
    # alpha sooner for the bounds tested again as each is taken.  (The picks' order
    # here: 2.5 % more positions over the benchmark's 30 median positions, 3 % over
    # ten of its slowest.)
    for i in range(at + 1, kept):
        r = rows[i]
        key = table[r, COL_SCORE] + (GOING_OUT_BONUS if table[r, COL_N] == hand_size else 0)
        j = i
        while j > at:
            q = rows[j - 1]
            if table[q, COL_SCORE] + (GOING_OUT_BONUS if table[q, COL_N] == hand_size else 0) >= key:
                break
            rows[j] = q
            j -= 1
        rows[j] = r
    return kept



@borrowing_helper
def insert_spot(spots: KArray, k: KInt, score: KInt, cell: KInt, row: KInt, col: KInt) -> None:
    """Put a spot into ``spots[:k + 1]``, best first (``spots[:k]`` is).  (gather_moves
    inserts its threats the same way: one helper for both, the row's length read from
    the array, made the search 2-3 % slower over the 30 median positions.)"""
    i = k
    while i > 0 and spots[i - 1, SP_SCORE] < score:
        for c in range(SP_COLS):
            spots[i, c] = spots[i - 1, c]
        i -= 1
    spots[i, SP_SCORE] = score
    spots[i, SP_CELL] = cell
    spots[i, SP_ROW] = row
    spots[i, SP_COL] = col


@borrowing_helper
def written_cell(st: KArray, log: KArray, e: KInt, clip: bool) -> KInt:
    """The window cell whose row or column info the log's entry ``e`` wrote, or -1
    (a header or occupancy word; with ``clip``, a window that reaches past the playing
    area's edge, also a cell beyond it, which takes no tile)."""
    i = log[1 + 2 * e]
    if i < st[S_ROW_AT] or i >= st[S_OCC_AT]:
        return -1
    cell = i - st[S_ROW_AT] if i < st[S_COL_AT] else i - st[S_COL_AT]
    if clip and not in_area(st[S_TOP], st[S_LEFT], st[S_WIDTH], cell):
        return -1
    return cell


@borrowing_helper
def pushes_mark(log: KArray, pushes: KInt) -> KInt:
    """The log's entry that opens the last ``pushes`` pushes (log[0]: none)."""
    mark = log[0]
    for _ in range(pushes):
        mark -= 1
        while log[1 + 2 * mark] >= 0:  # back to the mark that opens the push
            mark -= 1
    return mark


@borrowing_helper
def table_spots(st: KArray, table: KArray, n: KInt, kind: KInt, spots: KArray, rescore: bool) -> KInt:
    """The one-tile rows of ``kind`` among the ``n`` of ``table`` as spots, best first:
    scored as the table has them (on the board it was made for), or, ``rescore``, on
    the board as it is now (those no longer legal left out); how many, -1 when they do
    not fit."""
    width = st[S_WIDTH]
    top = st[S_TOP]
    left = st[S_LEFT]
    k = 0
    for r in range(n):
        if table[r, COL_N] != 1:
            break  # the one-tile moves are the table's first rows
        if table[r, COL_KINDS] != kind:
            continue
        cell = (table[r, COL_ROWS] - top) * width + (table[r, COL_COLS] - left)
        score = placement_points(st, cell, kind) if rescore else table[r, COL_SCORE]
        if score < 0:
            continue
        if k == spots.shape[0]:
            return -1
        insert_spot(spots, k, score, cell, table[r, COL_ROWS], table[r, COL_COLS])
        k += 1
    return k


@borrowing_helper
def last_tile_spots_after(
    st: KArray, log: KArray, table: KArray, n: KInt, kind: KInt, spots: KArray, pushes: KInt,
) -> KInt:
    """Every cell where a tile of ``kind`` alone can go, with its score, into ``spots``
    best first; how many.  Read from a move ``table`` of the tile's owner (its ``n``
    rows, on the board before the log's last ``pushes`` pushes: its own move and any
    after it), with no move generation: a spot now was one then (one of the table's
    one-tile rows of ``kind``, which come first in a table) or is a cell a push since
    wrote (see :func:`last_tile_after`), and each is scored on the board as it is now.
    A cell of both may be listed more than once, with the same score: harmless.  -1
    when they do not fit in ``spots``."""
    k = table_spots(st, table, n, kind, spots, True)
    if k < 0:
        return -1
    width = st[S_WIDTH]
    top = st[S_TOP]
    left = st[S_LEFT]
    clip = window_leaves_area(st)
    for e in range(pushes_mark(log, pushes) + 1, log[0]):
        cell = written_cell(st, log, e, clip)
        if cell >= 0:
            score = placement_points(st, cell, kind)
            if score < 0:
                continue
            if k == spots.shape[0]:
                return -1
            i_row = cell // width
            insert_spot(spots, k, score, cell, i_row + top, cell - i_row * width + left)
            k += 1
    return k


@borrowing_helper
def last_tile_after(
    st: KArray, log: KArray, table: KArray, r: KInt, kind: KInt, spots: KArray, k: KInt, pushes: KInt,
) -> KInt:
    """What the opponent's last tile (of ``kind``, its ``k`` spots in ``spots``, on
    the board before our move, or before the log's last ``pushes`` pushes and our move)
    scores at best after our move ``r``: -1 when it can go nowhere; -2 when the board
    would need a larger window.  A push rewrites the info of every cell whose row or
    column it changes (the cells it fills and the empty cells at the ends of the runs
    it joins) and logs each word: the cells those pushes wrote are scored anew, and
    every other spot is still legal with the same score.  So the first spot in
    ``spots`` whose score is still the same is the best of the rest: each spot before
    it changed, so a push wrote it, and each after it scores no more or was written."""
    mark = pushes_mark(log, pushes)
    if push_legal(st, log, table[r], table[r, COL_SCORE]) == NEED_REGROW:
        return -2
    best = -1
    clip = window_leaves_area(st)
    for e in range(mark + 1, log[0]):
        cell = written_cell(st, log, e, clip)
        if cell >= 0:
            best = max(best, placement_points(st, cell, kind))
    for j in range(k):
        if spots[j, SP_SCORE] <= best:
            break
        if placement_points(st, spots[j, SP_CELL], kind) == spots[j, SP_SCORE]:
            best = spots[j, SP_SCORE]
            break
    pop(st, log)
    return best


@borrowing_helper
def last_tile_node(
    st: KArray, log: KArray, table: KArray, n: KInt, hand_size: KInt, spots: KArray, k: KInt, kind: KInt,
    alpha: KInt, beta: KInt, bounds: KArray, stats: KArray, counts: KArray, side: KInt, hand_kinds: KInt,
    own_spots: KArray,
) -> tuple[KInt, KInt]:
    """The value (fail-soft in the window (alpha, beta)) and the best row of a node
    whose opponent holds one tile, of ``kind``, that it can place now (its ``k``
    spots, best first, in ``spots``), without a child node: a move of ours that goes
    out scores its points and the bonus; any other move is answered by the
    opponent's best placement, which ends the game.  Each move that does not go out
    is bounded first by the best spot it shares no row and no column with (still
    there after it), and scored exactly (:func:`last_tile_after`), best bound first,
    only while its bound beats alpha.  A move that leaves the opponent's tile no place
    and us one tile (``side``'s hand: ``counts``, ``hand_kinds``) is answered by a
    pass, and then we place our own last tile at its best (and go out) or, where it
    has no place either, the game ends: scored so too.  Answers (UNDECIDED, -1) when a
    move that must be scored leaves the opponent's tile no place and us more than one
    tile (the search takes the node instead), or (UNDECIDED, -2) when the board would
    need a larger window.  ``bounds``: int64 scratch of the table's length;
    ``own_spots``: scratch like ``spots``."""
    best = -INFINITY
    best_r = -1
    for r in range(n):
        if table[r, COL_N] == hand_size and table[r, COL_SCORE] + GOING_OUT_BONUS > best:
            best = table[r, COL_SCORE] + GOING_OUT_BONUS
            best_r = r
    if best >= beta:
        return best, best_r
    alpha = max(alpha, best)
    done = -INFINITY - 1
    for r in range(n):
        bound = done  # a move that goes out is counted already
        if table[r, COL_N] != hand_size:
            bound = INFINITY
            row0, row1, col0, col1 = box(table, r)
            for j in range(k):
                if (spots[j, SP_ROW] < row0 or spots[j, SP_ROW] > row1) and (
                    spots[j, SP_COL] < col0 or spots[j, SP_COL] > col1
                ):
                    bound = table[r, COL_SCORE] - GOING_OUT_BONUS - spots[j, SP_SCORE]
                    break
        bounds[r] = bound
    while True:
        top = -1
        top_bound = done
        for r in range(n):
            if bounds[r] > top_bound:
                top_bound = bounds[r]
                top = r
        if top < 0:
            return best, best_r
        if top_bound <= alpha:
            # Every move left fails low; the best of their bounds joins the best (fail-soft).
            if top_bound > best:
                best = top_bound
                best_r = top
            return best, best_r
        bounds[top] = done
        stats[S_NODES] += 1  # the position after the move, which the search would enter
        spot = last_tile_after(st, log, table, top, kind, spots, k, 0)
        if spot == -2:
            return UNDECIDED, -2
        if spot >= 0:
            value = table[top, COL_SCORE] - GOING_OUT_BONUS - spot
        elif table[top, COL_N] != hand_size - 1:
            return UNDECIDED, -1
        else:
            # The opponent passes; our last tile (the one the move leaves) ends the game.
            mine = kind_left(table, top, counts, side, hand_kinds)
            k_own = table_spots(st, table, n, mine, own_spots, False)
            if k_own < 0:
                return UNDECIDED, -1
            ours = last_tile_after(st, log, table, top, mine, own_spots, k_own, 0)
            if ours == -2:
                return UNDECIDED, -2
            value = table[top, COL_SCORE] + (ours + GOING_OUT_BONUS if ours >= 0 else 0)
        if value > best:
            best = value
            best_r = top
            if value >= beta:
                return best, best_r
            alpha = max(alpha, value)


@borrowing_helper
def known_reply_cut(
    st: KArray, log: KArray, older: KArray, parent: KArray, m: KInt, replies: KArray, k_replies: KInt,
    kind: KInt, spots: KArray, k: KInt, beta: KInt, stats: KArray, pushes: KInt,
) -> tuple[KInt, KInt]:
    """A node at or above ``beta`` found without a move generation, or UNDECIDED.  The
    node's side holds two tiles or more and the other side one, of ``kind`` (its ``k``
    spots, best first, in ``spots``, on the board before the log's last ``pushes``
    pushes: the search gives those of the other side's table one ply up, with 1, so
    that they need not be found again after each of its moves; see
    :func:`last_tile_after`); the other side's move ``m`` (a row of
    ``parent``) led here.  ``replies`` (``k_replies`` of them, best score first) are
    this side's moves of its table two plies up (``older``) that do not go out and
    that its own move there left legal with the same score; of those that ``m`` does
    not touch either, each is still legal with that score now.  Such a reply r,
    answered by the other side's best placement of its last tile (which ends the game),
    is worth r's score less that placement and the bonus: the node is worth at least
    that.  Tried best score first while the score can reach beta (a placement scores 2
    at least); the first worth beta or more is the answer, (value, its row of
    ``older``).  A reply after which the last tile has no place is passed over (the
    other side would pass).  (UNDECIDED, -1): none reaches beta; (UNDECIDED, -2): the
    board would need a larger window."""
    row0, row1, col0, col1 = box(parent, m)
    for i in range(k_replies):
        score = replies[i, TH_SCORE]
        if score - GOING_OUT_BONUS - 2 < beta:
            break
        if not apart(row0, row1, col0, col1, replies[i]):
            continue
        r = replies[i, TH_ROW]
        stats[S_NODES] += 1  # the position after the reply, which the search would enter
        spot = last_tile_after(st, log, older, r, kind, spots, k, pushes)
        if spot == -2:
            return UNDECIDED, -2
        if spot < 0:
            continue
        value = score - GOING_OUT_BONUS - spot
        if value >= beta:
            return value, r
    return UNDECIDED, -1


@borrowing_helper
def reply_to_one_tile_cut(
    st: KArray, counts: KArray, masks: KArray, sizes: KArray, log: KArray, tables: KArray, frames: KArray,
    replies: KArray, tt: KArray, use_tt: KInt, stats: KArray, ply: KInt, side: KInt, key: KInt, beta: KInt,
    spots: KArray, bounds: KArray, stamp: KInt, own_spots: KArray,
) -> tuple[KInt, KInt]:
    """A node at ``ply`` (``side`` to move, key ``key``; both sides hold two tiles or
    more) at or above ``beta``, found without its move generation, or UNDECIDED.
    ``replies`` are this side's moves of its table two plies up (``tables[ply - 2]``)
    that do not go out and that its own move there left legal with the same score
    (gathered by the other side's node one ply up, to bound its moves: the best
    N_THREATS by score); the first of them that leaves this side one tile and that the
    other side's move (one ply up) did not touch either is still legal with its score
    now.  It is played, and the
    other side's node after it, whose opponent now holds one tile, is scored as the
    search would (:func:`last_tile_node`, with the spots of that tile read from the
    table two plies up and the three pushes since), with a null window at what this
    node needs: where it fails low there, this node reaches beta.  (value, the
    reply's row of ``tables[ply - 2]``), value a lower bound; the other node's bound
    goes into the transposition table.  (UNDECIDED, -1): no such reply, or it falls
    short, or the other node is the search's to take (a side would pass), or its moves
    do not fit in ``tables[ply + 1]`` (the search then grows the tables itself);
    (UNDECIDED, -2): the board would need a larger window.  ``tables[ply + 1]``,
    ``spots`` and ``bounds`` are scratch; ``stamp``: the solve's (tt_store)."""
    older = tables[ply - 2]
    row0, row1, col0, col1 = box(tables[ply - 1], frames[ply - 1, F_ROW])
    chosen = -1
    for i in range(frames[ply - 1, F_REPLIES]):
        if older[replies[i, TH_ROW], COL_N] == sizes[side] - 1 and apart(row0, row1, col0, col1, replies[i]):
            chosen = replies[i, TH_ROW]
            break
    if chosen < 0:
        return UNDECIDED, -1
    score = older[chosen, COL_SCORE]
    child = apply_row(st, counts, masks, sizes, log, older, chosen, side, key)
    if child < 0:
        return UNDECIDED, -2
    mark = score - beta  # this node reaches beta where the other's is at most mark
    stats[S_NODES] += 1  # the other side's node, which the search would enter
    value = UNDECIDED
    known = False
    if use_tt:
        slot = tt_slot(tt, child)
        if slot >= 0 and ((tt[slot, T_DATA] >> 2) & 255) == RESOLVED:
            flag = tt[slot, T_DATA] & 3
            stored = tt_value(tt[slot, T_DATA])
            if flag != FLAG_LOWER and stored <= mark:
                value = stored
                known = True
            elif flag != FLAG_UPPER and stored > mark:
                known = True  # above the mark: no cut
    if not known:
        other = 1 - side
        table = tables[ply + 1]
        # (MODE_ALL as a literal: numba compiles generate once more for it, which makes
        # this search's hottest query 2 % faster over the benchmark.)
        n = generate(st, table, masks[other], MODE_ALL)
        if 0 < n <= table.shape[0]:
            kind = lowest_kind(masks[side])
            k = last_tile_spots_after(st, log, older, frames[ply - 2, F_N], kind, spots, 3)
            if k >= 0:
                got, best_r = last_tile_node(
                    st, log, table, n, sizes[other], spots, k, kind, mark, mark + 1, bounds, stats, counts, other,
                    masks[other], own_spots,
                )
                if got == UNDECIDED and best_r == -2:
                    undo_row(st, counts, masks, sizes, log, older, chosen, side)
                    return UNDECIDED, -2
                if got != UNDECIDED:
                    if use_tt:
                        best_key = move_key(st, table, best_r) if best_r >= 0 else 0
                        flag = FLAG_UPPER if got <= mark else FLAG_LOWER
                        tt_store(tt, child, best_key, got, RESOLVED, flag, ply + 1, stamp)
                    if got <= mark:
                        value = got
    undo_row(st, counts, masks, sizes, log, older, chosen, side)
    if value == UNDECIDED:
        return UNDECIDED, -1
    return score - value, chosen


@borrowing_kernel
def search(
    st: KArray, counts: KArray, masks: KArray, sizes: KArray, tables: KArray, order: KArray, log: KArray,
    tt: KArray, use_tt: KInt, stats: KArray, depth: KInt, alpha: KInt, beta: KInt, root_side: KInt, root_key: KInt,
    best_row: KArray, use_bounds: KInt, free_kinds: KInt, stamp: KInt, work: SearchWork,
) -> KInt:
    """The value of the position for ``root_side`` to move (its future points minus
    the other's), searched ``depth`` plies deep within the window (alpha, beta)
    (fail-soft: a value at or below alpha is an upper bound, at or above beta a lower
    one).  ``best_row`` gets the root's best move as a move row (COL_N = 0 for a
    pass).  stats[S_STATUS] says whether the search completed (see S_*); every move
    pushed is taken back, whatever the outcome.  ``use_tt`` off: no table at all (the
    tests' check that the table changes no answer); ``use_bounds`` off: no move is
    skipped on the threats' and replies' bounds (the same check for them).  ``free_kinds``: what
    :func:`qwirkle_free_kinds` says of the position or of one it came from (0 is always
    safe: every kind may then make a line of six).  ``stamp``: the solve's, for the
    entries it stores (see STAMP_SHIFT; the same for every search of one solve).

    ``tables`` (int32[MAX_PLY + 1, capacity, OUT_COLS]), ``order`` (int32[MAX_PLY + 1,
    capacity]) and ``log`` (room for 2 * MAX_PLY pushes) are the caller's scratch, and
    so is ``work`` (:func:`new_search_work`, of the same capacity): the search allocates
    nothing, so that it runs without reference counting (see ``borrowing_helper``)."""
    frames, threats, replies, killers, spots, own_spots, known_spots, row_bounds, bounds, race_kinds = work
    capacity = tables.shape[1]
    if row_bounds.shape[1] < capacity or bounds.shape[0] < capacity:
        # Scratch made for smaller tables: the caller grows it (with the tables) and
        # searches again.
        stats[S_STATUS] = S_NEED_CAPACITY
        stats[S_NEED] = capacity
        return 0
    # What was left of an earlier search is cleared (row_bounds, own_spots and
    # known_spots are written before they are read).
    frames[:] = 0
    threats[:] = 0
    replies[:] = 0
    killers[:] = 0
    spots[:] = 0
    bounds[:] = 0
    race_kinds[:] = 0
    stats[S_STATUS] = OK
    ply: KInt = np.int64(0)  # (not the literal 0: numba would compile the helpers that take ply for that type too, a wasted compile)
    value = 0
    entering = True
    frames[0, F_ALPHA] = alpha
    frames[0, F_BETA] = beta
    frames[0, F_HASH] = root_key
    frames[0, F_DEPTH] = depth
    for c in range(OUT_COLS):
        best_row[c] = 0
    while True:
        if entering:
            # ---------------------------------------------------- enter a node
            entering = False
            side = (root_side + ply) & 1
            key = frames[ply, F_HASH]
            left = frames[ply, F_DEPTH]
            a = frames[ply, F_ALPHA]
            b = frames[ply, F_BETA]
            stats[S_NODES] += 1
            if stats[S_NODES] > stats[S_LIMIT]:
                unwind(st, counts, masks, sizes, log, tables, frames, ply, root_side)
                stats[S_STATUS] = S_ABORTED
                return 0
            tt_move = 0
            answered = False
            if use_tt:
                slot = tt_slot(tt, key)
                if slot >= 0:
                    data = tt[slot, T_DATA]
                    flag = data & 3
                    stored_depth = (data >> 2) & 255
                    stored = tt_value(data)
                    tt_move = tt[slot, T_MOVE]
                    # The root always searches its moves, so that it has a best one.
                    if ply > 0 and stored_depth >= left:
                        narrowed = False
                        if flag == FLAG_EXACT:
                            answered = True
                        elif flag == FLAG_LOWER and stored > a:
                            a = stored
                            narrowed = True
                        elif flag == FLAG_UPPER and stored < b:
                            b = stored
                            narrowed = True
                        if answered or a >= b:
                            answered = True
                            value = stored
                        # A window narrowed (or a node answered) by a value of a shallower
                        # search is itself of that search: counted with the horizon, so
                        # that nothing above it is taken (and stored) as exact.
                        if (answered or narrowed) and stored_depth != RESOLVED:
                            stats[S_HORIZON] += 1
            if not answered and left <= 0:
                stats[S_HORIZON] += 1
                value = 0
                answered = True
            if (
                not answered and use_bounds and 2 <= ply < MAX_PLY and sizes[side] >= 2
                and frames[ply - 1, F_N] > 0 and frames[ply - 2, F_N] > 0 and frames[ply - 1, F_REPLIES] > 0
            ):
                # Our known replies (our moves two plies up that neither side's move since
                # touched, gathered by the other side's node to bound its moves), tried
                # before the move generation: where one refutes the other side's move,
                # this node is done.
                value, best_r = UNDECIDED, -1
                if sizes[1 - side] >= 2:
                    # The best that leaves us one tile, the other's node after it scored.
                    value, best_r = reply_to_one_tile_cut(
                        st, counts, masks, sizes, log, tables, frames, replies[ply - 1], tt, use_tt, stats, ply,
                        side, key, b, spots, bounds, stamp, own_spots,
                    )
                elif replies[ply - 1, 0, TH_SCORE] - GOING_OUT_BONUS - 2 >= b:
                    # The other side's last move left it one tile: each answered by its
                    # best placement of that tile, which ends the game.  That tile's
                    # spots before its move (its table's one-tile rows, sorted once a
                    # node there, not rescored after each of its moves: 2 % less time
                    # over the benchmark's slowest positions).
                    kind = lowest_kind(masks[1 - side])
                    if frames[ply - 1, F_SPOTS_KIND] != kind:
                        frames[ply - 1, F_SPOTS_KIND] = kind
                        frames[ply - 1, F_SPOTS_N] = table_spots(
                            st, tables[ply - 1], frames[ply - 1, F_N], kind, known_spots[ply - 1], False,
                        )
                    k = frames[ply - 1, F_SPOTS_N]
                    if k >= 0:
                        value, best_r = known_reply_cut(
                            st, log, tables[ply - 2], tables[ply - 1], frames[ply - 1, F_ROW], replies[ply - 1],
                            frames[ply - 1, F_REPLIES], kind, known_spots[ply - 1], k, b, stats, 1,
                        )
                if value == UNDECIDED and best_r == -2:
                    unwind(st, counts, masks, sizes, log, tables, frames, ply, root_side)
                    stats[S_STATUS] = S_BROKEN
                    return 0
                if value != UNDECIDED:
                    answered = True
                    if use_tt:
                        tt_store(tt, key, move_key(st, tables[ply - 2], best_r), value, RESOLVED, FLAG_LOWER, ply, stamp)
            if not answered:
                table = tables[ply]
                # One tile left: every placement goes out, the best of them is the value.
                last_tile = sizes[side] == 1 and ply > 0
                n = generate(st, table, masks[side], MODE_BEST if last_tile else MODE_ALL)
                if n < 0:
                    unwind(st, counts, masks, sizes, log, tables, frames, ply, root_side)
                    stats[S_STATUS] = S_BROKEN
                    return 0
                if n > capacity:
                    unwind(st, counts, masks, sizes, log, tables, frames, ply, root_side)
                    stats[S_STATUS] = S_NEED_CAPACITY
                    stats[S_NEED] = n
                    return 0
                frames[ply, F_THREATS] = 0
                frames[ply, F_REPLIES] = 0
                if use_bounds and n > 0 and sizes[side] >= 2 and sizes[1 - side] == 1 and ply > 0:
                    # The opponent holds one tile: its answer to each move ends the game
                    # (or, where its tile has no place after the move, it passes and our
                    # last tile does), scored here without a child node (last_tile_node).
                    kind = lowest_kind(masks[1 - side])
                    if frames[ply - 1, F_N] == 0:
                        k = 0  # it has just passed: its tile has no place, and nothing has moved since
                    else:
                        k = last_tile_spots_after(st, log, tables[ply - 1], frames[ply - 1, F_N], kind, spots, 1)
                    if k >= 0:
                        value, best_r = last_tile_node(
                            st, log, table, n, sizes[side], spots, k, kind, a, b, bounds, stats, counts, side,
                            masks[side], own_spots,
                        )
                        if value == UNDECIDED and best_r == -2:
                            unwind(st, counts, masks, sizes, log, tables, frames, ply, root_side)
                            stats[S_STATUS] = S_BROKEN
                            return 0
                        if value != UNDECIDED:
                            answered = True
                            if use_tt:
                                flag = FLAG_UPPER if value <= a else FLAG_LOWER if value >= b else FLAG_EXACT
                                best_key = move_key(st, table, best_r) if best_r >= 0 else 0
                                tt_store(tt, key, best_key, value, RESOLVED, flag, ply, stamp)
                if not answered and use_bounds and n > 0 and sizes[side] >= 2 and sizes[1 - side] >= 2 and ply > 0 and frames[ply - 1, F_N] > 0:
                    frames[ply, F_REPLIES] = REPLIES_LATER
                if answered:
                    pass
                elif n == 0 and generate(st, table, masks[1 - side], np.int64(MODE_ANY)) == 0:
                    value = 0  # neither side can place: the game is over, no bonus
                    answered = True
                    if ply == 0:
                        best_row[COL_N] = 0
                elif n > 0 and last_tile:
                    value = table[0, COL_SCORE] + GOING_OUT_BONUS
                    answered = True
                elif use_bounds and n > 0 and sizes[1 - side] <= THREAT_TILES:
                    other = 1 - side
                    if ply > 0 and frames[ply - 1, F_N] > 0:
                        # The opponent's table one ply up, less what its move there touched.
                        frames[ply, F_THREATS] = gather_moves(
                            tables[ply - 1], frames[ply - 1, F_N], frames[ply - 1, F_ROW], counts, other,
                            sizes[other], True, threats[ply],
                        )
                    elif ply == 0:
                        scratch = tables[1]  # free until the first child is entered
                        m = generate(st, scratch, masks[other], np.int64(MODE_ALL))
                        if m > capacity:
                            stats[S_STATUS] = S_NEED_CAPACITY
                            stats[S_NEED] = m
                            return 0
                        frames[ply, F_THREATS] = gather_moves(scratch, m, -1, counts, other, sizes[other], True, threats[ply])
            if answered:
                if ply == 0:
                    return value
                ply -= 1
            else:
                frames[ply, F_ALPHA] = a
                frames[ply, F_BETA] = b
                frames[ply, F_ALPHA0] = a
                frames[ply, F_BEST] = -INFINITY
                frames[ply, F_BEST_ROW] = -1
                frames[ply, F_N] = n
                frames[ply, F_NEXT] = 0
                frames[ply, F_END] = n
                frames[ply, F_PRUNED] = 0
                frames[ply, F_SPOTS_KIND] = -1
                frames[ply, F_PROBE] = 0
                frames[ply, F_ROW] = -1
                frames[ply, F_HORIZON0] = stats[S_HORIZON]
                rows = order[ply]
                for i in range(n):
                    rows[i] = i
                frames[ply, F_PRESET] = order_first(st, table, rows, n, sizes[side], tt_move, killers, ply)
                if n == 0:
                    # A pass: the child is the same board with the other side to move.
                    frames[ply, F_NEXT] = 1
                    frames[ply + 1, F_HASH] = key ^ side_word()
                    frames[ply + 1, F_ALPHA] = -b
                    frames[ply + 1, F_BETA] = -a
                    frames[ply + 1, F_DEPTH] = left - 1
                    ply += 1
                    entering = True
                    continue
                value = INFINITY  # no child returned yet: go pick the first move
        # ------------------------------------------ a child returned, or pick a move
        side = (root_side + ply) & 1
        table = tables[ply]
        r = frames[ply, F_ROW]
        n = frames[ply, F_N]
        if value != INFINITY:
            # The child's value (from its side) is in ``value``: score it from ours.
            if n == 0:
                got = -value
            else:
                got = table[r, COL_SCORE] - value
                if frames[ply, F_PROBE] and frames[ply, F_ALPHA] < got < frames[ply, F_BETA]:
                    # The null window failed high: search this move again (still pushed)
                    # with the whole window.
                    frames[ply, F_PROBE] = 0
                    frames[ply + 1, F_ALPHA] = table[r, COL_SCORE] - frames[ply, F_BETA]
                    frames[ply + 1, F_BETA] = table[r, COL_SCORE] - frames[ply, F_ALPHA]
                    ply += 1
                    entering = True
                    continue
                undo_row(st, counts, masks, sizes, log, table, r, side)
            frames[ply, F_ROW] = -1
            if got > frames[ply, F_BEST]:
                frames[ply, F_BEST] = got
                frames[ply, F_BEST_ROW] = r
                frames[ply, F_ALPHA] = max(frames[ply, F_ALPHA], got)
        # Going-out moves end the game: scored here, no child.
        while frames[ply, F_ALPHA] < frames[ply, F_BETA] and frames[ply, F_NEXT] < frames[ply, F_END]:
            at = frames[ply, F_NEXT]
            if (
                frames[ply, F_PRUNED] == 0 and at >= max(frames[ply, F_PRESET], 1)
                and (frames[ply, F_THREATS] > 0 or frames[ply, F_REPLIES] != 0)
            ):
                if frames[ply, F_REPLIES] == REPLIES_LATER:
                    frames[ply, F_REPLIES] = gather_replies(tables, frames, ply, counts, side, sizes, replies[ply])
                # The moves put first (or the first picked) did not cut the node off:
                # drop at once the moves that the bounds show fail low (measured: 5 %
                # less CPU over the 1,000 benchmark positions, the same values, the
                # positions searched the same within 0.01 %, when the picks were in
                # score order too).
                frames[ply, F_PRUNED] = 1
                frames[ply, F_END] = prune_unsearched(
                    table, order[ply], at, frames[ply, F_END], sizes[side], frames[ply], threats[ply], replies[ply],
                    counts, side, masks[side], free_kinds, row_bounds[ply],
                    st, log, tables[max(ply - 1, 0)], frames[max(ply - 1, 0), F_N], masks[1 - side], sizes[1 - side],
                    spots, own_spots, race_kinds,
                )
                if at == frames[ply, F_END]:
                    break
            frames[ply, F_NEXT] = at + 1
            if at < frames[ply, F_PRESET] or frames[ply, F_PRUNED] == 1:
                r = order[ply, at]  # placed on entry (the table's move, the first pick, the killers), or sorted
            else:
                r = pick(table, order[ply], at, frames[ply, F_END], sizes[side])
            if table[r, COL_N] == sizes[side]:
                got = table[r, COL_SCORE] + GOING_OUT_BONUS
                if got > frames[ply, F_BEST]:
                    frames[ply, F_BEST] = got
                    frames[ply, F_BEST_ROW] = r
                    frames[ply, F_ALPHA] = max(frames[ply, F_ALPHA], got)
                continue
            bound = INFINITY
            if frames[ply, F_PRUNED] == 1 and at >= frames[ply, F_PRESET]:
                bound = row_bounds[ply, r]  # (what prune_unsearched found: the same test, the same bounds)
            else:
                if frames[ply, F_THREATS] > 0:
                    bound = table[r, COL_SCORE] - threat_bound(table, r, threats[ply], frames[ply, F_THREATS])
                if (
                    bound > frames[ply, F_ALPHA] and frames[ply, F_REPLIES] == REPLIES_LATER
                    and table[r, COL_N] == sizes[side] - 1
                ):
                    frames[ply, F_REPLIES] = gather_replies(tables, frames, ply, counts, side, sizes, replies[ply])
                if bound > frames[ply, F_ALPHA] and frames[ply, F_REPLIES] > 0 and table[r, COL_N] == sizes[side] - 1:
                    bound = table[r, COL_SCORE] - reply_bound(
                        table, r, counts, side, masks[side], replies[ply], frames[ply, F_REPLIES], free_kinds,
                    )
            # (prune_unsearched's threat and reply bounds, written out: as a helper, or
            # inlined at numba-IR level, the search took 13-18 % longer.  The race
            # bound is the bulk pass's only: the moves tried before it are few.)
            if bound <= frames[ply, F_ALPHA]:
                # Fails low unsearched; its bound joins the best (fail-soft).
                if bound > frames[ply, F_BEST]:
                    frames[ply, F_BEST] = bound
                    frames[ply, F_BEST_ROW] = r
                continue
            # The child's value v gives us score - v: the window moves by the score.
            # Principal variation search: the first move searched gets the window, the
            # others a null window at alpha first (most of them fail low there, which
            # costs far less), searched again only when they beat it.
            score = table[r, COL_SCORE]
            probe = frames[ply, F_BEST] > -INFINITY and frames[ply, F_BETA] - frames[ply, F_ALPHA] > 1
            child_alpha = score - frames[ply, F_BETA] if not probe else score - frames[ply, F_ALPHA] - 1
            child_beta = score - frames[ply, F_ALPHA]
            if use_tt:
                # Where the table answers the child in its window, as it would on
                # entering it, its value is taken here, with no push and no pop (a third
                # of the positions are answered so: 7-10 % less time over the benchmark's
                # median and slowest positions, the same positions searched).
                # (apply_row's key, made here before the push; one helper for both, as
                # apply_row's first step, made the search 3-5 % slower, and one for this
                # and the next move's key below 1-2 % slower.)
                after = frames[ply, F_HASH] ^ move_key(st, table, r) ^ side_word()
                for s in range(table[r, COL_N]):
                    kind = table[r, COL_KINDS + s]
                    after ^= feature_word(TAG_HAND, side * N_KINDS + kind, counts[side, kind] - 1)
                if frames[ply, F_PRUNED] == 1 and at + 1 < frames[ply, F_END]:
                    # The next move's bucket, fetched while this move is searched (the
                    # moves are sorted once pruned): a look is a cache miss, about 120
                    # cycles; 2-3 % less time over the benchmark's median and slowest.
                    ahead = order[ply, at + 1]
                    if table[ahead, COL_N] != sizes[side]:  # (a move that goes out has no child)
                        next_key = frames[ply, F_HASH] ^ move_key(st, table, ahead) ^ side_word()
                        for s in range(table[ahead, COL_N]):
                            kind = table[ahead, COL_KINDS + s]
                            next_key ^= feature_word(TAG_HAND, side * N_KINDS + kind, counts[side, kind] - 1)
                        tt_prefetch(tt, next_key)
                slot = tt_slot(tt, after)
                if slot >= 0:
                    data = tt[slot, T_DATA]
                    flag = data & 3
                    stored_depth = (data >> 2) & 255
                    stored = tt_value(data)
                    got = score - stored
                    if (
                        stored_depth >= frames[ply, F_DEPTH] - 1
                        and (
                            flag == FLAG_EXACT or (flag == FLAG_LOWER and stored >= child_beta)
                            or (flag == FLAG_UPPER and stored <= child_alpha)
                        )
                        and not (probe and frames[ply, F_ALPHA] < got < frames[ply, F_BETA])  # (a search again)
                    ):
                        stats[S_NODES] += 1
                        if stored_depth != RESOLVED:
                            stats[S_HORIZON] += 1  # (as on entering it: see there)
                        if got > frames[ply, F_BEST]:
                            frames[ply, F_BEST] = got
                            frames[ply, F_BEST_ROW] = r
                            frames[ply, F_ALPHA] = max(frames[ply, F_ALPHA], got)
                        continue
            child = apply_row(st, counts, masks, sizes, log, table, r, side, frames[ply, F_HASH])
            if child < 0:
                unwind(st, counts, masks, sizes, log, tables, frames, ply, root_side)
                stats[S_STATUS] = S_BROKEN
                return 0
            frames[ply, F_ROW] = r
            frames[ply + 1, F_HASH] = child
            frames[ply, F_PROBE] = probe
            frames[ply + 1, F_ALPHA] = child_alpha
            frames[ply + 1, F_BETA] = child_beta
            frames[ply + 1, F_DEPTH] = frames[ply, F_DEPTH] - 1
            entering = True
            break
        if entering:
            ply += 1
            continue
        # ----------------------------------------------------- the node is done
        best = frames[ply, F_BEST]
        if n == 0:
            best = -value  # the pass's child
        best_r = frames[ply, F_BEST_ROW]
        if n > 0 and best_r >= 0 and best >= frames[ply, F_BETA]:
            remember_killer(killers, ply, order_key(table, best_r))
        if use_tt:
            flag = FLAG_EXACT
            if best <= frames[ply, F_ALPHA0]:
                flag = FLAG_UPPER
            elif best >= frames[ply, F_BETA]:
                flag = FLAG_LOWER
            exact_below = stats[S_HORIZON] == frames[ply, F_HORIZON0]
            stored_depth = RESOLVED if exact_below else frames[ply, F_DEPTH]
            best_key = move_key(st, table, best_r) if best_r >= 0 and n > 0 else 0
            tt_store(tt, frames[ply, F_HASH], best_key, best, stored_depth, flag, ply, stamp)
        value = best
        if ply == 0:
            if n > 0 and best_r >= 0:
                for c in range(OUT_COLS):
                    best_row[c] = table[best_r, c]
            else:
                best_row[COL_N] = 0
            return value
        ply -= 1


@kernel
def principal_variation(
    st: KArray, counts: KArray, masks: KArray, sizes: KArray, tables: KArray, order: KArray, log: KArray,
    tt: KArray, use_tt: KInt, stats: KArray, root_key: KInt, value: KInt, walk: KArray, pv: KArray, use_bounds: KInt,
    free_kinds: KInt, stamp: KInt, work: SearchWork,
) -> KInt:
    """The principal variation of an exactly solved position of value ``value``: at
    each turn the first move whose exact value matches, proved by a search of the child
    with a window of width 2 around what it must be, trying the transposition table's
    best move for the position first and then the moves in :func:`pick`'s order.  Where moves
    tie, which one the line takes is the table's, so a large endgame (whose table
    entries replace each other) may get another best line from another solve.  Writes the
    turns into ``pv`` (action rows) and returns how many, ending with the game's end
    (the last place empties a hand, or leaves neither side a placement; a pass at the
    root when neither side can place there).  Negative: stats[S_STATUS]'s problem.
    Leaves the moves pushed (the caller's state is a scratch copy).  ``walk`` is a move
    table of the same capacity as ``tables``'; ``stamp`` and ``work``: the search's."""
    side = 0
    key = root_key
    turns = 0
    best = np.zeros(OUT_COLS, np.int32)
    capacity = walk.shape[0]
    while True:
        n = generate(st, walk, masks[side], np.int64(MODE_ALL))
        if n < 0 or n > capacity:
            stats[S_STATUS] = S_BROKEN if n < 0 else S_NEED_CAPACITY
            stats[S_NEED] = n
            return -1
        if n == 0:
            if generate(st, walk, masks[1 - side], np.int64(MODE_ANY)) == 0:
                if turns == 0:
                    pv[0, A_TYPE] = PASS
                    turns = 1
                return turns
            pv[turns, A_TYPE] = PASS
            pv[turns, COL_N] = 0
            turns += 1
            value = -value
            side = 1 - side
            key ^= side_word()
            continue
        rows = order[MAX_PLY]
        for i in range(n):
            rows[i] = i
        # The search's best move for this position first, as its table has it: it is
        # almost always the move sought, proved by one search of its child, where
        # trying moves best score first searched moves that fall short of the value,
        # some at great cost (a position whose search took 3 s took 12 s here).
        table_first = False
        if use_tt:
            slot = tt_slot(tt, key)
            if slot >= 0 and tt[slot, T_MOVE] != 0:
                table_first = move_to_front(st, walk, rows, n, tt[slot, T_MOVE])
        chosen = -1
        went_out = False
        for at in range(n):
            r = rows[0] if at == 0 and table_first else pick(walk, rows, at, n, sizes[side])
            score = walk[r, COL_SCORE]
            if walk[r, COL_N] == sizes[side]:
                if score + GOING_OUT_BONUS == value:
                    chosen = r
                    went_out = True
                    break
                continue
            child = apply_row(st, counts, masks, sizes, log, walk, r, side, key)
            if child < 0:
                stats[S_STATUS] = S_BROKEN
                return -1
            target = score - value
            # (np.int64: the constant itself would be typed as a literal, and numba would
            # compile the whole search again for that one argument: 11 s.)
            got = search(
                st, counts, masks, sizes, tables, order, log, tt, use_tt, stats, np.int64(MAX_PLY),
                target - 1, target + 1, 1 - side, child, best, use_bounds, free_kinds, stamp, work,
            )
            if stats[S_STATUS] != OK:
                return -1
            if got == target:
                chosen = r
                key = child
                break
            undo_row(st, counts, masks, sizes, log, walk, r, side)
        if chosen < 0:
            stats[S_STATUS] = S_BROKEN  # no move has the value: the search was wrong
            return -1
        pv[turns, A_TYPE] = PLACE
        for c in range(OUT_COLS):
            pv[turns, c] = walk[chosen, c]
        turns += 1
        if went_out:
            return turns  # the game is over (its tiles were not pushed)
        value = walk[chosen, COL_SCORE] - value
        side = 1 - side
