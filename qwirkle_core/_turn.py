"""The rules of play in kernels: the deal, what a turn may do, how a turn is applied,
and how a game ends.  Every game in the library applies its turns here: the game loop
(``_batch``), ``qwirkle_core.game.Game``, the vector env (``envs._kernels``) and the
OpenSpiel game (``envs.openspiel``).

A game's state is a handful of arrays (numba has no classes worth their cost here):

- ``st``: the board state of ``_state`` (the tiles and every cell's cross-checks, kept
  up to date as tiles are placed, so the bots query without recomputing them); a
  placement that nears the edge of its window replaces it by a larger one;
- ``meta``: int64[N_META], the scalars M_* of ``_layout``;
- ``hands``: int64[6, 6] kinds, row = seat, the first ``hand_sizes[seat]`` slots used,
  in the order the tiles were drawn;
- ``bag``: int64[108], the first ``meta[M_BAG]`` slots used; tiles are drawn from the end;
- ``scores``: int64[6]; ``game_rng``: int64[4] (and the bots' own, ``bot_rngs``: int64[6, 4]).

The rules follow docs/rules.md: the opener places exactly their largest group; a place
draws back to 6; an exchange draws first, then mixes each returned tile into the bag at
a random position; the player who empties their hand (the bag is then empty) scores 6
more and ends the game; when the bag is empty and no hand can place, or when no tile
left anywhere fits the board (a dead board), the game ends at once with no bonus
(:func:`ending`).

An *action* is an action row of ``_layout`` (A_*): a move row's slots plus its type.
"""

from __future__ import annotations

import numpy as np

from ._constants import COORD_MAX, GOING_OUT_BONUS, HAND_SIZE, N_KINDS, N_TILES
from ._frontier import fitting_kinds
from ._jit import borrowing_kernel, helper, inline_kernel, kernel
from ._layout import (
    A_COLS,
    A_KINDS,
    A_N,
    A_ROWS,
    A_SCORE,
    A_TYPE,
    COL_COLS,
    COL_KINDS,
    COL_N,
    COL_ROWS,
    COL_SCORE,
    END_BLOCKED,
    END_DEAD,
    END_NONE,
    END_OUT,
    EXCHANGE,
    L_COLS,
    L_DRAWN,
    L_DRAWN_N,
    L_HAND,
    L_HAND_SIZE,
    L_KINDS,
    L_N,
    L_PLAYER,
    L_ROWS,
    L_SCORE,
    L_TYPE,
    M_BAG,
    M_BOARD_TILES,
    M_END,
    M_OPENING,
    M_OVER,
    M_PLAYER,
    M_PLAYERS,
    M_TURNS,
    M_WENT_OUT,
    OUT_COLS,
    PASS,
    PLACE,
    KArray,
    KInt,
)
from ._movegen import INITIAL_CAPACITY, MODE_ANY, generate
from ._prng import below
from ._state import NEED_REGROW, OK, judge, push_legal, regrown


# ------------------------------------------------------------------- the hand
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
def group_size(mask: KInt) -> KInt:
    """largest_group for callers outside numba."""
    return largest_group(mask)


@kernel
def held_kinds(hand: KArray, hand_size: KInt) -> KInt:
    """The kind mask of a hand row: bit ``kind`` set for each kind of ``hand[:hand_size]``."""
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



# --------------------------------------------------------- a turn's verdict
# turn_verdict's answers: LEGAL, or the rule the action breaks (Game.push words each
# one; a dataset's check reports it).  The second value says more where noted.
LEGAL = 0
V_OVER = 1  # the game is over
V_MALFORMED = 2  # not a place, an exchange or a pass, a count of tiles out of range, or a
# cell outside the playing area (|row|, |col| <= COORD_MAX: what a Move may hold)
V_OPENING_SIZE = 3  # the opening places the opener's largest group: its size
V_OPENING_ONLY = 4  # before the opening only that placement is allowed: its size
V_NOT_HELD = 5  # a tile placed or exchanged is not in the hand (that many times): the kind
V_PLACEMENT = 6  # the tiles break a rule of lines (_state's verdict: judge)
V_SCORE_LIMIT = 7  # the player's score would pass the limit
V_EXCHANGE_BAG = 8  # more tiles exchanged than the bag holds: the bag's size
V_PASS_BAG = 9  # a pass while the bag holds tiles
V_PASS_MOVE = 10  # a pass while a tile can be placed
VERDICT_RULES = {  # each verdict's rule, in words (Game.push says more: the tile, the cell)
    V_OVER: "the game is over",
    V_MALFORMED: "not a place, an exchange or a pass of 0 to 6 tiles within the playing area",
    V_OPENING_SIZE: "the opening move places the opener's largest group",
    V_OPENING_ONLY: "the opening player must place their largest group",
    V_NOT_HELD: "a tile placed or exchanged is not in the hand",
    V_PLACEMENT: "the tiles break a rule of lines",
    V_SCORE_LIMIT: "the score would pass the limit",
    V_EXCHANGE_BAG: "more tiles exchanged than the bag holds",
    V_PASS_BAG: "a pass is only allowed when the bag is empty",
    V_PASS_MOVE: "a pass is only allowed when no tile can be placed",
}


