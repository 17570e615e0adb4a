"""The planes layout of an observation: binary ``[C, W, W]`` planes of the turn's window
beside a vector of the rest, the window's origin included (numpy only).

Today's flat layout (``_common.flat_observation``) gives the board as kind ids, -1 for
empty, in one flattened plane; a convolutional network wants one binary plane per
feature, as pgx and PettingZoo's classic envs give them.  The planes, per window cell
(``PLANE_*``, ``N_PLANES`` = 26):

- ``PLANE_COLOURS + c`` (0-5), ``PLANE_SHAPES + s`` (6-11): a tile of colour c / shape s
  on the board at the turn's start;
- ``PLANE_PLACED_COLOURS + c`` (12-17), ``PLANE_PLACED_SHAPES + s`` (18-23): the same for
  the tiles placed so far this turn;
- ``PLANE_EMPTY`` (24): no tile at all;
- ``PLANE_LEGAL`` (25): some PLACE sub-step is legal there now (the mask's PLACE block,
  any kind; all 0 for a seat not to move).

A tile's colour and shape planes together name its kind.  The vector (``features``,
int16[``N_FEATURES``] = the flat layout's 90 entries after the board, then 2) is the
hand counts (held; marked), the scalars rotated to the seat, and the window's origin:
the board coordinates (row, col) of window cell (0, 0), which a PLACE id's cell is
relative to, so that an agent can tell where the window moved between turns.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from .. import _constants
from ..errors import QwirkleError, show
from .encoding import action_count

__all__ = [
    "N_FEATURES",
    "N_PLANES",
    "PLANE_COLOURS",
    "PLANE_EMPTY",
    "PLANE_LEGAL",
    "PLANE_PLACED_COLOURS",
    "PLANE_PLACED_SHAPES",
    "PLANE_SHAPES",
    "board_planes",
]

PLANE_COLOURS = 0
PLANE_SHAPES = 6
PLANE_PLACED_COLOURS = 12
PLANE_PLACED_SHAPES = 18
PLANE_EMPTY = 24
PLANE_LEGAL = 25
N_PLANES = 26
N_FEATURES = 72 + 18 + 2  # hand counts, scalars (envs._kernels.N_SCALARS), the window's origin


def board_planes(board: npt.NDArray[np.int8], masks: npt.NDArray[np.bool_]) -> npt.NDArray[np.uint8]:
    """uint8[n, N_PLANES, W, W] (a new array) from a batch of the envs' board
    observations (int8[n, 2, W, W]: kinds at the turn's start, and placed this turn; -1
    empty) and their masks (bool[n, 36·W² + 38]; all False where the seat is not to move)."""
    if not (isinstance(board, np.ndarray) and board.dtype == np.int8 and board.ndim == 4 and board.shape[1] == 2):
        raise QwirkleError(f"board is an int8 array of shape (n, 2, W, W), got {_describe(board)}")
    n, _, width, height = board.shape
    if width != height or width < 1:
        raise QwirkleError(f"board is an int8 array of shape (n, 2, W, W), got {_describe(board)}")
    if board.size and not (-1 <= int(board.min()) and int(board.max()) < _constants.N_KINDS):
        raise QwirkleError("board holds kinds 0..35 and -1 (empty)")
    actions = action_count(width)
    if not (isinstance(masks, np.ndarray) and masks.dtype == np.bool_ and masks.shape == (n, actions)):
        raise QwirkleError(f"masks is a bool array of shape ({n}, {actions}), got {_describe(masks)}")
    out = np.zeros((n, N_PLANES, width, width), np.uint8)
    for layer, colours in ((0, PLANE_COLOURS), (1, PLANE_PLACED_COLOURS)):
        env, rows, cols = np.nonzero(board[:, layer] >= 0)
        kinds = board[env, layer, rows, cols].astype(np.int64)
        out[env, colours + kinds // 6, rows, cols] = 1
        out[env, colours + 6 + kinds % 6, rows, cols] = 1  # the shape planes follow the colours'
    out[:, PLANE_EMPTY] = (board[:, 0] < 0) & (board[:, 1] < 0)
    place = masks[:, : _constants.N_KINDS * width * width].reshape(n, _constants.N_KINDS, width, width)
    out[:, PLANE_LEGAL] = place.any(axis=1)
    return out


def _describe(value: object) -> str:
    """An array as its dtype and shape, anything else as the library shows values."""
    if isinstance(value, np.ndarray):
        return f"{value.dtype} of shape {value.shape}"
    return show(value)


def origin_bounds(width: int) -> tuple[int, int]:
    """The lowest and highest coordinate of a window's origin: the board's tiles lie
    within N_TILES - 1 cells of the first (at (0, 0)), and the origin is the middle
    cell of their bounding box less width // 2 (with a margin: an int16 bound)."""
    reach = _constants.N_TILES + width
    return -reach, reach

