"""qwirkle_core.analysis.simulation: the Monte Carlo simulator against a plain-Python
twin, and its promises (no hidden information, the same for any threads, racing,
validation, the default candidates, the win model's calibration).

The twin plays the same samples as the kernel, by the library's public API only: the
unseen tiles laid out canonically in a ``Game.from_position`` (the other hands in seat
order, then the bag, in ascending kind order, as the kernel lays them out), then
``Game.determinize(seed=s_i)`` (the same generator and the same shuffle as the
kernel's sample, and it keeps that generator for the exchanges), ``Game.copy`` /
``Game.push`` for every turn and ``bots.make_bot("greedy", seed=s_i, seat=p)`` for
every seat.  s_i, iteration i's seed, is splitmix64 written here again.  So the
comparison is exact, iteration by iteration, not statistical.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter

import numba
import numpy as np
import pytest

from qwirkle_core import _batch, _bot_kernels, _constants, _layout
from qwirkle_core.analysis import _sim_kernels, simulation
from qwirkle_core.analysis.simulation import SimResult, best_action, default_candidates, simulate
from qwirkle_core.bots import make_bot
from qwirkle_core.errors import IllegalMoveError, InvalidMoveError, QwirkleError
from qwirkle_core.game import Action, Game

JIT_OFF = bool(numba.config.DISABLE_JIT)
MASK64 = (1 << 64) - 1


# ---------------------------------------------------------------- positions
def greedy_game(seed: int, players: int = 2, until_tiles: int = 40, bag_empty: bool = False) -> Game:
    """A seeded game played by greedy bots until the board holds ``until_tiles`` tiles
    (and, with ``bag_empty``, the bag is empty too)."""
    game = Game(players=players, seed=seed)
    bots = [make_bot("greedy", seed=seed, seat=p) for p in range(players)]
    while not game.is_over:
        if len(game.board) >= until_tiles and (not bag_empty or game.bag_size == 0):
            return game
        game.push(bots[game.to_move].choose(game))
    raise AssertionError(f"game {seed} ended before {until_tiles} tiles")


@pytest.fixture(scope="module")
def mid_game() -> Game:
    return greedy_game(3, until_tiles=40)


# ---------------------------------------------------------------- the twin
def splitmix64(seed: int, index: int) -> int:
    z = (seed + (index + 1) * 0x9E3779B97F4A7C15) & MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def spread_of(scores: list[int], seat: int) -> int:
    return scores[seat] - max(s for p, s in enumerate(scores) if p != seat)


def estimate(lead: int, tiles_left: int, players: int) -> float:
    offset, drift, sigma = simulation.WIN_MODEL[players]
    r = math.sqrt(tiles_left + 1)
    return 0.5 * (1 + math.erf((lead - offset - drift * r) / (sigma * r) / math.sqrt(2)))


def canonical(game: Game) -> Game:
    """The position with the unseen tiles laid out in ascending order: other hands in
    seat order, then the bag (what the twin determinizes)."""
    viewer = game.to_move
    unseen = game.unseen_tiles(viewer)
    hands, at = [], 0
    for p in range(game.players):
        if p == viewer:
            hands.append(game.hand(viewer))
        else:
            size = len(game.hand(p))
            hands.append(unseen[at : at + size])
            at += size
    return Game.from_position(game.board, hands, unseen[at:], game.scores, to_move=viewer)


def twin(game: Game, actions: list[Action], plies: int | None, seed: int, n: int) -> tuple[list[list[int]], list[list[float]], list[bool]]:
    """Per candidate, per iteration: the spread gain and the win value; and whether
    every sampled game it played ended (for plies=None)."""
    viewer = game.to_move
    spread_now = spread_of(game.scores, viewer)
    base = canonical(game)
    gains: list[list[int]] = [[] for _ in actions]
    wins: list[list[float]] = [[] for _ in actions]
    ended = [True for _ in actions]
    for i in range(n):
        s_i = splitmix64(seed, i)
        sample = base.determinize(viewer, seed=s_i)
        for c, action in enumerate(actions):
            g = sample.copy()
            g.push(action)
            bots = [make_bot("greedy", seed=s_i, seat=p) for p in range(game.players)]
            turns = 0
            while not g.is_over and (plies is None or turns < plies - 1):
                g.push(bots[g.to_move].choose(g))
                turns += 1
            lead = spread_of(g.scores, viewer)
            gains[c].append(lead - spread_now)
            if g.is_over:
                wins[c].append(1.0 if lead > 0 else 0.5 if lead == 0 else 0.0)
            else:
                ended[c] = False
                wins[c].append(estimate(lead, 108 - len(g.board), game.players))
    return gains, wins, ended


def check_against_twin(game: Game, plies: int | None, n: int, seed: int, top: int = 16) -> list[SimResult]:
    actions = default_candidates(game, top)
    results = simulate(game, candidates=actions, plies=plies, iterations=n, seed=seed)
    assert sorted(r.action.text() for r in results) == sorted(a.text() for a in actions)
    gains, wins, _ = twin(game, actions, plies, seed, n)
    index = {a: c for c, a in enumerate(actions)}
    for r in results:
        c = index[r.action]
        k = r.iterations
        assert 1 <= k <= n
        g = gains[c][:k]
        assert r.equity == pytest.approx(sum(g) / k, rel=1e-12, abs=1e-12), r.action
        assert r.win == pytest.approx(sum(wins[c][:k]) / k, rel=1e-9, abs=1e-12), r.action
        mean = sum(g) / k
        sd = math.sqrt(sum((x - mean) ** 2 for x in g) / (k - 1)) if k > 1 else 0.0
        assert r.stderr == pytest.approx(sd / math.sqrt(k), rel=1e-9, abs=1e-12), r.action
    return results


N_TWIN = 8 if JIT_OFF else 40


@pytest.mark.parametrize("plies", [1, 2, 3])
def test_twin_mid_game(mid_game: Game, plies: int) -> None:
    results = check_against_twin(mid_game, plies, N_TWIN, seed=11, top=6)
    assert any(r.action.kind == Action.EXCHANGE for r in results)  # exchanges are in it
    # Not vacuous: the samples differ (some candidate's gains vary) where greedy replies follow.
    if plies > 1:
        assert any(r.stderr > 0 for r in results)


@pytest.mark.parametrize("seed", [0, 5])
def test_twin_other_positions(seed: int) -> None:
    check_against_twin(greedy_game(seed, players=3, until_tiles=20), 2, N_TWIN, seed=seed, top=4)
    check_against_twin(greedy_game(seed + 1, until_tiles=75), 4, N_TWIN, seed=seed, top=4)


def test_twin_opening() -> None:
    game = Game(players=3, seed=7)
    assert game.opening_size
    check_against_twin(game, 3, N_TWIN, seed=1, top=4)


def test_twin_empty_bag_and_to_the_end() -> None:
    game = greedy_game(2, until_tiles=60, bag_empty=True)
    assert game.bag_size == 0
    check_against_twin(game, 3, N_TWIN, seed=2, top=5)
    results = check_against_twin(game, None, 4 if JIT_OFF else 12, seed=3, top=4)
    for r in results:  # every sampled game ended: each win value was 0, 0.5 or 1
        assert (2 * r.win * r.iterations) == pytest.approx(round(2 * r.win * r.iterations), abs=1e-9)


def test_to_the_end_ends_every_game(mid_game: Game) -> None:
    actions = default_candidates(mid_game, 4)
    n = 3 if JIT_OFF else 8
    gains, wins, ended = twin(mid_game, actions, None, 1, n)
    assert all(ended)
    _, rows, boards = simulation._prepared(mid_game, actions)
    viewer = mid_game.to_move
    _, meta, _, sizes, _, scores, _ = mid_game.engine_state()
    meta[_layout.M_TURNS] = 0
    hand = np.zeros(6, np.int64)
    hand[: len(mid_game.hand())] = [t.kind for t in mid_game.hand()]
    unseen = np.array([t.kind for t in mid_game.unseen_tiles(viewer)], np.int64)
    low, high = simulation.iteration_seeds(1, 0, n)
    g, w, runaways = _sim_kernels.simulate_round(
        boards, rows, np.ones(len(actions), np.int64), meta, hand, sizes, scores, unseen, low, high, -1,
        *simulation.WIN_MODEL[2],
    )
    assert runaways == 0
    assert set(np.unique(w).tolist()) <= {0.0, 0.5, 1.0}
    assert g.T.tolist() == gains
    assert w.T.tolist() == wins


# ---------------------------------------------------------------- promises
def test_no_hidden_information(mid_game: Game) -> None:
    viewer = mid_game.to_move
    other = 1 - viewer
    # The same view, other hidden tiles: a determinized copy, and the canonical layout.
    redealt = mid_game.determinize(viewer, seed=99)
    laid_out = canonical(mid_game)
    for g in (redealt, laid_out):
        assert g.hand(viewer) == mid_game.hand(viewer) and g.board == mid_game.board
        assert g.scores == mid_game.scores and g.unseen_tiles(viewer) == mid_game.unseen_tiles(viewer)
        assert (g.hand(other), g.bag) != (mid_game.hand(other), mid_game.bag)  # not vacuous
    # The bag's order alone differs: the same hands, the bag reversed.
    reordered = Game.from_position(
        mid_game.board, mid_game.hands, mid_game.bag[::-1], mid_game.scores, to_move=viewer
    )
    assert reordered.bag != mid_game.bag and reordered.hands == mid_game.hands
    iterations = 16 if JIT_OFF else 200  # plain Python (the JIT-off run) plays ~1,000x slower
    top = 4 if JIT_OFF else 8
    runs = [simulate(g, iterations=iterations, seed=4, top=top) for g in (mid_game, redealt, laid_out, reordered)]
    assert runs[0] == runs[1] == runs[2] == runs[3]
    # Also to the end, where the hidden tiles matter most.
    ends = [simulate(g, iterations=4 if JIT_OFF else 16, seed=4, top=3, plies=None) for g in (mid_game, redealt)]
    assert ends[0] == ends[1]
    # Three players: a third hand redealt too.
    three = greedy_game(4, players=3, until_tiles=30)
    seat = three.to_move
    again = three.determinize(seat, seed=5)
    assert [again.hand(p) for p in range(3) if p != seat] != [three.hand(p) for p in range(3) if p != seat]
    iterations = 20 if JIT_OFF else 100
    assert simulate(three, iterations=iterations, seed=6, top=5) == simulate(again, iterations=iterations, seed=6, top=5)


@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="needs two numba threads")
@pytest.mark.skipif(JIT_OFF, reason="with the JIT off numba's threads are a loop: nothing to compare")
def test_threads_do_not_change_results(mid_game: Game) -> None:
    before = numba.get_num_threads()
    iterations = 60 if JIT_OFF else 300
    one = simulate(mid_game, iterations=iterations, seed=8, threads=1)
    assert numba.get_num_threads() == before
    two = simulate(mid_game, iterations=iterations, seed=8, threads=2)
    assert numba.get_num_threads() == before
    assert one == two


def test_determinism_for_a_seed(mid_game: Game) -> None:
    iterations = 30 if JIT_OFF else 150
    a = simulate(mid_game, iterations=iterations, seed=21)
    b = simulate(mid_game, iterations=iterations, seed=21)
    c = simulate(mid_game, iterations=iterations, seed=22)
    assert a == b
    assert a != c  # not vacuous: the seed matters


def qwirkle_position() -> tuple[Game, Action, Action]:
    """A seeded position with a placement of 12 or more and one of 1 or 2 points."""
    for seed in range(200):
        game = Game(players=2, seed=seed)
        bots = [make_bot("greedy", seed=seed, seat=p) for p in range(2)]
        while not game.is_over:
            moves = game.legal_moves()
            if len(moves) and game.bag_size > 12 and not game.opening_size:
                scores = moves.scores
                if scores.max() >= 12 and scores.min() <= 2:
                    best = Action(Action.PLACE, moves[int(np.argmax(scores))])
                    worst = Action(Action.PLACE, moves[int(np.argmin(scores))])
                    return game, best, worst
            game.push(bots[game.to_move].choose(game))
    raise AssertionError("no position with a Qwirkle and a 1-point placement")


def test_racing_drops_a_hopeless_candidate() -> None:
    game, qwirkle, hopeless = qwirkle_position()
    results = simulate(game, candidates=[hopeless, qwirkle], iterations=5_000, seed=1)
    assert [r.action for r in results] == [qwirkle, hopeless]
    # The hopeless one dropped at its first chance, and with one candidate left the
    # simulation stopped: far fewer than the 5,000 allowed.
    assert results[1].iterations == simulation.RACE_MIN_ITERATIONS
    assert results[0].iterations == simulation.RACE_MIN_ITERATIONS
    assert results[0].equity - results[1].equity > 5


def test_race_rule() -> None:
    # Means 10, 9.9, 0 with stderr 0.1 after 200 iterations each: only the third drops.
    counts = np.array([200, 200, 200], np.int64)
    sums = np.array([2000, 1980, 0], np.int64)
    # sum of squares giving an sd of sqrt(200)*0.1 = 1.414...: variance 2 (n-1 = 199)
    squares = (sums * sums / counts + 2 * 199).round().astype(np.int64)
    active = np.ones(3, np.int64)
    simulation._race(active, sums, squares, counts)
    assert active.tolist() == [1, 1, 0]
    # Not before RACE_MIN_ITERATIONS.
    few = np.array([10, 10, 10], np.int64)
    active = np.ones(3, np.int64)
    simulation._race(active, np.array([100, 99, 0]), np.array([1000, 990, 0]), few)
    assert active.tolist() == [1, 1, 1]


def test_iterations_and_time_limit(mid_game: Game, monkeypatch: pytest.MonkeyPatch) -> None:
    if JIT_OFF:  # the default's 1,000 simulations a candidate take seconds each as plain Python
        monkeypatch.setattr(simulation, "DEFAULT_ITERATIONS", 40)
    results = simulate(mid_game, candidates=default_candidates(mid_game, 2)[:2], iterations=70)
    assert max(r.iterations for r in results) <= 70
    timed = simulate(mid_game, time_limit=1e-6, top=4)
    # One small round, then the clock (a whole round of 128 took 50 times a short limit).
    assert 1 <= max(r.iterations for r in timed) <= simulation.FIRST_TIMED_ROUND
    default = simulate(mid_game, top=2)
    assert max(r.iterations for r in default) <= simulation.DEFAULT_ITERATIONS


def test_best_action(mid_game: Game) -> None:
    n = 8 if JIT_OFF else 100
    action = best_action(mid_game, iterations=n, seed=3)
    assert action in mid_game.legal_actions()
    assert action == simulate(mid_game, iterations=n, seed=3)[0].action


# ---------------------------------------------------------------- the default candidates
def leave(kept: list[int]) -> int:
    """The heuristic bot's leave value, again: the largest group of distinct kinds
    sharing a colour or a shape, less the duplicates."""
    distinct = set(kept)
    group = max(
        max(sum(1 for k in distinct if k // 6 == g) for g in range(6)),
        max(sum(1 for k in distinct if k % 6 == g) for g in range(6)),
    ) if distinct else 0
    return group - (len(kept) - len(distinct))


def test_default_candidates(mid_game: Game) -> None:
    game = mid_game
    chosen = default_candidates(game, 5)
    placements = [a for a in chosen if a.kind == Action.PLACE]
    all_scores = sorted((a.score for a in game.legal_actions() if a.kind == Action.PLACE), reverse=True)
    assert sorted((a.score for a in placements), reverse=True) == all_scores[:5]
    exchanges = [a for a in chosen if a.kind == Action.EXCHANGE]
    hand = sorted(t.kind for t in game.hand())
    assert game.bag_size >= len(hand)
    assert sorted(t.kind for t in exchanges[0].tiles) == hand  # the whole hand
    # The best leave, computed here from every sub-multiset of the hand.
    values = {}
    for size in range(1, len(hand) + 1):
        for out in set(itertools.combinations(hand, size)):
            kept = list((Counter(hand) - Counter(out)).elements())
            values[out] = leave(kept)
    best = max(values.values())
    assert any(values[tuple(sorted(t.kind for t in x.tiles))] == best for x in exchanges)
    assert len(exchanges) <= 2 and len(set(exchanges)) == len(exchanges)
    assert all(a in game.legal_actions() for a in chosen)
    assert not any(a.kind == Action.PASS for a in chosen)


def test_default_candidates_opening_and_pass() -> None:
    opening = Game(players=2, seed=4)
    chosen = default_candidates(opening)
    assert chosen and all(a.kind == Action.PLACE and len(a.move) == opening.opening_size for a in chosen)
    # A pass: find a turn where greedy passed in seeded games, replay it in a Game.
    tie = np.arange(6, dtype=np.int64)
    bots = np.full(6, _bot_kernels.BOT_GREEDY, np.int64)
    # Greedy passes are rare: seed 390 is the first 2-player game with one (searched
    # from 0); the search starts there, so that the JIT-off run plays 10 games, not 400.
    first, n = 390, 10
    logs = _batch.empty_logs(n, 400)
    seeds = np.arange(first, first + n, dtype=np.int64)
    _, turns, _ = _batch.play_games_serial(2, seeds, np.zeros(n, np.int64), tie, bots, logs)
    found = [(g, t) for g in range(n) for t in range(int(turns[g])) if logs[g, t, _layout.L_TYPE] == _layout.PASS]
    assert found, "no greedy game passed"
    seed, at = first + found[0][0], found[0][1]
    game = Game(players=2, seed=seed)
    players = [make_bot("greedy", seed=seed, seat=p) for p in range(2)]
    for _ in range(at):
        game.push(players[game.to_move].choose(game))
    assert game.legal_actions() == [Action.pass_turn()]
    assert default_candidates(game) == [Action.pass_turn()]
    assert best_action(game) == Action.pass_turn()
    (result,) = simulate(game, iterations=10)
    assert result.action == Action.pass_turn() and result.iterations == 10


# ---------------------------------------------------------------- validation
def test_refuses_bad_arguments(mid_game: Game) -> None:
    game = mid_game
    legal = default_candidates(game, 1)[0]
    bad: list[dict[str, object]] = [
        {"top": 0}, {"top": True}, {"top": 2000}, {"top": 1.0},
        {"plies": 0}, {"plies": True}, {"plies": 1.5}, {"plies": 10**6},
        {"iterations": 0}, {"iterations": -5}, {"iterations": True}, {"iterations": 10.0}, {"iterations": 10**12},
        {"time_limit": 0}, {"time_limit": -1.0}, {"time_limit": math.nan}, {"time_limit": math.inf},
        {"time_limit": "1"}, {"time_limit": True}, {"time_limit": 10**400},  # (too large for a float)
        {"time_limit": np.bool_(True)}, {"time_limit": np.float64(math.nan)}, {"time_limit": np.float32(math.inf)},
        {"time_limit": np.int64(0)}, {"time_limit": np.float64(-1.0)},
        {"seed": -1}, {"seed": 2**64}, {"seed": 1.5}, {"seed": "0"},
        {"threads": 0}, {"threads": numba.config.NUMBA_NUM_THREADS + 1}, {"threads": True}, {"threads": 1.5},
        {"candidates": []}, {"candidates": "pass"}, {"candidates": [legal, legal]}, {"candidates": 3},
    ]
    for kwargs in bad:
        with pytest.raises(QwirkleError):
            simulate(game, **kwargs)  # type: ignore[arg-type]
    with pytest.raises(QwirkleError, match="expected a Game"):
        simulate("game")  # type: ignore[arg-type]
    with pytest.raises(IllegalMoveError, match="candidate 1"):
        simulate(game, candidates=[legal, Action.pass_turn()])
    with pytest.raises(InvalidMoveError, match="candidate 0"):
        simulate(game, candidates=[42])  # type: ignore[list-item]
    with pytest.raises(IllegalMoveError, match="candidate 0"):
        simulate(game, candidates=[Action.from_text("Rc@50,50")])
    with pytest.raises(QwirkleError, match="given twice"):
        simulate(game, candidates=[legal, legal])
    over = greedy_game(1, until_tiles=0)
    bots = [make_bot("greedy", seed=1, seat=p) for p in range(2)]
    while not over.is_over:
        over.push(bots[over.to_move].choose(over))
    with pytest.raises(QwirkleError, match="over"):
        simulate(over)
    with pytest.raises(QwirkleError, match="over"):
        best_action(over)
    for kwargs in ({"iterations": 0}, {"time_limit": -1}, {"seed": -1}):
        with pytest.raises(QwirkleError):
            best_action(game, **kwargs)  # type: ignore[arg-type]
    # Good arguments of every kind pass.
    simulate(game, candidates=[legal.text()], plies=1, iterations=1, seed=2**64 - 1, threads=1, time_limit=5)
    simulate(game, top=np.int64(2), plies=np.int32(3), iterations=np.int64(2), threads=np.int64(1))
    for seconds in (np.int64(3), np.float32(5.0), np.float64(5.0)):  # numpy seconds, as numpy counts
        simulate(game, candidates=[legal], plies=1, iterations=1, time_limit=seconds)


# ---------------------------------------------------------------- the win model
def held_out_positions(players: int, seeds: range) -> tuple[list[int], list[int], list[float], list[int]]:
    """(lead, tiles not on the board, outcome, game) after every turn but the last of
    greedy games, for each seat, read from the engine's turn logs."""
    n = len(seeds)
    tie = np.arange(6, dtype=np.int64)
    bots = np.full(6, _bot_kernels.BOT_GREEDY, np.int64)
    logs = _batch.empty_logs(n, 600)
    finals, turns, _ = _batch.play_games_serial(
        players, np.array(list(seeds), np.int64), np.zeros(n, np.int64), tie, bots, logs
    )
    leads, left, outcome, games = [], [], [], []
    for g in range(n):
        final = [int(s) for s in finals[g, :players]]
        top = max(final)
        result = [(1.0 if final.count(top) == 1 else 0.5) if s == top else 0.0 for s in final]
        scores = [0] * players
        on_board = 0
        for t in range(int(turns[g]) - 1):
            row = logs[g, t]
            if row[_layout.L_TYPE] == _layout.PLACE:
                scores[int(row[_layout.L_PLAYER])] += int(row[_layout.L_SCORE])
                on_board += int(row[_layout.L_N])
            for p in range(players):
                leads.append(spread_of(scores, p))
                left.append(_constants.N_TILES - on_board)
                outcome.append(result[p])
                games.append(g)
    return leads, left, outcome, games


