"""Colours, shapes and tiles, in the order of docs/rules.md.

A tile kind is ``color * 6 + shape`` (0..35).  The kernels only ever see kinds; the
:class:`Tile` objects exist for people.  There are only 36 of them, so ``Tile(...)``
returns a shared instance (a flyweight): creating tiles in a loop allocates nothing.
"""

from __future__ import annotations

from enum import EnumMeta, IntEnum
from typing import Any

from ._constants import COPIES_PER_KIND, N_COLORS, N_KINDS, N_SHAPES, N_TILES
from ._ints import int_value
from .errors import InvalidTileError, show

__all__ = [
    "ALL_TILES", "COLOR_LETTERS", "COPIES_PER_KIND", "N_COLORS", "N_KINDS", "N_SHAPES", "N_TILES", "SHAPE_LETTERS",
    "Color", "Shape", "Tile", "as_tile", "parse_tiles", "tile_from_json",
]


class _Members(EnumMeta):
    """The metaclass of :class:`Color` and :class:`Shape`: ``Color(value)`` takes a
    member or its number (an int or a numpy integer, never a boolean or a float) and
    refuses anything else with an :class:`InvalidTileError` (a ``QwirkleError``, so a
    ``ValueError`` as the standard enum's refusal is).  The enum is closed: the
    functional form ``Color(name, members)`` is refused too."""

    def __call__(cls, value: Any, *args: Any, **kwargs: Any) -> Any:
        if args or kwargs:
            raise InvalidTileError(f"{cls.__name__} takes one value (a member or its number), not more")
        if isinstance(value, cls):
            return value
        number = int_value(value)
        if number is None or not 0 <= number < len(cls._member_map_):
            raise InvalidTileError(
                f"not a {cls.__name__.lower()}: {show(value)} (must be a {cls.__name__} or 0..{len(cls._member_map_) - 1})"
            )
        return cls._value2member_map_[number]


class Color(IntEnum, metaclass=_Members):
    RED = 0
    ORANGE = 1
    YELLOW = 2
    GREEN = 3
    BLUE = 4
    PURPLE = 5


class Shape(IntEnum, metaclass=_Members):
    CIRCLE = 0
    SQUARE = 1
    DIAMOND = 2
    CLOVER = 3
    STAR4 = 4  # four-pointed star, "criss-cross"
    STAR8 = 5  # eight-pointed star, "starburst"


# Text form: one upper-case letter for the colour, one lower-case letter for the shape.
COLOR_LETTERS = "ROYGBP"
SHAPE_LETTERS = "csdlxb"  # circle square diamond cLover (criss-)x (star)burst


