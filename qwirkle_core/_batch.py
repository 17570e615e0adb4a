"""Whole games inside numba: a position played to its end by the built-in bots, a game
from its seed, many games at once (on one core, or rollouts on every core).

Each turn is a bot's choice (``_bot_kernels``) applied by the rules (``_turn``).  Every
game loop stops at MAX_TURNS turns (END_RUNAWAY), which callers report as an error: no
loop can run forever."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import prange

from ._bot_kernels import choose_action_of
from ._constants import HAND_SIZE, MAX_PLAYERS, N_TILES
from ._jit import batch_kernel, inline_batch_kernel, inline_kernel, parallel_kernel
from ._layout import (
    A_TYPE,
    ACTION_COLS,
    END_NONE,
    END_RUNAWAY,
    LOG_COLS,
    M_END,
    M_OVER,
    M_PLAYER,
    M_TURNS,
    N_META,
    OUT_COLS,
    PLACE,
    KArray,
    KInt,
)
from ._prng import seed_state
from ._state import LOG_PER_PUSH, NEED_REGROW, new_empty_state, regrown
from ._turn import apply_action, deal, ending, new_table, redeal_unseen

# A turn cap for every game loop.  Real games are far shorter (greedy about 60 turns,
# random bots a few hundred: they exchange often); a game that reaches the cap is one
# that bots keep alive without end (a bot that always exchanges), and the loop stops
# it with END_RUNAWAY instead of running forever.
MAX_TURNS = 10_000


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
    every = np.bool_(True)  # (not the literal True: choose_action_of is reused as compiled for self-play with every bot)
    turns = play_out(st, meta, hands, hand_sizes, bag, scores, game_rng, bot_rngs, bots, log, every, every, every)
    return scores, turns, meta[M_END]


@batch_kernel
def play_games_serial(
    n_players: KInt, seeds_low: KArray, seeds_high: KArray, tie_rank: KArray, bots: KArray, logs: KArray,
) -> tuple[KArray, KArray, KArray]:
    """Games i = 0.. with seeds (seeds_low[i], seeds_high[i]) on one core, every bot
    compiled (:func:`play_games` compiles only the bots in play)."""
    every = np.bool_(True)  # (not the literal True: choose_action_of is reused as compiled for self-play with every bot)
    return play_games(n_players, seeds_low, seeds_high, tie_rank, bots, logs, every, every, every)


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

