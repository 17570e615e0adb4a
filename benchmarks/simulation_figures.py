"""Figures of the Monte Carlo simulator (qwirkle_core.analysis.simulation): measured,
printed, never asserted.

    .venv/bin/python benchmarks/simulation_figures.py speed   # iterations per second
    .venv/bin/python benchmarks/simulation_figures.py fit     # the win model's constants
    .venv/bin/python benchmarks/simulation_figures.py strength  # best_action against greedy

``speed``: playouts per second at plies=2 (a playout: one candidate on one sample,
then one greedy turn), on one thread and on two, over early, mid and late positions
of seeded greedy games; each call is one round of the kernel with every default
candidate in the race, so racing does not change the count.  An *iteration* of
``simulate`` plays every candidate still in the race on one sample, so iterations per
second = playouts per second / candidates.

``fit``: the (offset, drift, sigma) of simulation.WIN_MODEL per number of players, by maximum
likelihood over every position after every turn of seeded greedy self-play games, from
each seat's point of view (a tie counts half a win).
"""

from __future__ import annotations

import math
import sys
import time

import numba
import numpy as np
import numpy.typing as npt

from qwirkle_core import _batch, _bot_kernels, _constants, _layout
from qwirkle_core.analysis import _sim_kernels, simulation
from qwirkle_core.bots import make_bot
from qwirkle_core.game import Game

FIT_GAMES = 4_000
FIT_SEEDS = range(FIT_GAMES)  # tests/test_simulation.py holds out seeds from 1,000,000 on
LOG_CAPACITY = 600


