"""What the framework envs share: the flat observation and a picture (numpy only)."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from .. import _constants, _layout
from .._ints import int_value
from ..errors import QwirkleError, show
from ..render import SVG_COLORS
from ..tiles import Color
from . import _kernels as k
from . import observation as planes_layout
from .vector import VectorQwirkle

# The seed a wrapper's single env takes: VectorQwirkle's limit for one env.
SEED_END = 2**63 - 2


# What a "human" render prints, and how often a viewer should refresh (turns are slow).
RENDER_FPS = 4


def check_render_mode(render_mode: Any, modes: list[str]) -> str | None:
    """``render_mode``: None or one of ``modes`` (a QwirkleError, which is a ValueError
    as the frameworks expect, names the modes)."""
    if render_mode is not None and (not isinstance(render_mode, str) or render_mode not in modes):
        raise QwirkleError(f"render_mode is None or one of {modes}, got {show(render_mode)}")
    return render_mode


def check_seed(seed: Any) -> int | None:
    """A reset's seed: None, or an integer 0 .. SEED_END - 1 (the seed of the env's
    random stream, from which each episode's game seed is drawn)."""
    if seed is None:
        return None
    number = int_value(seed)
    if number is None or not 0 <= number < SEED_END:
        raise QwirkleError(f"a seed is None or an integer 0..2**63 - 3, got {show(seed)}")
    return number


def draw_game_seed(rng: np.random.Generator) -> int:
    """The next episode's game seed, drawn from the env's stream.

    A stream is numpy's PCG64 on ``SeedSequence(seed)``, so the streams of seeds s and
    s + 1 (a vector env's sub-envs) share no run of game seeds, where the seeds s, s + 1,
    ... of a counter would (two seeds of 0 .. 2**63 - 3 drawn alike: about 1 in 9·10**18
    per pair of episodes).  An env reset without a seed draws its stream from the
    operating system's entropy."""
    return int(rng.integers(0, SEED_END))


def read_options(options: Any) -> int | None:
    """A reset's options: None, or a dict whose key ``"game_seed"``, if there, is the
    game to deal, as ``Game(players, game_seed)`` deals it (an episode's ``info["seed"]``
    replays it).  Other keys are left alone: frameworks and their checkers pass their own
    (PettingZoo's ``api_test`` passes ``{"options": 1}``).  Returns that seed or None."""
    if options is None:
        return None
    if not isinstance(options, dict):
        raise QwirkleError(f"options is None or a dict, got {show(options)}")
    if "game_seed" not in options:
        return None
    seed = int_value(options["game_seed"])
    if seed is None or not 0 <= seed < SEED_END:
        raise QwirkleError(f"game_seed is an integer 0..2**63 - 3, got {show(options['game_seed'])}")
    return seed


# The reward conventions: what an episode's rewards sum to (see docs/envs.md).
REWARDS = ("points", "margin", "win")


def check_reward(reward: Any) -> str:
    """``reward``: one of REWARDS."""
    if not isinstance(reward, str) or reward not in REWARDS:
        raise QwirkleError(f"reward is one of {list(REWARDS)}, got {show(reward)}")
    return reward


def seat_values(scores: npt.NDArray[np.int64], reward: str, over: bool) -> npt.NDArray[np.float64]:
    """Each seat's value of a position under a reward convention: a step's reward is
    the change of the value, so an episode's rewards sum to the value at its end (every
    seat starts a game at 0 in each convention).

    - ``points``: the seat's score;
    - ``margin``: the seat's score less the mean of the other seats' scores (zero-sum);
    - ``win``: 0 until the game is over (ended or truncated), then +1 to each seat with
      the top score, ties included, and -1 to the others (OpenSpiel's returns)."""
    values = scores.astype(np.float64)
    players = values.shape[0]
    if reward == "margin":
        margins: npt.NDArray[np.float64] = values - (values.sum() - values) / (players - 1)
        return margins
    if reward == "win":
        if not over:
            return np.zeros(players)
        outcome: npt.NDArray[np.float64] = np.where(values == values.max(), 1.0, -1.0)
        return outcome
    return values


