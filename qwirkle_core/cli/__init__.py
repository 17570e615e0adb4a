"""The command line: ``qwirkle-core COMMAND`` or ``python -m qwirkle_core COMMAND``.

Contract: results on stdout (JSON where a program reads them); any bad input exits
with status 2 and one line on stderr, ``qwirkle-core: error: ...``, naming the
problem, never a traceback.  Messages about compiling (the first run in a new
environment) and warnings go to stderr, one line each.
"""

from __future__ import annotations

import itertools
import os
import signal
import sys
from types import FrameType


def _exit_at_once(signum: int, frame: FrameType | None) -> None:
    """Ctrl-C (130) or SIGTERM (143) while the program starts or ends: no Python code
    of ours is running that could clean up, so leave at once, with no traceback."""
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(128 + signum)


def _handle_signals(handlers: dict[int, object]) -> None:
    """Install ``handlers``, except for a signal the process was started ignoring (a
    background job's SIGINT): that one stays ignored."""
    for signum, handler in handlers.items():
        try:
            if signal.getsignal(signum) is not signal.SIG_IGN:
                signal.signal(signum, handler)  # type: ignore[arg-type]
        except ValueError:  # not the main thread (main() called from a thread)
            pass


def _started_as_the_program() -> bool:
    """Whether this process is ``qwirkle-core ...`` or ``python -m qwirkle_core ...``
    (not a program that imports the command line as a library)."""
    script = os.path.splitext(os.path.basename(sys.argv[0] if sys.argv else ""))[0]
    argv = list(getattr(sys, "orig_argv", []))
    as_module = any(a == "-m" and b == "qwirkle_core" for a, b in itertools.pairwise(argv))
    return script == "qwirkle-core" or as_module


# First of all, before numpy and numba are imported (0.3 s, seconds on a busy machine):
# a signal during start-up must end the program as one during its work does.
if _started_as_the_program():
    _handle_signals({signal.SIGINT: _exit_at_once, signal.SIGTERM: _exit_at_once})

# Imported after the signal handlers are in place, on purpose.
import argparse
import importlib
import logging
from collections.abc import Sequence
from typing import NoReturn

from .. import __version__, _jit
from ..errors import QwirkleError
from ..jsonio import BadInputError

# One module per command, each with register(subparsers); listed in --help order.
_COMMAND_MODULES = ("moves", "selfplay", "match", "check", "render", "engine", "serve", "warmup")

NAME = "qwirkle-core"  # the program's name in every error line
ERROR_PREFIX = f"{NAME}: error: "


def error_line(message: str) -> str:
    """The one line every command writes on stderr for an error (newline included)."""
    return ERROR_PREFIX + " ".join(str(message).split()) + "\n"


def fail(message: str, status: int = 2) -> int:
    """Write :func:`error_line` to stderr and return ``status`` (for ``return fail(...)``)."""
    sys.stderr.write(error_line(message))
    return status


def whole_number(text: str) -> int:
    """``int(text)`` for an argparse ``type``: a bad one is argparse's error."""
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None


