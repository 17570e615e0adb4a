"""``python -m qwirkle_core moves``: every legal move of a position, as JSON.

Input on stdin: ``{"board": [[row, col, color, shape], ...], "hand": [[color, shape], ...]}``;
output: ``{"moves": [{"placements": [[row, col, color, shape], ...], "score": n}, ...]}``.
With ``--jsonl``, one position per input line and one answer per output line.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..errors import QwirkleError
from ..jsonio import brief, dumps, loads, read_position


def register(subparsers: Any) -> None:
    """Add the ``moves`` command to an argparse sub-parsers object."""
    parser = subparsers.add_parser(
        "moves",
        help="all legal moves of a position (JSON on stdin)",
        description='Read {"board": [[row, col, color, shape], ...], "hand": [[color, shape], ...]} '
        'on stdin; write {"moves": [{"placements": [[row, col, color, shape], ...], "score": n}, ...]}.',
    )
    parser.add_argument(
        "--jsonl",
        action="store_true",
        help="one position per input line, one answer per output line; a bad line gets "
        '{"error": ...} and the exit status is 2',
    )
    parser.set_defaults(handler=run)


def moves_answer(obj: Any) -> dict[str, Any]:
    """The ``moves`` command's answer to one position object."""
    board, hand = read_position(obj)
    return {"moves": board.legal_moves(hand).to_json()}


def run(args: argparse.Namespace) -> int:
    """The ``moves`` command; returns the exit status."""
    from . import read_stdin

    data = read_stdin()
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
        except RecursionError:
            answer = {"error": "input JSON is nested too deeply"}
            status = 2
        except Exception as exc:  # noqa: BLE001 - one bad line must not lose the lines after it
            answer = {"error": f"internal error ({type(exc).__name__}): {brief(str(exc))}"}
            status = 2
        out.write(dumps(answer) + "\n")
        out.flush()
    return status
