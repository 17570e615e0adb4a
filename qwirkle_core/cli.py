"""The command line: ``python -m qwirkle_core COMMAND``.

Contract: results on stdout as JSON; any bad input exits with status 2 and one line
on stderr naming the problem, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from .errors import QwirkleError
from .jsonio import BadInputError, dumps, loads, read_position

# Commands that live in their own modules; each has register(subparsers).
_COMMAND_MODULES = ("selfplay_cmd", "render_cmd", "engine_cmd")


class _Parser(argparse.ArgumentParser):
    """argparse that reports a usage error in one line, with status 2."""

    def error(self, message: str) -> NoReturn:
        sys.stderr.write(f"{self.prog}: error: {message} (see --help)\n")
        raise SystemExit(2)


def moves_answer(obj: Any) -> dict[str, Any]:
    board, hand = read_position(obj)
    return {"moves": board.legal_moves(hand).to_json()}


def _run_moves(args: argparse.Namespace) -> int:
    data = sys.stdin.buffer.read()
    if not args.jsonl:
        answer = moves_answer(loads(data))
        sys.stdout.write(dumps(answer) + "\n")
        return 0
    status = 0
    out = sys.stdout
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()  # the newline that ends the last line
    for line in lines:
        try:
            answer = moves_answer(loads(line))
        except QwirkleError as exc:
            answer = {"error": str(exc)}
            status = 2
        out.write(dumps(answer) + "\n")
        out.flush()
    return status


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="python -m qwirkle_core",
        description="Every legal Qwirkle placement and its score.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    moves = sub.add_parser(
        "moves",
        help="all legal moves of a position (JSON on stdin)",
        description='Read {"board": [[row, col, color, shape], ...], "hand": [[color, shape], ...]} '
        'on stdin; write {"moves": [{"placements": [[row, col, color, shape], ...], "score": n}, ...]}.',
    )
    moves.add_argument(
        "--jsonl",
        action="store_true",
        help="one position per input line, one answer per output line; a bad line gets "
        '{"error": ...} and the exit status is 2',
    )
    moves.set_defaults(handler=_run_moves)
    for name in _COMMAND_MODULES:
        try:
            module = importlib.import_module(f"{__package__}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__package__}.{name}":
                raise
            continue
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "handler", None) is None:
        parser.error("no command given")
    try:
        return int(args.handler(args))
    except (QwirkleError, BadInputError) as exc:
        sys.stderr.write(f"error: {exc}\n")
        return 2
    except BrokenPipeError:
        return 1
    except KeyboardInterrupt:
        return 130


def entry() -> None:
    try:
        code = main()
    except SystemExit:
        raise
    except Exception as exc:  # noqa: BLE001 - the contract: never a traceback
        sys.stderr.write(f"internal error: {type(exc).__name__}: {exc}\n")
        code = 1
    sys.exit(code)
