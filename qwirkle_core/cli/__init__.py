"""The command line: ``python -m qwirkle_core COMMAND``.

Contract: results on stdout as JSON; any bad input exits with status 2 and one line
on stderr naming the problem, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from typing import NoReturn

from ..errors import QwirkleError
from ..jsonio import BadInputError

# One module per command, each with register(subparsers); listed in --help order.
_COMMAND_MODULES = ("moves", "selfplay", "render", "engine")


class _Parser(argparse.ArgumentParser):
    """argparse that reports a usage error in one line, with status 2."""

    def error(self, message: str) -> NoReturn:
        sys.stderr.write(f"{self.prog}: error: {message} (see --help)\n")
        raise SystemExit(2)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="python -m qwirkle_core",
        description="Every legal Qwirkle placement and its score.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in _COMMAND_MODULES:
        importlib.import_module(f"{__package__}.{name}").register(sub)
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
