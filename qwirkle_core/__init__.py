"""qwirkle_core: every legal Qwirkle placement and its score, exactly and fast.

>>> from qwirkle_core import Board, parse_tiles
>>> board = Board("Rc@0,0 Rs@0,1 Rd@0,2")
>>> moves = board.legal_moves(parse_tiles("Rl Rx Yc Bb"))
>>> len(moves), int(moves.scores.max())
(66, 6)
"""

from __future__ import annotations

from .board import Board, CellMasks
from .errors import (
    IllegalMoveError,
    InvalidMoveError,
    InvalidPositionError,
    InvalidTileError,
    QwirkleError,
)
from .moves import Move, MoveList
from .tiles import ALL_TILES, Color, Shape, Tile, parse_tiles

__version__ = "0.1.0"

__all__ = [
    "ALL_TILES",
    "Board",
    "CellMasks",
    "Color",
    "IllegalMoveError",
    "InvalidMoveError",
    "InvalidPositionError",
    "InvalidTileError",
    "Move",
    "MoveList",
    "QwirkleError",
    "Shape",
    "Tile",
    "__version__",
    "parse_tiles",
]
