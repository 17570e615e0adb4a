"""Typed errors.  All are ``ValueError`` subclasses so that callers who only know
Python's built-ins still catch them."""

from __future__ import annotations

import reprlib


class QwirkleError(ValueError):
    """Base class of every error that qwirkle_core raises on bad input."""


class InvalidTileError(QwirkleError):
    """A tile (or a tile's text) that does not name one of the 36 kinds."""


class InvalidMoveError(QwirkleError):
    """A move that is malformed: bad syntax, bad types, coordinates out of range."""


class IllegalMoveError(QwirkleError):
    """A well-formed move that breaks a rule of the game in this position."""


class InvalidPositionError(QwirkleError):
    """A board or a hand that no game of Qwirkle can produce."""


class InvalidRecordError(QwirkleError):
    """A game record that is malformed or does not replay to what it says."""


class RunawayGameError(QwirkleError):
    """A game loop reached its turn cap (``MAX_TURNS``) without the game ending: bots
    that keep exchanging forever.  Raised instead of running forever or silently
    cutting the game short."""


class NothingToUndoError(QwirkleError, IndexError):
    """``pop`` with nothing to take back, or a move index out of range (also an
    ``IndexError``, as Python's sequences raise)."""


_SHOW = reprlib.Repr()
_SHOW.maxstring = 40
_SHOW.maxother = 40
_SHOW.maxlevel = 3


def show(value: object) -> str:
    """A short repr of a bad value for an error message: bounded in length and depth,
    so that a huge or deeply nested value can never make the message itself fail."""
    try:
        return _SHOW.repr(value)
    except Exception:  # noqa: BLE001 - a broken __repr__ must not hide the real error
        return f"<{type(value).__name__} object>"
