"""Whole games inside numba: the deal, the built-in bots, the turn loop, many games at once.

A game's state is a handful of arrays (numba has no classes worth their cost here):

- ``st``: the board state of ``_state`` (the tiles and every cell's cross-checks, kept
  up to date as tiles are placed, so the bots query without recomputing them); a
  placement that nears the edge of its window replaces it by a larger one;
- ``meta``: int64[N_META], the scalars below (M_*);
- ``hands``: int64[6, 6] kinds, row = seat, the first ``hand_sizes[seat]`` slots used,
  in the order the tiles were drawn;
- ``bag``: int64[108], the first ``meta[M_BAG]`` slots used; tiles are drawn from the end;
- ``scores``: int64[6]; ``game_rng``: int64[4]; ``bot_rngs``: int64[6, 4].

The rules follow docs/rules.md and are the same as ``qwirkle_core.game.Game`` (the tests
play both side by side): the opener places exactly their largest group; a place draws
back to 6; an exchange draws first, then mixes each returned tile into the bag at a
random position; the player who empties their hand (the bag is then empty) scores 6
more and ends the game; when the bag is empty and no hand can place, or when no tile
left anywhere fits the board (a dead board), the game ends at once with no bonus.
Every game loop stops at MAX_TURNS turns (END_RUNAWAY), which callers report as an
error: no loop can run forever.

An *action* is an int64[ACTION_COLS] row laid out like a move-table row (A_N tiles,
A_SCORE, rows, cols, kinds) plus its type in A_TYPE; an exchange lists its tiles in the
kind slots, a pass has none.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import prange

from ._geometry import KArray, KInt
from ._jit import (
    batch_kernel,
    borrowing_kernel,
    helper,
    inline_batch_kernel,
    inline_kernel,
    kernel,
    parallel_kernel,
)
from ._lines import lowest_kind
from ._movegen import (
    COL_COLS,
    COL_KINDS,
    COL_N,
    COL_ROWS,
    COL_SCORE,
    INITIAL_CAPACITY,
    MODE_ALL,
    MODE_BEST,
    OUT_COLS,
    generate,
)
from ._prng import below, seed_state
from ._rules import fitting_kinds
from ._state import (
    LOG_PER_PUSH,
    NEED_REGROW,
    S_COUNTS,
    S_LEFT,
    S_ROW_AT,
    S_TOP,
    S_WIDTH,
    new_empty_state,
    pop,
    push_legal,
    regrown,
    run_line,
)

MAX_PLAYERS = 6
HAND_SIZE = 6
N_TILES = 108
GOING_OUT_BONUS = 6

# meta slots (0..5 unused: the board state holds the tiles' box and where it lies)
M_BOARD_TILES = 6
M_BAG = 7  # tiles in the bag
M_PLAYER = 8  # seat to move
M_PLAYERS = 9
M_OPENING = 10  # tiles the opening must place (the opener's largest group); 0 after it
M_OVER = 11  # 1 once the game has ended
M_TURNS = 12  # turns played
M_WENT_OUT = 13  # seat that emptied their hand and took the bonus, or -1
M_END = 14  # how the game ended (END_*), END_NONE while it goes on
N_META = 15

# how a game ends (meta[M_END])
END_NONE = 0
END_OUT = 1  # a player emptied their hand (the bag was empty): +6 for them
END_BLOCKED = 2  # the bag is empty and no player can place
END_DEAD = 3  # tiles are left in the bag, but none of the bag or the hands fits anywhere
END_RUNAWAY = 4  # not a rule: the game loop stopped at MAX_TURNS (the caller raises)
# A turn cap for every game loop.  Real games are far shorter (greedy about 60 turns,
# random bots a few hundred: they exchange often); a game that reaches the cap is one
# that bots keep alive without end (a bot that always exchanges), and the loop stops
# it with END_RUNAWAY instead of running forever.
MAX_TURNS = 10_000

# action rows
A_N = 0
A_SCORE = 1
A_ROWS = 2
A_COLS = 8
A_KINDS = 14
A_TYPE = 20
ACTION_COLS = 21
PLACE = 0
EXCHANGE = 1
PASS = 2

# built-in bots
BOT_RANDOM = 0
BOT_GREEDY = 1
BOT_HEURISTIC = 2

# log rows: one per turn, enough to write a game record
L_PLAYER = 0
L_TYPE = 1
L_N = 2  # tiles placed or exchanged
L_SCORE = 3  # points of the placement, bonus not included
L_HAND_SIZE = 4
L_HAND = 5  # the hand before the action
L_ROWS = 11
L_COLS = 17
L_KINDS = 23  # tiles placed or exchanged
L_DRAWN_N = 29
L_DRAWN = 30
LOG_COLS = 36


# ----------------------------------------------------------------- small helpers
@helper
def largest_group(mask: KInt) -> KInt:
    """Most kinds of ``mask`` that share one colour or one shape (the opening rule:
    identical tiles count once, which a mask does by construction)."""
    best = 0
    for g in range(6):
        same_color = 0
        same_shape = 0
        for k in range(6):
            same_color += (mask >> (g * 6 + k)) & 1
            same_shape += (mask >> (k * 6 + g)) & 1
        best = max(best, same_color)
        best = max(best, same_shape)
    return best


@kernel
def hand_mask(hand: KArray, hand_size: KInt) -> KInt:
    mask = np.int64(0)
    for i in range(hand_size):
        mask |= np.int64(1) << hand[i]
    return mask


@kernel
def remove_from_hand(hand: KArray, hand_size: KInt, kind: KInt) -> KInt:
    """Remove the first ``kind`` of the hand, keeping the others in order; the new size."""
    for i in range(hand_size):
        if hand[i] == kind:
            for j in range(i, hand_size - 1):
                hand[j] = hand[j + 1]
            return hand_size - 1
    return -1  # not in the hand: callers only remove what they found there


@kernel
def new_table() -> KArray:
    """A move table for the bots to write into (grown where a query needs more)."""
    return np.empty((INITIAL_CAPACITY, OUT_COLS), np.int32)


@inline_kernel
def placements_into(st: KArray, mask: KInt, mode: KInt, out: KArray) -> KArray:
    """The rows ``generate`` keeps for ``mode``: a view of ``out``, or of a larger
    table when ``out`` is too small."""
    n = generate(st, out, mask, mode)
    if n > out.shape[0]:
        out = np.empty((n, OUT_COLS), np.int32)
        n = generate(st, out, mask, mode)
    return out[:n]


@borrowing_kernel
def placements_in(st: KArray, meta: KArray, mask: KInt, mode: KInt, out: KArray) -> KInt:
    """The move table of the kinds in ``mask`` for the position, written into ``out``
    (on the empty board only the openings of exactly meta[M_OPENING] tiles, in the
    canonical frame); returns its number of rows.  As with ``generate``, a number
    larger than ``out`` means that ``out`` holds nothing useful: call again with a
    table that large.  No allocation, so that the turn's kernels borrow their arrays
    (see borrowing_kernel); :func:`legal_placements` grows the table itself."""
    n = generate(st, out, mask, mode)
    if n > out.shape[0] or meta[M_BOARD_TILES] > 0:
        return n
    need = meta[M_OPENING]
    keep = 0
    for i in range(n):
        if out[i, COL_N] == need:
            if keep != i:
                for c in range(OUT_COLS):  # (a row assignment would allocate a copy)
                    out[keep, c] = out[i, c]
            keep += 1
    return keep


@inline_kernel
def legal_placements(st: KArray, meta: KArray, mask: KInt, mode: KInt, out: KArray) -> KArray:
    """:func:`placements_in`'s table: a view of ``out``, or of a larger table when
    ``out`` is too small."""
    n = placements_in(st, meta, mask, mode, out)
    if n > out.shape[0]:
        out = np.empty((n, OUT_COLS), np.int32)
        n = placements_in(st, meta, mask, mode, out)
    return out[:n]


# ------------------------------------------------------------------- exchanges
@kernel
def exchange_kinds(hand: KArray, hand_size: KInt) -> tuple[KArray, KArray]:
    """The distinct kinds of the hand in ascending order and how many of each."""
    kinds = np.empty(HAND_SIZE, np.int64)
    counts = np.zeros(HAND_SIZE, np.int64)
    n = 0
    for kind in range(36):
        c = 0
        for i in range(hand_size):
            if hand[i] == kind:
                c += 1
        if c:
            kinds[n] = kind
            counts[n] = c
            n += 1
    return kinds[:n], counts[:n]


@kernel
def exchange_table(hand: KArray, hand_size: KInt, bag_size: KInt) -> KArray:
    """Every distinct exchange of the hand (multisets of 1..bag_size tiles), one row
    each: the number of tiles, then their kinds in ascending order (-1 padding).

    The order (shared by the random bot and Game.legal_actions): read the number of
    copies of each distinct kind, in ascending kind order, as the digits of a
    mixed-radix counter (lowest kind = lowest digit) and count up from 1, skipping
    exchanges larger than the bag."""
    kinds, counts = exchange_kinds(hand, hand_size)
    combos = 1
    for c in counts:
        combos *= c + 1
    table = np.full((combos, 1 + HAND_SIZE), -1, np.int64)
    n = 0
    for code in range(1, combos):
        size = 0
        rest = code
        for j in range(kinds.shape[0]):
            for _ in range(rest % (counts[j] + 1)):
                table[n, 1 + size] = kinds[j]
                size += 1
            rest //= counts[j] + 1
        if size <= bag_size:
            table[n, 0] = size
            n += 1
        else:
            table[n, 1:] = -1
    return table[:n]


@kernel
def count_exchanges(hand: KArray, hand_size: KInt, bag_size: KInt) -> KInt:
    """How many distinct exchanges the hand has (see exchange_table)."""
    return exchange_table(hand, hand_size, bag_size).shape[0]


@kernel
def nth_exchange(hand: KArray, hand_size: KInt, bag_size: KInt, index: KInt, action: KArray) -> None:
    """Write the ``index``-th distinct exchange (exchange_table's order) into ``action``."""
    table = exchange_table(hand, hand_size, bag_size)
    set_exchange(action, table[index, 1:], table[index, 0])


@kernel
def set_exchange(action: KArray, kinds: KArray, n: KInt) -> None:
    action[A_TYPE] = EXCHANGE
    action[A_N] = n
    action[A_SCORE] = 0
    for s in range(n):
        action[A_KINDS + s] = kinds[s]


@kernel
def set_pass(action: KArray) -> None:
    action[A_TYPE] = PASS
    action[A_N] = 0
    action[A_SCORE] = 0


@kernel
def set_place(action: KArray, table: KArray, i: KInt) -> None:
    action[A_TYPE] = PLACE
    action[A_N] = table[i, COL_N]
    action[A_SCORE] = table[i, COL_SCORE]
    for s in range(6):
        action[A_ROWS + s] = table[i, COL_ROWS + s]
        action[A_COLS + s] = table[i, COL_COLS + s]
        action[A_KINDS + s] = table[i, COL_KINDS + s]


# ------------------------------------------------------------------------ bots
@borrowing_kernel
def choose_random(
    st: KArray, meta: KArray, hand: KArray, hand_size: KInt, rng: KArray, action: KArray, out: KArray,
) -> KInt:
    """Uniform over every legal action: placements, distinct exchanges, pass.  Returns
    0, or the rows of move table that ``out`` lacks (see choose_action_of)."""
    n_moves = placements_in(st, meta, hand_mask(hand, hand_size), MODE_ALL, out)
    if n_moves > out.shape[0]:
        return n_moves
    bag_size = meta[M_BAG]
    n_exchanges = 0
    if meta[M_BOARD_TILES] > 0 and bag_size > 0:
        n_exchanges = count_exchanges(hand, hand_size, bag_size)
    n_pass = 1 if n_moves == 0 and bag_size == 0 else 0
    pick = below(rng, n_moves + n_exchanges + n_pass)
    if pick < n_moves:
        set_place(action, out, pick)
    elif pick < n_moves + n_exchanges:
        nth_exchange(hand, hand_size, bag_size, pick - n_moves, action)
    else:
        set_pass(action)
    return 0


@helper
def sort_small(a: KArray, n: KInt) -> None:
    """Sort a[:n] in place (a hand: at most 6 values; numba's np.sort takes seconds to
    compile)."""
    for i in range(1, n):
        v = a[i]
        j = i
        while j > 0 and a[j - 1] > v:
            a[j] = a[j - 1]
            j -= 1
        a[j] = v


@kernel
def exchange_all(hand: KArray, hand_size: KInt, bag_size: KInt, action: KArray) -> None:
    """The greedy bot's exchange: as many tiles as the bag allows, lowest kinds first."""
    kinds = hand[:hand_size].copy()
    sort_small(kinds, hand_size)
    set_exchange(action, kinds, min(hand_size, bag_size))


@borrowing_kernel
def choose_greedy(
    st: KArray, meta: KArray, hand: KArray, hand_size: KInt, rng: KArray, action: KArray, out: KArray,
) -> KInt:
    """A highest-scoring placement, ties broken by ``rng``; else exchange, else pass.
    Returns 0, or the rows of move table that ``out`` lacks (see choose_action_of)."""
    n = placements_in(st, meta, hand_mask(hand, hand_size), MODE_BEST, out)
    if n > out.shape[0]:
        return n
    if n > 0:
        set_place(action, out, below(rng, n))
    elif meta[M_BAG] > 0:
        exchange_all(hand, hand_size, meta[M_BAG], action)
    else:
        set_pass(action)
    return 0


# Weights of the heuristic bot, in quarter points.
H_SCORE = 4  # a point scored now
H_GROUP_TILE = 1  # a kept tile in the largest group left in the hand
H_DUPLICATE = 1  # a kept tile identical to another kept tile
H_THREAT_COPY = 4  # per unseen copy of the tile that makes a Qwirkle of a line of five left open
H_OWN_QWIRKLE = 8  # a line of five whose Qwirkle tile the bot keeps for its next turn
H_GOING_OUT = 4 * GOING_OUT_BONUS
REPLY_CANDIDATES = 8  # moves the two-player endgame looks a reply ahead for
VALUE_MIN = -(1 << 63)  # a move that drops out


@kernel
def leave_value(hand: KArray, hand_size: KInt, placed_kinds: KArray, n_placed: KInt) -> tuple[KInt, KInt]:
    """How well the tiles kept after placing ``placed_kinds`` combine: the size of their
    largest group, less the copies that can never go in one line together.  Returns
    (value, tiles kept)."""
    used = np.zeros(HAND_SIZE, np.bool_)
    for s in range(n_placed):
        for i in range(hand_size):
            if not used[i] and hand[i] == placed_kinds[s]:
                used[i] = True
                break
    mask = np.int64(0)
    kept = 0
    for i in range(hand_size):
        if not used[i]:
            mask |= np.int64(1) << hand[i]
            kept += 1
    distinct = 0
    m = mask
    while m:
        m &= m - 1
        distinct += 1
    return H_GROUP_TILE * largest_group(mask) - H_DUPLICATE * (kept - distinct), kept


@kernel
def board_counts(st: KArray) -> KArray:
    """How many tiles of each kind are on the board."""
    return st[S_COUNTS : S_COUNTS + 36].copy()


@kernel
def five_lines(st: KArray, table: KArray, i: KInt, out: KArray, saved: KArray) -> KInt:
    """The lines of exactly five that move ``i`` of ``table`` leaves (only a line of
    five can become a Qwirkle): writes into ``out`` (int64[7]) the kind each one lacks
    and returns how many.  The tiles are put on the board's row-info words (their old
    words kept in ``saved``) and taken off again."""
    n = table[i, COL_N]
    width = st[S_WIDTH]
    row_at = st[S_ROW_AT]
    for s in range(n):
        p = (table[i, COL_ROWS + s] - st[S_TOP]) * width + (table[i, COL_COLS + s] - st[S_LEFT])
        saved[s] = st[row_at + p]
        st[row_at + p] = ~np.int64(table[i, COL_KINDS + s])
    found = 0
    along_row = n == 1 or table[i, COL_ROWS] == table[i, COL_ROWS + 1]
    # The line of the move, once, then the cross line of every tile.
    for s in range(-1, n):
        t = max(s, 0)
        p = (table[i, COL_ROWS + t] - st[S_TOP]) * width + (table[i, COL_COLS + t] - st[S_LEFT])
        if (s < 0) == along_row:
            length, allowed = run_line(st, p, 1)
        else:
            length, allowed = run_line(st, p, width)
        if length == 5 and allowed > 0:
            out[found] = lowest_kind(allowed)
            found += 1
    for s in range(n):
        p = (table[i, COL_ROWS + s] - st[S_TOP]) * width + (table[i, COL_COLS + s] - st[S_LEFT])
        st[row_at + p] = saved[s]
    return found


@inline_kernel
def best_reply(st: KArray, table: KArray, i: KInt, reply_mask: KInt, reply_size: KInt) -> KInt:
    """After move ``i`` of ``table``, the points of the best placement of the kinds in
    ``reply_mask`` (a hand of ``reply_size`` tiles), with the going-out bonus when a
    best placement empties that hand.  The move is pushed and popped again."""
    undo = np.zeros(1 + 2 * LOG_PER_PUSH, np.int64)
    move = np.empty(ACTION_COLS, np.int64)  # the row as an action row: one push and
    set_place(move, table, i)  # one regrown compiled for the game loop, not two
    after = st
    if push_legal(after, undo, move, move[A_SCORE]) == NEED_REGROW:
        after = regrown(st, move)
        push_legal(after, undo, move, move[A_SCORE])
    replies = placements_into(after, reply_mask, MODE_BEST, new_table())
    points = 0
    for j in range(replies.shape[0]):
        bonus = GOING_OUT_BONUS if replies[j, COL_N] == reply_size else 0
        points = max(points, replies[j, COL_SCORE] + bonus)
    pop(after, undo)
    return points


@kernel
def choose_heuristic(
    st: KArray, meta: KArray, hand: KArray, hand_size: KInt, rng: KArray, action: KArray, out: KArray,
) -> None:
    """Score now, plus a hand that combines well, minus the Qwirkles a line of five
    would offer the others (by the unseen copies of the tile it lacks), plus such a
    line when the bot keeps that tile, plus the bonus when the move goes out; ties
    broken by ``rng``.  In a two-player endgame (empty bag) the other hand is known:
    instead of the lines of five, subtract the other player's best reply.  With no placement: exchange every tile outside the largest
    group (and the copies), keeping the group for the next turns."""
    table = legal_placements(st, meta, hand_mask(hand, hand_size), MODE_ALL, out)
    n_moves = table.shape[0]
    bag_size = meta[M_BAG]
    if n_moves == 0:
        if bag_size == 0:
            set_pass(action)
            return
        # Keep one copy of each kind of the largest group; exchange the rest.
        mask = hand_mask(hand, hand_size)
        best_group = np.int64(0)
        best_size = -1
        for g in range(12):
            group = np.int64(0)
            for k in range(6):
                kind = g * 6 + k if g < 6 else k * 6 + (g - 6)
                group |= np.int64(1) << kind
            size = 0
            m = mask & group
            while m:
                m &= m - 1
                size += 1
            if size > best_size:
                best_size = size
                best_group = mask & group
        returned = np.empty(HAND_SIZE, np.int64)
        n_out = 0
        kept = np.int64(0)
        in_order = hand[:hand_size].copy()
        sort_small(in_order, hand_size)
        for kind in in_order:
            bit = np.int64(1) << kind
            if (best_group & bit) and not (kept & bit):
                kept |= bit
            else:
                returned[n_out] = kind
                n_out += 1
        if n_out == 0:  # the group itself cannot be placed: start again
            for i in range(hand_size):
                returned[i] = hand[i]
            n_out = hand_size
            sort_small(returned, n_out)
        set_exchange(action, returned, min(n_out, bag_size))
        return
    counts = board_counts(st)
    # Two players and an empty bag: the other hand is exactly the unseen tiles, so the
    # bot can look one reply ahead instead of guessing at lines of five.
    exact_reply = meta[M_PLAYERS] == 2 and bag_size == 0 and meta[M_BOARD_TILES] > 0
    reply_mask = np.int64(0)
    reply_size = 0
    if exact_reply:
        mine = np.zeros(36, np.int64)
        for h in range(hand_size):
            mine[hand[h]] += 1
        for k in range(36):
            unseen_k = 3 - counts[k] - mine[k]
            if unseen_k > 0:
                reply_mask |= np.int64(1) << k
                reply_size += unseen_k
    values = np.empty(n_moves, np.int64)
    kept_tiles = np.empty(n_moves, np.int64)
    placed = np.empty(HAND_SIZE, np.int64)
    lacking = np.empty(7, np.int64)
    saved = np.empty(HAND_SIZE, np.int64)
    for i in range(n_moves):
        n = table[i, COL_N]
        for s in range(n):
            placed[s] = table[i, COL_KINDS + s]
        leave, kept = leave_value(hand, hand_size, placed, n)
        kept_tiles[i] = kept
        value = H_SCORE * table[i, COL_SCORE] + leave
        if kept == 0 and bag_size == 0:
            value += H_GOING_OUT
        elif not exact_reply and meta[M_BOARD_TILES] > 0:
            found = five_lines(st, table, i, lacking, saved)
            for f in range(found):
                k = lacking[f]
                held = 0  # copies of k in the hand before the move
                for h in range(hand_size):
                    if hand[h] == k:
                        held += 1
                # Every copy the bot has seen is on the board or in its hand.
                unseen = 3 - counts[k] - held
                # The move may place k elsewhere in its own line; what is left is kept.
                for t in range(n):
                    if placed[t] == k:
                        held -= 1
                value -= H_THREAT_COPY * unseen
                if held > 0:
                    value += H_OWN_QWIRKLE
        values[i] = value
    if exact_reply and n_moves > 1:
        # Look a reply ahead for the REPLY_CANDIDATES best moves so far (the highest
        # values, ties in generation order); the others drop out.
        candidate = np.zeros(n_moves, np.bool_)
        for _ in range(min(REPLY_CANDIDATES, n_moves)):
            top = -1
            for i in range(n_moves):
                if not candidate[i] and (top < 0 or values[i] > values[top]):
                    top = i
            candidate[top] = True
        for i in range(n_moves):
            if not candidate[i]:
                values[i] = VALUE_MIN
            elif kept_tiles[i] > 0:
                values[i] -= H_SCORE * best_reply(st, table, i, reply_mask, reply_size)
    best = values[0]
    for i in range(1, n_moves):
        best = max(best, values[i])
    n_best = 0
    for i in range(n_moves):
        if values[i] == best:
            n_best += 1
    pick = below(rng, n_best)
    for i in range(n_moves):
        if values[i] == best:
            if pick == 0:
                set_place(action, table, i)
                return
            pick -= 1


@borrowing_kernel
def choose_action_of(
    bot: KInt, st: KArray, meta: KArray, hand: KArray, hand_size: KInt, rng: KArray, action: KArray, out: KArray,
    random: KInt, greedy: KInt, heuristic: KInt,
) -> KInt:
    """The action of ``bot`` for the seat to move, written into ``action``; ``out`` is
    a move table to write into.  Returns 0, or -- when ``out`` is too small for the
    bot's move table -- the rows it needs, having chosen nothing and drawn nothing
    from ``rng``: call again with a table that large (keep it for the next turns).

    ``random``, ``greedy`` and ``heuristic`` are each True, or None when no seat plays
    that bot (see :func:`bots_in_play`).  A None is a type to numba: the bot's branch
    is pruned before typing, so its code is not compiled (the heuristic bot alone
    takes seconds to compile)."""
    need = 0
    if bot == BOT_RANDOM:
        if random is not None:
            need = choose_random(st, meta, hand, hand_size, rng, action, out)
    elif bot == BOT_GREEDY:
        if greedy is not None:
            need = choose_greedy(st, meta, hand, hand_size, rng, action, out)
    elif heuristic is not None:
        choose_heuristic(st, meta, hand, hand_size, rng, action, out)
    return need


def bots_in_play(bots: npt.NDArray[np.int64], n_players: int) -> tuple[bool | None, bool | None, bool | None]:
    """The (random, greedy, heuristic) arguments of :func:`play_games`: True for a bot
    that a seat of ``bots[:n_players]`` plays, else None (its code is not compiled)."""
    seated = set(bots[:n_players].tolist())
    return (
        True if BOT_RANDOM in seated else None,
        True if BOT_GREEDY in seated else None,
        True if BOT_HEURISTIC in seated else None,
    )


# ----------------------------------------------------------------- the game loop
@kernel
def group_size(mask: KInt) -> KInt:
    """largest_group for callers outside numba."""
    return largest_group(mask)


@kernel
def choose_opener(hands: KArray, hand_sizes: KArray, n_players: KInt, tie_rank: KArray) -> tuple[KInt, KInt]:
    """The seat that opens and the tiles it must place: the largest group (identical
    tiles counted once), ties to the lowest ``tie_rank``."""
    opener = 0
    opener_group = -1
    for p in range(n_players):
        g = largest_group(hand_mask(hands[p], hand_sizes[p]))
        if g > opener_group or (g == opener_group and tie_rank[p] < tie_rank[opener]):
            opener = p
            opener_group = g
    return opener, opener_group


@kernel
def deal(
    meta: KArray, hands: KArray, hand_sizes: KArray, bag: KArray, scores: KArray, game_rng: KArray, n_players: KInt, tie_rank: KArray,
) -> None:
    """Shuffle the 108 tiles, deal 6 to each seat in turn, and choose the opener: the
    largest group, ties to the lowest ``tie_rank`` (seat order when ranks equal seats).
    The board must be empty."""
    for i in range(N_TILES):
        bag[i] = i // 3
    for i in range(N_TILES - 1, 0, -1):
        j = below(game_rng, i + 1)
        t = bag[i]
        bag[i] = bag[j]
        bag[j] = t
    size = N_TILES
    for p in range(n_players):
        for s in range(HAND_SIZE):
            size -= 1
            hands[p, s] = bag[size]
        hand_sizes[p] = HAND_SIZE
        scores[p] = 0
    start_play(meta, hands, hand_sizes, size, n_players, tie_rank)


@kernel
def start_play(meta: KArray, hands: KArray, hand_sizes: KArray, bag_size: KInt, n_players: KInt, tie_rank: KArray) -> None:
    """After the deal: choose the opener (the largest group, ties to the lowest
    ``tie_rank``) and set meta for the opening, the bag holding ``bag_size`` tiles."""
    opener, opener_group = choose_opener(hands, hand_sizes, n_players, tie_rank)
    meta[:] = 0
    meta[M_BAG] = bag_size
    meta[M_PLAYER] = opener
    meta[M_PLAYERS] = n_players
    meta[M_OPENING] = opener_group
    meta[M_WENT_OUT] = -1


@borrowing_kernel
def draw(hand: KArray, hand_size: KInt, bag: KArray, meta: KArray, drawn: KArray) -> tuple[KInt, KInt]:
    """Draw from the end of the bag up to 6 tiles; returns (hand size, tiles drawn)."""
    n = 0
    while hand_size < HAND_SIZE and meta[M_BAG] > 0:
        meta[M_BAG] -= 1
        hand[hand_size] = bag[meta[M_BAG]]
        drawn[n] = hand[hand_size]
        hand_size += 1
        n += 1
    return hand_size, n


@kernel
def draw_kind(hand: KArray, hand_size: KInt, bag: KArray, meta: KArray, kind: KInt) -> KInt:
    """Draw a tile of the given ``kind`` from the bag (an explicit chance outcome: the
    bag is then a multiset, its order not kept); returns the new hand size, or -1 when
    the bag holds no such tile."""
    size = meta[M_BAG]
    for j in range(size - 1, -1, -1):
        if bag[j] == kind:
            bag[j] = bag[size - 1]
            bag[size - 1] = kind
            meta[M_BAG] = size - 1
            hand[hand_size] = kind
            return hand_size + 1
    return -1


@borrowing_kernel
def push_placement(st: KArray, meta: KArray, action: KArray, scratch_log: KArray) -> KInt:
    """The board part of a place action: push its tiles on the board state ``st``.
    Games go forward, so nothing is kept for undo: ``scratch_log`` (a ``new_log(1)``
    the caller keeps for its turns) is emptied and written over.  Returns 0, or
    NEED_REGROW, having changed nothing, when the tiles come too near the edge of the
    window: push onto ``regrown(st, action)`` instead (see :func:`place_tiles`)."""
    scratch_log[0] = 0
    if push_legal(st, scratch_log, action, action[A_SCORE]) == NEED_REGROW:
        return NEED_REGROW
    meta[M_BOARD_TILES] += action[A_N]
    return 0


@kernel
def place_tiles(st: KArray, meta: KArray, action: KArray, scratch_log: KArray) -> KArray:
    """:func:`push_placement`, regrowing the window when needed.  Returns the state:
    ``st`` updated, or a larger one (``st`` then left as it was)."""
    if push_placement(st, meta, action, scratch_log) == NEED_REGROW:
        st = regrown(st, action)
        push_placement(st, meta, action, scratch_log)
    return st


@borrowing_kernel
def settle_turn(
    meta: KArray, hands: KArray, hand_sizes: KArray, bag: KArray, scores: KArray, game_rng: KArray, action: KArray, row: KArray,
) -> None:
    """Everything a turn does apart from the board: take the tiles from the hand, score
    a placement, draw back to 6, mix exchanged tiles into the bag, the going-out bonus,
    the next seat; and write the turn into ``row`` (int32[LOG_COLS]).

    The one implementation of these rules: the numba game loop and ``Game`` both call
    it (``Game`` puts a placement on its ``Board`` first, the loop with place_tiles).
    ``action`` is assumed legal: the bots choose legal actions, ``Game.push`` checks."""
    hand_size = take_tiles(meta, hands, hand_sizes, scores, action, row)
    player = meta[M_PLAYER]
    drawn = row[L_DRAWN : L_DRAWN + HAND_SIZE]
    hand_size, n_drawn = draw(hands[player], hand_size, bag, meta, drawn)
    if action[A_TYPE] == EXCHANGE:
        # Mix each returned tile in: put it last, then swap it with a uniform slot.
        for s in range(action[A_N]):
            size = meta[M_BAG]
            bag[size] = action[A_KINDS + s]
            j = below(game_rng, size + 1)
            t = bag[size]
            bag[size] = bag[j]
            bag[j] = t
            meta[M_BAG] = size + 1
    hand_sizes[player] = hand_size
    close_turn(meta, hand_sizes, scores, action, row, n_drawn)


@borrowing_kernel
def take_tiles(meta: KArray, hands: KArray, hand_sizes: KArray, scores: KArray, action: KArray, row: KArray) -> KInt:
    """The first part of a turn (settle_turn's): log the hand, take the action's tiles
    from the hand of the player to move and score a placement.  Returns the hand's new
    size (hand_sizes is left for the caller to set after the draws)."""
    player = meta[M_PLAYER]
    hand = hands[player]
    hand_size = hand_sizes[player]
    row[:] = 0
    row[L_PLAYER] = player
    row[L_TYPE] = action[A_TYPE]
    row[L_N] = action[A_N]
    row[L_HAND_SIZE] = hand_size
    for s in range(hand_size):
        row[L_HAND + s] = hand[s]
    n = action[A_N]
    if action[A_TYPE] == PLACE:
        for s in range(n):
            hand_size = remove_from_hand(hand, hand_size, action[A_KINDS + s])
            row[L_ROWS + s] = action[A_ROWS + s]
            row[L_COLS + s] = action[A_COLS + s]
            row[L_KINDS + s] = action[A_KINDS + s]
        meta[M_OPENING] = 0
        scores[player] += action[A_SCORE]
        row[L_SCORE] = action[A_SCORE]
    elif action[A_TYPE] == EXCHANGE:
        for s in range(n):
            hand_size = remove_from_hand(hand, hand_size, action[A_KINDS + s])
            row[L_KINDS + s] = action[A_KINDS + s]
    return hand_size


@kernel
def return_to_bag(bag: KArray, meta: KArray, action: KArray) -> None:
    """Put an exchange's tiles back into the bag, last (for explicit chance, where the
    bag is a multiset; settle_turn mixes them in instead)."""
    for s in range(action[A_N]):
        bag[meta[M_BAG]] = action[A_KINDS + s]
        meta[M_BAG] += 1


@borrowing_kernel
def close_turn(meta: KArray, hand_sizes: KArray, scores: KArray, action: KArray, row: KArray, n_drawn: KInt) -> None:
    """The last part of a turn (settle_turn's), after the draws: the going-out bonus
    when a placement emptied the hand, then the next seat."""
    player = meta[M_PLAYER]
    if action[A_TYPE] == PLACE and hand_sizes[player] == 0:
        scores[player] += GOING_OUT_BONUS
        meta[M_WENT_OUT] = player
        meta[M_OVER] = 1
        meta[M_END] = END_OUT
    row[L_DRAWN_N] = n_drawn
    meta[M_PLAYER] = (player + 1) % meta[M_PLAYERS]
    meta[M_TURNS] += 1


@borrowing_kernel
def apply_action(
    st: KArray, meta: KArray, hands: KArray, hand_sizes: KArray, bag: KArray, scores: KArray, game_rng: KArray, action: KArray, row: KArray,
    scratch_log: KArray,
) -> KInt:
    """Play ``action`` (assumed legal) for the seat to move and pass the turn; writes
    the turn into ``row``.  Ends the game when the player goes out; the other ends
    are :func:`ending`'s.  Returns 0, or NEED_REGROW, having changed nothing, when a
    placement needs a larger window: call again with ``regrown(st, action)``, the
    state from then on (see :func:`push_placement`, which uses ``scratch_log``).

    A borrowing kernel, like the bots' choice, so that a turn costs no reference
    counting: the allocations (a larger window, a larger move table) are the
    caller's, in the rare turns that need them."""
    if action[A_TYPE] == PLACE and push_placement(st, meta, action, scratch_log) == NEED_REGROW:
        return NEED_REGROW
    settle_turn(meta, hands, hand_sizes, bag, scores, game_rng, action, row)
    return 0


@kernel
def ending(st: KArray, meta: KArray, hands: KArray, hand_sizes: KArray, bag: KArray) -> KInt:
    """Whether the game ends now, and how (END_*): END_BLOCKED when the bag is empty
    and no hand can place; END_DEAD when tiles are left in the bag but no tile of the
    bag or of any hand fits any cell (no placement can ever be made again, and the
    players would exchange forever); else END_NONE.  With an empty bag the two
    conditions are one, and it is called blocked.  Going out is settle_turn's."""
    if meta[M_BOARD_TILES] == 0:
        return END_NONE
    fits = fitting_kinds(st)
    left = np.int64(0)
    for p in range(meta[M_PLAYERS]):
        left |= hand_mask(hands[p], hand_sizes[p])
    if meta[M_BAG] == 0:
        return END_NONE if fits & left else END_BLOCKED
    for i in range(meta[M_BAG]):
        left |= np.int64(1) << bag[i]
    return END_NONE if fits & left else END_DEAD


@inline_kernel
def play_out(
    st: KArray, meta: KArray, hands: KArray, hand_sizes: KArray, bag: KArray, scores: KArray, game_rng: KArray, bot_rngs: KArray, bots: KArray, log: KArray,
    random: KInt, greedy: KInt, heuristic: KInt,
) -> KInt:
    """Play the position to its end with ``bots[seat]``; log turns while rows last
    (``random``, ``greedy``, ``heuristic``: the bots in play, see choose_action_of).
    Returns the number of turns played (compare with ``log.shape[0]``); meta[M_END]
    says how the game ended, END_RUNAWAY if it reached MAX_TURNS turns.

    The blocked and dead ends are looked for only when a bot does not place: a game
    that is blocked or dead leaves the player to move no placement, so the bot passes
    or exchanges, and checking then ends the game at the same turn as checking after
    every turn (what Game does), without the searches.
    """
    action = np.zeros(ACTION_COLS, np.int64)
    scratch = np.zeros(LOG_COLS, np.int32)
    scratch_log = np.zeros(1 + 2 * LOG_PER_PUSH, np.int64)
    out = new_table()
    played = 0
    while meta[M_OVER] == 0:
        if meta[M_TURNS] >= MAX_TURNS:
            meta[M_END] = END_RUNAWAY
            break
        player = meta[M_PLAYER]
        need = choose_action_of(
            bots[player], st, meta, hands[player], hand_sizes[player], bot_rngs[player], action, out,
            random, greedy, heuristic,
        )
        if need > 0:
            out = np.empty((need, OUT_COLS), np.int32)
            choose_action_of(
                bots[player], st, meta, hands[player], hand_sizes[player], bot_rngs[player], action, out,
                random, greedy, heuristic,
            )
        if action[A_TYPE] != PLACE:
            end = ending(st, meta, hands, hand_sizes, bag)
            if end != END_NONE:
                meta[M_OVER] = 1
                meta[M_END] = end
                break
        row = log[played] if played < log.shape[0] else scratch
        if apply_action(st, meta, hands, hand_sizes, bag, scores, game_rng, action, row, scratch_log) == NEED_REGROW:
            st = regrown(st, action)
            apply_action(st, meta, hands, hand_sizes, bag, scores, game_rng, action, row, scratch_log)
        played += 1
    return played


@inline_kernel
def new_game_state(
    n_players: KInt, seed_low: KInt, seed_high: KInt, tie_rank: KArray,
) -> tuple[KArray, KArray, KArray, KArray, KArray, KArray, KArray, KArray]:
    """Everything for a fresh game of ``n_players`` from a seed."""
    st = new_empty_state()
    meta = np.zeros(N_META, np.int64)
    hands = np.zeros((MAX_PLAYERS, HAND_SIZE), np.int64)
    hand_sizes = np.zeros(MAX_PLAYERS, np.int64)
    bag = np.zeros(N_TILES, np.int64)
    scores = np.zeros(MAX_PLAYERS, np.int64)
    game_rng = np.zeros(4, np.int64)
    bot_rngs = np.zeros((MAX_PLAYERS, 4), np.int64)
    seed_state(game_rng, seed_low, seed_high, 0)
    for p in range(MAX_PLAYERS):
        seed_state(bot_rngs[p], seed_low, seed_high, 1 + p)
    deal(meta, hands, hand_sizes, bag, scores, game_rng, n_players, tie_rank)
    return st, meta, hands, hand_sizes, bag, scores, game_rng, bot_rngs


@inline_kernel
def play_game(
    n_players: KInt, seed_low: KInt, seed_high: KInt, tie_rank: KArray, bots: KArray, log: KArray,
) -> tuple[KArray, KInt, KInt]:
    """One whole game from the deal.  Returns (scores, turns played, how it ended
    (END_*))."""
    st, meta, hands, hand_sizes, bag, scores, game_rng, bot_rngs = new_game_state(
        n_players, seed_low, seed_high, tie_rank
    )
    turns = play_out(st, meta, hands, hand_sizes, bag, scores, game_rng, bot_rngs, bots, log, True, True, True)
    return scores, turns, meta[M_END]


@batch_kernel
def play_games_serial(
    n_players: KInt, seeds_low: KArray, seeds_high: KArray, tie_rank: KArray, bots: KArray, logs: KArray,
) -> tuple[KArray, KArray, KArray]:
    """Games i = 0.. with seeds (seeds_low[i], seeds_high[i]) on one core, every bot
    compiled (:func:`play_games` compiles only the bots in play)."""
    return play_games(n_players, seeds_low, seeds_high, tie_rank, bots, logs, True, True, True)


@inline_batch_kernel
def play_games(
    n_players: KInt, seeds_low: KArray, seeds_high: KArray, tie_rank: KArray, bots: KArray, logs: KArray,
    random: KInt, greedy: KInt, heuristic: KInt,
) -> tuple[KArray, KArray, KArray]:
    """Games i = 0.. with seeds (seeds_low[i], seeds_high[i]) on one core, played by
    ``bots``; ``random``, ``greedy``, ``heuristic`` are :func:`bots_in_play`'s (the
    code of a bot no seat plays is not compiled)."""
    n = seeds_low.shape[0]
    scores = np.zeros((n, MAX_PLAYERS), np.int64)
    turns = np.zeros(n, np.int64)
    ends = np.zeros(n, np.int64)
    for i in range(n):
        st, meta, hands, hand_sizes, bag, game_scores, game_rng, bot_rngs = new_game_state(
            n_players, seeds_low[i], seeds_high[i], tie_rank
        )
        turns[i] = play_out(
            st, meta, hands, hand_sizes, bag, game_scores, game_rng, bot_rngs, bots, logs[i], random, greedy, heuristic
        )
        scores[i] = game_scores
        ends[i] = meta[M_END]
    return scores, turns, ends


# --------------------------------------------------------------- determinization
@kernel
def redeal_unseen(
    meta: KArray, hands: KArray, hand_sizes: KArray, bag: KArray, viewer: KInt, rng: KArray,
) -> None:
    """Shuffle what ``viewer`` cannot see (the bag and the other hands) and deal the
    other hands again, each keeping its size; the rest becomes the bag."""
    n_players = meta[M_PLAYERS]
    pool = np.empty(N_TILES, np.int64)
    n = 0
    for p in range(n_players):
        if p != viewer:
            for s in range(hand_sizes[p]):
                pool[n] = hands[p, s]
                n += 1
    for s in range(meta[M_BAG]):
        pool[n] = bag[s]
        n += 1
    for i in range(n - 1, 0, -1):
        j = below(rng, i + 1)
        t = pool[i]
        pool[i] = pool[j]
        pool[j] = t
    at = 0
    for p in range(n_players):
        if p != viewer:
            for s in range(hand_sizes[p]):
                hands[p, s] = pool[at]
                at += 1
    for s in range(n - at):
        bag[s] = pool[at + s]
    if meta[M_OPENING] > 0:
        # Before the opening the opener keeps the turn and places the largest group
        # of the hand it now holds.
        opener = meta[M_PLAYER]
        meta[M_OPENING] = largest_group(hand_mask(hands[opener], hand_sizes[opener]))


@parallel_kernel
def rollouts_parallel(
    st: KArray, meta: KArray, hands: KArray, hand_sizes: KArray, bag: KArray, scores: KArray, bots: KArray, seeds_low: KArray, seeds_high: KArray, viewer: KInt,
    random: KInt, greedy: KInt, heuristic: KInt,
) -> tuple[KArray, KArray]:
    """Play the position to the end once per seed, each on its own copy; with
    ``viewer`` >= 0, first deal what that seat cannot see anew (determinization).
    ``random``, ``greedy``, ``heuristic`` are :func:`bots_in_play`'s (the code of a
    bot no seat plays is not compiled).
    Returns the final scores, one row per rollout, and how each ended (END_*)."""
    n = seeds_low.shape[0]
    out = np.zeros((n, MAX_PLAYERS), np.int64)
    ends = np.zeros(n, np.int64)
    for i in prange(n):
        g = st.copy()
        m = meta.copy()
        h = hands.copy()
        hs = hand_sizes.copy()
        b = bag.copy()
        s = scores.copy()
        rng = np.zeros(4, np.int64)
        seed_state(rng, seeds_low[i], seeds_high[i], 0)
        if viewer >= 0:
            redeal_unseen(m, h, hs, b, viewer, rng)
        bot_rngs = np.zeros((MAX_PLAYERS, 4), np.int64)
        for p in range(MAX_PLAYERS):
            seed_state(bot_rngs[p], seeds_low[i], seeds_high[i], 1 + p)
        no_log = np.zeros((0, LOG_COLS), np.int32)
        play_out(g, m, h, hs, b, s, rng, bot_rngs, bots, no_log, random, greedy, heuristic)
        out[i] = s
        ends[i] = m[M_END]
    return out, ends


def empty_logs(n_games: int, capacity: int) -> npt.NDArray[np.int32]:
    """Log buffers for ``n_games`` games of at most ``capacity`` turns each."""
    return np.zeros((n_games, capacity, LOG_COLS), np.int32)
