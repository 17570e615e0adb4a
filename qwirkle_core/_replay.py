"""Recorded games replayed under the rules, in kernels: what a dataset's check runs.

A recorded game is its seat count, its seed and its turns as turn-log rows (``_layout``
L_*: what the game loop logs and a dataset's turns table holds).  Its replay deals
afresh from the seed (``_batch.new_game_state``, as the writer did), then for each
recorded turn asks ``_turn.turn_verdict`` whether the rules allow it, plays it with
``_turn.apply_action`` and compares the row that writes with the recorded one, slot by
slot: the seat, the hand before the turn, the tiles, the placement's score and the tiles
drawn after it (so the draws are the bag's, in the bag's order).  After the last turn the
game must be over, the way the record says, with the record's final scores.

Nothing here knows a rule: the verdict, the turn and the end are ``_turn``'s, the deal
``_batch``'s.  A game that breaks a rule is reported by the first turn that does, with
what ``_turn`` says about it (``report`` below).
"""

from __future__ import annotations

import numpy as np

from ._batch import new_game_state
from ._jit import batch_kernel, inline_kernel
from ._layout import (
    A_COLS,
    A_KINDS,
    A_N,
    A_ROWS,
    A_SCORE,
    A_TYPE,
    ACTION_COLS,
    END_NONE,
    L_COLS,
    L_KINDS,
    L_N,
    L_ROWS,
    L_TYPE,
    LOG_COLS,
    M_END,
    M_OVER,
    OUT_COLS,
    PLACE,
    KArray,
    KInt,
)
from ._state import LOG_PER_PUSH, NEED_REGROW, regrown
from ._turn import LEGAL, apply_action, ending, turn_verdict

# report: int64[games, REPORT_COLS], one row per game.
R_STATUS = 0  # OK, or what is wrong (R_*)
R_TURN = 1  # the turn it is about (0-based), -1 for the game as a whole
R_DETAIL = 2  # R_ILLEGAL: the turn's verdict (_turn.V_*); R_DIFFERS: the first slot (L_*)
# that differs; R_END: the end the replay reached (END_*); R_SCORES: the first seat
R_ARG = 3  # R_ILLEGAL: what the verdict says more (the kind not held, judge's verdict, ...)
REPORT_COLS = 4
OK = 0
R_ILLEGAL = 1  # the rules refuse the turn
R_DIFFERS = 2  # the turn as played differs from the record (a hand, a draw, a score, the seat)
R_AFTER_END = 3  # a turn recorded after the game had ended
R_NOT_OVER = 4  # the game is not over after its last turn
R_END = 5  # it ended otherwise than the record says
R_SCORES = 6  # the final scores are not the record's


@inline_kernel
def replay_one(
    players: KInt, seed_low: KInt, seed_high: KInt, tie_rank: KArray, log: KArray, max_score: KInt,
    final_scores: KArray, end: KInt, out: KArray,
) -> tuple[KInt, KInt, KInt, KInt]:
    """One recorded game's replay: (status, turn, detail, arg) as a row of ``report``."""
    st, meta, hands, hand_sizes, bag, scores, game_rng, _ = new_game_state(players, seed_low, seed_high, tie_rank)
    action = np.zeros(ACTION_COLS, np.int64)
    row = np.zeros(LOG_COLS, np.int32)
    scratch_log = np.zeros(1 + 2 * LOG_PER_PUSH, np.int64)
    for t in range(log.shape[0]):
        recorded = log[t]
        if meta[M_OVER] == 0 and recorded[L_TYPE] != PLACE:
            # A game that is blocked or dead has ended before this turn (the writer's
            # loop looks for these ends when a bot does not place; Game after each turn).
            ended = ending(st, meta, hands, hand_sizes, bag)
            if ended != END_NONE:
                meta[M_OVER] = 1
                meta[M_END] = ended
        if meta[M_OVER]:
            return R_AFTER_END, t, 0, 0
        n = recorded[L_N]
        action[:] = 0
        action[A_TYPE] = recorded[L_TYPE]
        action[A_N] = n
        for s in range(min(max(n, 0), 6)):
            action[A_ROWS + s] = recorded[L_ROWS + s]
            action[A_COLS + s] = recorded[L_COLS + s]
            action[A_KINDS + s] = recorded[L_KINDS + s]
        verdict, score = turn_verdict(st, meta, hands, hand_sizes, scores, action, max_score, out)
        if verdict != LEGAL:
            return R_ILLEGAL, t, verdict, score
        action[A_SCORE] = score
        if apply_action(st, meta, hands, hand_sizes, bag, scores, game_rng, action, row, scratch_log) == NEED_REGROW:
            st = regrown(st, action)
            apply_action(st, meta, hands, hand_sizes, bag, scores, game_rng, action, row, scratch_log)
        for c in range(LOG_COLS):
            if row[c] != recorded[c]:
                return R_DIFFERS, t, c, 0
    if meta[M_OVER] == 0:
        ended = ending(st, meta, hands, hand_sizes, bag)
        if ended == END_NONE:
            return R_NOT_OVER, -1, 0, 0
        meta[M_OVER] = 1
        meta[M_END] = ended
    if meta[M_END] != end:
        return R_END, -1, meta[M_END], 0
    for p in range(players):
        if scores[p] != final_scores[p]:
            return R_SCORES, -1, p, 0
    return OK, -1, 0, 0


@batch_kernel
def replay_games(
    players: KInt, seeds_low: KArray, seeds_high: KArray, tie_rank: KArray, log: KArray, starts: KArray,
    max_score: KInt, final_scores: KArray, ends: KArray, report: KArray,
) -> None:
    """Replay games i = 0.. (seeds (seeds_low[i], seeds_high[i]), turns
    ``log[starts[i]:starts[i + 1]]``, final scores ``final_scores[i, :players]``, end
    ``ends[i]``) and write each one's verdict into ``report[i]`` (R_*)."""
    out = np.empty((1, OUT_COLS), np.int32)  # turn_verdict's scratch
    for i in range(seeds_low.shape[0]):
        status, turn, detail, arg = replay_one(
            players, seeds_low[i], seeds_high[i], tie_rank, log[starts[i] : starts[i + 1]], max_score,
            final_scores[i], ends[i], out,
        )
        report[i, R_STATUS] = status
        report[i, R_TURN] = turn
        report[i, R_DETAIL] = detail
        report[i, R_ARG] = arg