@pytest.mark.parametrize("players", [2] if JIT_OFF else [2, 3, 4])  # (the same code for any count)
def test_win_model_calibration(players: int) -> None:
    """Binned by the predicted probability (deciles), the observed win rate of held-out
    games (seeds the fit never saw) lies within 3 standard errors + 0.03 of the mean
    prediction.  The standard error counts each game once per bin (positions of one game
    are strongly correlated, so counting positions would overstate the evidence).  The
    0.03 is what a three-parameter model cannot capture (whose turn it is, the hands):
    on these 1,000 held-out games per player count the deciles' deviations were at most
    0.005 (2 players), 0.016 (3), 0.024 (4), 0.035 (5, its top decile: not tested here)
    and 0.019 (6); the model of an offset
    alone, before the drift, was off by up to 0.08-0.10 with 3-6 players (it fails this test
    with 4)."""
    n = 40 if JIT_OFF else 1000
    leads, left, outcome, games = held_out_positions(players, range(1_000_000, 1_000_000 + n))
    predicted = np.array([simulation.win_probability(a, b, players) for a, b in zip(leads, left)])
    observed = np.array(outcome)
    game_of = np.array(games)
    edges = np.quantile(predicted, np.linspace(0, 1, 11))
    checked = 0
    for lo, hi in itertools.pairwise(edges):
        inside = (predicted >= lo) & (predicted <= hi)
        distinct = len(set(game_of[inside].tolist()))
        if distinct < 10:
            continue
        p = predicted[inside].mean()
        error = math.sqrt(max(p * (1 - p), 0.01) / distinct)
        assert abs(observed[inside].mean() - p) <= 3 * error + 0.03, (lo, hi, observed[inside].mean(), p)
        checked += 1
    assert checked >= (3 if JIT_OFF else 8)
    # The model does discriminate: the top decile wins far more often than the bottom one.
    assert observed[predicted >= edges[9]].mean() - observed[predicted <= edges[1]].mean() > 0.5


