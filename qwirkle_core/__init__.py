"""qwirkle_core: every legal Qwirkle placement and its score, exactly and fast.

>>> from qwirkle_core import Board, parse_tiles
>>> board = Board("Rc@0,0 Rs@0,1 Rd@0,2")
>>> moves = board.legal_moves(parse_tiles("Rl Rx Yc Bb"))
>>> len(moves), int(moves.scores.max())
(66, 6)
"""

# The names below are imported on first use (PEP 562), not by ``import qwirkle_core``
# itself.  Importing numpy and numba takes 0.3 s or more; the command line installs its
# Ctrl-C and SIGTERM handling before that (qwirkle_core.cli), and it can only do so if
# importing the package it lives in does not import them first.

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

# Each public name and the module that defines it.
_HOMES = {
    "ALL_TILES": "tiles",
    "Action": "game",
    "Board": "board",
    "CellMasks": "board",
    "Color": "tiles",
    "Game": "game",
    "IllegalMoveError": "errors",
    "InvalidMoveError": "errors",
    "InvalidPositionError": "errors",
    "InvalidTileError": "errors",
    "Move": "moves",
    "MoveList": "moves",
    "QwirkleError": "errors",
    "Shape": "tiles",
    "Tile": "tiles",
    "parse_tiles": "tiles",
}

__all__ = [
    "ALL_TILES",
    "Action",
    "Board",
    "CellMasks",
    "Color",
    "Game",
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

if TYPE_CHECKING:
    from .board import Board, CellMasks
    from .errors import (
        IllegalMoveError,
        InvalidMoveError,
        InvalidPositionError,
        InvalidTileError,
        QwirkleError,
    )
    from .game import Action, Game
    from .moves import Move, MoveList
    from .tiles import ALL_TILES, Color, Shape, Tile, parse_tiles
else:

    def __getattr__(name: str) -> Any:
        """A public name, or a submodule (``qwirkle_core.queries``), imported on first use."""
        home = _HOMES.get(name)
        if home is not None:
            value = getattr(importlib.import_module(f".{home}", __name__), name)
        elif not name.startswith("__"):
            try:
                value = importlib.import_module(f".{name}", __name__)
            except ModuleNotFoundError as exc:
                if exc.name != f"{__name__}.{name}":
                    raise
                raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
        else:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        globals()[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*globals(), *__all__})