# ------------------------------------------------------------------ the fit
def selfplay_positions(
    players: int, seeds: range
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    """(lead, tiles not on the board, outcome) for every position after every turn of
    greedy games from ``seeds`` that the game did not end, for each seat: lead = the
    seat's score minus the best other score; outcome 1 (won), 0.5 (tied for the top), 0."""
    n = len(seeds)
    low = np.array(list(seeds), np.int64)
    high = np.zeros(n, np.int64)
    tie = np.arange(_constants.MAX_PLAYERS, dtype=np.int64)
    bots = np.full(_constants.MAX_PLAYERS, _bot_kernels.BOT_GREEDY, np.int64)
    logs = _batch.empty_logs(n, LOG_CAPACITY)
    finals, turns, _ = _batch.play_games_serial(players, low, high, tie, bots, logs)
    leads: list[int] = []
    left: list[int] = []
    outcome: list[float] = []
    for g in range(n):
        final = finals[g, :players]
        top = final.max()
        result = [1.0 if s == top and (final == top).sum() == 1 else 0.5 if s == top else 0.0 for s in final]
        scores = np.zeros(players, np.int64)
        on_board = 0
        for t in range(int(turns[g]) - 1):  # the last turn ends the game
            row = logs[g, t]
            if row[_layout.L_TYPE] == _layout.PLACE:
                scores[row[_layout.L_PLAYER]] += row[_layout.L_SCORE]
                on_board += row[_layout.L_N]
            for p in range(players):
                others = np.delete(scores, p)
                leads.append(int(scores[p] - others.max()))
                left.append(_constants.N_TILES - on_board)
                outcome.append(result[p])
    return np.array(leads, np.int64), np.array(left, np.int64), np.array(outcome, np.float64)


@numba.njit(cache=False)
def probit_scores(
    features: npt.NDArray[np.float64], outcome: npt.NDArray[np.float64], beta: npt.NDArray[np.float64]
) -> tuple[float, npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """The log-likelihood of P = Phi(features @ beta) for outcomes in [0, 1], its
    gradient and the Fisher information (the expected negative Hessian)."""
    k = beta.shape[0]
    total = 0.0
    gradient = np.zeros(k)
    information = np.zeros((k, k))
    for i in range(features.shape[0]):
        eta = 0.0
        for a in range(k):
            eta += features[i, a] * beta[a]
        p = 0.5 * (1.0 + math.erf(eta / math.sqrt(2.0)))
        p = min(max(p, 1e-12), 1.0 - 1e-12)
        density = math.exp(-0.5 * eta * eta) / math.sqrt(2.0 * math.pi)
        total += outcome[i] * math.log(p) + (1.0 - outcome[i]) * math.log(1.0 - p)
        slope = density * (outcome[i] - p) / (p * (1.0 - p))
        weight = density * density / (p * (1.0 - p))
        for a in range(k):
            gradient[a] += slope * features[i, a]
            for b in range(k):
                information[a, b] += weight * features[i, a] * features[i, b]
    return total, gradient, information


def fit(players: int, seeds: range = FIT_SEEDS) -> tuple[float, float, float, int]:
    """(offset, drift, sigma, positions) of the win model for ``players``, by maximum
    likelihood.  With r = sqrt(tiles_left + 1) the model is a probit regression:
    (lead - offset - drift * r) / (sigma * r) = lead / r * (1 / sigma) + 1 / r *
    (-offset / sigma) + (-drift / sigma), concave in its coefficients, so Fisher scoring
    finds the maximum in a few steps.  Two players: lead / r alone (by symmetry)."""
    lead, left, outcome = selfplay_positions(players, seeds)
    r = np.sqrt(left + 1.0)
    columns = [lead / r] if players == 2 else [lead / r, 1.0 / r, np.ones_like(r)]
    features = np.ascontiguousarray(np.stack(columns, axis=1))
    beta = np.zeros(features.shape[1])
    beta[0] = 0.1
    for _ in range(50):
        _, gradient, information = probit_scores(features, outcome, beta)
        step = np.linalg.solve(information, gradient)
        beta = beta + step
        if np.abs(step).max() < 1e-10:
            break
    sigma = 1.0 / beta[0]
    offset = -beta[1] * sigma if players > 2 else 0.0
    drift = -beta[2] * sigma if players > 2 else 0.0
    return float(offset), float(drift), float(sigma), int(lead.shape[0])


def print_fit() -> None:
    print(f"WIN_MODEL fit: {FIT_GAMES:,} greedy games per player count, seeds 0..{FIT_GAMES - 1:,}")
    for players in range(2, 7):
        began = time.perf_counter()
        offset, drift, sigma, n = fit(players)
        print(f"    {players}: ({offset:.3f}, {drift:.4f}, {sigma:.4f}),  # {n:,} positions, "
              f"{time.perf_counter() - began:.0f} s")


# ------------------------------------------------------------------ the speed
def phase_games(phase: str, count: int = 4) -> list[Game]:
    """Positions of seeded 2-player greedy games: early (2 turns played), mid (45+ tiles
    on the board), late (80+ tiles, the bag not yet empty)."""
    out: list[Game] = []
    seed = 0
    while len(out) < count:
        game = Game(players=2, seed=seed)
        bots = [make_bot("greedy", seed=seed, seat=p) for p in range(2)]
        while not game.is_over:
            tiles = len(game.board)
            if (
                (phase == "early" and game.turn_count == 2)
                or (phase == "mid" and tiles >= 45)
                or (phase == "late" and tiles >= 80 and game.bag_size > 0)
            ):
                out.append(game)
                break
            game.push(bots[game.to_move].choose(game))
        seed += 1
    return out


def playouts_per_second(game: Game, threads: int, iterations: int = 512, repeats: int = 3) -> tuple[float, int]:
    """(playouts per second, candidates): the fastest of ``repeats`` rounds of
    ``iterations`` with every default candidate active, plies=2."""
    actions, rows, boards = simulation._prepared(game, simulation.default_candidates(game))
    viewer = game.to_move
    _, meta, _, hand_sizes, _, scores, _ = game.engine_state(copy_state=False)
    meta[_layout.M_TURNS] = 0
    hand = np.zeros(6, np.int64)
    own = [t.kind for t in game.hand(viewer)]
    hand[: len(own)] = own
    unseen = np.array([t.kind for t in game.unseen_tiles(viewer)], np.int64)
    active = np.ones(len(actions), np.int64)
    low, high = simulation.iteration_seeds(0, 0, iterations)
    before = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        best = math.inf
        for _ in range(repeats):
            began = time.perf_counter()
            _sim_kernels.simulate_round(boards, rows, active, meta, hand, hand_sizes, scores, unseen, low, high, 1,
                                        *simulation.WIN_MODEL[game.players])
            best = min(best, time.perf_counter() - began)
    finally:
        numba.set_num_threads(before)
    return iterations * len(actions) / best, len(actions)


def print_speed() -> None:
    most = min(2, numba.config.NUMBA_NUM_THREADS)
    warm = phase_games("early", 1)[0]
    playouts_per_second(warm, 1, iterations=16, repeats=1)  # compiles (or loads) the kernel
    print("plies=2, every default candidate in the race; the fastest of 3 rounds of 512 iterations")
    print(f"{'phase':6} {'game':>5} {'cands':>5} {'playouts/s 1 thr':>17} {'iter/s 1 thr':>13} "
          f"{'playouts/s ' + str(most) + ' thr':>17} {'scaling':>8}")
    for phase in ("early", "mid", "late"):
        for i, game in enumerate(phase_games(phase)):
            one, n = playouts_per_second(game, 1)
            two, _ = playouts_per_second(game, most)
            print(f"{phase:6} {i:5} {n:5} {one:17,.0f} {one / n:13,.0f} {two:17,.0f} {two / one:8.2f}")


# ------------------------------------------------------------------ the strength
def print_strength(games: int = 100, iterations: int = 300) -> None:
    """best_action (plies=2, ``iterations``) against the greedy bot, 2 players, seats
    alternating, seeded games: wins, ties, losses and the mean final spread."""
    wins = ties = 0
    spreads = []
    began = time.perf_counter()
    for seed in range(games):
        seat = seed % 2
        game = Game(players=2, seed=seed)
        greedy = make_bot("greedy", seed=seed, seat=1 - seat)
        move = 0
        while not game.is_over:
            if game.to_move == seat:
                game.push(simulation.best_action(game, iterations=iterations, seed=seed * 1000 + move))
                move += 1
            else:
                game.push(greedy.choose(game))
        spread = game.scores[seat] - game.scores[1 - seat]
        spreads.append(spread)
        wins += spread > 0
        ties += spread == 0
    print(f"best_action ({iterations} iterations, plies=2) vs greedy, {games} games: {wins} won, {ties} tied, "
          f"{games - wins - ties} lost; mean spread {np.mean(spreads):+.1f} points "
          f"(stderr {np.std(spreads, ddof=1) / math.sqrt(games):.1f}); {time.perf_counter() - began:.0f} s")


if __name__ == "__main__":
    what = sys.argv[1:] or ["speed"]
    if "fit" in what:
        print_fit()
    if "speed" in what:
        print_speed()
    if "strength" in what:
        print_strength()
