"""The Monte Carlo simulator's kernels (``qwirkle_core.analysis.simulation`` drives them).

One call plays one *round*: for each of its iterations, a sample of what the player to
move cannot see, then every active candidate on that same sample (common random
numbers), each followed by greedy turns, and the evaluation.  Everything a kernel here
reads is what the player to move can see: the board (and the board after each of its
own candidates), its hand, the scores, the hands' sizes, the bag's size, and the
multiset of unseen tiles in ascending kind order.  The hidden tiles are dealt from that
multiset by ``_turn.redeal_unseen``, with the generator of the iteration's seed, so a
sample depends only on what the player sees and on (seed, iteration).

The turns are the library's own: ``_turn.settle_turn`` (the candidate, whose board the
caller has already pushed) and ``_bot_kernels.choose_greedy`` with ``_state.push_legal``
and ``_turn.settle_turn`` (each greedy turn), ``_turn.ending`` for the blocked and dead
ends, checked as ``_batch.play_out`` checks them (before a turn that does not place),
and once more at the evaluation point.
"""

from __future__ import annotations

import math

import numpy as np
from numba import prange

from .._bot_kernels import choose_greedy
from .._constants import HAND_SIZE, MAX_PLAYERS, N_TILES
from .._jit import helper, kernel, parallel_kernel
from .._layout import (
    A_N,
    A_SCORE,
    A_TYPE,
    ACTION_COLS,
    END_NONE,
    LOG_COLS,
    M_BOARD_TILES,
    M_END,
    M_OVER,
    M_PLAYER,
    M_PLAYERS,
    N_META,
    OUT_COLS,
    PLACE,
    KArray,
    KInt,
)
from .._prng import GAME_STREAM, seed_state
from .._state import NEED_REGROW, pop, push_legal, regrown
from .._turn import ending, new_table, redeal_unseen, settle_turn

# Iterations a parallel task plays on one private copy of the active candidates' boards:
# the copy (about 20 KiB a board) is paid once per chunk, and each playout puts its greedy
# placements on that copy and takes them off again (push and pop restore it bit for bit).
CHUNK = 8
# Greedy turns of a playout "to the end" (plies=None) stop here with the game not over
# (a runaway, which the caller reports); greedy games end in about 60 turns.
RUNAWAY_TURNS = 10_000
# Pushes a playout can leave on its chunk's board: every placement places a tile.
MAX_PUSHES = N_TILES
LOG_PER_PUSH_WORDS = 2 * 64  # _state.LOG_PER_PUSH entries of two words each


@helper
def spread(scores: KArray, seat: KInt, n_players: KInt) -> KInt:
    """``seat``'s score minus the best score of the other seats."""
    best_other = -(1 << 62)
    for p in range(n_players):
        if p != seat:
            best_other = max(best_other, scores[p])
    return scores[seat] - best_other


@helper
def win_estimate(lead: KInt, tiles_left: KInt, offset: float, drift: float, sigma: float) -> float:
    """P(win) of a game not over: with r = sqrt(tiles_left + 1),
    Phi((lead - offset - drift * r) / (sigma * r)), ``tiles_left`` the tiles not on the
    board (see simulation.WIN_MODEL)."""
    r = math.sqrt(tiles_left + 1.0)
    z = (lead - offset - drift * r) / (sigma * r)
    return 0.5 * (1.0 + math.erf(z / math.sqrt(2.0)))


@kernel
def win_estimate_of(lead: KInt, tiles_left: KInt, offset: float, drift: float, sigma: float) -> float:
    """:func:`win_estimate` for callers outside numba (the figures' fit, the tests)."""
    return win_estimate(lead, tiles_left, offset, drift, sigma)


@helper
def deal_sample(
    meta: KArray, hands: KArray, hand_sizes: KArray, bag: KArray, viewer: KInt, unseen: KArray, rng: KArray,
) -> None:
    """Lay the unseen tiles out canonically (the other hands in seat order, then the
    bag, in ``unseen``'s ascending order), then shuffle and deal them with
    ``redeal_unseen``: the sample depends on the unseen multiset and ``rng`` only."""
    at = 0
    for p in range(meta[M_PLAYERS]):
        if p != viewer:
            for s in range(hand_sizes[p]):
                hands[p, s] = unseen[at]
                at += 1
    for s in range(unseen.shape[0] - at):
        bag[s] = unseen[at + s]
    redeal_unseen(meta, hands, hand_sizes, bag, viewer, rng)


