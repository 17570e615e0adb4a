"""``python -m qwirkle_core engine``: the long-running JSON-lines engine."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from typing import Any

from ..engine import Limits
from . import positive_int

_DEFAULTS = Limits()


def register(subparsers: Any) -> None:
    """Add the ``engine`` command to an argparse sub-parsers object."""
    parser = subparsers.add_parser(
        "engine",
        help="a long-running engine: one JSON request per line on stdin, one reply per line",
        description='Requests are objects {"cmd": ..., "id": ...}; send {"cmd": "hello"} for the '
        'command list and the limits. {"cmd": "stop"} stops the requests before it, running or waiting. '
        "Ends at end of input or on quit (status 0), on SIGINT (130) or SIGTERM (143).",
    )
    parser.add_argument(
        "--max-line-bytes", type=positive_int, default=_DEFAULTS.max_line_bytes, metavar="N",
        help=f"longest request line; a longer one gets an error reply (default {_DEFAULTS.max_line_bytes})",
    )
    parser.add_argument(
        "--max-moves", type=positive_int, default=_DEFAULTS.max_moves, metavar="N",
        help=f"most moves listed in one reply (default {_DEFAULTS.max_moves})",
    )
    parser.add_argument(
        "--max-games", type=positive_int, default=_DEFAULTS.max_games, metavar="N",
        help=f"most games one selfplay request plays (default {_DEFAULTS.max_games})",
    )
    parser.add_argument(
        "--timeout", type=float, default=None, metavar="SECONDS",
        help='seconds a request may run unless it gives its own "timeout" (default: no limit)',
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """The ``engine`` command: serve requests on stdin and stdout until end of input."""
    from ..engine import run_stdio

    limits = Limits(args.max_line_bytes, args.max_moves, args.max_games, args.timeout)
    status = run_stdio(limits)
    # End here, without the interpreter's shutdown: the thread that reads requests may
    # be blocked reading stdin, holding its lock, and the shutdown would wait on it
    # (Python aborts with "could not acquire lock for <stdin>").
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError, AttributeError):
            stream.flush()
    os._exit(status)
