"""The analysis board's HTTP server (``qwirkle-core serve``; needs the ``web`` extra).

Routes: ``GET /`` the page, ``GET /static/NAME`` its script and style, ``POST
/session`` a new engine session (its id, for the ``X-Qwirkle-Session`` header), ``POST
/engine`` one request of that session (the engine's JSON requests, see
:mod:`qwirkle_core.web.sessions`), ``GET /health``.

The server is for one person's browser on their own machine, so it guards against
other web pages that browser opens: it binds to loopback unless told otherwise,
answers only requests whose ``Host`` is one of its own names (a page on another name
that resolves to this machine, DNS rebinding, is refused), refuses requests that come
from another origin (``Origin``, ``Sec-Fetch-Site``) or that are not JSON (a plain
form post cannot set that type without a CORS preflight, which is never granted),
and bounds every body's size and every request's time.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import sys
import threading
import webbrowser
from collections.abc import Callable, Iterable
from importlib import resources
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from .._iterables import items_of
from ..errors import QwirkleError
from ..jsonio import brief, loads
from ..render import _tile_svg
from ..tiles import ALL_TILES
from .sessions import BoardSession, SessionStore, WebLimits

SESSION_HEADER = "X-Qwirkle-Session"
STATIC_FILES = {"board.js": "text/javascript", "board.css": "text/css"}
# The page loads nothing from anywhere else (it works offline) and may not be framed.
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; style-src 'self'; "
    "script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
WILDCARDS = ("0.0.0.0", "::", "")


def allowed_hosts(host: str, port: int, extra: Iterable[str] = ()) -> frozenset[str]:
    """The ``Host`` values the server answers: its loopback names and the address it
    binds (unless a wildcard), and the names in ``extra``, each with ``:port`` (and on
    port 80 bare too: a browser leaves out the scheme's default port)."""
    if not isinstance(host, str) or type(port) is not int or not 0 <= port <= 65535:
        raise QwirkleError(f"a host is text and a port 0..65535, got {brief(host)} and {brief(port)}")
    names = set(LOOPBACK_NAMES) | {h.lower() for h in _texts(extra, "extra")}
    if host not in WILDCARDS:
        names.add(f"[{host}]" if ":" in host and not host.startswith("[") else host.lower())
    with_port = {f"{name}:{port}" for name in names}
    return frozenset(with_port | names if port == 80 else with_port)


def _texts(value: object, what: str) -> list[str]:
    items = items_of(value)
    texts = list(items) if items is not None else None
    if texts is None or not all(isinstance(t, str) for t in texts):
        raise QwirkleError(f"{what} must be a list of names, got {brief(value)}")
    return texts


def _tile_symbols() -> str:
    """The 36 tiles as SVG symbols (``#tile-KIND``), drawn by the library's own
    picture code so that the page's tiles are those of ``board.svg()``: a shape on
    every tile, which is what tells them apart to a colour-blind player."""
    size = 48
    symbols = [
        f'<symbol id="tile-{tile.kind}" viewBox="0 0 {size} {size}">{_tile_svg(tile, size, "tile")}</symbol>'
        for tile in ALL_TILES
    ]
    return '<svg xmlns="http://www.w3.org/2000/svg" class="symbols" aria-hidden="true">' + "".join(symbols) + "</svg>"


def _read_static(name: str) -> str:
    return resources.files(__package__).joinpath("static", name).read_text("utf-8")


def _refuse(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status, headers=SECURITY_HEADERS)


def make_app(limits: WebLimits | None = None, hosts: Iterable[str] = ("127.0.0.1:8765",)) -> Starlette:
    """The ASGI application.  ``hosts``: the ``Host`` values it answers
    (:func:`allowed_hosts`); requests with another are refused (403)."""
    store = SessionStore(limits)
    limits = store.limits
    hosts = frozenset(h.lower() for h in _texts(hosts, "hosts"))
    origins = frozenset(f"http://{h}" for h in hosts)
    page = _read_static("index.html").replace("<!--TILE-SYMBOLS-->", _tile_symbols())
    static = {name: _read_static(name) for name in STATIC_FILES}

    def guard(request: Request, post: bool) -> JSONResponse | None:
        """A refusal for a request that is not from this server's own page, else None.
        Opening the page itself from a link elsewhere (a top-level navigation, which
        cannot read what it opens) is allowed: a shared link to a position works."""
        if request.headers.get("host", "").lower() not in hosts:
            return _refuse(403, "unknown Host: this server answers only its own address")
        origin = request.headers.get("origin")
        if origin is not None and origin.lower() not in origins:
            return _refuse(403, "cross-origin requests are refused")
        # A top-level navigation only (a document), not a frame or a fetch.
        navigation = (
            not post
            and request.url.path == "/"
            and request.headers.get("sec-fetch-mode") == "navigate"
            and request.headers.get("sec-fetch-dest") == "document"
        )
        if request.headers.get("sec-fetch-site", "same-origin") not in ("same-origin", "none") and not navigation:
            return _refuse(403, "cross-site requests are refused")
        if post and request.headers.get("content-type", "").split(";")[0].strip().lower() != "application/json":
            return _refuse(415, "a request body is JSON (Content-Type: application/json)")
        return None

    async def read_json(request: Request) -> Any:
        """The body as JSON, at most ``max_body_bytes`` (else OverflowError; not JSON:
        the engine's QwirkleError)."""
        declared = request.headers.get("content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > limits.max_body_bytes):
            raise OverflowError
        body = bytearray()
        async for chunk in request.stream():
            body += chunk
            if len(body) > limits.max_body_bytes:
                raise OverflowError
        return loads(bytes(body))

    async def index(request: Request) -> Response:
        refusal = guard(request, post=False)
        if refusal is not None:
            return refusal
        return Response(page, media_type="text/html; charset=utf-8", headers=SECURITY_HEADERS)

    async def static_file(request: Request) -> Response:
        refusal = guard(request, post=False)
        if refusal is not None:
            return refusal
        name = request.path_params["name"]
        if name not in STATIC_FILES:
            return _refuse(404, "no such file")
        return Response(static[name], media_type=STATIC_FILES[name] + "; charset=utf-8", headers=SECURITY_HEADERS)

    async def health(request: Request) -> Response:
        refusal = guard(request, post=False)
        return refusal or JSONResponse({"ok": True, "sessions": len(store)}, headers=SECURITY_HEADERS)

    async def new_session(request: Request) -> Response:
        refusal = guard(request, post=True)
        if refusal is not None:
            return refusal
        try:
            key, session = store.create()
        except ValueError as exc:  # every session busy
            return _refuse(503, str(exc))
        hello = session.handle({"cmd": "hello"})
        return JSONResponse({"session": key, "limits": hello["limits"]}, headers=SECURITY_HEADERS)

    async def engine(request: Request) -> Response:
        refusal = guard(request, post=True)
        if refusal is not None:
            return refusal
        session = store.get(request.headers.get(SESSION_HEADER, ""))
        if session is None:
            return _refuse(410, "no such session (it expired, or the server restarted): start a new one")
        try:
            payload = await read_json(request)
        except ClientDisconnect:  # the page went away mid-body: nobody is left to answer
            return Response(status_code=400)
        except OverflowError:
            return _refuse(413, f"request body longer than {limits.max_body_bytes} bytes")
        except QwirkleError as exc:  # the engine's words for a line that is not JSON
            return JSONResponse({"id": None, "error": str(exc)}, headers=SECURITY_HEADERS)
        if isinstance(payload, dict) and payload.get("cmd") == "stop":
            # Answered here, on the event loop: it takes no lock, and on a worker thread
            # it could wait behind the very requests it is to stop.
            return Response(session.answer(payload), media_type="application/json", headers=SECURITY_HEADERS)
        if not session.enter():
            return _refuse(429, "too many requests of this page waiting: wait for their answers")
        try:
            seq = session.number()  # on arrival: a stop from now on stops it
            # The page's requests take turns here, on the event loop; only the one
            # running holds a worker thread (the kernels release the GIL, and the
            # server answers other pages, and this page's "stop", meanwhile).
            await session.take_turn()
            try:
                line = await run_in_threadpool(session.answer, payload, seq)
            finally:
                session.end_turn()
        finally:
            session.leave()
        return Response(line, media_type="application/json", headers=SECURITY_HEADERS)

    app = Starlette(
        routes=[
            Route("/", index),
            Route("/static/{name}", static_file),
            Route("/health", health),
            Route("/session", new_session, methods=["POST"]),
            Route("/engine", engine, methods=["POST"]),
        ]
    )
    app.state.sessions = store  # for a look inside (tests)
    return app


def listen(host: str, port: int) -> socket.socket:
    """A socket bound to ``host:port`` and listening (port 0: any free port).
    OSError when it cannot be bound."""
    try:
        infos = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except UnicodeError as exc:  # a name the IDNA codec refuses (an empty label, one too long)
        raise OSError(f"not a host name ({exc})") from exc
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    return sock


def serve(
    host: str = "127.0.0.1",
    port: int = 8765,
    open_browser: bool = False,
    limits: WebLimits | None = None,
    extra_hosts: Iterable[str] = (),
    announce: Callable[[str], None] | None = None,
) -> None:
    """Serve the board until interrupted.  ``announce`` gets the page's address once
    the server listens (by default it is printed on stdout, one line)."""
    import uvicorn

    sock = listen(host, port)
    bound, port = sock.getsockname()[:2]
    # The address it is bound to (a name such as localhost may resolve to ::1), but
    # for a wildcard, which a browser cannot open, the loopback of its family.
    name = {"0.0.0.0": "127.0.0.1", "::": "::1"}.get(bound, bound)
    url = f"http://{f'[{name}]' if ':' in name else name}:{port}/"
    app = make_app(limits, allowed_hosts(host, port, extra_hosts))
    # The kernels a page uses first, compiled while the person opens it: on an empty
    # numba cache its first request would otherwise spend seconds of its time bound.
    threading.Thread(target=warm_page_kernels, name="qwirkle-warm", daemon=True).start()
    class _Server(uvicorn.Server):
        def handle_exit(self, sig: int, frame: Any) -> None:
            # Ctrl-C or SIGTERM: every page's requests are stopped, so that uvicorn's
            # shutdown, which waits for the requests in flight, does not wait out
            # their searches and the requests queued behind them.
            app.state.sessions.stop_everything()
            super().handle_exit(sig, frame)

    server = _Server(
        uvicorn.Config(app, log_level="warning", lifespan="off", access_log=False, log_config=_LOG_CONFIG)
    )

    async def serve_then_announce() -> None:
        # The address is told once the server serves: by then uvicorn has taken over
        # Ctrl-C and SIGTERM (a signal that came between the announcement and its
        # start left a traceback of the event loop's, on a loaded machine).
        running = asyncio.ensure_future(server.serve(sockets=[sock]))
        while not server.started and not running.done():
            await asyncio.sleep(0.005)
        if server.started:
            (announce or _print_line)(url)
            if open_browser:
                threading.Timer(0.5, webbrowser.open, args=(url,)).start()
        await running

    asyncio.run(serve_then_announce())


class _LogLine(logging.Formatter):
    """The server's log records (uvicorn's: a request it could not read, an error in
    the application) as the command line writes its other lines on stderr: one line
    each, ``qwirkle-core: LEVEL: ...``, an exception named rather than traced."""

    def format(self, record: logging.LogRecord) -> str:
        message = " ".join(record.getMessage().split())
        if record.exc_info and record.exc_info[1] is not None:
            exc = record.exc_info[1]
            message += f" ({type(exc).__name__}: {brief(str(exc))})"
        return f"qwirkle-core: {record.levelname.lower()}: {message}"


_LOG_CONFIG: dict[str, Any] = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"line": {"()": _LogLine}},
    "handlers": {"stderr": {"formatter": "line", "class": "logging.StreamHandler", "stream": "ext://sys.stderr"}},
    "loggers": {"uvicorn": {"handlers": ["stderr"], "level": "INFO", "propagate": False}},
}


def warm_page_kernels() -> None:
    """Run the requests a page sends first (a deal, its moves, the suggestions, a
    check) once, so that their kernels are compiled (``qwirkle-core warmup`` compiles
    every kernel ahead, the searches' too)."""
    session = BoardSession()
    for request in ({"cmd": "new"}, {"cmd": "moves"}, {"cmd": "analyse"}, {"cmd": "check", "action": "pass"}):
        session.handle(request)


def _print_line(url: str) -> None:
    sys.stdout.write(f"the analysis board is at {url} (Ctrl-C stops it)\n")
    sys.stdout.flush()
