"""``python -m qwirkle_core engine``: the long-running JSON-lines engine."""

from __future__ import annotations

import argparse
from typing import Any


def register(subparsers: Any) -> None:
    """Add the ``engine`` command to an argparse sub-parsers object."""
    parser = subparsers.add_parser(
        "engine",
        help="a long-running engine: one JSON request per line on stdin, one reply per line",
        description='Requests are objects {"cmd": ..., "id": ...}; send {"cmd": "hello"} for the '
        "command list. Ends at end of input or on quit.",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """The ``engine`` command: serve requests on stdin and stdout until end of input."""
    from ..engine import run_stdio

    return run_stdio()
