"""Text views of a board."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .board import Board


def board_text(board: Board) -> str:
    """A plain-text grid: two letters per tile ('Rc' = red circle), '.' for empty,
    with row numbers on the left and the first column's number on top."""
    bounds = board.bounds()
    if bounds is None:
        return "(empty board)"
    r0, r1, c0, c1 = bounds
    label = max(len(str(r0)), len(str(r1)))
    lines = [" " * label + f" cols {c0}..{c1}"]
    for r in range(r0, r1 + 1):
        cells = []
        for c in range(c0, c1 + 1):
            t = board.tile_at(r, c)
            cells.append(t.text() if t is not None else " .")
        lines.append(f"{r:>{label}} " + " ".join(cells))
    return "\n".join(lines)