@helper
def play_candidate(
    base: KArray, meta: KArray, hands: KArray, hand_sizes: KArray, bag: KArray, scores: KArray, game_rng: KArray,
    bot_rngs: KArray, candidate: KArray, greedy_turns: KInt, undo: KArray, scratch_log: KArray, act: KArray,
    row: KArray, out: KArray,
) -> tuple[KInt, KArray]:
    """Play ``candidate`` (its placement already on ``base``, the board after it), then
    ``greedy_turns`` greedy turns (all of them to the end when negative), on the
    arrays given (the caller's copies: they are changed).  The greedy placements go on
    ``base`` and are popped again before returning (a window that must grow becomes a
    new array, which is dropped).  Returns (1 if the game ran to RUNAWAY_TURNS without
    ending, else 0; the move table, grown if needed)."""
    if candidate[A_TYPE] == PLACE:
        meta[M_BOARD_TILES] += candidate[A_N]
    settle_turn(meta, hands, hand_sizes, bag, scores, game_rng, candidate, row)
    board = base
    on_base = True
    pushes = 0
    turns = 0
    runaway = 0
    while meta[M_OVER] == 0:
        if greedy_turns >= 0 and turns >= greedy_turns:
            # The evaluation point: has the game ended here (blocked or dead)?
            end = ending(board, meta, hands, hand_sizes, bag)
            if end != END_NONE:
                meta[M_OVER] = 1
                meta[M_END] = end
            break
        if turns >= RUNAWAY_TURNS:
            runaway = 1
            break
        player = meta[M_PLAYER]
        need = choose_greedy(board, meta, hands[player], hand_sizes[player], bot_rngs[player], act, out)
        if need > 0:
            out = np.empty((need, OUT_COLS), np.int32)
            choose_greedy(board, meta, hands[player], hand_sizes[player], bot_rngs[player], act, out)
        if act[A_TYPE] == PLACE:
            if on_base:
                if push_legal(board, undo, act, act[A_SCORE]) == NEED_REGROW:
                    board = regrown(board, act)  # base stays as it was
                    on_base = False
                    scratch_log[0] = 0
                    push_legal(board, scratch_log, act, act[A_SCORE])
                else:
                    pushes += 1
            else:
                scratch_log[0] = 0
                if push_legal(board, scratch_log, act, act[A_SCORE]) == NEED_REGROW:
                    board = regrown(board, act)
                    scratch_log[0] = 0
                    push_legal(board, scratch_log, act, act[A_SCORE])
            meta[M_BOARD_TILES] += act[A_N]
        else:
            end = ending(board, meta, hands, hand_sizes, bag)
            if end != END_NONE:
                meta[M_OVER] = 1
                meta[M_END] = end
                break
        settle_turn(meta, hands, hand_sizes, bag, scores, game_rng, act, row)
        turns += 1
    for _ in range(pushes):
        pop(base, undo)
    return runaway, out


