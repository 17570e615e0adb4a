"""The built-in bots' kernels: random, greedy and heuristic, each choosing the action
of the seat to move into an action row (``qwirkle_core.bots`` wraps them for Python).

A bot reads the position (``st``, ``meta``, its hand) and its own random stream, and
writes its choice; the turn is then applied by ``_turn``.  The move tables come from
``_turn.placements_in``, so a bot sees exactly the legal placements."""

from __future__ import annotations

import numba
import numpy as np
import numpy.typing as npt

from ._constants import GOING_OUT_BONUS, HAND_SIZE, N_KINDS
from ._jit import borrowing_kernel, helper, inline_kernel, kernel
from ._layout import (
    A_SCORE,
    ACTION_COLS,
    COL_COLS,
    COL_KINDS,
    COL_N,
    COL_ROWS,
    COL_SCORE,
    M_BAG,
    M_BOARD_TILES,
    M_PLAYERS,
    OUT_COLS,
    KArray,
    KInt,
)
from ._lines import lowest_kind
from ._movegen import MODE_ALL, MODE_BEST, generate
from ._prng import below
from ._state import (
    LOG_PER_PUSH,
    NEED_REGROW,
    S_COUNTS,
    S_LEFT,
    S_ROW_AT,
    S_TOP,
    S_WIDTH,
    pop,
    push_legal,
    regrown,
    run_line,
)
from ._turn import (
    count_exchanges,
    held_kinds,
    largest_group,
    legal_placements,
    new_table,
    nth_exchange,
    placements_in,
    set_exchange,
    set_pass,
    set_place,
)

# The bots' ids (a seat's entry in ``bots`` arrays).
BOT_RANDOM = 0
BOT_GREEDY = 1
BOT_HEURISTIC = 2

# Weights of the heuristic bot, in quarter points.
H_SCORE = 4  # a point scored now
H_GROUP_TILE = 1  # a kept tile in the largest group left in the hand
H_DUPLICATE = 1  # a kept tile identical to another kept tile
H_THREAT_COPY = 4  # per unseen copy of the tile that makes a Qwirkle of a line of five left open
H_OWN_QWIRKLE = 8  # a line of five whose Qwirkle tile the bot keeps for its next turn
H_GOING_OUT = 4 * GOING_OUT_BONUS
REPLY_CANDIDATES = 8  # moves the two-player endgame looks a reply ahead for
VALUE_MIN = -(1 << 63)  # a move that drops out


@inline_kernel
def placements_into(st: KArray, mask: KInt, mode: KInt, out: KArray) -> KArray:
    """The rows ``generate`` keeps for ``mode``: a view of ``out``, or of a larger
    table when ``out`` is too small.  (``mode`` reaches ``generate`` as given, a
    literal: the heuristic's reply search is hot, and the greedy bot's turn compiles
    generate for MODE_BEST anyway.)"""
    n = generate(st, out, mask, mode)
    if n > out.shape[0]:
        out = np.empty((n, OUT_COLS), np.int32)
        n = generate(st, out, mask, mode)
    return out[:n]


@borrowing_kernel
def choose_random(
    st: KArray, meta: KArray, hand: KArray, hand_size: KInt, rng: KArray, action: KArray, out: KArray,
) -> KInt:
    """Uniform over every legal action: placements, distinct exchanges, pass.  Returns
    0, or the rows of move table that ``out`` lacks (see choose_action_of)."""
    n_moves = placements_in(st, meta, held_kinds(hand, hand_size), MODE_ALL, out)
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
    n = placements_in(st, meta, held_kinds(hand, hand_size), MODE_BEST, out)
    if n > out.shape[0]:
        return n
    if n > 0:
        set_place(action, out, below(rng, n))
    elif meta[M_BAG] > 0:
        exchange_all(hand, hand_size, meta[M_BAG], action)
    else:
        set_pass(action)
    return 0


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
    return st[S_COUNTS : S_COUNTS + N_KINDS].copy()


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
    table = legal_placements(st, meta, held_kinds(hand, hand_size), MODE_ALL, out)
    n_moves = table.shape[0]
    bag_size = meta[M_BAG]
    if n_moves == 0:
        if bag_size == 0:
            set_pass(action)
            return
        # Keep one copy of each kind of the largest group; exchange the rest.
        mask = held_kinds(hand, hand_size)
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
        mine = np.zeros(N_KINDS, np.int64)
        for h in range(hand_size):
            mine[hand[h]] += 1
        for k in range(N_KINDS):
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
    that a seat of ``bots[:n_players]`` plays, else None (its code is not compiled).

    Bounds-checked (``NUMBA_BOUNDSCHECK=1``: a test run, not a user's) every bot is in
    play: the one variant holds every line the others do, so the bounds are checked
    the same, and the game loop compiles once instead of once for each set of bots
    (seven of them, a minute of compiling)."""
    if numba.config.BOUNDSCHECK:  # type: ignore[attr-defined]
        return True, True, True
    seated = set(bots[:n_players].tolist())
    return (
        True if BOT_RANDOM in seated else None,
        True if BOT_GREEDY in seated else None,
        True if BOT_HEURISTIC in seated else None,
    )

