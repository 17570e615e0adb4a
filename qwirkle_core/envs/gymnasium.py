"""One agent against built-in bots, as a Gymnasium environment (the ``rl`` extra).

>>> from qwirkle_core.envs.gymnasium import QwirkleVsBot
>>> env = QwirkleVsBot(players=2, opponents="greedy")
>>> obs, info = env.reset(seed=1)
>>> env.action_masks().shape
(36902,)

The agent plays seat ``learner`` with the sub-steps of
:mod:`qwirkle_core.envs.encoding`; the bots' turns are played inside the step that ends
the agent's turn.  The observation is the flat int16 vector of
``_common.flat_observation``; ``action_masks()`` is the bool mask of legal sub-steps, as
sb3-contrib's ``MaskablePPO`` expects.  The reward is the agent's points less the mean of
the bots' points over the step.  An illegal action (a random agent that ignores the
mask) changes nothing and is rewarded ``illegal_reward`` with ``info["illegal"] = True``.
The game is a :class:`VectorQwirkle` of one env: ``Game(players, seed)``'s game for the
seed of ``reset(seed=...)``; resets without a seed take the next seeds.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from ..errors import IllegalMoveError, QwirkleError, show
from . import _common
from .encoding import DEFAULT_WINDOW, action_count
from .vector import VectorQwirkle

__all__ = ["QwirkleVsBot"]


class QwirkleVsBot(gym.Env):  # type: ignore[misc, unused-ignore]
    metadata: dict[str, Any] = {"render_modes": ["ansi", "rgb_array"]}  # noqa: RUF012  (gym.Env declares it so)

    def __init__(
        self,
        players: int = 2,
        opponents: str | Sequence[str | None] = "greedy",
        learner: int = 0,
        window: int = DEFAULT_WINDOW,
        illegal_reward: float = -1.0,
        render_mode: str | None = None,
    ) -> None:
        render_mode = _common.check_render_mode(render_mode, self.metadata["render_modes"])
        reward: Any = illegal_reward  # any value: checked here
        try:
            value = float(reward) if isinstance(reward, numbers.Real) and not isinstance(reward, bool) else math.nan
        except OverflowError:  # an int past the floats
            value = math.nan
        if not math.isfinite(value):
            raise QwirkleError(f"illegal_reward is a finite number, got {show(reward)}")
        self._vec = VectorQwirkle(
            1, players=players, seed=0, opponents=opponents, learner=learner, window=window, autoreset=False
        )
        self.render_mode = render_mode
        self.learner = self._vec.learner
        self.illegal_reward = value
        size = _common.observation_size(window)
        self.observation_space = spaces.Box(low=-1, high=np.iinfo(np.int16).max, shape=(size,), dtype=np.int16)
        self.action_space = spaces.Discrete(action_count(window))
        self._next_seed: int | None = None
        self._over = True

    def _obs(self) -> npt.NDArray[np.int16]:
        return _common.flat_observation(self._vec, 0, self.learner)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[npt.NDArray[np.int16], dict[str, Any]]:
        number = _common.check_seed(seed)  # checked before anything changes
        _common.check_options(options)
        super().reset(seed=number)
        if number is not None:
            self._next_seed = number
        elif self._next_seed is None:
            self._next_seed = int(self.np_random.integers(0, 2**62))
        self._vec.reset(self._next_seed)
        self._next_seed = _common.next_seed(self._next_seed)
        self._over = False
        return self._obs(), {"seed": self._vec.game_seed(0)}

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """bool[36·W² + 38]: the legal sub-steps now (what MaskablePPO asks for)."""
        mask: npt.NDArray[np.bool_] = self._vec.masks[0].copy()
        return mask

    def step(self, action: int) -> tuple[npt.NDArray[np.int16], float, bool, bool, dict[str, Any]]:
        if self._over:
            raise RuntimeError("the episode is over: call reset()")
        number = _common.read_action(action)
        try:
            _, _, rewards, terminated, truncated, info = self._vec.step(np.array([number], np.int64))
        except IllegalMoveError:
            return self._obs(), self.illegal_reward, False, False, {"illegal": True}
        done_info: dict[str, Any] = {"moves_outside_window": int(info["moves_outside_window"][0])}
        self._over = bool(terminated[0] or truncated[0])
        if self._over:
            done_info["final_scores"] = [int(s) for s in info["final_scores"][0, : self._vec.players]]
        return self._obs(), float(rewards[0]), bool(terminated[0]), bool(truncated[0]), done_info

    def render(self) -> str | npt.NDArray[np.uint8] | None:
        if self.render_mode == "ansi":
            return f"{self._vec.board(0)}\nscores: {self._vec.scores(0)}\n"
        if self.render_mode == "rgb_array":
            return _common.rgb_array(self._vec.obs["board"][0])
        return None
