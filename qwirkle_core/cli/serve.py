"""``python -m qwirkle_core serve``: the analysis board in the browser (the ``web`` extra)."""

from __future__ import annotations

import argparse
from typing import Any

from ..engine import MAX_TIMEOUT
from ..web.sessions import WebLimits
from . import fail, positive_int, whole_number

_DEFAULTS = WebLimits()


def _port(text: str) -> int:
    value = whole_number(text)
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"a port is 0 to 65535 (0: any free one), got {value}")
    return value


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not 0 < value <= MAX_TIMEOUT:  # also refuses nan
        raise argparse.ArgumentTypeError(f"seconds must be in (0, {MAX_TIMEOUT:g}], got {text}")
    return value


def register(subparsers: Any) -> None:
    """Add the ``serve`` command to an argparse sub-parsers object."""
    parser = subparsers.add_parser(
        "serve",
        help="the analysis board: a page in the browser on the engine (needs the web extra)",
        description="Serves one page and the engine protocol over HTTP (POST /engine), one engine "
        "session per page. Binds to loopback unless --host says otherwise, and answers only "
        "requests for its own address from its own page. Ctrl-C stops it.",
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=_port, default=8765, help="port (default 8765; 0: any free port)")
    parser.add_argument("--open", action="store_true", help="open the page in the default browser")
    parser.add_argument(
        "--allow-host", action="append", default=[], metavar="NAME",
        help="another name the page may be reached by (a Host header without the port); repeatable",
    )
    parser.add_argument(
        "--max-sessions", type=positive_int, default=_DEFAULTS.max_sessions, metavar="N",
        help=f"pages served at once; the least recently used makes room (default {_DEFAULTS.max_sessions})",
    )
    parser.add_argument(
        "--session-ttl", type=_seconds, default=_DEFAULTS.session_ttl, metavar="SECONDS",
        help=f"a page's session ends this long after its last request (default {_DEFAULTS.session_ttl:g})",
    )
    parser.add_argument(
        "--timeout", type=_seconds, default=_DEFAULTS.timeout, metavar="SECONDS",
        help=f"the longest a request runs; a search then answers with its best so far (default {_DEFAULTS.timeout:g})",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """The ``serve`` command: serve the board until Ctrl-C."""
    try:
        from ..web.server import serve
    except ImportError as exc:
        return fail(f"serve needs the web extra (pip install 'qwirkle-core[web]'): {exc}")
    limits = WebLimits(max_sessions=args.max_sessions, session_ttl=args.session_ttl, timeout=args.timeout)
    try:
        serve(args.host, args.port, open_browser=args.open, limits=limits, extra_hosts=args.allow_host)
    except OSError as exc:
        return fail(f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}")
    return 0
