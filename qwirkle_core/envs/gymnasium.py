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
the flat int16 vector of ``_common.flat_observation``; the bool mask of legal sub-steps
is ``info["action_mask"]`` after ``reset`` and every ``step``, and ``action_masks()``
(what sb3-contrib's ``MaskablePPO`` asks for).

Rewards (``reward=``, see ``_common.seat_values``): ``"margin"`` (the default) is the
agent's points less the mean of the bots' points, so an episode's return is the final
margin; ``"points"`` the agent's points (the return is its final score); ``"win"`` +1 or
-1 at the end (OpenSpiel's returns).  Points the bots score inside ``reset()`` count in
the first step's reward, so the return is that quantity in every episode.  An illegal
action (a random agent that ignores the mask) changes nothing and is rewarded
``illegal_reward`` with ``info["illegal"] = True``: it adds ``illegal_reward`` to the
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

from ..errors import IllegalMoveError, QwirkleError
from . import _common
from ._kernels import E_DROPPED
from .encoding import DEFAULT_WINDOW, action_count
from .observation import N_PLANES
from .vector import VectorQwirkle

__all__ = ["QwirkleVsBot"]


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
        self.reward = _common.check_reward(reward)
        self.layout = _common.check_layout(observation)
        value = VectorQwirkle._check_illegal_reward(illegal_reward)
        if value is None:  # here an illegal action is always rewarded, never raised
            raise QwirkleError("illegal_reward is a finite number, got None")
        self._vec = VectorQwirkle(
            1, players=players, seed=0, opponents=opponents, learner=learner, window=window, autoreset=False,
            opponent_movetime=opponent_movetime,
        )
        self.render_mode = render_mode
        self.learner = self._vec.learner
        self.illegal_reward = value
        low, high = _common.observation_bounds(window)  # each entry's own range, not int16's
        self.observation_space: spaces.Space[Any] = spaces.Box(low=low, high=high, dtype=np.int16)
        if self.layout == "planes":
            low, high = _common.features_bounds(window)
            self.observation_space = spaces.Dict(
                {
                    "planes": spaces.Box(0, 1, (N_PLANES, window, window), np.uint8),
                    "features": spaces.Box(low=low, high=high, dtype=np.int16),
                }
            )
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

    def _info(self) -> dict[str, Any]:
        return {
            "action_mask": self.action_masks(),
            "seed": self._vec.game_seed(0),
            "moves_outside_window": int(self._vec._env[0, E_DROPPED]),
        }

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        number = _common.check_seed(seed)  # both checked before anything changes
        game_seed = _common.read_options(options)
        super().reset(seed=number)  # seeds self.np_random (from entropy when never seeded)
        if game_seed is None:
            game_seed = _common.draw_game_seed(self.np_random)
        self._vec.reset(game_seed)
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
            illegal = self._info()
            illegal["illegal"] = True
            return self._obs(), self.illegal_reward, False, False, illegal
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
