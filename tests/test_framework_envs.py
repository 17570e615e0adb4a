"""The PettingZoo and Gymnasium envs pass their frameworks' checkers (the rl extra)."""

from __future__ import annotations

import os

import numpy as np
import pytest

from qwirkle_core.errors import QwirkleError
from qwirkle_core.game import Game

pytest.importorskip("pettingzoo", reason="the rl extra (pip install '.[rl]') is not installed")
pytest.importorskip("gymnasium", reason="the rl extra (pip install '.[rl]') is not installed")

from qwirkle_core.envs import encoding as enc
from qwirkle_core.envs.gymnasium import QwirkleVsBot
from qwirkle_core.envs.pettingzoo import env as make_env

NO_JIT = os.environ.get("NUMBA_DISABLE_JIT") == "1"


@pytest.mark.skipif(NO_JIT, reason="api_test plays 1,000 sub-steps: minutes with every kernel in plain Python")
@pytest.mark.parametrize("players", [2, 4])
def test_pettingzoo_api_test(players: int) -> None:
    from pettingzoo.test import api_test

    api_test(make_env(players=players), num_cycles=300, verbose_progress=False)


@pytest.mark.skipif(NO_JIT, reason="seed_test plays two games of sub-steps: too slow with the JIT off")
def test_pettingzoo_seed_test() -> None:
    from pettingzoo.test import seed_test

    seed_test(lambda: make_env(players=3), num_cycles=50)


def test_pettingzoo_plays_game_s_game_and_renders() -> None:
    aec = make_env(players=2, render_mode="ansi")
    aec.reset(options={"game_seed": 11})
    assert all(aec.infos[a]["seed"] == 11 for a in aec.agents)
    game = Game(2, seed=11)
    points = {a: 0.0 for a in aec.agents}
    turn: list[int] = []
    rng = np.random.default_rng(0)
    for _ in range(40 if NO_JIT else 400):
        agent = aec.agent_selection
        if aec.terminations[agent] or aec.truncations[agent]:
            assert game.is_over
            assert aec.infos[agent]["final_scores"] == game.scores
            break
        assert agent == f"player_{game.to_move}"
        points[agent] += aec._cumulative_rewards[agent]  # what the agent earned since it last moved
        obs = aec.observe(agent)
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        other = aec.observe(f"player_{1 - game.to_move}")
        assert not other["action_mask"].any() and other["observation"].shape == obs["observation"].shape
        aec.step(action)
        turn.append(action)
        if action in (enc.end_id(), enc.pass_id()):
            game.push(enc.action_from_substeps(game, turn))
            turn = []
            for seat, score in enumerate(game.scores):  # each turn's points, to its author
                seat_agent = f"player_{seat}"
                assert points[seat_agent] + aec._cumulative_rewards[seat_agent] == score
    text = aec.render()
    assert isinstance(text, str) and "scores" in text
    picture = make_env(players=2, render_mode="rgb_array")
    picture.reset(seed=1)
    image = picture.render()
    assert isinstance(image, np.ndarray) and image.dtype == np.uint8 and image.shape == (256, 256, 3)


@pytest.mark.skipif(NO_JIT, reason="check_env steps the env many times: too slow with the JIT off")
@pytest.mark.parametrize(
    "kwargs",
    [{}, {"players": 3, "opponents": "random", "learner": 1, "reward": "win"}, {"observation": "planes"}],
)
def test_gymnasium_check_env_without_warnings(kwargs: dict[str, object]) -> None:
    """Made by gymnasium.make (a spec, so check_env also tries every render mode), and
    checked unwrapped, as check_env asks: not one warning."""
    import warnings

    import gymnasium as gym
    from gymnasium.utils.env_checker import check_env

    import qwirkle_core.envs  # noqa: F401  (registers Qwirkle-v0)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(gym.make("Qwirkle-v0", **kwargs).unwrapped)
    assert [str(w.message) for w in caught] == []