def test_win_probability() -> None:
    offset, drift, sigma = simulation.WIN_MODEL[2]
    assert simulation.win_probability(0, 50) == pytest.approx(0.5)
    assert simulation.win_probability(10, 20) == pytest.approx(estimate(10, 20, 2))
    assert simulation.win_probability(30, 0) > 0.99 and simulation.win_probability(-30, 0) < 0.01
    assert simulation.win_probability(-5, 80, 4) == pytest.approx(estimate(-5, 80, 4))
    assert simulation.win_probability(np.int64(-5), np.int32(80), np.int64(4)) == simulation.win_probability(-5, 80, 4)
    for bad in (
        {"lead": 1.5}, {"tiles_left": -1}, {"tiles_left": 109}, {"players": 7}, {"players": True},
        {"players": np.bool_(True)}, {"players": np.int64(7)}, {"players": 3.0},
    ):
        args = {"lead": 0, "tiles_left": 10, "players": 2} | bad
        with pytest.raises(QwirkleError):
            simulation.win_probability(**args)  # type: ignore[arg-type]
    assert offset == drift == 0.0 and sigma > 0
    # More players: a lead of 0 is worth less than even odds, the less the more is left.
    assert simulation.win_probability(0, 100, 4) < simulation.win_probability(0, 10, 4) < 0.5


def test_iteration_seeds() -> None:
    low, high = simulation.iteration_seeds(2**64 - 1, 5, 3)
    for k in range(3):
        assert int(low[k]) | (int(high[k]) << 32) == splitmix64(2**64 - 1, 5 + k)
        assert simulation.iteration_seed(2**64 - 1, 5 + k) == splitmix64(2**64 - 1, 5 + k)
