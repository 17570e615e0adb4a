"""Qwirkle as a PettingZoo AEC environment (the ``rl`` extra: ``pip install '.[rl]'``).

>>> from qwirkle_core.envs.pettingzoo import env
>>> aec = env(players=2)
>>> aec.reset(seed=1)
>>> sorted(aec.observe(aec.agent_selection))
['action_mask', 'observation']

Agents ``player_0`` .. ``player_{n-1}`` (the seats).  Actions are the sub-steps of
:mod:`qwirkle_core.envs.encoding` (``Discrete(36·W² + 38)``); the agent to move keeps
the turn through its placements or marks until END or PASS.  Observations are
``{"observation": int16[2·W² + 90], "action_mask": int8[36·W² + 38]}`` (numpy; see
``_common.flat_observation``).  Rewards: the points each turn scores (going-out bonus
included), to the seat that played it.  The game is a :class:`VectorQwirkle` of one
env, so it is ``Game(players, seed)``'s game for the seed of ``reset(seed=...)``, and
later resets without a seed take the next seeds.  Render modes: ``"ansi"`` (the board
and scores as text) and ``"rgb_array"`` (the window as a picture).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from pettingzoo import AECEnv

from .. import _layout
from ..errors import QwirkleError, show
from . import _common
from .encoding import DEFAULT_WINDOW, action_count
from .vector import VectorQwirkle

__all__ = ["QwirkleAEC", "env", "raw_env"]


class QwirkleAEC(AECEnv):  # type: ignore[misc, unused-ignore]
    """The AEC environment (see the module docstring)."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi", "rgb_array"], "name": "qwirkle_v0", "is_parallelizable": False}

    def __init__(self, players: int = 2, window: int = DEFAULT_WINDOW, render_mode: str | None = None) -> None:
        super().__init__()
        render_mode = _common.check_render_mode(render_mode, self.metadata["render_modes"])
        self._vec = VectorQwirkle(1, players=players, seed=0, window=window, autoreset=False)
        self.render_mode = render_mode
        self.players = self._vec.players
        self.window = self._vec.window
        self.possible_agents = [f"player_{p}" for p in range(players)]
        self.agents = list(self.possible_agents)
        size = _common.observation_size(window)
        self._observation_space = spaces.Dict(
            {
                "observation": spaces.Box(low=-1, high=np.iinfo(np.int16).max, shape=(size,), dtype=np.int16),
                "action_mask": spaces.Box(low=0, high=1, shape=(action_count(window),), dtype=np.int8),
            }
        )
        self._action_space = spaces.Discrete(action_count(window))
        self._next_seed = 0

    def _seat(self, agent: Any) -> int:
        """The seat of ``agent`` (one of possible_agents), else QwirkleError."""
        if not isinstance(agent, str) or agent not in self.possible_agents:
            raise QwirkleError(f"agents are {', '.join(self.possible_agents)}, got {show(agent)}")
        return self.possible_agents.index(agent)

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        self._seat(agent)
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Space[Any]:
        self._seat(agent)
        return self._action_space

    def _to_move(self) -> int:
        return int(self._vec._metas[0, _layout.M_PLAYER])

    def observe(self, agent: str) -> dict[str, npt.NDArray[Any]]:
        seat = self._seat(agent)
        if seat == self._to_move() and not (self.terminations[agent] or self.truncations[agent]):
            mask = self._vec.masks[0].astype(np.int8)
        else:
            mask = np.zeros(self._vec.action_count, np.int8)
        return {"observation": _common.flat_observation(self._vec, 0, seat), "action_mask": mask}

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        number = _common.check_seed(seed)  # checked before anything changes
        _common.check_options(options)
        if number is not None:
            self._next_seed = number
        self._vec.reset(self._next_seed)
        self._next_seed = _common.next_seed(self._next_seed)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self._to_move()]

    def step(self, action: int) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None:
                raise QwirkleError(f"{agent} is done: its only action is None, got {show(action)}")
            self._was_dead_step(action)
            return
        number = _common.read_action(action)
        _, _, rewards, terminated, truncated, info = self._vec.step(np.array([number], np.int64))
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: 0.0 for a in self.agents}
        self.rewards[agent] = float(rewards[0])
        outside = int(info["moves_outside_window"][0])
        if terminated[0] or truncated[0]:
            scores = [int(s) for s in info["final_scores"][0, : self.players]]
            for a in self.agents:
                self.terminations[a] = bool(terminated[0])
                self.truncations[a] = bool(truncated[0])
                self.infos[a] = {"final_scores": scores}
        else:
            self.agent_selection = self.possible_agents[self._to_move()]
            self.infos[self.agent_selection] = {"moves_outside_window": outside}
        self._accumulate_rewards()

    def render(self) -> str | npt.NDArray[np.uint8] | None:
        if self.render_mode == "ansi":
            scores = " ".join(f"{a}={s}" for a, s in zip(self.possible_agents, self._vec.scores(0)))
            return f"{self._vec.board(0)}\nscores: {scores}; to move: {self.agent_selection}\n"
        if self.render_mode == "rgb_array":
            return _common.rgb_array(self._vec.obs["board"][0])
        return None

    def close(self) -> None:
        pass


def raw_env(players: int = 2, window: int = DEFAULT_WINDOW, render_mode: str | None = None) -> QwirkleAEC:
    """The AEC env itself (the same as :func:`env`)."""
    return QwirkleAEC(players=players, window=window, render_mode=render_mode)


def env(players: int = 2, window: int = DEFAULT_WINDOW, render_mode: str | None = None) -> QwirkleAEC:
    """The AEC env (PettingZoo's own wrappers would reject its fixed-space masked
    actions no better than its mask does, so it is returned unwrapped)."""
    return raw_env(players=players, window=window, render_mode=render_mode)