@parallel_kernel
def simulate_round(
    boards: KArray, candidates: KArray, active: KArray, meta: KArray, hand: KArray, hand_sizes: KArray,
    scores: KArray, unseen: KArray, seeds_low: KArray, seeds_high: KArray, greedy_turns: KInt,
    win_offset: float, win_drift: float, win_sigma: float,
) -> tuple[KArray, KArray, KInt]:
    """One round of the simulation, iteration i seeded with (seeds_low[i], seeds_high[i]).

    ``boards[c]``: the board state after candidate c (the board itself for an exchange
    or a pass), rows padded with zeros to one length; ``candidates[c]`` its action row
    (``_layout.A_*``); ``active[c]`` nonzero for the candidates still in the race.
    ``meta``, ``hand`` (the player to move's, int64[6]), ``hand_sizes`` and ``scores``:
    the position as the player sees it; ``unseen``: the kinds it cannot see, ascending.

    Iteration i deals the hidden tiles with the game generator of its seed (stream
    GAME_STREAM, which then mixes exchanged tiles, as after ``Game.determinize``) and
    seeds seat p's greedy tie-breaks with stream 1 + p (as ``bots.make_bot('greedy',
    seed, p)``); every candidate starts from copies of these.

    ``win_offset``, ``win_drift``, ``win_sigma``: the win model of the number of
    players (:func:`win_estimate`).

    Returns (gain, win, runaways): gain[i, c] the change of the player's spread (its
    score minus the best other score) from now to the evaluation point, win[i, c] 1 /
    0.5 / 0 where the game ended there (win, tie for the top, loss), else
    :func:`win_estimate`; inactive candidates' cells are 0; runaways counts playouts
    that reached RUNAWAY_TURNS.  Each cell depends on its iteration's seed alone, so
    the result is the same for any number of threads."""
    n_iterations = seeds_low.shape[0]
    n_candidates = candidates.shape[0]
    gains = np.zeros((n_iterations, n_candidates), np.int64)
    wins = np.zeros((n_iterations, n_candidates), np.float64)
    runaways = np.zeros((n_iterations + CHUNK - 1) // CHUNK, np.int64)
    viewer = meta[M_PLAYER]
    n_players = meta[M_PLAYERS]
    spread_now = spread(scores, viewer, n_players)
    racing = np.flatnonzero(active)
    n_active = racing.shape[0]
    for chunk in prange((n_iterations + CHUNK - 1) // CHUNK):
        # Only the boards of candidates still in the race: late in a race most are out.
        work = np.empty((n_active, boards.shape[1]), np.int64)
        for a in range(n_active):
            work[a] = boards[racing[a]]
        pushes = MAX_PUSHES if greedy_turns < 0 else min(MAX_PUSHES, greedy_turns)
        undo = np.zeros(1 + LOG_PER_PUSH_WORDS * pushes, np.int64)
        scratch_log = np.zeros(1 + LOG_PER_PUSH_WORDS, np.int64)
        act = np.zeros(ACTION_COLS, np.int64)
        row = np.zeros(LOG_COLS, np.int32)
        out = new_table()
        # The sample, and each playout's copies of it.
        s_meta = np.zeros(N_META, np.int64)
        s_hands = np.zeros((MAX_PLAYERS, HAND_SIZE), np.int64)
        s_bag = np.zeros(N_TILES, np.int64)
        s_rng = np.zeros(4, np.int64)
        s_bot_rngs = np.zeros((MAX_PLAYERS, 4), np.int64)
        p_meta = np.zeros(N_META, np.int64)
        p_hands = np.zeros((MAX_PLAYERS, HAND_SIZE), np.int64)
        p_sizes = np.zeros(MAX_PLAYERS, np.int64)
        p_bag = np.zeros(N_TILES, np.int64)
        p_scores = np.zeros(MAX_PLAYERS, np.int64)
        p_rng = np.zeros(4, np.int64)
        p_bot_rngs = np.zeros((MAX_PLAYERS, 4), np.int64)
        for i in range(chunk * CHUNK, min(n_iterations, (chunk + 1) * CHUNK)):
            s_meta[:] = meta
            s_hands[:] = 0
            for s in range(HAND_SIZE):
                s_hands[viewer, s] = hand[s]
            seed_state(s_rng, seeds_low[i], seeds_high[i], GAME_STREAM)
            deal_sample(s_meta, s_hands, hand_sizes, s_bag, viewer, unseen, s_rng)
            for p in range(MAX_PLAYERS):
                seed_state(s_bot_rngs[p], seeds_low[i], seeds_high[i], 1 + p)
            for a in range(n_active):
                c = racing[a]
                p_meta[:] = s_meta
                p_hands[:] = s_hands
                p_sizes[:] = hand_sizes
                p_bag[:] = s_bag
                p_scores[:] = scores
                p_rng[:] = s_rng
                p_bot_rngs[:] = s_bot_rngs
                runaway, out = play_candidate(
                    work[a], p_meta, p_hands, p_sizes, p_bag, p_scores, p_rng, p_bot_rngs, candidates[c],
                    greedy_turns, undo, scratch_log, act, row, out,
                )
                runaways[chunk] += runaway
                lead = spread(p_scores, viewer, n_players)
                gains[i, c] = lead - spread_now
                if p_meta[M_OVER] != 0:
                    wins[i, c] = 1.0 if lead > 0 else (0.5 if lead == 0 else 0.0)
                else:
                    wins[i, c] = win_estimate(lead, N_TILES - p_meta[M_BOARD_TILES], win_offset, win_drift, win_sigma)
    return gains, wins, runaways.sum()
