"""The kernels of the action encoding and of the vectorized environment.

No rule lives here: placements come from ``_turn.legal_placements``,
exchanges from its ``exchange_table``, and turns are played by its ``place_tiles``,
``settle_turn``, ``ending``, ``deal`` and bots.  This module only encodes legal turns as
sub-steps (see :mod:`qwirkle_core.envs.encoding`) and keeps N games in arrays.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _batch, _bot_kernels, _constants, _layout, _turn
from .._constants import EMPTY, N_KINDS
from .._jit import batch_kernel, inline_kernel, kernel
from .._layout import COL_COLS, COL_KINDS, COL_N, COL_ROWS, COL_SCORE, OUT_COLS, KArray, KInt
from .._movegen import MODE_ALL
from .._prng import below, seed_state
from .._state import (
    LOG_PER_PUSH,
    NEED_REGROW,
    S_C0,
    S_C1,
    S_LEFT,
    S_R0,
    S_R1,
    S_ROW_AT,
    S_TOP,
    S_WIDTH,
    new_empty_state,
    regrown,
)

MOVE_COLS = 7  # an encoded move: its size, then its PLACE ids in (row, col) order


# ----------------------------------------------------------------- the encoding
@kernel
def window_of(st: KArray, meta: KArray, width: KInt) -> tuple[KInt, KInt]:
    """Caller coordinates of the window's top-left cell: the window is centred as
    ``queries.position_planes`` centres it (the middle cell of the tiles' bounding box,
    rounded down, at (width // 2, width // 2); cell (0, 0) on the empty board)."""
    if meta[_layout.M_BOARD_TILES] == 0:
        return -(width // 2), -(width // 2)
    centre_r = (2 * st[S_TOP] + st[S_R0] + st[S_R1] - 1) // 2
    centre_c = (2 * st[S_LEFT] + st[S_C0] + st[S_C1] - 1) // 2
    return centre_r - width // 2, centre_c - width // 2


@kernel
def encode_moves(table: KArray, top: KInt, left: KInt, width: KInt, ids: KArray, scores: KArray) -> tuple[KInt, KInt]:
    """Encode the moves of a move table as PLACE ids in (row, col) order.

    Writes the first ``ids.shape[0]`` moves that lie wholly inside the window into
    ``ids`` (size, then ids) and ``scores``; returns (moves inside the window, moves
    with a tile outside it).  A caller whose buffer is too small sees it in the count."""
    area = width * width
    kept = 0
    dropped = 0
    cells = np.empty(6, np.int64)
    codes = np.empty(6, np.int64)
    for i in range(table.shape[0]):
        n = table[i, COL_N]
        inside = True
        for s in range(n):
            r = table[i, COL_ROWS + s] - top
            c = table[i, COL_COLS + s] - left
            if r < 0 or r >= width or c < 0 or c >= width:
                inside = False
                break
            # insertion by cell index, which is (row, col) order inside the window
            cell = r * width + c
            code = table[i, COL_KINDS + s] * area + cell
            j = s
            while j > 0 and cells[j - 1] > cell:
                cells[j] = cells[j - 1]
                codes[j] = codes[j - 1]
                j -= 1
            cells[j] = cell
            codes[j] = code
        if not inside:
            dropped += 1
            continue
        if kept < ids.shape[0]:
            ids[kept, 0] = n
            for s in range(n):
                ids[kept, 1 + s] = codes[s]
            for s in range(n, 6):
                ids[kept, 1 + s] = -1
            scores[kept] = table[i, COL_SCORE]
        kept += 1
    return kept, dropped


@kernel
def set_action(mask: KArray, a: KInt, set_list: KArray, n_set: KInt) -> KInt:
    """Allow action ``a``; remember it in ``set_list`` (to clear it cheaply later)."""
    if not mask[a]:
        mask[a] = True
        if n_set < set_list.shape[0]:
            set_list[n_set] = a
        n_set += 1
    return n_set


@kernel
def clear_mask(mask: KArray, set_list: KArray, n_set: KInt) -> None:
    if n_set > set_list.shape[0]:
        mask[:] = False
    else:
        for k in range(n_set):
            mask[set_list[k]] = False


@kernel
def fill_mask(
    ids: KArray, scores: KArray, n_moves: KInt, ex: KArray, n_ex: KInt, pass_ok: KInt,
    partial: KArray, n_placed: KInt, n_marked: KInt, width: KInt, mask: KArray, set_list: KArray,
) -> tuple[KInt, KInt]:
    """Set in ``mask`` (all False on entry) the sub-steps that continue the partial
    turn (``partial[:6]`` the PLACE ids so far, ``partial[6:]`` the kinds marked) to
    some legal turn.  Returns (actions set, the score of the placement the partial
    turn already is, or -1)."""
    base = N_KINDS * width * width
    n_set = 0
    end_score = -1
    if n_marked == 0:
        for i in range(n_moves):
            n = ids[i, 0]
            if n < n_placed:
                continue
            same = True
            for s in range(n_placed):
                if ids[i, 1 + s] != partial[s]:
                    same = False
                    break
            if not same:
                continue
            if n == n_placed:
                end_score = scores[i]
                n_set = set_action(mask, base + N_KINDS, set_list, n_set)
            else:
                n_set = set_action(mask, ids[i, 1 + n_placed], set_list, n_set)
    if n_placed == 0:
        for j in range(n_ex):
            n = ex[j, 0]
            if n < n_marked:
                continue
            same = True
            for s in range(n_marked):
                if ex[j, 1 + s] != partial[6 + s]:
                    same = False
                    break
            if not same:
                continue
            if n == n_marked:
                n_set = set_action(mask, base + N_KINDS, set_list, n_set)
            else:
                n_set = set_action(mask, base + ex[j, 1 + n_marked], set_list, n_set)
        if n_marked == 0 and pass_ok:
            n_set = set_action(mask, base + N_KINDS + 1, set_list, n_set)
    return n_set, end_score


@kernel
def turn_tables(st: KArray, meta: KArray, hand: KArray, hand_size: KInt, out: KArray) -> tuple[KArray, KArray, KInt]:
    """The legal placements (``_turn``'s table), the legal exchanges (its
    exchange_table; none before the opening or with an empty bag) and whether pass is
    legal (no placement and an empty bag), for the player to move."""
    table = _turn.legal_placements(st, meta, _turn.held_kinds(hand, hand_size), MODE_ALL, out)
    if meta[_layout.M_OPENING] == 0 and meta[_layout.M_BAG] > 0:
        ex = _turn.exchange_table(hand, hand_size, meta[_layout.M_BAG])
    else:
        ex = np.zeros((0, 1 + _constants.HAND_SIZE), np.int64)
    pass_ok = 1 if table.shape[0] == 0 and meta[_layout.M_BAG] == 0 and meta[_layout.M_OPENING] == 0 else 0
    return table, ex, pass_ok


@kernel
def turn_mask(
    st: KArray, meta: KArray, hand: KArray, hand_size: KInt, width: KInt,
    partial: KArray, n_placed: KInt, n_marked: KInt, mask: KArray,
) -> tuple[KInt, KInt, KInt]:
    """The one call behind ``encoding.legal_substeps``: the legal next sub-steps of the
    player to move after a partial turn, written into ``mask`` (cleared first).
    Returns (actions allowed, legal moves with a tile outside the window, the score of
    the placement the partial turn already is or -1)."""
    mask[:] = False
    if meta[_layout.M_OVER]:
        return 0, 0, -1
    table, ex, pass_ok = turn_tables(st, meta, hand, hand_size, _turn.new_table())
    top, left = window_of(st, meta, width)
    ids = np.empty((table.shape[0], MOVE_COLS), np.int64)
    scores = np.empty(table.shape[0], np.int64)
    kept, dropped = encode_moves(table, top, left, width, ids, scores)
    no_list = np.empty(0, np.int64)
    n_set, end_score = fill_mask(
        ids, scores, kept, ex, ex.shape[0], pass_ok, partial, n_placed, n_marked, width, mask, no_list
    )
    return n_set, dropped, end_score


# ------------------------------------------------------------ the vector env
# Per-env scalars (columns of ``env``).
E_TOP = 0
E_LEFT = 1
E_PLACED = 2  # sub-steps of the turn so far: placements ...
E_MARKED = 3  # ... or marks
E_MOVES = 4  # encoded moves cached for the turn; -1 when they did not fit (recomputed)
E_EX = 5  # exchanges of the turn
E_PASS = 6  # pass legal this turn
E_END_SCORE = 7  # score of the placement the partial turn is, or -1
E_SET = 8  # actions set in the mask
E_DROPPED = 9  # legal moves of this turn with a tile outside the window
E_SEED = 10  # seed of the game being played
E_NEXT_SEED = 11  # seed of the next game
E_DONE = 12  # 1: the game ended and waits for reset (no autoreset)
E_GAMES = 13  # games finished
E_SKIPPED = 14  # games truncated before the caller's first turn (never observed)
E_FRESH = 15  # 1: no step of this game played yet (its first step counts the bots' turns before it)
N_ENV = 16

# bots[seat] of a seat that Python plays between kernel calls (a search bot); -1 is the
# caller's seat (CALLER_SEAT), 0.. a built-in bot's id.
SEARCH_SEAT = -2
CALLER_SEAT = -1
# What a turn's end leads to (finish_turn): the caller's next turn begun, the game ended
# by the rules, truncated, or a search seat to move (Python plays it, then finish_turn).
BEGUN, ENDED, TRUNCATED, WAITING = 0, 1, 2, 3

# Columns of the scalar observation ``info`` (seats rotated: 0 = the player to move).
O_SCORES = 0  # 6 scores
O_HAND_SIZES = 6  # 6 hand sizes
O_BAG = 12
O_PLAYERS = 13
O_OPENING = 14  # tiles the opening must place, 0 after it
O_SEAT = 15  # absolute seat of the player to move
O_PLACED = 16  # sub-steps of the turn so far
O_MARKED = 17
N_SCALARS = 18


@kernel
def write_board(st: KArray, meta: KArray, top: KInt, left: KInt, width: KInt, out: KArray) -> None:
    """The kinds (-1 empty) of the window into ``out`` (int8[width, width])."""
    out[:] = EMPTY
    if meta[_layout.M_BOARD_TILES] == 0:
        return
    # the window's rows and columns in the board state's own window, clipped to the tiles' box
    i0 = top - st[S_TOP]
    j0 = left - st[S_LEFT]
    row_at = st[S_ROW_AT]
    st_width = st[S_WIDTH]
    for i in range(max(st[S_R0], i0), min(st[S_R1], i0 + width)):
        for j in range(max(st[S_C0], j0), min(st[S_C1], j0 + width)):
            word = st[row_at + i * st_width + j]
            if word < 0:
                out[i - i0, j - j0] = ~word


@kernel
def write_hand(hand: KArray, hand_size: KInt, out: KArray) -> None:
    """A hand's observation planes (``ob_hand[i]``): plane 0 its counts per kind,
    plane 1 (the tiles placed this turn) empty, as at the start of a turn."""
    out[:] = 0
    for s in range(hand_size):
        out[0, hand[s]] += 1


@kernel
def write_scalars(meta: KArray, hand_sizes: KArray, scores: KArray, env: KArray, out: KArray) -> None:
    players = meta[_layout.M_PLAYERS]
    me = meta[_layout.M_PLAYER]
    out[:] = 0
    for j in range(players):
        seat = (me + j) % players
        out[O_SCORES + j] = scores[seat]
        out[O_HAND_SIZES + j] = hand_sizes[seat]
    out[O_BAG] = meta[_layout.M_BAG]
    out[O_PLAYERS] = players
    out[O_OPENING] = meta[_layout.M_OPENING]
    out[O_SEAT] = me
    out[O_PLACED] = env[E_PLACED]
    out[O_MARKED] = env[E_MARKED]


@kernel
def play_bots(
    st: KArray, meta: KArray, hands: KArray, hand_sizes: KArray, bag: KArray, scores: KArray,
    rng: KArray, bot_rngs: KArray, bots: KArray, action: KArray, row: KArray, out: KArray,
) -> KArray:
    """Let the built-in bots play while one of them is to move (as play_out plays);
    returns the board state (a new array when it grew)."""
    scratch_log = np.zeros(1 + 2 * LOG_PER_PUSH, np.int64)
    while meta[_layout.M_OVER] == 0 and bots[meta[_layout.M_PLAYER]] >= 0:
        if meta[_layout.M_TURNS] >= _batch.MAX_TURNS:
            return st
        player = meta[_layout.M_PLAYER]
        # Every bot may play here: the flags as plain booleans (np.bool_, not the
        # literal True), so that this call reuses choose_action_of as self-play's game
        # loop compiles it for a mix of every bot, instead of compiling it once more.
        every = np.bool_(True)
        need = _bot_kernels.choose_action_of(
            bots[player], st, meta, hands[player], hand_sizes[player], bot_rngs[player], action, out, every, every, every
        )
        if need > 0:
            _bot_kernels.choose_action_of(
                bots[player], st, meta, hands[player], hand_sizes[player], bot_rngs[player], action,
                np.empty((need, OUT_COLS), np.int32), every, every, every,
            )
        if action[_layout.A_TYPE] != _layout.PLACE:
            end = _turn.ending(st, meta, hands, hand_sizes, bag)
            if end != _layout.END_NONE:
                meta[_layout.M_OVER] = 1
                meta[_layout.M_END] = end
                return st
        if _turn.apply_action(st, meta, hands, hand_sizes, bag, scores, rng, action, row, scratch_log) == NEED_REGROW:
            st = regrown(st, action)
            _turn.apply_action(st, meta, hands, hand_sizes, bag, scores, rng, action, row, scratch_log)
    return st


@kernel
def search_seat_waits(st: KArray, meta: KArray, hands: KArray, hand_sizes: KArray, bag: KArray, out: KArray) -> KInt:
    """A search seat is to move: 1 if it has a turn to play, or 0 when it has no
    placement and the game is blocked or dead (ended here, as begin_turn ends it)."""
    player = meta[_layout.M_PLAYER]
    table = _turn.legal_placements(st, meta, _turn.held_kinds(hands[player], hand_sizes[player]), MODE_ALL, out)
    if table.shape[0] == 0:
        end = _turn.ending(st, meta, hands, hand_sizes, bag)
        if end != _layout.END_NONE:
            meta[_layout.M_OVER] = 1
            meta[_layout.M_END] = end
            return 0
    return 1


@kernel
def refill_mask(
    i: KInt, width: KInt, sts: Any, metas: KArray, hands: KArray, hand_sizes: KArray, env: KArray, partial: KArray,
    cache_ids: KArray, cache_scores: KArray, ex: KArray, masks: KArray, set_lists: KArray,
) -> None:
    """Clear env i's mask and set the sub-steps that continue its partial turn."""
    e = env[i]
    clear_mask(masks[i], set_lists[i], e[E_SET])
    meta = metas[i]
    player = meta[_layout.M_PLAYER]
    if e[E_MOVES] >= 0:
        ids = cache_ids[i]
        scores = cache_scores[i]
        n_moves = e[E_MOVES]
    else:  # too many moves for the cache: encode them again (rare: one-colour hands)
        mask = _turn.held_kinds(hands[i, player], hand_sizes[i, player])
        table = _turn.legal_placements(sts[i], meta, mask, MODE_ALL, _turn.new_table())
        ids = np.empty((table.shape[0], MOVE_COLS), np.int32)
        scores = np.empty(table.shape[0], np.int32)
        n_moves, _ = encode_moves(table, e[E_TOP], e[E_LEFT], width, ids, scores)
    e[E_SET], e[E_END_SCORE] = fill_mask(
        ids, scores, n_moves, ex[i], e[E_EX], e[E_PASS], partial[i], e[E_PLACED], e[E_MARKED],
        width, masks[i], set_lists[i],
    )


@kernel
def begin_turn(
    i: KInt, sts: Any, metas: KArray, hands: KArray, hand_sizes: KArray, bags: KArray, scores: KArray,
    env: KArray, partial: KArray, cache_ids: KArray, cache_scores: KArray, ex: KArray, masks: KArray,
    set_lists: KArray, ob_board: KArray, ob_hand: KArray, ob_scalars: KArray, out: KArray,
) -> KInt:
    """Start the turn of the player to move: fix the window, encode the legal moves,
    write the mask and the observation.  Returns 0, 1 when the game turns out blocked
    or dead (it is ended), or 2 when no legal sub-step is left because every legal
    move leaves the window (the caller truncates the game)."""
    meta = metas[i]
    e = env[i]
    width = ob_board.shape[2]
    player = meta[_layout.M_PLAYER]
    hand = hands[i, player]
    hand_size = hand_sizes[i, player]
    st = sts[i]
    table, exchanges, pass_ok = turn_tables(st, meta, hand, hand_size, out)
    if table.shape[0] == 0:
        end = _turn.ending(st, meta, hands[i], hand_sizes[i], bags[i])
        if end != _layout.END_NONE:
            meta[_layout.M_OVER] = 1
            meta[_layout.M_END] = end
            return 1
    top, left = window_of(st, meta, width)
    e[E_TOP] = top
    e[E_LEFT] = left
    e[E_PLACED] = 0
    e[E_MARKED] = 0
    kept, dropped = encode_moves(table, top, left, width, cache_ids[i], cache_scores[i])
    e[E_MOVES] = kept if kept <= cache_ids.shape[1] else -1
    e[E_DROPPED] = dropped
    n_ex = exchanges.shape[0]
    ex[i, :n_ex] = exchanges
    e[E_EX] = n_ex
    e[E_PASS] = pass_ok
    refill_mask(i, width, sts, metas, hands, hand_sizes, env, partial, cache_ids, cache_scores, ex, masks, set_lists)
    write_board(st, meta, top, left, width, ob_board[i, 0])
    ob_board[i, 1] = EMPTY
    write_hand(hand, hand_size, ob_hand[i])
    write_scalars(meta, hand_sizes[i], scores[i], e, ob_scalars[i])
    if e[E_SET] == 0:
        return 2
    return 0


@kernel
def new_game(
    i: KInt, sts: Any, metas: KArray, hands: KArray, hand_sizes: KArray, bags: KArray, scores: KArray,
    rngs: KArray, bot_rngs: KArray, env: KArray, players: KInt,
) -> None:
    """Deal env i's next game (seed env[i, E_NEXT_SEED]), as Game(players, seed) deals."""
    meta = metas[i]
    sts[i] = new_empty_state()
    seed = env[i, E_NEXT_SEED]
    low = seed & 0xFFFFFFFF
    high = (seed >> 32) & 0xFFFFFFFF
    seed_state(rngs[i], low, high, 0)
    for p in range(_constants.MAX_PLAYERS):
        seed_state(bot_rngs[i, p], low, high, 1 + p)
    rank = np.arange(_constants.MAX_PLAYERS)
    _turn.deal(meta, hands[i], hand_sizes[i], bags[i], scores[i], rngs[i], players, rank)
    env[i, E_SEED] = seed
    env[i, E_DONE] = 0
    env[i, E_FRESH] = 1


@batch_kernel
def start_game(
    i: KInt, sts: Any, metas: KArray, hands: KArray, hand_sizes: KArray, bags: KArray, scores: KArray,
    rngs: KArray, bot_rngs: KArray, bots: KArray, env: KArray, partial: KArray, cache_ids: KArray,
    cache_scores: KArray, ex: KArray, masks: KArray, set_lists: KArray, ob_board: KArray, ob_hand: KArray,
    ob_scalars: KArray, players: KInt, stride: KInt,
) -> None:
    """Deal env i's next game, let the bots play until the caller's turn, begin it."""
    action = np.zeros(_layout.ACTION_COLS, np.int64)
    row = np.zeros(_layout.LOG_COLS, np.int32)
    out = _turn.new_table()
    while True:
        new_game(i, sts, metas, hands, hand_sizes, bags, scores, rngs, bot_rngs, env, players)
        env[i, E_NEXT_SEED] += stride
        sts[i] = play_bots(
            sts[i], metas[i], hands[i], hand_sizes[i], bags[i], scores[i], rngs[i], bot_rngs[i], bots, action, row, out
        )
        if metas[i, _layout.M_OVER] == 0 and metas[i, _layout.M_TURNS] < _batch.MAX_TURNS:
            if bots[metas[i, _layout.M_PLAYER]] == SEARCH_SEAT:
                # Python plays the search seat's turn, then finish_turn goes on.
                if search_seat_waits(sts[i], metas[i], hands[i], hand_sizes[i], bags[i], out):
                    return
            else:
                status = begin_turn(
                    i, sts, metas, hands, hand_sizes, bags, scores, env, partial, cache_ids, cache_scores, ex,
                    masks, set_lists, ob_board, ob_hand, ob_scalars, out,
                )
                if status == 0:
                    return
        # A game over or truncated before the caller's first turn (a first turn whose
        # every move leaves the window): counted, and the next one is dealt.
        env[i, E_GAMES] += 1
        env[i, E_SKIPPED] += 1


@inline_kernel
def finish_turn(
    i: KInt, action: KArray, sts: Any, metas: KArray, hands: KArray, hand_sizes: KArray, bags: KArray,
    scores: KArray, rngs: KArray, bot_rngs: KArray, bots: KArray, env: KArray, partial: KArray,
    cache_ids: KArray, cache_scores: KArray, ex: KArray, masks: KArray, set_lists: KArray,
    ob_board: KArray, ob_hand: KArray, ob_scalars: KArray, row: KArray, scratch_log: KArray, out: KArray,
) -> KInt:
    """Play ``action`` (a legal action row) for env i's player to move, then the
    built-in bots' turns, then begin the caller's next turn.  Returns BEGUN, ENDED,
    TRUNCATED, or WAITING: a search seat is to move (Python plays it with this too)."""
    meta = metas[i]
    st = sts[i]
    played = _turn.apply_action(st, meta, hands[i], hand_sizes[i], bags[i], scores[i], rngs[i], action, row, scratch_log)
    if played == NEED_REGROW:
        st = regrown(st, action)
        _turn.apply_action(st, meta, hands[i], hand_sizes[i], bags[i], scores[i], rngs[i], action, row, scratch_log)
    # The blocked and dead ends are looked for, as play_out does, when the next
    # player has no placement (play_bots, begin_turn): a blocked or dead game leaves
    # none, so the game ends in this step, in the state Game ends it in.
    sts[i] = play_bots(st, meta, hands[i], hand_sizes[i], bags[i], scores[i], rngs[i], bot_rngs[i], bots, action, row, out)
    if meta[_layout.M_OVER] != 0:
        return ENDED
    if meta[_layout.M_TURNS] >= _batch.MAX_TURNS:
        return TRUNCATED
    if bots[meta[_layout.M_PLAYER]] == SEARCH_SEAT:
        return WAITING if search_seat_waits(sts[i], meta, hands[i], hand_sizes[i], bags[i], out) else ENDED
    return begin_turn(
        i, sts, metas, hands, hand_sizes, bags, scores, env, partial, cache_ids, cache_scores, ex,
        masks, set_lists, ob_board, ob_hand, ob_scalars, out,
    )


@inline_kernel
def close_game(
    i: KInt, status: KInt, sts: Any, metas: KArray, hands: KArray, hand_sizes: KArray, bags: KArray,
    scores: KArray, rngs: KArray, bot_rngs: KArray, bots: KArray, env: KArray, partial: KArray,
    cache_ids: KArray, cache_scores: KArray, ex: KArray, masks: KArray, set_lists: KArray,
    ob_board: KArray, ob_hand: KArray, ob_scalars: KArray, terminated: KArray, truncated: KArray,
    final_scores: KArray, players: KInt, autoreset: KInt, stride: KInt,
) -> None:
    """Env i's game ended (status ENDED) or was truncated (TRUNCATED): its flags and
    final scores, then the next game (autoreset) or a finished env waiting for reset."""
    e = env[i]
    meta = metas[i]
    width = ob_board.shape[2]
    terminated[i] = status == ENDED
    truncated[i] = status == TRUNCATED
    final_scores[i] = scores[i]
    e[E_GAMES] += 1
    if autoreset:
        start_game(
            i, sts, metas, hands, hand_sizes, bags, scores, rngs, bot_rngs, bots, env, partial, cache_ids,
            cache_scores, ex, masks, set_lists, ob_board, ob_hand, ob_scalars, players, stride,
        )
    else:
        e[E_DONE] = 1
        clear_mask(masks[i], set_lists[i], e[E_SET])
        e[E_SET] = 0
        e[E_PLACED] = 0
        e[E_MARKED] = 0
        top, left = window_of(sts[i], meta, width)
        e[E_TOP] = top  # the final board's window: its origin is what the observation shows
        e[E_LEFT] = left
        write_board(sts[i], meta, top, left, width, ob_board[i, 0])
        ob_board[i, 1] = EMPTY
        # The hand as begin_turn writes it, of the caller's seat (no tile placed this
        # turn): a game that ended at the start of a turn (blocked, dead) has no
        # begin_turn, and the planes held the last mover's hand before its draw.  The
        # caller's seat: the one to move if the caller plays it (self-play), else the
        # learner's (the one seat no bot plays; never an opponent's hidden hand).
        seat = meta[_layout.M_PLAYER]
        if bots[seat] != CALLER_SEAT:
            for p in range(players):
                if bots[p] == CALLER_SEAT:
                    seat = p
                    break
        write_hand(hands[i, seat], hand_sizes[i, seat], ob_hand[i])
        write_scalars(meta, hand_sizes[i], scores[i], e, ob_scalars[i])


@batch_kernel
def step_envs(
    actions: KArray, sts: Any, metas: KArray, hands: KArray, hand_sizes: KArray, bags: KArray,
    scores: KArray, rngs: KArray, bot_rngs: KArray, bots: KArray, env: KArray, partial: KArray,
    cache_ids: KArray, cache_scores: KArray, ex: KArray, masks: KArray, set_lists: KArray,
    ob_board: KArray, ob_hand: KArray, ob_scalars: KArray, rewards: KArray, terminated: KArray,
    truncated: KArray, final_scores: KArray, players: KInt, autoreset: KInt, illegal: KArray, penalize: KInt,
    befores: KArray,
) -> KInt:
    """Play one sub-step in each env; returns -1, or (changing nothing) the first env
    whose action is not legal.  With ``penalize``, an env whose action is not legal
    (``illegal[i]`` set) is left as it was, and the others play theirs: one policy's
    mistake in one game does not stop the batch.  ``befores[i]``: the scores the step's
    rewards are measured from, 0 in a game's first step (what the bots scored before
    it, inside a reset or an autoreset, counts there: a game's rewards sum to its final
    scores, or margin)."""
    n_envs = actions.shape[0]
    width = ob_board.shape[2]
    area = width * width
    base = N_KINDS * area
    action = np.zeros(_layout.ACTION_COLS, np.int64)
    row = np.zeros(_layout.LOG_COLS, np.int32)
    scratch_log = np.zeros(1 + 2 * LOG_PER_PUSH, np.int64)
    out = _turn.new_table()
    for i in range(n_envs):
        a = actions[i]
        wrong = env[i, E_DONE] != 0 or a < 0 or a >= masks.shape[1] or not masks[i, a]
        illegal[i] = wrong
        if wrong and not penalize:
            return i
    for i in range(n_envs):
        a = actions[i]
        e = env[i]
        meta = metas[i]
        player = meta[_layout.M_PLAYER]
        before = befores[i]
        rewards[i] = 0.0
        terminated[i] = False
        truncated[i] = False
        if illegal[i]:
            before[:] = scores[i]
            continue
        if e[E_FRESH]:
            before[:] = 0
            e[E_FRESH] = 0
        else:
            before[:] = scores[i]
        if a < base + N_KINDS:
            kind = a // area if a < base else a - base
            if a < base:
                partial[i, e[E_PLACED]] = a
                e[E_PLACED] += 1
                ob_board[i, 1, (a % area) // width, a % width] = kind
            else:
                partial[i, 6 + e[E_MARKED]] = kind
                e[E_MARKED] += 1
                ob_hand[i, 1, kind] += 1
            ob_hand[i, 0, kind] -= 1
            ob_scalars[i, O_PLACED] = e[E_PLACED]
            ob_scalars[i, O_MARKED] = e[E_MARKED]
            refill_mask(
                i, width, sts, metas, hands, hand_sizes, env, partial, cache_ids, cache_scores, ex, masks, set_lists
            )
            status = BEGUN  # (the reward below: 0, or in a game's first step what came before it)
        else:  # END or PASS: play the turn through ``_turn``.
            if a == base + N_KINDS + 1:
                _turn.set_pass(action)
            elif e[E_PLACED] > 0:
                n = e[E_PLACED]
                action[_layout.A_TYPE] = _layout.PLACE
                action[_layout.A_N] = n
                action[_layout.A_SCORE] = e[E_END_SCORE]
                for s in range(n):
                    code = partial[i, s]
                    action[_layout.A_KINDS + s] = code // area
                    action[_layout.A_ROWS + s] = (code % area) // width + e[E_TOP]
                    action[_layout.A_COLS + s] = code % width + e[E_LEFT]
            else:
                _turn.set_exchange(action, partial[i, 6:], e[E_MARKED])
            status = finish_turn(
                i, action, sts, metas, hands, hand_sizes, bags, scores, rngs, bot_rngs, bots, env, partial,
                cache_ids, cache_scores, ex, masks, set_lists, ob_board, ob_hand, ob_scalars, row, scratch_log, out,
            )
        # The reward: the acting seat's points; against bots, the learner's points less
        # the mean of the bots' points over the step (with search seats, VectorQwirkle
        # writes it once Python has played their turns too), both from ``before``.
        gain = scores[i, player] - before[player]
        if bots[player] < 0:
            others = 0
            n_bots = 0
            for p in range(players):
                if p != player and bots[p] >= 0:
                    others += scores[i, p] - before[p]
                    n_bots += 1
            rewards[i] = gain - (others / n_bots if n_bots else 0.0)
        if status == BEGUN or status == WAITING:
            continue
        close_game(
            i, status, sts, metas, hands, hand_sizes, bags, scores, rngs, bot_rngs, bots, env, partial, cache_ids,
            cache_scores, ex, masks, set_lists, ob_board, ob_hand, ob_scalars, terminated, truncated, final_scores,
            players, autoreset, n_envs,
        )
    return -1


@batch_kernel
def random_substeps(masks: KArray, set_lists: KArray, env: KArray, rng: KArray, out: KArray) -> None:
    """A uniformly random legal sub-step for each env (from the actions its mask set)."""
    for i in range(masks.shape[0]):
        n_set = env[i, E_SET]
        if n_set == 0:
            out[i] = -1
        elif n_set <= set_lists.shape[1]:
            out[i] = set_lists[i, below(rng, n_set)]
        else:
            pick = below(rng, n_set)
            for a in range(masks.shape[1]):
                if masks[i, a]:
                    if pick == 0:
                        out[i] = a
                        break
                    pick -= 1
