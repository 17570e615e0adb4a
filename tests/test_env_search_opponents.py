"""The environments against the search bots (sim, endgame): their seats played in
Python between the kernel calls, each move the bot's own choice, the env's contracts
(masks, rewards, the learner always to move) kept."""

from __future__ import annotations

import math
import os
from typing import Any

import numpy as np
import pytest

from qwirkle_core import _layout
from qwirkle_core.analysis import simulation
from qwirkle_core.bots import Bot, make_bot
from qwirkle_core.envs import encoding as enc
from qwirkle_core.envs.vector import SEARCH_BOTS, VectorQwirkle
from qwirkle_core.errors import QwirkleError
from qwirkle_core.game import Game

# With the JIT off a sim move is minutes (1,000 simulated games a candidate): the sim
# bot plays with the JIT only; the endgame bot plays greedy until the bag is empty, so
# a few turns of it are cheap, and those run everywhere.
NO_JIT = os.environ.get("NUMBA_DISABLE_JIT") == "1"
SHORT = NO_JIT or os.environ.get("NUMBA_BOUNDSCHECK") == "1"  # bounds-checked kernels: about 3x slower
needs_jit = pytest.mark.skipif(NO_JIT, reason="the sim bot's moves: minutes each with the JIT off")
W = enc.DEFAULT_WINDOW


@pytest.fixture(autouse=True)
def fewer_simulations(monkeypatch: pytest.MonkeyPatch) -> None:
    """The sim bot with 100 simulations a candidate instead of 1,000: what these tests
    check (each opponent move is the bot's own choice, the env's contracts) does not
    depend on how deeply the bot searches, and a tenth of the work keeps the file at
    seconds, not minutes (the bot and the mirror both read the same default)."""
    monkeypatch.setattr(simulation, "DEFAULT_ITERATIONS", 100)


def position(game: Game) -> Game:
    """The position as the env shows it to its search bots (env.to_game: no history,
    the turns played so far)."""
    return Game.from_position(
        game.board, game.hands, game.bag, game.scores, game.to_move, turns_played=game.turn_count
    )


def mirror(env: VectorQwirkle, names: dict[int, str], steps: int) -> int:
    """Step ``env`` with random legal sub-steps beside a Game per env, playing each
    search seat's turns on the Game with the bot make_bot makes for that game; compare
    the env with the Games at every step (so every opponent move is the bot's choice)
    and each reward with the learner's margin over the step (over the game so far in
    its first step: the bots' opening turns count there).  Returns the games
    finished."""
    learner = env.learner
    bots: list[dict[int, Bot]] = [{} for _ in range(env.n)]

    def bot_turns(i: int, game: Game) -> None:
        while not game.is_over and game.to_move != learner:
            seat = game.to_move
            if seat not in bots[i]:
                bots[i][seat] = make_bot(names[seat], seed=game.seed or 0, seat=seat)
            game.push(bots[i][seat].choose(position(game)))

    def new_game(i: int) -> Game:
        bots[i] = {}
        game = Game(env.players, seed=env.game_seed(i))
        bot_turns(i, game)
        return game

    games = [new_game(i) for i in range(env.n)]
    first = [True] * env.n  # no step of the game yet
    turn: list[list[int]] = [[] for _ in range(env.n)]
    finished = 0
    for _ in range(steps):
        actions = env.random_actions()
        before = [[0] * env.players if first[i] else g.scores for i, g in enumerate(games)]
        first = [False] * env.n
        _obs, masks, rewards, terminated, truncated, info = env.step(actions)
        for i, game in enumerate(games):
            turn[i].append(int(actions[i]))
            if turn[i][-1] in (enc.end_id(W), enc.pass_id(W)):
                game.push(enc.action_from_substeps(game, turn[i]))
                turn[i] = []
                bot_turns(i, game)
            gains = np.array(game.scores) - np.array(before[i])
            margin = gains[learner] - (gains.sum() - gains[learner]) / (env.players - 1)
            assert rewards[i] == pytest.approx(margin, abs=1e-4)
            assert not truncated[i]
            if terminated[i]:
                assert game.is_over
                assert info["final_scores"][i, : env.players].tolist() == game.scores
                games[i] = new_game(i)
                first[i] = True
                finished += 1
                continue
            assert not game.is_over
            assert info["to_move"][i] == learner and masks[i].any()
            _, meta, hands, hand_sizes, bag, scores, rng = game.engine_state()
            _, meta2, hands2, hand_sizes2, bag2, scores2, rng2 = env.engine_state(i)
            assert (hands == hands2).all() and (hand_sizes == hand_sizes2).all()
            assert (scores == scores2).all() and (rng == rng2).all()
            assert (bag[: game.bag_size] == bag2[: game.bag_size]).all()
            assert meta[_layout.M_PLAYER] == meta2[_layout.M_PLAYER]
            # The turns played, from which the search bots seed each move.
            assert meta[_layout.M_TURNS] == meta2[_layout.M_TURNS] == game.turn_count
            assert env.board(i) == game.board
            assert (enc.legal_substeps(game, turn[i]).mask == masks[i]).all()
    return finished