class Tile:
    """An immutable, hashable tile: ``Tile(Color.RED, Shape.CIRCLE)``.

    >>> t = Tile(Color.RED, Shape.SQUARE)
    >>> t.kind, str(t), Tile.from_text("Rs") is t
    (1, 'Rs', True)
    """

    __slots__ = ("color", "kind", "shape")
    color: Color
    shape: Shape
    kind: int

    def __new__(cls, color: int, shape: int) -> Tile:  # noqa: PYI034 - returns a shared instance
        c = _index(color, "colour")
        s = _index(shape, "shape")
        return _TILES[c * N_SHAPES + s]

    @classmethod
    def _make(cls, kind: int) -> Tile:
        self = object.__new__(cls)
        object.__setattr__(self, "color", Color(kind // N_SHAPES))
        object.__setattr__(self, "shape", Shape(kind % N_SHAPES))
        object.__setattr__(self, "kind", kind)
        return self

    @staticmethod
    def from_kind(kind: int) -> Tile:
        """The tile of kind ``kind`` (0..35)."""
        number = int_value(kind)
        if number is None or not 0 <= number < N_KINDS:
            raise InvalidTileError(f"not a tile kind: {show(kind)} (must be 0..35)")
        return _TILES[number]

    @staticmethod
    def from_text(text: str) -> Tile:
        """Parse the two-letter form, e.g. ``"Rc"`` (red circle) or ``"Pb"`` (purple starburst)."""
        if not isinstance(text, str) or len(text) != 2:
            raise InvalidTileError(f"not a tile: {show(text)} (expected two letters like 'Rc')")
        c = COLOR_LETTERS.find(text[0].upper())
        s = SHAPE_LETTERS.find(text[1].lower())
        if c < 0 or s < 0:
            raise InvalidTileError(
                f"not a tile: {show(text)} (colour one of {COLOR_LETTERS}, shape one of {SHAPE_LETTERS})"
            )
        return _TILES[c * N_SHAPES + s]

    def text(self) -> str:
        """The two-letter text form: colour letter, shape letter (``"Rc"``)."""
        return COLOR_LETTERS[self.color] + SHAPE_LETTERS[self.shape]

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        return f"Tile.from_text({self.text()!r})"

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Tile is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("Tile is immutable")

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Tile):
            return self.kind == other.kind
        return NotImplemented

    # Tiles order by kind (colour, then shape), as sorted() and the kernels list them.
    def __lt__(self, other: Tile) -> bool:
        if isinstance(other, Tile):
            return self.kind < other.kind
        return NotImplemented

    def __le__(self, other: Tile) -> bool:
        if isinstance(other, Tile):
            return self.kind <= other.kind
        return NotImplemented

    def __gt__(self, other: Tile) -> bool:
        if isinstance(other, Tile):
            return self.kind > other.kind
        return NotImplemented

    def __ge__(self, other: Tile) -> bool:
        if isinstance(other, Tile):
            return self.kind >= other.kind
        return NotImplemented

    def __hash__(self) -> int:
        return self.kind

    def __reduce__(self) -> tuple[Any, ...]:
        return (Tile.from_kind, (self.kind,))

    def as_json(self) -> list[int]:
        """``[color, shape]``, the JSON form of docs/rules.md."""
        return [int(self.color), int(self.shape)]


def _index(value: Any, what: str) -> int:
    """A colour or shape index 0..5: an int (an IntEnum too) or a numpy integer; never a
    boolean or a float, however whole."""
    number = int_value(value)  # read once: the number checked is the number used
    if number is None or not 0 <= number < N_COLORS:
        raise InvalidTileError(f"a tile's {what} is an integer 0..5, got {show(value)}")
    return number


_TILES: tuple[Tile, ...] = tuple(Tile._make(k) for k in range(N_KINDS))
ALL_TILES = _TILES


def tile_from_json(value: Any) -> Tile:
    """``[color, shape]`` to a Tile, with a clear error for anything else."""
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        raise InvalidTileError(f"a tile is [color, shape], got {show(value)}")
    c, s = value
    if type(c) is not int or type(s) is not int:
        raise InvalidTileError(f"a tile's colour and shape are integers, got {show(value)}")
    return Tile(c, s)


def parse_tiles(text: str) -> list[Tile]:
    """Tiles separated by spaces or commas: ``"Rc Rs Yd"``."""
    if not isinstance(text, str):
        raise InvalidTileError(f"expected tile text like 'Rc Rs', got {show(text)}")
    return [Tile.from_text(t) for t in text.replace(",", " ").split()]


def as_tile(value: Any, what: str) -> Tile:
    """``value`` as a Tile: a Tile, or its two-letter text (``"Rc"``).  Anything else
    raises :class:`InvalidTileError` naming ``what`` (e.g. "a hand") and how to read a
    line of tile texts (:func:`parse_tiles`)."""
    if value.__class__ is Tile:
        return value
    if not isinstance(what, str):
        raise InvalidTileError(f"what (the tiles' name in messages) must be a str, got {show(what)}")
    if isinstance(value, str):
        return Tile.from_text(value)
    raise InvalidTileError(
        f"{what} holds Tiles or tile texts like 'Rc', got {show(value)} (parse_tiles('Rc Rs') reads a line of them)"
    )