def read_action(action: Any) -> int:
    """An action: an integer that fits in int64 (the env then says whether it is legal),
    or a 0-d integer array holding one (what a policy's ``predict`` gives for one
    observation, and what Gymnasium's ``Discrete.contains`` accepts)."""
    if isinstance(action, np.ndarray) and action.ndim == 0 and action.dtype.kind in "iu":
        action = action[()]
    number = int_value(action)
    if number is None or not -(2**63) <= number < 2**63:
        raise QwirkleError(f"an action is an integer (a sub-step id), got {show(action)}")
    return number


def observation_size(width: int) -> int:
    """Length of the flat observation: 2·W² board cells, 72 hand counts, the scalars."""
    return 2 * width * width + 72 + k.N_SCALARS


# No game scores more: a move of k tiles scores at most its line and one crossing line a
# tile, each at most 6 + 6 (a Qwirkle), so 12(k + 1) <= 24k, and 108 tiles are placed at
# most once each; then the going-out bonus.  (Self-play scores are about 200.)
SCORE_BOUND = 24 * _constants.N_TILES + _constants.GOING_OUT_BONUS


def observation_bounds(width: int) -> tuple[npt.NDArray[np.int16], npt.NDArray[np.int16]]:
    """The lowest and highest value of each entry of the flat observation (the Box
    bounds the environments declare): kinds -1..35 on both board planes, hand counts
    0..3 (copies of a kind), then the scalars: scores 0..SCORE_BOUND, hand sizes 0..6,
    the bag 0..108, players 2..6, the opening's tiles 0..6, the seat 0..5, the sub-steps
    and the marks of the turn 0..6."""
    cells = 2 * width * width
    low = np.concatenate((np.full(cells, -1), np.zeros(72), np.zeros(k.N_SCALARS))).astype(np.int16)
    high = np.concatenate(
        (np.full(cells, _constants.N_KINDS - 1), np.full(72, _constants.COPIES_PER_KIND), np.zeros(k.N_SCALARS))
    ).astype(np.int16)
    scalars = high[cells + 72 :]  # (a view: filled in place)
    scalars[k.O_SCORES : k.O_SCORES + 6] = SCORE_BOUND
    scalars[k.O_HAND_SIZES : k.O_HAND_SIZES + 6] = _constants.HAND_SIZE
    scalars[k.O_BAG] = _constants.N_TILES
    scalars[k.O_PLAYERS] = _constants.MAX_PLAYERS
    scalars[k.O_OPENING] = _constants.HAND_SIZE
    scalars[k.O_SEAT] = _constants.MAX_PLAYERS - 1
    scalars[k.O_PLACED] = _constants.HAND_SIZE
    scalars[k.O_MARKED] = _constants.HAND_SIZE
    low[cells + 72 + k.O_PLAYERS] = 2
    return low, high


def flat_observation(env: VectorQwirkle, i: int, seat: int) -> npt.NDArray[np.int16]:
    """Env i as ``seat`` sees it, flat (int16): the board planes (window kinds, -1
    empty; the tiles placed this turn), the hand counts (still held; marked), then the
    scalars (see ``vector.SCALARS``) rotated so that seat comes first.  For a seat not
    to move, its own hand, nothing marked, and the scalars rotated to it."""
    obs = env.obs
    board = obs["board"][i].ravel()
    if seat == int(env._metas[i, _layout.M_PLAYER]):
        return np.concatenate((board, obs["hand"][i].ravel(), obs["scalars"][i])).astype(np.int16)
    hand = np.zeros(72, np.int16)
    size = int(env._hand_sizes[i, seat])
    np.add.at(hand, env._hands[i, seat, :size], 1)
    scalars = obs["scalars"][i].copy()
    players = env.players
    for j in range(players):
        p = (seat + j) % players
        scalars[k.O_SCORES + j] = env._scores[i, p]
        scalars[k.O_HAND_SIZES + j] = env._hand_sizes[i, p]
    scalars[k.O_SEAT] = seat
    return np.concatenate((board, hand, scalars)).astype(np.int16)


# The observation layouts (``observation=``): today's flat int16 vector, or binary planes
# of the window beside a vector of the rest (envs/observation.py).
LAYOUTS = ("flat", "planes")


