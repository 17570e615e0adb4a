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
``_common.flat_observation``); the mask is all 0 for an agent not to move.  With
``observation="planes"``: ``{"observation": uint8[26, W, W] binary planes, "features":
int16[92] (the window's origin last), "action_mask": ...}`` (:mod:`qwirkle_core.envs.observation`).

:func:`env` is wrapped as PettingZoo's classic envs are: an illegal action ends the game
with ``illegal_reward`` (-1) for the offender and 0 for the others
(``TerminateIllegalWrapper``), an action outside the space fails an assertion
(``AssertOutOfBoundsWrapper``), and ``step`` or ``observe`` before ``reset`` raises a
clear error (``OrderEnforcingWrapper``).  :func:`raw_env` is the env alone (an illegal
action raises IllegalMoveError there).

Rewards (``reward=``, see ``_common.seat_values``): ``"points"`` (the default) gives each
turn's points (going-out bonus included) to the seat that scored them, so an agent's
return is its final score; ``"margin"`` each seat's points less the mean of the others'
(zero-sum; the return is the final margin); ``"win"`` +1 or -1 at the end (OpenSpiel's
returns).

Seeds: ``reset(seed=s)`` seeds the env's random stream (numpy's ``SeedSequence(s)``) and
each game's seed is drawn from it, so envs seeded s and s + 1 play different deals; a
reset without a seed continues the stream, and an env never seeded draws it from the
operating system's entropy.  Every agent's ``infos[agent]["seed"]`` after a reset is the
game seed: ``Game(players, seed)`` deals the same game, and ``reset(options={"game_seed":
seed})`` plays it again.  Render modes: ``"human"`` (the board and scores printed after
each step), ``"ansi"`` (that text returned) and ``"rgb_array"`` (the window as a picture).
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from .. import _layout
from ..errors import QwirkleError, show
from . import _common
from ._kernels import E_DROPPED
from .encoding import DEFAULT_WINDOW, action_count
from .observation import N_PLANES, PLANE_LEGAL
from .vector import VectorQwirkle

__all__ = ["ILLEGAL_REWARD", "QwirkleAEC", "env", "raw_env"]


class QwirkleAEC(AECEnv):  # type: ignore[misc, unused-ignore]
    """The AEC environment (see the module docstring)."""

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["human", "ansi", "rgb_array"],
        "render_fps": _common.RENDER_FPS,
        "name": "qwirkle_v0",
        "is_parallelizable": False,
    }

    def __init__(
        self,
        players: int = 2,
        window: int = DEFAULT_WINDOW,
        render_mode: str | None = None,
        reward: str = "points",
        observation: str = "flat",
    ) -> None:
        super().__init__()
        render_mode = _common.check_render_mode(render_mode, self.metadata["render_modes"])
        self.reward = _common.check_reward(reward)
        self.layout = _common.check_layout(observation)
        self._vec = VectorQwirkle(1, players=players, game_seeds=0, window=window, autoreset=False)
        self.render_mode = render_mode
        self.players = self._vec.players
        self.window = self._vec.window
        self.possible_agents = [f"player_{p}" for p in range(players)]
        self.agents = list(self.possible_agents)
        low, high = _common.observation_bounds(window)  # each entry's own range, not int16's
        mask_space = spaces.Box(low=0, high=1, shape=(action_count(window),), dtype=np.int8)
        if self.layout == "planes":  # the planes as "observation" (an array, as PettingZoo expects)
            low, high = _common.features_bounds(window)
            self._observation_space = spaces.Dict(
                {
                    "observation": spaces.Box(0, 1, (N_PLANES, window, window), np.uint8),
                    "features": spaces.Box(low=low, high=high, dtype=np.int16),
                    "action_mask": mask_space,
                }
            )
        else:
            self._observation_space = spaces.Dict(
                {"observation": spaces.Box(low=low, high=high, dtype=np.int16), "action_mask": mask_space}
            )
        self._action_space = spaces.Discrete(action_count(window))
        self._rng: np.random.Generator | None = None  # the stream of game seeds (seeded by reset)
        self._values = np.zeros(players)  # each seat's value (seat_values) after the last step

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

    def _check_reset(self) -> None:
        """A clear error for a call before the first ``reset`` (the wrapped ``env()``
        has PettingZoo's own; the raw env's attributes do not exist yet)."""
        if not hasattr(self, "agent_selection"):
            raise QwirkleError("call reset() first: there is no game yet")

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        self._check_reset()
        if not self.agents:  # (PettingZoo's own last() would raise a KeyError)
            raise QwirkleError("the game is over and every agent has stepped None: call reset()")
        return super().last(observe)  # type: ignore[no-any-return]

    def observe(self, agent: str) -> dict[str, npt.NDArray[Any]]:
        self._check_reset()
        seat = self._seat(agent)
        # (An agent removed once done is in neither dict: it has no legal action.)
        live = agent in self.agents and not (self.terminations[agent] or self.truncations[agent])
        if seat == self._to_move() and live:
            mask = self._vec.masks[0].astype(np.int8)
        else:
            mask = np.zeros(self._vec.action_count, np.int8)
        if self.layout == "planes":
            planes, features = _common.planes_observation(self._vec, 0, seat)
            if not mask.any():  # a done agent's, as its mask
                planes[PLANE_LEGAL] = 0
            return {"observation": planes, "features": features, "action_mask": mask}
        return {"observation": _common.flat_observation(self._vec, 0, seat), "action_mask": mask}

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        number = _common.check_seed(seed)  # both checked before anything changes
        game_seed = _common.read_options(options)
        if number is not None or self._rng is None:
            self._rng, _ = seeding.np_random(number)  # None: the operating system's entropy
        if game_seed is None:
            game_seed = _common.draw_game_seed(self._rng)
        self._vec.reset(game_seeds=game_seed)
        self._values = np.zeros(self.players)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        dealt = self._vec.game_seed(0)
        self.infos: dict[str, dict[str, Any]] = {a: {"seed": dealt} for a in self.agents}
        self.agent_selection = self.possible_agents[self._to_move()]

    def step(self, action: int) -> None:
        self._check_reset()
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None:
                raise QwirkleError(f"{agent} is done: its only action is None, got {show(action)}")
            self._was_dead_step(action)
            return
        number = _common.read_action(action)
        self._vec._step(np.array([number], np.int64))
        terminated, truncated = bool(self._vec.terminated[0]), bool(self._vec.truncated[0])
        over = terminated or truncated
        before = self._values
        self._values = _common.seat_values(self._vec._scores[0, : self.players], self.reward, over)
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: float(self._values[p] - before[p]) for p, a in enumerate(self.agents)}
        outside = int(self._vec._env[0, E_DROPPED])
        if over:
            scores = [int(s) for s in self._vec._final_scores[0, : self.players]]
            for a in self.agents:
                self.terminations[a] = terminated
                self.truncations[a] = truncated
                self.infos[a] = {"final_scores": scores}
        else:
            self.agent_selection = self.possible_agents[self._to_move()]
            self.infos[self.agent_selection] = {"moves_outside_window": outside}
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | npt.NDArray[np.uint8] | None:
        self._check_reset()
        if self.render_mode in ("ansi", "human"):
            scores = " ".join(f"{a}={s}" for a, s in zip(self.possible_agents, self._vec.scores(0)))
            text = f"{self._vec.board(0)}\nscores: {scores}; to move: {self.agent_selection}\n"
            if self.render_mode == "ansi":
                return text
            print(text)
            return None
        if self.render_mode == "rgb_array":
            return _common.rgb_array(self._vec.obs["board"][0])
        return None

    def close(self) -> None:
        pass


# What an illegal action costs its author in env() (the classic envs' and pgx's -1).
ILLEGAL_REWARD = -1.0


def raw_env(
    players: int = 2,
    window: int = DEFAULT_WINDOW,
    render_mode: str | None = None,
    reward: str = "points",
    observation: str = "flat",
) -> QwirkleAEC:
    """The AEC env alone: an illegal action raises IllegalMoveError, changing nothing."""
    return QwirkleAEC(players=players, window=window, render_mode=render_mode, reward=reward, observation=observation)


def env(
    players: int = 2,
    window: int = DEFAULT_WINDOW,
    render_mode: str | None = None,
    reward: str = "points",
    observation: str = "flat",
) -> AECEnv:
    """The AEC env wrapped as PettingZoo's classic envs are: an illegal action ends the
    game with ILLEGAL_REWARD for its author (0 for the others), an action outside the
    space fails an assertion, and step, observe or render before reset raises."""
    wrapped: AECEnv = raw_env(
        players=players, window=window, render_mode=render_mode, reward=reward, observation=observation
    )
    wrapped = wrappers.TerminateIllegalWrapper(wrapped, illegal_reward=ILLEGAL_REWARD)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)