def test_endgame_opponent_moves_are_the_bot_s_choices() -> None:
    env = VectorQwirkle(2, players=2, seed=21, opponents="endgame")
    env.reset()
    finished = mirror(env, {1: "endgame"}, 40 if SHORT else 300)
    assert SHORT or finished >= 2  # the games reach the empty bag, where the solver plays


@needs_jit
def test_sim_opponent_moves_are_the_bot_s_choices() -> None:
    env = VectorQwirkle(2, players=2, seed=8, opponents="sim", learner=1)
    env.reset()
    finished = mirror(env, {0: "sim"}, 50 if SHORT else 150)
    assert SHORT or finished >= 1  # two games end, their endgames solved


@needs_jit
def test_search_and_kernel_opponents_together() -> None:
    env = VectorQwirkle(2, players=3, seed=8, opponents=["greedy", None, "sim"], learner=1)
    env.reset()
    finished = mirror(env, {0: "greedy", 2: "sim"}, 100 if SHORT else 400)
    assert SHORT or finished >= 1


@needs_jit
def test_search_opponents_are_the_same_for_the_same_seed_and_reset_replays() -> None:
    def run(env: VectorQwirkle) -> list[Any]:
        env.reset(3)  # also reseeds random_actions
        out = []
        for _ in range(60 if SHORT else 100):
            obs, masks, rewards, *_ = env.step(env.random_actions())
            out.append((obs["board"].copy(), masks.copy(), rewards.copy()))
        return out

    a = VectorQwirkle(2, players=2, seed=3, opponents="sim")
    b = VectorQwirkle(2, players=2, seed=3, opponents="sim")
    first = run(a)
    for x, y, z in zip(first, run(b), run(a)):  # a twin, and the same env reset
        for u, v, w in zip(x, y, z):
            assert (u == v).all() and (u == w).all()


def test_no_autoreset_with_a_search_opponent() -> None:
    env = VectorQwirkle(1, players=2, seed=2, opponents="endgame", autoreset=False)
    env.reset()
    for _ in range(20 if NO_JIT else 3000):
        _, masks, _, terminated, truncated, info = env.step(env.random_actions())
        assert info["to_move"][0] == 0
        if terminated[0] or truncated[0]:
            assert not masks.any() and env.random_actions()[0] == -1
            break
        assert masks.any()
    else:
        assert NO_JIT, "the game never ended"


@needs_jit
def test_a_movetime_opponent_plays_legal_games() -> None:
    """With a budget the search stops by the clock (its moves may differ from run to
    run): the contracts only."""
    env = VectorQwirkle(2, players=2, seed=4, opponents="sim", opponent_movetime=0.005)
    env.reset()
    ended = 0
    for _ in range(400):
        _, masks, _, terminated, truncated, info = env.step(env.random_actions())
        assert (info["to_move"] == 0).all() and masks.any(axis=1).all() and not truncated.any()
        ended += int(terminated.sum())
    assert ended >= 1


def test_search_opponent_arguments() -> None:
    assert SEARCH_BOTS == ("endgame", "sim")
    VectorQwirkle(1, opponents="sim", opponent_movetime=0.5)
    VectorQwirkle(1, opponents=["endgame", None], learner=1, opponent_movetime=2)
    for bad in (0, -1.0, math.nan, math.inf, 3601, True, "1", [1]):
        with pytest.raises(QwirkleError, match="movetime"):
            VectorQwirkle(1, opponents="sim", opponent_movetime=bad)
    with pytest.raises(QwirkleError, match="search opponents"):
        VectorQwirkle(1, opponents="greedy", opponent_movetime=0.5)
    with pytest.raises(QwirkleError, match="search opponents"):
        VectorQwirkle(1, opponent_movetime=0.5)
    with pytest.raises(QwirkleError, match="opponents are"):
        VectorQwirkle(1, opponents="alphazero")