@pytest.mark.skipif(NO_JIT, reason="PPO steps the env hundreds of times: too slow with the JIT off")
def test_maskable_ppo_trains_on_qwirkle_vs_bot() -> None:
    """sb3-contrib's MaskablePPO (not a dependency: torch is too big for the rl extra)."""
    sb3_contrib = pytest.importorskip("sb3_contrib", reason="sb3-contrib (and torch) not installed: pip install sb3-contrib")
    env = QwirkleVsBot(players=2, opponents="random")
    model = sb3_contrib.MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=32, n_epochs=1, seed=0)
    model.learn(total_timesteps=128)
    assert model.num_timesteps == 128
    obs, _ = env.reset(seed=3)
    for _ in range(20):  # the masked policy plays legal sub-steps only
        mask = env.action_masks()
        action, _ = model.predict(obs, action_masks=mask, deterministic=False)
        assert mask[int(action)]
        obs, _, terminated, truncated, info = env.step(int(action))
        assert info["illegal"] is False
        if terminated or truncated:
            break


def test_an_action_may_be_a_0d_integer_array() -> None:
    """What a policy's ``predict`` returns for one observation, and what the action
    space's ``contains`` accepts: a 0-d integer array.  Other arrays are refused."""
    env = QwirkleVsBot(players=2, opponents="greedy")
    env.reset(seed=4)
    aec = make_env(players=2)
    aec.reset(seed=4)
    for dtype in (np.int64, np.int32, np.uint16):
        legal = np.array(np.flatnonzero(env.action_masks())[0], dtype)
        assert env.action_space.contains(legal)
        assert env.step(legal)[4]["illegal"] is False
        agent = aec.agent_selection
        aec.step(np.array(np.flatnonzero(aec.observe(agent)["action_mask"])[0], dtype))
        assert not any(aec.terminations.values())
    for bad in (np.array(3.0), np.array([3]), np.array(True)):
        with pytest.raises(QwirkleError, match="an action is an integer"):
            env.step(bad)  # (the wrapped PettingZoo env's own check refuses them before ours)


def test_gymnasium_masked_play_and_illegal_actions() -> None:
    env = QwirkleVsBot(players=3, opponents=["random", None, "greedy"], learner=1, render_mode="rgb_array")
    obs, info = env.reset(seed=5)
    assert obs.dtype == np.int16 and env.observation_space.contains(obs)
    mask = env.action_masks()
    assert (info["action_mask"] == mask).all()
    illegal = int(np.flatnonzero(~mask)[0])
    obs2, reward, terminated, truncated, info = env.step(illegal)
    assert info["illegal"] is True and reward == -1.0 and (obs2 == obs).all()
    assert (info["action_mask"] == mask).all()
    rng = np.random.default_rng(1)
    for _ in range(30 if NO_JIT else 3000):
        obs, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        if terminated or truncated:
            assert len(info["final_scores"]) == 3
            with pytest.raises(RuntimeError):
                env.step(0)
            break
    assert env.render().shape == (256, 256, 3)  # type: ignore[union-attr]
    with pytest.raises(ValueError):
        QwirkleVsBot(render_mode="video")


@pytest.mark.parametrize("wrapped", [True, False])
def test_removed_agents_observe_and_last_after_the_end_is_an_error(wrapped: bool) -> None:
    """Once done agents have stepped None (and been removed), observing one gives its
    observation with no legal action, and the raw env's ``last()`` with no agent left
    is a QwirkleError (both were a bare KeyError; the wrapped env's ``last()`` is
    PettingZoo's wrappers', as in every PettingZoo env)."""
    from qwirkle_core.envs.pettingzoo import raw_env

    aec = make_env(players=2) if wrapped else raw_env(players=2)
    aec.reset(seed=2)
    rng = np.random.default_rng(0)
    for _ in range(100_000):
        agent = aec.agent_selection
        if aec.terminations[agent] or aec.truncations[agent]:
            break
        aec.step(int(rng.choice(np.flatnonzero(aec.observe(agent)["action_mask"]))))
    removed = []
    while aec.agents:
        removed.append(aec.agent_selection)
        aec.step(None)
        for agent in removed:
            seen = aec.observe(agent)
            assert not seen["action_mask"].any() and seen["observation"].shape
    assert sorted(removed) == ["player_0", "player_1"]
    if not wrapped:
        with pytest.raises(QwirkleError, match="reset"):
            aec.last()