@helper
def unheld_kind(hand: KArray, hand_size: KInt, action: KArray) -> KInt:
    """The first kind of the action's tiles that the hand does not hold as many times
    as the action uses it; -1 when the hand holds them all."""
    n = action[A_N]
    for a in range(n):
        kind = action[A_KINDS + a]
        used = 0
        for b in range(n):
            if action[A_KINDS + b] == kind:
                used += 1
        held = 0
        for i in range(hand_size):
            if hand[i] == kind:
                held += 1
        if held < used:
            return kind
    return -1


@kernel
def turn_verdict(
    st: KArray, meta: KArray, hands: KArray, hand_sizes: KArray, scores: KArray, action: KArray, max_score: KInt,
    out: KArray,
) -> tuple[KInt, KInt]:
    """Whether the seat to move may play ``action`` (an action row): (LEGAL, the
    placement's score, 0 for an exchange or a pass), or (V_*, what it is about).  The
    one statement of what a turn may do: ``Game.push`` asks it before every turn, and a
    dataset's check before every recorded one.  ``out``, a move table of at least one
    row, is written over (the pass rule's search for a placement)."""
    if meta[M_OVER]:
        return V_OVER, 0
    kind = action[A_TYPE]
    n = action[A_N]
    lowest = 0 if kind == PASS else 1
    if kind != PLACE and kind != EXCHANGE and kind != PASS or not lowest <= n <= HAND_SIZE or (kind == PASS and n):
        return V_MALFORMED, 0
    player = meta[M_PLAYER]
    opening = meta[M_OPENING]
    if kind == PLACE:
        for s in range(n):
            if abs(action[A_ROWS + s]) > COORD_MAX or abs(action[A_COLS + s]) > COORD_MAX:
                return V_MALFORMED, 0
    if kind == PLACE and opening and n != opening:
        return V_OPENING_SIZE, opening
    if kind != PLACE and opening:
        return V_OPENING_ONLY, opening
    if kind != PASS:
        missing = unheld_kind(hands[player], hand_sizes[player], action)
        if missing >= 0:
            return V_NOT_HELD, missing
    if kind == PLACE:
        verdict, score, _, _, _ = judge(st, action)
        if verdict != OK:
            return V_PLACEMENT, verdict
        # The bonus counts only where this placement empties the hand with the bag empty.
        bonus = GOING_OUT_BONUS if n == hand_sizes[player] and meta[M_BAG] == 0 else 0
        if scores[player] + score + bonus > max_score:
            return V_SCORE_LIMIT, 0
        return LEGAL, score
    if kind == EXCHANGE:
        if n > meta[M_BAG]:
            return V_EXCHANGE_BAG, meta[M_BAG]
        return LEGAL, 0
    if meta[M_BAG]:
        return V_PASS_BAG, 0
    if generate(st, out, held_kinds(hands[player], hand_sizes[player]), np.int64(MODE_ANY)) > 0:
        return V_PASS_MOVE, 0
    return LEGAL, 0


# --------------------------------------------------------- what a turn may do
@kernel
def new_table() -> KArray:
    """A move table for the bots to write into (grown where a query needs more)."""
    return np.empty((INITIAL_CAPACITY, OUT_COLS), np.int32)


@borrowing_kernel
def placements_in(st: KArray, meta: KArray, mask: KInt, mode: KInt, out: KArray) -> KInt:
    """The move table of the kinds in ``mask`` for the position, written into ``out``
    (on the empty board only the openings of exactly meta[M_OPENING] tiles, in the
    canonical frame); returns its number of rows.  As with ``generate``, a number
    larger than ``out`` means that ``out`` holds nothing useful: call again with a
    table that large.  No allocation, so that the turn's kernels borrow their arrays
    (see borrowing_kernel); :func:`legal_placements` grows the table itself.

    ``mode`` reaches ``generate`` as the caller gives it: from the bots a literal
    (MODE_BEST, MODE_ALL), for which numba compiles generate once each, and those
    make self-play 2 % faster."""
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


@kernel
def exchange_kinds(hand: KArray, hand_size: KInt) -> tuple[KArray, KArray]:
    """The distinct kinds of the hand in ascending order and how many of each."""
    kinds = np.empty(HAND_SIZE, np.int64)
    counts = np.zeros(HAND_SIZE, np.int64)
    n = 0
    for kind in range(N_KINDS):
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



# ------------------------------------------------------------------- the deal
@kernel
def choose_opener(hands: KArray, hand_sizes: KArray, n_players: KInt, tie_rank: KArray) -> tuple[KInt, KInt]:
    """The seat that opens and the tiles it must place: the largest group (identical
    tiles counted once), ties to the lowest ``tie_rank``."""
    opener = 0
    opener_group = -1
    for p in range(n_players):
        g = largest_group(held_kinds(hands[p], hand_sizes[p]))
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
        meta[M_OPENING] = largest_group(held_kinds(hands[opener], hand_sizes[opener]))



# --------------------------------------------------------------------- a turn
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



# -------------------------------------------------------------------- the end
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
        left |= held_kinds(hands[p], hand_sizes[p])
    if meta[M_BAG] == 0:
        return END_NONE if fits & left else END_BLOCKED
    for i in range(meta[M_BAG]):
        left |= np.int64(1) << bag[i]
    return END_NONE if fits & left else END_DEAD

