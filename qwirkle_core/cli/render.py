"""``python -m qwirkle_core render``: a position or a game record to a picture.

Input (stdin, or ``--input FILE``) is JSON, either a position::

    {"board": [[row, col, color, shape], ...], "hand": [[color, shape], ...]}

("hand" optional; it is drawn under the board), or a game record (one line of a
``qwirkle-record/1`` file), whose placements are replayed onto an empty board::

    {"format": "qwirkle-record/1", "players": 2, "seed": 7, "turns": [...], "scores": [...]}

A file of several records (JSON lines) needs ``--game N`` to pick one.  Bad input
exits with status 2 and one line on stderr.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import stat
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..board import Board
from ..jsonio import BadInputError, loads, read_board, read_hand, read_placements
from ..moves import Move
from ..records import RECORD_FORMAT
from ..render import board_ansi, board_svg, board_text, tiles_ansi
from ..tiles import Tile

EXIT_OK = 0
EXIT_BAD_INPUT = 2


class RenderInputError(ValueError):
    """Input that the render command cannot draw; its message is shown to the user."""


@dataclass
class Scene:
    """What to draw: the board, the move to highlight, and the hand to show."""

    board: Board
    last_move: Move | None
    hand: list[Tile] | None


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``render`` command to an argparse sub-parsers object."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "render",
        help="draw a position or a game record as SVG, text or ANSI colour",
        description=(
            'Draw a position ({"board": [...], "hand": [...]}) or a qwirkle-record/1 game '
            "record, read as JSON from stdin or --input."
        ),
    )
    parser.add_argument("--input", "-i", metavar="FILE", help="read from FILE instead of stdin")
    parser.add_argument("--output", "-o", metavar="FILE", help="write to FILE instead of stdout")
    parser.add_argument(
        "--format", "-f", choices=("svg", "text", "ansi"), default="svg", help="output format (default svg)"
    )
    parser.add_argument(
        "--turn", type=int, metavar="N", help="for a record: the position after its first N turns"
    )
    parser.add_argument(
        "--game",
        type=int,
        metavar="N",
        help="for a file of several records, one per line: draw the N-th (0-based)",
    )
    marks = parser.add_mutually_exclusive_group()
    marks.add_argument(
        "--highlight-last", action="store_true", help="for a record: highlight the last placement"
    )
    marks.add_argument(
        "--highlight", metavar="MOVE", help="highlight a move given as text, e.g. 'Rc@0,3 Rs@0,4'"
    )
    parser.add_argument("--legal", action="store_true", help="mark the legal cells (svg only)")
    parser.add_argument(
        "--cell-size", type=float, default=48, metavar="PX", help="svg: cell size in pixels (default 48)"
    )
    parser.add_argument(
        "--no-coordinates", action="store_true", help="svg: leave out the row and column numbers"
    )
    parser.set_defaults(handler=run)
    return parser


def run(args: argparse.Namespace) -> int:
    """Carry out ``render``; returns the exit status."""
    try:
        scene = _read_scene(args)
        picture = _draw(scene, args)
    except ValueError as exc:  # every error of the core, and of reading JSON, is one
        return _fail(str(exc) or exc.__class__.__name__)
    try:
        if args.output:
            _write_file(args.output, picture)
        else:
            _write_stdout(picture)
    except OSError as exc:
        if not args.output:
            from . import _silence_stdout

            _silence_stdout()
        return _fail(f"cannot write {args.output or 'stdout'}: {exc.strerror or exc}")
    return EXIT_OK


def _fail(message: str) -> int:
    from . import fail

    return fail(message, EXIT_BAD_INPUT)


def _write_file(path: str, text: str) -> None:
    """Write ``text`` to ``path``.  A regular file (or a new one) is written whole or
    not at all: into a temporary file beside it, then renamed over it, so that an
    interruption never leaves half a picture.  A symbolic link stays a link: what it
    points to is written so.  Anything else (a FIFO, a device such as /dev/null, a
    terminal) is opened and written in place: renaming over it would replace the
    special file with a regular one."""
    target = os.path.realpath(path)  # a link's final target; the path itself otherwise
    try:
        regular = stat.S_ISREG(os.stat(target).st_mode)
    except FileNotFoundError:
        regular = True  # a new file (or a dangling link's new target)
    if not regular:
        with open(target, "w", encoding="utf-8") as f:
            f.write(text)
        return
    _replace_file(target, text)


def _replace_file(path: str, text: str) -> None:
    """Write the regular file ``path`` through a temporary file renamed over it."""
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".render-", suffix=".tmp", dir=directory)
    try:
        # mkstemp makes the file private (0600); give the picture the mode any new file
        # would get (0666 less the umask), or the mode of the file it replaces.
        try:
            mode = os.stat(path).st_mode & 0o777
        except OSError:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.fchmod(fd, mode)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _write_stdout(text: str) -> None:
    # Through the byte stream when there is one, so that the symbols of the ANSI view
    # do not depend on the terminal's locale.
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is not None:
        sys.stdout.flush()
        buffer.write(text.encode("utf-8"))
        buffer.flush()
    else:
        sys.stdout.write(text)


def _read_bytes(path: str | None) -> bytes:
    try:
        if path:
            with open(path, "rb") as f:
                return f.read()
        from . import read_stdin

        return read_stdin()
    except OSError as exc:
        raise RenderInputError(f"cannot read {path or 'stdin'}: {exc.strerror or exc}") from None


def _parse_json(data: bytes, game: int | None) -> Any:
    """One JSON value: the whole input, or line ``game`` of a JSON-lines file."""
    if not data.strip():
        raise RenderInputError("the input is empty; expected a position or a game record as JSON")
    lines = [line for line in data.splitlines() if line.strip()]
    try:
        whole = loads(data)
    except BadInputError:
        # JSON lines where the first line is JSON by itself, or where --game picks a
        # line past it: else one document over many lines (pretty-printed), whose own
        # error is the one to name.
        if len(lines) < 2 or (not _is_json(lines[0]) and not (game is not None and game > 0)):
            raise
    else:
        if game not in (None, 0):
            raise RenderInputError(f"--game {game}: the input holds one game")
        return whole
    if game is None:
        raise RenderInputError(f"the input holds {len(lines)} JSON lines; choose one with --game N (0-based)")
    if not 0 <= game < len(lines):
        raise RenderInputError(f"--game {game}: the input holds games 0..{len(lines) - 1}")
    try:
        return loads(lines[game])
    except BadInputError as exc:
        raise RenderInputError(f"line {game + 1}: {exc}") from None


def _is_json(line: bytes) -> bool:
    try:
        loads(line)
    except BadInputError:
        return False
    return True


def _read_scene(args: argparse.Namespace) -> Scene:
    value = _parse_json(_read_bytes(args.input), args.game)
    if not isinstance(value, dict):
        raise RenderInputError('expected a JSON object: a position {"board": ...} or a game record')
    if "format" in value or "turns" in value:
        return _replay_record(value, args.turn)
    if "board" in value:
        if args.turn is not None:
            raise RenderInputError("--turn is for game records; the input is a position")
        return _position(value)
    raise RenderInputError('expected a position (with "board") or a game record (with "format" and "turns")')


def _position(value: dict[str, Any]) -> Scene:
    board = read_board(value["board"])
    hand = None
    if value.get("hand") is not None:
        hand = read_hand(value["hand"])
        board.check_hand(hand)  # no more than three copies of a kind between them
    return Scene(board, None, hand)


def _replay_record(value: dict[str, Any], stop_after: int | None) -> Scene:
    if value.get("format") != RECORD_FORMAT:
        raise RenderInputError(f"unknown record format {value.get('format')!r}; expected {RECORD_FORMAT!r}")
    turns = value.get("turns")
    if not isinstance(turns, list):
        raise RenderInputError('a game record has a list of "turns"')
    if stop_after is None:
        stop_after = len(turns)
    elif not 0 <= stop_after <= len(turns):
        raise RenderInputError(f"--turn {stop_after}: the record has {len(turns)} turns")
    board = Board()
    last_move = None
    for number, turn in enumerate(turns[:stop_after]):
        where = f"turns[{number}]"
        if not isinstance(turn, dict):
            raise RenderInputError(f"{where} must be an object")
        action = turn.get("action")
        if action == "place":
            placements = read_placements(turn.get("placements"), f"{where}.placements")
            try:
                last_move = board.push(placements)
            except ValueError as exc:
                raise RenderInputError(f"{where}: {exc}") from None
        elif action not in ("exchange", "pass"):
            raise RenderInputError(f"{where}: unknown action {action!r} (place, exchange or pass)")
    return Scene(board, last_move, None)


def _draw(scene: Scene, args: argparse.Namespace) -> str:
    highlight: Move | None = None
    if args.highlight_last:
        if scene.last_move is None:
            raise RenderInputError(
                "--highlight-last: no tiles have been placed (is the input a game record?)"
            )
        highlight = scene.last_move
    elif args.highlight:
        highlight = Move.from_text(args.highlight)
    if args.format == "svg":
        return board_svg(
            scene.board,
            highlight=highlight,
            show_legal_cells=args.legal,
            coordinates=not args.no_coordinates,
            cell_size=args.cell_size,
            hand=scene.hand,
        )
    if args.legal:
        raise RenderInputError(f"--legal is drawn in svg only, not in {args.format}")
    if args.format == "text":
        if highlight is not None:
            raise RenderInputError("the text view has no highlight; use --format ansi or svg")
        picture = board_text(scene.board)
        if scene.hand is not None:
            picture += "\nhand: " + (" ".join(t.text() for t in scene.hand) or "(empty)")
    else:
        picture = board_ansi(scene.board, highlight=highlight)
        if scene.hand is not None:
            picture += "\nhand: " + (tiles_ansi(scene.hand) or "(empty)")
    return picture + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m qwirkle_core.cli.render [options]``: the render command on its own,
    with the command line's contract (bad input: status 2 and one line on stderr)."""
    from . import main as cli_main

    return cli_main(["render", *(argv if argv is not None else sys.argv[1:])])


if __name__ == "__main__":
    sys.exit(main())