def positive_int(text: str) -> int:
    """An argparse ``type`` for a count that must be at least 1."""
    value = whole_number(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def program_name(argv0: str | None = None) -> str:
    """How the user started the program, for usage lines: ``qwirkle-core`` for the
    installed script, ``python -m qwirkle_core`` for the module."""
    base = os.path.basename(argv0 if argv0 is not None else sys.argv[0])
    if base in ("__main__.py", "-m", "-c", "") or base.startswith("python"):
        return "python -m qwirkle_core"
    return NAME


class _Parser(argparse.ArgumentParser):
    """argparse that reports a usage error in one line, with status 2."""

    def error(self, message: str) -> NoReturn:
        sys.stderr.write(error_line(f"{message} (see {self.prog} --help)"))
        raise SystemExit(2)


def build_parser(prog: str | None = None) -> argparse.ArgumentParser:
    """The argument parser of every command."""
    parser = _Parser(
        prog=prog or program_name(),
        description="Every legal Qwirkle placement and its score. "
        "Run 'warmup' once in a new environment to compile the kernels.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in _COMMAND_MODULES:
        importlib.import_module(f"{__package__}.{name}").register(sub)
    return parser


def read_stdin() -> bytes:
    """All of stdin, as bytes; a closed stdin is an input error, not a crash."""
    stream = sys.stdin
    if stream is None:
        raise BadInputError("no input: stdin is closed")
    buffer = getattr(stream, "buffer", None)
    if buffer is None:  # a text stream put in place of stdin (tests do this)
        return str(stream.read()).encode("utf-8")
    data: bytes = buffer.read()
    return data


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so that the flush at exit cannot fail again (after a
    full disk or a closed pipe) and print a traceback of its own."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


class _StderrLines(logging.Handler):
    """The library's INFO messages (compiling) and warnings, one line each on stderr."""

    def emit(self, record: logging.LogRecord) -> None:
        if getattr(record, "qwirkle_core_on_stderr", False):  # _jit printed it there itself
            return
        try:
            message = " ".join(self.format(record).split())
            if record.levelno >= logging.WARNING and not message.startswith(NAME):
                message = f"{NAME}: warning: {message.removeprefix('qwirkle_core: ')}"
            elif record.levelno < logging.WARNING:
                message = f"{NAME}: {message}"
            bars = sys.modules.get("tqdm")
            if bars is not None:  # a progress bar may be on screen: print above it
                bars.tqdm.write(message, file=sys.stderr)
            else:
                sys.stderr.write(message + "\n")
                sys.stderr.flush()
        except Exception:  # noqa: BLE001 - logging must never break a command
            self.handleError(record)


def _show_library_messages() -> None:
    _jit.stderr_name = NAME  # the compile line, which the library writes itself
    logger = logging.getLogger("qwirkle_core")
    if not any(isinstance(h, _StderrLines) for h in logger.handlers):
        logger.addHandler(_StderrLines())
    if logger.level == logging.NOTSET or logger.level > logging.INFO:
        logger.setLevel(logging.INFO)
    logger.propagate = False


def main(argv: Sequence[str] | None = None, prog: str | None = None) -> int:
    """Run one command; returns the exit status."""
    parser = build_parser(prog)
    args, unknown = parser.parse_known_args(argv)
    if unknown:  # reported by the command's own parser, so the hint names its --help
        commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        owner = commands.choices.get(getattr(args, "command", None) or "", parser)
        owner.error(f"unrecognized arguments: {' '.join(unknown)}")
    if getattr(args, "handler", None) is None:
        parser.error("no command given")
    _show_library_messages()
    if sys.stdout is None:
        return fail("stdout is closed")
    try:
        status = int(args.handler(args))
        sys.stdout.flush()  # here, so that a full disk is reported like any error
        return status
    except (QwirkleError, BadInputError) as exc:
        return fail(str(exc))
    except BrokenPipeError:
        _silence_stdout()
        return 1
    except OSError as exc:
        _silence_stdout()
        where = f" ({exc.filename})" if exc.filename else ""
        return fail(f"input/output failed{where}: {exc.strerror or exc}")
    except KeyboardInterrupt:
        return 130


def _terminate(signum: int, frame: FrameType | None) -> None:
    """SIGTERM during a command: unwind as Ctrl-C does (files are closed whole), then
    exit with 143."""
    raise SystemExit(128 + signum)


def entry(prog: str | None = None) -> None:
    """The ``qwirkle-core`` script (and ``python -m qwirkle_core``).  Exit status 130 on
    Ctrl-C and 143 on SIGTERM at any moment, start-up and shutdown included."""
    # The imports are done: from here on a signal unwinds through the command's own
    # clean-up (KeyboardInterrupt, SystemExit), which main() turns into 130 / 143.
    _handle_signals({signal.SIGINT: signal.default_int_handler, signal.SIGTERM: _terminate})
    try:
        code = main(prog=prog)
    except KeyboardInterrupt:
        code = 130
    except SystemExit:
        raise
    except Exception as exc:  # noqa: BLE001 - the contract: never a traceback
        code = fail(f"internal error: {type(exc).__name__}: {exc}", 1)
    finally:
        # Shutting down (threads joined, buffers flushed) is no place for a traceback.
        _handle_signals({signal.SIGINT: _exit_at_once, signal.SIGTERM: _exit_at_once})
    sys.exit(code)
