"""One agent against bots, as a Gymnasium environment (the ``rl`` extra).

>>> import gymnasium as gym
>>> import qwirkle_core.envs  # registers Qwirkle-v0 (where gymnasium is installed)
>>> env = gym.make("Qwirkle-v0", players=2, opponents="greedy")
>>> obs, info = env.reset(seed=1)
>>> info["action_mask"].shape, info["action_mask"].any()
((36902,), np.True_)

The agent plays seat ``learner`` with the sub-steps of
:mod:`qwirkle_core.envs.encoding`; the bots' turns are played inside the step that ends
the agent's turn (and inside ``reset()`` when a bot opens the game).  The built-in
bots play inside the kernels; a search bot (``opponents="sim"`` or ``"endgame"``, with
``opponent_movetime`` seconds a move if given) plays in Python within the same step,
made by ``make_bot(name, seed=info["seed"], seat=seat)`` for each episode (see
:class:`~qwirkle_core.envs.vector.VectorQwirkle`).  The observation is
the flat int16 vector of ``_common.flat_observation`` (``observation="flat"``), or with
``observation="planes"`` a dict of binary ``planes`` (uint8[26, W, W]) and ``features``
(int16[92], the window's origin last: :mod:`qwirkle_core.envs.observation`); the bool
mask of legal sub-steps
is ``info["action_mask"]`` after ``reset`` and every ``step``, and ``action_masks()``
(what sb3-contrib's ``MaskablePPO`` asks for).

Rewards (``reward=``, see ``_common.seat_values``): ``"margin"`` (the default) is the
agent's points less the mean of the bots' points, so an episode's return is the final
margin; ``"points"`` the agent's points (the return is its final score); ``"win"`` +1 or
-1 at the end (OpenSpiel's returns).  Points the bots score inside ``reset()`` count in
the first step's reward, so the return is that quantity in every episode.  An illegal
action (a random agent that ignores the mask) changes nothing and is rewarded
``illegal_reward`` with ``info["illegal"] = True`` (False otherwise): it adds ``illegal_reward`` to the
return.

Seeds: ``reset(seed=s)`` seeds the env's random stream (numpy's ``SeedSequence(s)``) and
each episode's game seed is drawn from it, so envs seeded s and s + 1 (a vector env's
sub-envs) play different deals; a reset without a seed continues the stream, and an env
never seeded draws it from the operating system's entropy.  ``info["seed"]`` is the game
seed: ``Game(players, seed)`` deals the same game, and ``reset(options={"game_seed":
seed})`` plays it again.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from ..errors import IllegalMoveError, QwirkleError, show
from . import _common
from ._kernels import E_DROPPED, E_LEFT, E_TOP
from .encoding import DEFAULT_WINDOW, action_count
from .observation import N_PLANES
from .vector import VectorQwirkle

__all__ = ["QwirkleVectorVsBot", "QwirkleVsBot"]


def _check_choices(reward: Any, observation: Any, illegal_reward: Any) -> tuple[str, str, float]:
    """The reward convention, the observation layout and the illegal action's reward
    (a finite number: here an illegal action is always rewarded, never raised)."""
    value = VectorQwirkle._check_illegal_reward(illegal_reward)
    if value is None:
        raise QwirkleError("illegal_reward is a finite number, got None")
    return _common.check_reward(reward), _common.check_layout(observation), value


def _check_opponents(opponents: Any) -> Any:
    """The bots' names: never None, which in VectorQwirkle means that the caller plays
    every seat (here the observation, the mask and the reward are one learner's)."""
    if opponents is None:
        raise QwirkleError(
            "opponents is a bot name or one per seat, got None: for self-play (every seat "
            "played by the caller) use the PettingZoo env or VectorQwirkle(opponents=None)"
        )
    return opponents


def observation_space(layout: str, window: int) -> spaces.Space[Any]:
    """One env's observation space in a layout: a Box of each entry's own range (not
    int16's), or the planes layout's Dict."""
    if layout == "planes":
        low, high = _common.features_bounds(window)
        return spaces.Dict(
            {
                "planes": spaces.Box(0, 1, (N_PLANES, window, window), np.uint8),
                "features": spaces.Box(low=low, high=high, dtype=np.int16),
            }
        )
    low, high = _common.observation_bounds(window)
    return spaces.Box(low=low, high=high, dtype=np.int16)


class QwirkleVsBot(gym.Env):  # type: ignore[misc, unused-ignore]
    metadata: dict[str, Any] = {  # noqa: RUF012  (gym.Env declares it so)
        "render_modes": ["human", "ansi", "rgb_array"],
        "render_fps": _common.RENDER_FPS,
    }

    def __init__(
        self,
        players: int = 2,
        opponents: str | Sequence[str | None] = "greedy",
        learner: int = 0,
        window: int = DEFAULT_WINDOW,
        illegal_reward: float = -1.0,
        render_mode: str | None = None,
        reward: str = "margin",
        opponent_movetime: float | None = None,
        observation: str = "flat",
    ) -> None:
        render_mode = _common.check_render_mode(render_mode, self.metadata["render_modes"])
        self.reward, self.layout, value = _check_choices(reward, observation, illegal_reward)
        self._vec = VectorQwirkle(
            1, players=players, game_seeds=0, opponents=_check_opponents(opponents), learner=learner, window=window, autoreset=False,
            opponent_movetime=opponent_movetime,
        )
        self.render_mode = render_mode
        self.learner = self._vec.learner
        self.illegal_reward = value
        self.observation_space = observation_space(self.layout, window)
        self.action_space = spaces.Discrete(action_count(window))
        self._value = 0.0  # the learner's value (seat_values) after the last step
        self._over = True

    def _obs(self) -> Any:
        if self.layout == "planes":
            planes, features = _common.planes_observation(self._vec, 0, self.learner)
            return {"planes": planes, "features": features}
        return _common.flat_observation(self._vec, 0, self.learner)

    def _learner_value(self) -> float:
        scores = self._vec._scores[0, : self._vec.players]
        return float(_common.seat_values(scores, self.reward, self._over)[self.learner])

    def _info(self, illegal: bool = False) -> dict[str, Any]:
        # The same keys as QwirkleVectorVsBot's info (one entry here, a row there).
        return {
            "action_mask": self.action_masks(),
            "seed": self._vec.game_seed(0),
            "moves_outside_window": int(self._vec._env[0, E_DROPPED]),
            "illegal": illegal,
        }

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        number = _common.check_seed(seed)  # both checked before anything changes
        game_seed = _common.read_options(options)
        super().reset(seed=number)  # seeds self.np_random (from entropy when never seeded)
        if game_seed is None:
            game_seed = _common.draw_game_seed(self.np_random)
        self._vec.reset(game_seeds=game_seed)
        self._over = False
        # Every seat starts at 0: points the bots scored inside reset (a bot that opens)
        # are left to the first step's reward, so the return is the documented quantity.
        self._value = 0.0
        if self.render_mode == "human":
            self.render()
        return self._obs(), self._info()

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """bool[36·W² + 38]: the legal sub-steps now (what MaskablePPO asks for).  Once the
        episode is over, all True: no sub-step is legal in a finished game, but a vector
        env's next-step autoreset expects one more action (and ignores it), and an all-False
        mask breaks a sampler (an empty choice, NaN logits)."""
        if self._over:
            return np.ones(self._vec.action_count, np.bool_)
        mask: npt.NDArray[np.bool_] = self._vec.masks[0].copy()
        return mask

    def step(self, action: int) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if self._over:
            raise RuntimeError("the episode is over: call reset()")
        number = _common.read_action(action)
        try:
            self._vec._step(np.array([number], np.int64))
        except IllegalMoveError:
            return self._obs(), self.illegal_reward, False, False, self._info(illegal=True)
        terminated, truncated = bool(self._vec.terminated[0]), bool(self._vec.truncated[0])
        self._over = terminated or truncated
        before, self._value = self._value, self._learner_value()
        step_info = self._info()
        if self._over:
            step_info["final_scores"] = [int(s) for s in self._vec._final_scores[0, : self._vec.players]]
        if self.render_mode == "human":
            self.render()
        return self._obs(), self._value - before, terminated, truncated, step_info

    def render(self) -> str | npt.NDArray[np.uint8] | None:
        if self.render_mode in ("ansi", "human"):
            text = f"{self._vec.board(0)}\nscores: {self._vec.scores(0)}\n"
            if self.render_mode == "ansi":
                return text
            print(text)
            return None
        if self.render_mode == "rgb_array":
            return _common.rgb_array(self._vec.obs["board"][0])
        return None


class QwirkleVectorVsBot(gym.vector.VectorEnv):  # type: ignore[misc, unused-ignore]
    """``num_envs`` games against bots as one ``gymnasium.vector.VectorEnv``: a
    ``VectorQwirkle`` inside (one kernel call a step), with the face of Gymnasium's
    vector envs, so their wrappers and training loops work unchanged
    (``gymnasium.make_vec("Qwirkle-v0", num_envs=64, vectorization_mode="vector_entry_point")``
    makes it).  Each sub-env is a ``QwirkleVsBot`` of the same arguments: the same
    observations (``observation="flat"`` or ``"planes"``), rewards (``reward=``) and
    ``info["action_mask"]`` (bool[num_envs, 36·W² + 38]; ``info["seed"]`` the games'
    seeds).  Differences, each for the batch's sake:

    - autoreset in the same step (``metadata["autoreset_mode"]`` is
      ``AutoresetMode.SAME_STEP``), as ``SyncVectorEnv`` does it: a sub-env whose game
      ended returns the next game's first observation, with the ended game's last
      observation in ``info["final_obs"]`` (an object array, None where no game ended)
      and its info in ``info["final_info"]`` (``seed``, ``final_scores``,
      ``moves_outside_window``, each with its ``_key`` mask), ``info["_final_obs"]``
      and ``info["_final_info"]`` marking the sub-envs that ended; ``info["final_scores"]``
      (with ``info["_final_scores"]``) the ended games' scores too.  A truncated game
      (the turn cap, a turn whose moves all left the window) is not over: its final
      observation is what a value function bootstraps from;
    - an illegal action leaves its sub-env as it was, rewarded ``illegal_reward``
      (``info["illegal"]``), and the others step;
    - ``reset(seed=s)`` seeds a stream (numpy's ``SeedSequence(s)``) from which the games'
      base seed is drawn: sub-env i plays the games of seeds base + i, base + i +
      num_envs, ... (VectorQwirkle's ``game_seeds=base``), so envs seeded s and s + 1 share no deals.
    """

    def __init__(
        self,
        num_envs: int = 1,
        players: int = 2,
        opponents: str | Sequence[str | None] = "greedy",
        learner: int = 0,
        window: int = DEFAULT_WINDOW,
        illegal_reward: float = -1.0,
        render_mode: str | None = None,
        reward: str = "margin",
        opponent_movetime: float | None = None,
        observation: str = "flat",
    ) -> None:
        if render_mode is not None:
            raise QwirkleError(f"the vector env renders nothing: render_mode is None, got {show(render_mode)}")
        self.reward, self.layout, value = _check_choices(reward, observation, illegal_reward)
        self._vec = VectorQwirkle(
            num_envs, players=players, game_seeds=0, opponents=_check_opponents(opponents), learner=learner, window=window,
            opponent_movetime=opponent_movetime, illegal_reward=value,
            autoreset=False,  # the face deals the next games after reading the ended ones' observations
        )
        self.num_envs = num_envs
        self.learner = self._vec.learner
        self.illegal_reward = value
        self.metadata = {"autoreset_mode": gym.vector.AutoresetMode.SAME_STEP, "render_modes": []}
        self.render_mode = None
        self.single_observation_space = observation_space(self.layout, window)
        self.single_action_space = spaces.Discrete(action_count(window))
        self.observation_space = gym.vector.utils.batch_space(self.single_observation_space, num_envs)
        self.action_space = gym.vector.utils.batch_space(self.single_action_space, num_envs)

    def _observations(self) -> Any:
        """The learner's observations (it is to move in every sub-env), batched."""
        vec, n = self._vec, self.num_envs
        tail = np.concatenate((vec.obs["hand"].reshape(n, -1), vec.obs["scalars"]), axis=1)
        if self.layout == "planes":
            origins = vec._env[:, E_TOP : E_LEFT + 1]
            return {"planes": vec.planes(), "features": np.concatenate((tail, origins), axis=1).astype(np.int16)}
        return np.concatenate((vec.obs["board"].reshape(n, -1), tail), axis=1).astype(np.int16)

    def _info(self, info: dict[str, Any]) -> dict[str, Any]:
        # The same keys as QwirkleVsBot's info (a row per sub-env here).
        return {
            "action_mask": self._vec.masks.copy(), "seed": info["seed"],
            "moves_outside_window": info["moves_outside_window"], "illegal": info["illegal"],
        }

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        number = _common.check_seed(seed)
        if _common.read_options(options) is not None:  # other keys are the frameworks' own
            raise QwirkleError("game_seed names one game: a vector env's games come from reset(seed=...)")
        super().reset(seed=number)  # seeds self.np_random (from entropy when never seeded)
        base = int(self.np_random.integers(0, _common.SEED_END - 2 * self.num_envs))
        _, _, info = self._vec.reset(game_seeds=base)
        return self._observations(), self._info(info)

    def step(self, actions: Any) -> tuple[Any, npt.NDArray[np.float64], npt.NDArray[np.bool_], npt.NDArray[np.bool_], dict[str, Any]]:
        _, _, _, terminated, truncated, info = self._vec.step(actions)
        ended = terminated | truncated
        final = info["final_scores"][:, : self._vec.players]
        if self.reward == "win":  # +1 to the top score(s) at the end, -1 to the others
            top = final[:, self.learner] == final.max(axis=1)
            returned = np.where(ended, np.where(top, 1.0, -1.0), 0.0)
        else:
            # From the points in float64, as the single env's: VectorQwirkle's rewards are
            # float32, and a margin of 3 or more players is no float32 (1/3 of a point).
            points = self._vec._seat_points()
            returned = points[:, self.learner].astype(np.float64)
            if self.reward == "margin":
                others = (points.sum(axis=1) - points[:, self.learner]) / (self._vec.players - 1)
                returned -= others
        returned[info["illegal"]] = self.illegal_reward
        if not ended.any():
            return self._observations(), returned, terminated, truncated, self._info(info)
        final_obs = np.full(self.num_envs, None, dtype=object)
        for i in np.flatnonzero(ended).tolist():  # the single env's terminal observation
            final_obs[i] = self._single_observation(i)
        self._vec._start_next(ended)
        out = self._info({**self._vec.info(), "illegal": info["illegal"]})
        out["final_scores"], out["_final_scores"] = final, ended
        out["final_obs"], out["_final_obs"] = final_obs, ended
        out["final_info"] = {
            "seed": np.where(ended, info["seed"], 0), "_seed": ended,
            "final_scores": final, "_final_scores": ended,
            "moves_outside_window": np.where(ended, info["moves_outside_window"], 0), "_moves_outside_window": ended,
        }
        out["_final_info"] = ended
        return self._observations(), returned, terminated, truncated, out

    def _single_observation(self, i: int) -> Any:
        """Sub-env i as ``QwirkleVsBot`` observes it (the learner's view, whoever is to
        move: at a game's end that may be a bot)."""
        if self.layout == "planes":
            planes, features = _common.planes_observation(self._vec, i, self.learner)
            return {"planes": planes, "features": features}
        return _common.flat_observation(self._vec, i, self.learner)
