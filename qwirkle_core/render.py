"""Pictures of a board: SVG (for browsers and Jupyter), plain text, and ANSI colour.

All three views draw the rectangle of cells that holds the tiles, grown to include
whatever else is shown (a highlighted move's cells, the legal cells), with the row and
column numbers of the board's own coordinates on the edges.  Rows grow south, columns
east, as everywhere in the project.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any
from xml.sax.saxutils import escape

from ._iterables import items_of
from .errors import InvalidMoveError, InvalidTileError, QwirkleError, show
from .moves import Move, Placement, as_move
from .tiles import ALL_TILES, Color, Shape, Tile, as_tile

if TYPE_CHECKING:
    from .board import Board
    from .game import Action

# Bright enough to read on the near-black tiles, and told apart by people with the
# commonest colour-vision deficiencies mostly through the shapes, which is how the
# physical game works too.
SVG_COLORS: dict[Color, str] = {
    Color.RED: "#e8352e",
    Color.ORANGE: "#ff8f1f",
    Color.YELLOW: "#ffdc2e",
    Color.GREEN: "#35b94c",
    Color.BLUE: "#2f8cf0",
    Color.PURPLE: "#b061e8",
}
ANSI_COLORS: dict[Color, int] = {  # xterm 256-colour palette indices
    Color.RED: 196,
    Color.ORANGE: 208,
    Color.YELLOW: 226,
    Color.GREEN: 40,
    Color.BLUE: 33,
    Color.PURPLE: 135,
}
ANSI_RESET = "\x1b[0m"
_ANSI_CODE = re.compile("\x1b\\[[0-9;]*m")
# One narrow (single-column) symbol per shape, so that the grid stays aligned.
ANSI_SYMBOLS: dict[Shape, str] = {
    Shape.CIRCLE: "●",
    Shape.SQUARE: "■",
    Shape.DIAMOND: "◆",
    Shape.CLOVER: "♣",
    Shape.STAR4: "✦",
    Shape.STAR8: "✸",
}
COLOR_NAMES = {c: c.name.lower() for c in Color}
SHAPE_NAMES = {
    Shape.CIRCLE: "circle",
    Shape.SQUARE: "square",
    Shape.DIAMOND: "diamond",
    Shape.CLOVER: "clover",
    Shape.STAR4: "four-pointed star",
    Shape.STAR8: "eight-pointed star",
}

TILE_FILL = "#1d1d20"
TILE_EDGE = "#000000"
BOARD_FILL = "#e9e5da"
GRID_LINE = "#d3cdbd"
LABEL_FILL = "#6b6557"
HIGHLIGHT = "#0fb5c8"
LEGAL_FILL = "#cfe8cf"
LEGAL_EDGE = "#5a9a5a"
DEAD_MARK = "#b56a5a"

Cell = tuple[int, int]
# The most rows or columns a picture spans: a game's tiles span at most 108 cells, and
# what is drawn beside them (a move, the legal cells) lies next to them.  A highlighted
# move far from the tiles is refused rather than drawn as a picture of empty cells.
MAX_VIEW = 256
MAX_CELL_SIZE = 1000


def tile_name(tile: Tile) -> str:
    """'red circle', 'blue four-pointed star'."""
    if not isinstance(tile, Tile):
        raise InvalidTileError(f"expected a Tile, got {show(tile)}")
    return f"{COLOR_NAMES[tile.color]} {SHAPE_NAMES[tile.shape]}"


def _highlight_placements(board: Board, highlight: Move | Action | str | Iterable[Any] | None) -> list[Placement]:
    """The highlighted move's placements, checked against the board: a highlighted
    cell either holds that very tile (a move already played) or is empty (a move
    being proposed, drawn as a ghost tile)."""
    if highlight is None:
        return []
    if isinstance(highlight, (Move, str, bytes)) or not isinstance(highlight, Iterable):
        # a Move, its text, a place Action (as Game.push returns it), or no move at all
        try:
            placements = list(as_move(highlight).placements)
        except InvalidMoveError as exc:
            raise InvalidMoveError(f"highlight (a Move, an Action, a move's text or (row, col, Tile) items): {exc}") from None
    else:
        items = list(highlight)
        placements = list(Move(items).placements) if items else []
    for r, c, t in placements:
        on_board = board.tile_at(r, c)
        if on_board is not None and on_board != t:
            raise InvalidMoveError(
                f"the highlighted move puts {t.text()} on ({r}, {c}), where the board has {on_board.text()}"
            )
    return placements


def _check_board(board: object) -> Board:
    from .board import Board

    if not isinstance(board, Board):
        raise QwirkleError(f"expected a Board, got {show(board)}")
    return board


def _hand_kinds(hand: object) -> list[int]:
    """The kinds of the tiles to draw under the board (any number of Tiles)."""
    if isinstance(hand, (str, bytes)) or not isinstance(hand, Iterable):
        raise InvalidTileError(f"a hand is a sequence of Tiles, got {show(hand)}")
    kinds = [as_tile(t, "a hand").kind for t in itertools.islice(hand, MAX_VIEW + 1)]
    if len(kinds) > MAX_VIEW:
        raise InvalidTileError(f"at most {MAX_VIEW} tiles can be drawn as a hand, got {len(kinds)}")
    return kinds


def _legal_cells(board: Board) -> list[tuple[int, int, list[Tile]]]:
    """Every empty cell beside the tiles with the tiles that fit there alone."""
    coords, masks = board.legal_tile_masks()
    cells = []
    for (r, c), mask in zip(coords.tolist(), masks.tolist()):
        fits = [ALL_TILES[k] for k in range(len(ALL_TILES)) if (int(mask) >> k) & 1]
        cells.append((int(r), int(c), fits))
    return cells


def _region(board: Board, extra: Iterable[Cell]) -> tuple[int, int, int, int] | None:
    """(min_row, max_row, min_col, max_col) covering the tiles and the ``extra`` cells."""
    rows: list[int] = []
    cols: list[int] = []
    bounds = board.bounds()
    if bounds is not None:
        rows += [bounds[0], bounds[1]]
        cols += [bounds[2], bounds[3]]
    for r, c in extra:
        rows.append(r)
        cols.append(c)
    if not rows:
        return None
    r0, r1, c0, c1 = min(rows), max(rows), min(cols), max(cols)
    if r1 - r0 >= MAX_VIEW or c1 - c0 >= MAX_VIEW:
        raise InvalidMoveError(
            f"the picture would span {r1 - r0 + 1} x {c1 - c0 + 1} cells (at most {MAX_VIEW} each way): "
            "the highlighted move lies too far from the tiles"
        )
    return r0, r1, c0, c1


def _label_step(labels: Sequence[str], room: float, char_width: float) -> int:
    """Label every column when the numbers fit their cells; otherwise every k-th one,
    so that long numbers (a board far from the origin) never run into each other."""
    widest = max(len(s) for s in labels) * char_width + char_width  # a gap between labels
    return max(1, math.ceil(widest / room))


# ------------------------------------------------------------------------ SVG
def _fmt(x: float) -> str:
    """A short decimal: '12', '12.5', '-3.25' (SVG files stay small and diffable)."""
    text = f"{x:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def _polygon(points: Iterable[tuple[float, float]]) -> str:
    return "M" + " L".join(f"{_fmt(x)},{_fmt(y)}" for x, y in points) + " Z"


def _star(points: int, outer: float, inner: float, turn: float) -> str:
    """A star with ``points`` tips at radius ``outer`` and notches at ``inner``;
    ``turn`` (radians) rotates it; the first tip points up when turn is 0."""
    vertices = []
    for i in range(2 * points):
        radius = outer if i % 2 == 0 else inner
        angle = turn + math.pi * i / points - math.pi / 2
        vertices.append((radius * math.cos(angle), radius * math.sin(angle)))
    return _polygon(vertices)


def shape_svg(shape: Shape, size: float, fill: str) -> str:
    """The shape centred on (0, 0), about ``size`` across (a number 0..MAX_CELL_SIZE),
    filled with ``fill`` (a CSS colour, as text)."""
    shape = Shape(shape)  # a Shape or its number, else InvalidTileError
    if isinstance(size, bool) or not isinstance(size, (int, float)) or not 0 <= size <= MAX_CELL_SIZE:
        raise QwirkleError(f"size must be a number from 0 to {MAX_CELL_SIZE}, got {show(size)}")
    if not isinstance(fill, str):
        raise QwirkleError(f"fill is a colour as text (e.g. '#e8352e'), got {show(fill)}")
    r = size / 2
    fill_attr = f'fill="{escape(fill, {chr(34): "&quot;"})}"'
    if shape == Shape.CIRCLE:
        return f'<circle r="{_fmt(0.86 * r)}" {fill_attr}/>'
    if shape == Shape.SQUARE:
        half = 0.74 * r
        return f'<rect x="{_fmt(-half)}" y="{_fmt(-half)}" width="{_fmt(2 * half)}" height="{_fmt(2 * half)}" {fill_attr}/>'
    if shape == Shape.DIAMOND:
        return f'<path d="{_polygon([(0, -r), (0.8 * r, 0), (0, r), (-0.8 * r, 0)])}" {fill_attr}/>'
    if shape == Shape.CLOVER:
        # Four round leaves on a round heart: overlapping circles of one fill.
        leaf = 0.4 * r
        away = 0.55 * r
        circles = [f'<circle r="{_fmt(0.48 * r)}"/>']
        for dx, dy in ((0, -away), (away, 0), (0, away), (-away, 0)):
            circles.append(f'<circle cx="{_fmt(dx)}" cy="{_fmt(dy)}" r="{_fmt(leaf)}"/>')
        return f"<g {fill_attr}>" + "".join(circles) + "</g>"
    if shape == Shape.STAR4:
        # The game's "criss-cross": four long points towards the corners.
        return f'<path d="{_star(4, 1.08 * r, 0.3 * r, math.pi / 4)}" {fill_attr}/>'
    # Shape.STAR8, the "starburst".
    return f'<path d="{_star(8, r, 0.52 * r, 0)}" {fill_attr}/>'


def _tile_svg(tile: Tile, cell_size: float, css_class: str, extra_attrs: str = "", note: str = "") -> str:
    inset = cell_size * 0.05
    side = cell_size - 2 * inset
    corner = cell_size * 0.12
    title = f"{tile.text()}: {tile_name(tile)}{note}"
    return (
        f'<g class="{css_class}"{extra_attrs}>'
        f"<title>{escape(title)}</title>"
        f'<rect x="{_fmt(inset)}" y="{_fmt(inset)}" width="{_fmt(side)}" height="{_fmt(side)}" '
        f'rx="{_fmt(corner)}" fill="{TILE_FILL}" stroke="{TILE_EDGE}" stroke-width="1"/>'
        f'<g transform="translate({_fmt(cell_size / 2)},{_fmt(cell_size / 2)})">'
        f"{shape_svg(tile.shape, cell_size * 0.66, SVG_COLORS[tile.color])}</g>"
        "</g>"
    )


def board_svg(
    board: Board,
    highlight: Move | Action | str | Iterable[Any] | None = None,
    show_legal_cells: bool = False,
    coordinates: bool = True,
    cell_size: float = 48,
    hand: Sequence[Tile] | None = None,
) -> str:
    """The board as a standalone SVG document.

    Every tile is one ``<g class="tile">`` element (with ``data-row``, ``data-col`` and
    ``data-tile`` attributes and a tooltip).  ``highlight`` (a Move, an Action, a
    move's text, or ``(row, col, Tile)`` items) rings its cells; where such a cell is empty the move's tile is drawn
    faded, as a proposal (``class="proposed-tile"``).  ``show_legal_cells`` marks every
    empty cell beside the tiles (but those under a proposed tile): green with the
    number of kinds that fit there (``class="legal-cell"``), or crossed out where no
    tile fits (``class="dead-cell"``).
    ``hand`` draws those tiles in a row under the board (``class="hand-tile"``).
    """
    _check_board(board)
    if (
        isinstance(cell_size, bool)
        or not isinstance(cell_size, (int, float))
        or not 1 <= cell_size <= MAX_CELL_SIZE
    ):
        raise QwirkleError(f"cell_size must be a number from 1 to {MAX_CELL_SIZE}, got {show(cell_size)}")
    marked = _highlight_placements(board, highlight)
    legal = _legal_cells(board) if show_legal_cells else []
    proposed_cells = {(r, c) for r, c, _ in marked if board.tile_at(r, c) is None}
    region = _region(board, [(r, c) for r, c, _ in marked] + [(r, c) for r, c, _ in legal])
    # An empty board with nothing else to show is drawn as the one cell (0, 0), where
    # the first move may go.
    r0, r1, c0, c1 = region if region is not None else (0, 0, 0, 0)
    n_rows = r1 - r0 + 1
    n_cols = c1 - c0 + 1

    font = cell_size * 0.3
    char_width = font * 0.62  # an average digit's advance in a sans-serif font
    row_labels = [str(r) for r in range(r0, r1 + 1)]
    col_labels = [str(c) for c in range(c0, c1 + 1)]
    if coordinates:
        side_margin = max(cell_size * 0.6, max(len(s) for s in row_labels) * char_width + font)
        top_margin = cell_size * 0.6
    else:
        side_margin = top_margin = cell_size * 0.25
    # Whole pixels, so that at a whole cell size the tiles sit on the pixel grid.
    side_margin, top_margin = math.ceil(side_margin), math.ceil(top_margin)
    grid_width = n_cols * cell_size
    grid_height = n_rows * cell_size
    hand_tiles = [ALL_TILES[k] for k in _hand_kinds(hand)] if hand is not None else []
    hand_height = math.ceil(cell_size * 1.9) if hand_tiles else 0
    width = max(2 * side_margin + grid_width, side_margin + (len(hand_tiles) + 2) * cell_size)
    height = 2 * top_margin + grid_height + hand_height

    def x_of(col: int) -> float:
        return side_margin + (col - c0) * cell_size

    def y_of(row: int) -> float:
        return top_margin + (row - r0) * cell_size

    out = [
        (
            f'<svg xmlns="http://www.w3.org/2000/svg" class="qwirkle-board" width="{_fmt(width)}" '
            f'height="{_fmt(height)}" viewBox="0 0 {_fmt(width)} {_fmt(height)}" '
            'font-family="DejaVu Sans, Helvetica, Arial, sans-serif">'
        ),
        f"<title>Qwirkle board: {len(board)} tiles</title>",
        f'<rect class="background" width="{_fmt(width)}" height="{_fmt(height)}" fill="{BOARD_FILL}"/>',
    ]

    grid = [f'<g class="grid" stroke="{GRID_LINE}" stroke-width="1">']
    for i in range(n_rows + 1):
        y = top_margin + i * cell_size
        grid.append(
            f'<line x1="{_fmt(side_margin)}" y1="{_fmt(y)}" x2="{_fmt(side_margin + grid_width)}" y2="{_fmt(y)}"/>'
        )
    for j in range(n_cols + 1):
        x = side_margin + j * cell_size
        grid.append(
            f'<line x1="{_fmt(x)}" y1="{_fmt(top_margin)}" x2="{_fmt(x)}" y2="{_fmt(top_margin + grid_height)}"/>'
        )
    grid.append("</g>")
    out += grid

    if coordinates:
        labels = [
            f'<g class="coordinates" fill="{LABEL_FILL}" font-size="{_fmt(font)}" text-anchor="middle">'
        ]
        step = _label_step(col_labels, cell_size, char_width)
        for j, text in enumerate(col_labels):
            if j % step:
                continue
            x = side_margin + (j + 0.5) * cell_size
            labels.append(f'<text x="{_fmt(x)}" y="{_fmt(top_margin - font * 0.6)}">{text}</text>')
            labels.append(
                f'<text x="{_fmt(x)}" y="{_fmt(top_margin + grid_height + font * 1.3)}">{text}</text>'
            )
        for i, text in enumerate(row_labels):
            y = top_margin + (i + 0.5) * cell_size + font * 0.35
            left = side_margin - font * 0.4
            right = side_margin + grid_width + font * 0.4
            labels.append(f'<text x="{_fmt(left)}" y="{_fmt(y)}" text-anchor="end">{text}</text>')
            labels.append(f'<text x="{_fmt(right)}" y="{_fmt(y)}" text-anchor="start">{text}</text>')
        labels.append("</g>")
        out += labels

    if legal:
        out.append('<g class="legal-cells">')
        pad = cell_size * 0.08
        for r, c, fits in legal:
            if (r, c) in proposed_cells:
                continue  # the proposed tile covers the mark
            x, y = x_of(c) + pad, y_of(r) + pad
            side = cell_size - 2 * pad
            box = f'x="{_fmt(x)}" y="{_fmt(y)}" width="{_fmt(side)}" height="{_fmt(side)}" rx="{_fmt(pad)}"'
            cell_attrs = f'data-row="{r}" data-col="{c}"'
            if fits:
                tip = f"({r}, {c}): {len(fits)} kinds fit: " + " ".join(t.text() for t in fits)
                out.append(
                    f'<g class="legal-cell" {cell_attrs}><title>{escape(tip)}</title>'
                    f'<rect {box} fill="{LEGAL_FILL}" stroke="{LEGAL_EDGE}" stroke-width="1.5" stroke-dasharray="4 3"/>'
                    f'<text x="{_fmt(x + side / 2)}" y="{_fmt(y + side / 2 + font * 0.35)}" '
                    f'font-size="{_fmt(font)}" text-anchor="middle" fill="{LEGAL_EDGE}">{len(fits)}</text></g>'
                )
            else:
                a, b = pad * 2.5, side - pad * 2.5
                out.append(
                    f'<g class="dead-cell" {cell_attrs}><title>({r}, {c}): no tile fits</title>'
                    f'<path d="M{_fmt(x + a)},{_fmt(y + a)} L{_fmt(x + b)},{_fmt(y + b)} '
                    f'M{_fmt(x + b)},{_fmt(y + a)} L{_fmt(x + a)},{_fmt(y + b)}" '
                    f'stroke="{DEAD_MARK}" stroke-width="2" stroke-linecap="round"/></g>'
                )
        out.append("</g>")

    out.append('<g class="tiles">')
    for r, c, t in board.placements():
        attrs = (
            f' data-row="{r}" data-col="{c}" data-tile="{t.text()}"'
            f' transform="translate({_fmt(x_of(c))},{_fmt(y_of(r))})"'
        )
        out.append(_tile_svg(t, cell_size, "tile", attrs, f" at ({r}, {c})"))
    out.append("</g>")

    if marked:
        out.append('<g class="highlight">')
        ring = cell_size * 0.02
        for r, c, t in marked:
            if board.tile_at(r, c) is None:
                attrs = (
                    f' data-row="{r}" data-col="{c}" data-tile="{t.text()}" opacity="0.6"'
                    f' transform="translate({_fmt(x_of(c))},{_fmt(y_of(r))})"'
                )
                out.append(_tile_svg(t, cell_size, "proposed-tile", attrs, f" proposed at ({r}, {c})"))
            side = cell_size - 2 * ring
            out.append(
                f'<rect class="highlight-cell" data-row="{r}" data-col="{c}" x="{_fmt(x_of(c) + ring)}" '
                f'y="{_fmt(y_of(r) + ring)}" width="{_fmt(side)}" height="{_fmt(side)}" '
                f'rx="{_fmt(cell_size * 0.14)}" fill="none" stroke="{HIGHLIGHT}" '
                f'stroke-width="{_fmt(max(2.0, cell_size * 0.08))}"/>'
            )
        out.append("</g>")

    if hand_tiles:
        y = top_margin * 2 + grid_height + cell_size * 0.7
        out.append(f'<g class="hand" font-size="{_fmt(font)}" fill="{LABEL_FILL}">')
        out.append(f'<text x="{_fmt(side_margin)}" y="{_fmt(y - font * 0.5)}">hand</text>')
        for i, t in enumerate(hand_tiles):
            attrs = f' data-tile="{t.text()}" transform="translate({_fmt(side_margin + i * cell_size)},{_fmt(y)})"'
            out.append(_tile_svg(t, cell_size, "hand-tile", attrs, " in the hand"))
        out.append("</g>")

    out.append("</svg>")
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- text views
def _grid_view(
    r0: int,
    r1: int,
    c0: int,
    c1: int,
    cell_width: int,
    draw_cell: Callable[[int, int], str],
) -> list[str]:
    """Rows of ``draw_cell(row, col)`` (each ``cell_width`` columns wide on screen)
    under a header of column numbers, each row led by its row number."""
    label_width = max(len(str(r0)), len(str(r1)))
    col_labels = [str(c) for c in range(c0, c1 + 1)]
    step = _label_step(col_labels, cell_width, 1)
    if step == 1:
        header = [text.rjust(cell_width) for text in col_labels]
    else:
        # Every step-th number, starting over its own cell and running right over the
        # cells left unnumbered.
        header = [col_labels[j].ljust(step * cell_width) for j in range(0, len(col_labels), step)]
    header.insert(0, " " * label_width)
    lines = ["".join(header).rstrip()]
    for r in range(r0, r1 + 1):
        cells = "".join(draw_cell(r, c) for c in range(c0, c1 + 1))
        lines.append(f"{r:>{label_width}}{cells}")
    return lines


def board_text(board: Board) -> str:
    """A plain-text grid: two letters per tile ('Rc' = red circle; shapes c s d l x b
    = circle square diamond clover criss-cross starburst), '.' for an empty cell, row
    numbers on the left and column numbers on top."""
    bounds = _check_board(board).bounds()
    if bounds is None:
        return "(empty board)"

    def draw_cell(r: int, c: int) -> str:
        t = board.tile_at(r, c)
        return " " + (t.text() if t is not None else " .")

    return "\n".join(_grid_view(*bounds, cell_width=3, draw_cell=draw_cell))


def board_ansi(board: Board, highlight: Move | Action | str | Iterable[Any] | None = None) -> str:
    """The board for a terminal with 256 colours: each tile a coloured shape symbol on
    a dark square; ``highlight`` (a Move, an Action, a move's text or ``(row, col, Tile)`` items) shows its tiles
    on a lighter square, and a proposed tile on an empty cell the same way."""
    marked = {(r, c): t for r, c, t in _highlight_placements(_check_board(board), highlight)}
    region = _region(board, marked)
    if region is None:
        return "(empty board)"

    def draw_cell(r: int, c: int) -> str:
        t = board.tile_at(r, c)
        if t is None:
            t = marked.get((r, c))
        if t is None:
            return f"\x1b[38;5;240m · {ANSI_RESET}"
        return _tile_ansi(t, lighter=(r, c) in marked)

    return "\n".join(_grid_view(*region, cell_width=3, draw_cell=draw_cell))


def _tile_ansi(tile: Tile, lighter: bool = False) -> str:
    """A tile three columns wide: its shape in its colour on a dark (or lighter) square."""
    background = 242 if lighter else 235
    return f"\x1b[1;48;5;{background};38;5;{ANSI_COLORS[tile.color]}m {ANSI_SYMBOLS[tile.shape]} {ANSI_RESET}"


def tiles_ansi(tiles: Iterable[Tile]) -> str:
    """Tiles side by side as in :func:`board_ansi` (a hand, say), one space apart."""
    given = items_of(tiles)
    if given is None:
        raise InvalidTileError(f"tiles are a sequence of Tiles, got {show(tiles)}")
    items = list(itertools.islice(given, 10_000 + 1))
    if len(items) > 10_000 or any(t.__class__ is not Tile for t in items):
        raise InvalidTileError(f"tiles are a sequence of (at most 10,000) Tiles, got {show(tiles)}")
    return " ".join(_tile_ansi(t) for t in items)


def strip_ansi(text: str) -> str:
    """``text`` without its colour codes (what a terminal shows, as plain characters)."""
    if not isinstance(text, str):
        raise QwirkleError(f"expected text, got {show(text)}")
    return _ANSI_CODE.sub("", text)

__all__ = [
    "ANSI_COLORS",
    "ANSI_SYMBOLS",
    "SVG_COLORS",
    "board_ansi",
    "board_svg",
    "board_text",
    "shape_svg",
    "strip_ansi",
    "tile_name",
    "tiles_ansi",
]