# ---------------------------------------------------------------- the framework envs
def test_gymnasium_env_takes_a_search_opponent() -> None:
    pytest.importorskip("gymnasium", reason="the rl extra (pip install '.[rl]') is not installed")
    from qwirkle_core.envs.gymnasium import QwirkleVsBot

    env = QwirkleVsBot(opponents="endgame", opponent_movetime=0.5)
    assert env._vec.opponent_movetime == 0.5
    _obs, info = env.reset(seed=1)
    assert info["action_mask"].any()
    with pytest.raises(QwirkleError, match="search opponents"):
        QwirkleVsBot(opponents="greedy", opponent_movetime=0.5)


@needs_jit
@pytest.mark.parametrize(
    "kwargs", [{"opponents": "sim"}, {"players": 3, "opponents": ["endgame", None, "sim"], "learner": 1, "reward": "win"}]
)
def test_gymnasium_check_env_with_a_search_opponent(kwargs: dict[str, Any]) -> None:
    import warnings

    gym = pytest.importorskip("gymnasium", reason="the rl extra (pip install '.[rl]') is not installed")
    from gymnasium.utils.env_checker import check_env

    import qwirkle_core.envs  # noqa: F401  (registers Qwirkle-v0)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(gym.make("Qwirkle-v0", **kwargs).unwrapped)
    assert [str(w.message) for w in caught] == []


@needs_jit
@pytest.mark.parametrize("reward", ["margin", "points", "win"])
def test_gymnasium_return_against_a_search_opponent_is_the_documented_quantity(reward: str) -> None:
    pytest.importorskip("gymnasium", reason="the rl extra (pip install '.[rl]') is not installed")
    from qwirkle_core.envs.gymnasium import QwirkleVsBot

    env = QwirkleVsBot(players=2, opponents="sim", learner=1, reward=reward)
    rng = np.random.default_rng(0)
    for episode in range(2):
        _obs, info = env.reset(seed=40 + episode)
        total, done = 0.0, False
        while not done:
            action = int(rng.choice(np.flatnonzero(info["action_mask"])))
            _obs, r, terminated, truncated, info = env.step(action)
            total += r
            done = terminated or truncated
        final = info["final_scores"]
        expected = {
            "points": final[1],
            "margin": final[1] - final[0],
            "win": 1.0 if final[1] == max(final) else -1.0,
        }[reward]
        assert total == pytest.approx(expected, abs=1e-9)
        # The episode is Game(2, info seed)'s game with make_bot's sim bot in seat 0.
        assert env._vec.game_seed(0) == info["seed"]


@pytest.mark.parametrize("autoreset", [True, False])
def test_three_player_endgame_opponents_step_as_the_greedy_kernel_bots(autoreset: bool) -> None:
    """With three players the endgame bot is greedy throughout (the solver is for two):
    played in Python it gives the kernel's greedy games, step by step, every array and
    reward the same (cheap enough for the run with the JIT off)."""
    python = VectorQwirkle(3, players=3, seed=12, opponents=["endgame", None, "endgame"], learner=1, autoreset=autoreset)
    kernel = VectorQwirkle(3, players=3, seed=12, opponents=["greedy", None, "greedy"], learner=1, autoreset=autoreset)
    for env in (python, kernel):
        env.reset()
    for _ in range(60 if NO_JIT else 1500):
        actions = kernel.random_actions()
        if (actions < 0).any():  # a finished game (no autoreset): deal again
            for env in (python, kernel):
                env.reset()
            continue
        python.random_actions()  # its sampler kept in step
        a, b = python.step(actions.copy()), kernel.step(actions)
        for key in ("board", "hand", "scalars"):
            assert (a[0][key] == b[0][key]).all()
        for x, y in zip(a[1:5], b[1:5]):
            assert (x == y).all()
        for key, value in a[5].items():
            assert (value == b[5][key]).all(), key