def check_layout(layout: Any) -> str:
    """``observation``: one of LAYOUTS."""
    if not isinstance(layout, str) or layout not in LAYOUTS:
        raise QwirkleError(f"observation is one of {list(LAYOUTS)}, got {show(layout)}")
    return layout


def features_bounds(width: int) -> tuple[npt.NDArray[np.int16], npt.NDArray[np.int16]]:
    """The bounds of the planes layout's features: the flat layout's entries after the
    board, then the window's origin."""
    low, high = observation_bounds(width)
    cells = 2 * width * width
    first, last = planes_layout.origin_bounds(width)
    return (
        np.concatenate((low[cells:], [first, first])).astype(np.int16),
        np.concatenate((high[cells:], [last, last])).astype(np.int16),
    )


def planes_observation(env: VectorQwirkle, i: int, seat: int) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.int16]]:
    """Env i as ``seat`` sees it in the planes layout: (uint8[N_PLANES, W, W] binary
    planes, int16[N_FEATURES] features), from the same arrays as the flat layout (see
    envs/observation.py).  The legal-cell plane is all 0 unless ``seat`` is to move."""
    flat = flat_observation(env, i, seat)
    planes = planes_layout.board_planes(env.obs["board"][i : i + 1], env.masks[i : i + 1])[0]
    if seat != int(env._metas[i, _layout.M_PLAYER]):
        planes[planes_layout.PLANE_LEGAL] = 0
    origin = env._env[i, k.E_TOP : k.E_LEFT + 1]
    features = np.concatenate((flat[2 * env.window * env.window :], origin)).astype(np.int16)
    return planes, features


_PALETTE = np.array(
    [[int(SVG_COLORS[c][1 + 2 * j : 3 + 2 * j], 16) for j in range(3)] for c in Color], np.uint8
)
# 5 x 5 stamps, one per shape (circle, square, diamond, clover, star, starburst).
_STAMPS = np.array(
    [
        [[0, 1, 1, 1, 0], [1, 1, 1, 1, 1], [1, 1, 1, 1, 1], [1, 1, 1, 1, 1], [0, 1, 1, 1, 0]],
        [[1, 1, 1, 1, 1], [1, 1, 1, 1, 1], [1, 1, 1, 1, 1], [1, 1, 1, 1, 1], [1, 1, 1, 1, 1]],
        [[0, 0, 1, 0, 0], [0, 1, 1, 1, 0], [1, 1, 1, 1, 1], [0, 1, 1, 1, 0], [0, 0, 1, 0, 0]],
        [[0, 1, 0, 1, 0], [1, 1, 1, 1, 1], [0, 1, 1, 1, 0], [1, 1, 1, 1, 1], [0, 1, 0, 1, 0]],
        [[1, 0, 0, 0, 1], [0, 1, 1, 1, 0], [0, 1, 1, 1, 0], [0, 1, 1, 1, 0], [1, 0, 0, 0, 1]],
        [[1, 0, 1, 0, 1], [0, 1, 1, 1, 0], [1, 1, 1, 1, 1], [0, 1, 1, 1, 0], [1, 0, 1, 0, 1]],
    ],
    bool,
)
CELL = 8


def rgb_array(board_planes: npt.NDArray[Any]) -> npt.NDArray[np.uint8]:
    """An RGB picture (uint8[W·8, W·8, 3]) of the window: dark tiles with a coloured
    stamp of their shape; tiles placed this turn on a lighter background."""
    width = board_planes.shape[1]
    image = np.full((width * CELL, width * CELL, 3), 233, np.uint8)
    for plane, background in ((0, 29), (1, 90)):
        rows, cols = np.nonzero(board_planes[plane] >= 0)
        for r, c in zip(rows.tolist(), cols.tolist()):
            kind = int(board_planes[plane, r, c])
            cell = image[r * CELL : (r + 1) * CELL, c * CELL : (c + 1) * CELL]
            cell[1:-1, 1:-1] = background
            stamp = cell[1 + 1 : 1 + 6, 1 + 1 : 1 + 6]
            stamp[_STAMPS[kind % 6]] = _PALETTE[kind // 6]
    return image
