"""The analysis board's server in-process: sessions, hidden information, the guards
(Host, Origin, type, size, time) and the board's own requests.  The page in a real
browser: tests/test_web_browser.py."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import time
from typing import Any

import pytest

from qwirkle_core import Game
from qwirkle_core.bots import make_bot, stop_when
from qwirkle_core.errors import IllegalMoveError, QwirkleError
from qwirkle_core.web.sessions import BoardSession, SessionStore, WebLimits

starlette = pytest.importorskip("starlette", reason="the web extra (starlette) is not installed")
pytest.importorskip("httpx", reason="starlette's TestClient needs httpx (the test extra)")
from starlette.testclient import TestClient

from qwirkle_core.web.server import SESSION_HEADER, allowed_hosts, make_app

HOST = "127.0.0.1:8765"
JSON = {"Content-Type": "application/json"}


class Page:
    """A page's side of the dialogue: a session, then engine requests."""

    def __init__(self, client: TestClient) -> None:
        self.client = client
        reply = client.post("/session", json={})
        assert reply.status_code == 200, reply.text
        self.key = reply.json()["session"]

    def send(self, request: Any, **headers: str) -> Any:
        reply = self.client.post("/engine", content=json.dumps(request), headers={**JSON, SESSION_HEADER: self.key, **headers})
        assert reply.status_code == 200, reply.text
        return reply.json()


@pytest.fixture
def client() -> TestClient:
    # A bound long enough for a first request that compiles its kernels (an empty
    # numba cache: tens of seconds); test_time_bound has a short one.
    return TestClient(make_app(WebLimits(max_sessions=3, max_body_bytes=4096, timeout=300.0), [HOST]), base_url=f"http://{HOST}")


def played_game(turns: int | None, seed: int = 4) -> Game:
    """A two-player game after ``turns`` greedy turns (None: to its end)."""
    game, bot = Game(players=2, seed=seed), make_bot("greedy", seed=seed)
    while not game.is_over and (turns is None or game.turn_count < turns):
        game.push(bot.choose(game))
    return game


def test_page_and_files(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "default-src 'self'" in page.headers["content-security-policy"]
    # The 36 tiles drawn by render.py, each with its shape and a name.
    assert page.text.count('<symbol id="tile-') == 36 and "red circle" in page.text
    assert client.get("/static/board.js").headers["content-type"].startswith("text/javascript")
    assert client.get("/static/board.css").status_code == 200
    assert client.get("/static/../sessions.py").status_code == 404
    assert client.get("/static/index.html").status_code == 404


def test_engine_requests_and_hidden_information(client: TestClient) -> None:
    page = Page(client)
    summary = page.send({"cmd": "new", "players": 2, "seed": 1, "id": 7})
    game = Game(players=2, seed=1)
    assert summary["id"] == 7 and summary["hand"] == [t.as_json() for t in game.hand()]
    # The player's view: neither the other hand, nor the bag, nor the position.
    assert not {"hands", "bag_tiles", "position"} & set(summary)
    refused = page.send({"cmd": "state", "reveal": True})
    assert "referee" in refused["error"]
    assert "referee" in page.send({"cmd": "record"})["error"]
    moves = page.send({"cmd": "moves"})
    assert moves["count"] == len(game.legal_moves())
    assert {m["text"] for m in moves["moves"]} == {m.text() for m in game.legal_moves()}
    # The referee's view, asked for: everything.
    assert page.send({"cmd": "view", "referee": True}) == {"id": None, "ok": True, "referee": True, "seats": None}
    state = page.send({"cmd": "state", "reveal": True})
    assert state["position"] == game.to_string()
    assert page.send({"cmd": "record"})["record"] == game.to_record()
    assert "must be true or false" in page.send({"cmd": "view", "referee": "yes"})["error"]
    # Bad requests: error replies, and the session goes on.
    assert "unknown command" in page.send({"cmd": "frobnicate"})["error"]
    assert "not served here" in page.send({"cmd": "quit"})["error"]
    assert page.send([1, 2])["error"]
    bad = client.post("/engine", content=b"{not json", headers={**JSON, SESSION_HEADER: page.key})
    assert bad.status_code == 200 and bad.json()["error"]
    assert page.send({"cmd": "count"})["count"] == len(game.legal_moves())


def test_sessions_are_separate_and_unknown_ones_refused(client: TestClient) -> None:
    one, two = Page(client), Page(client)
    one.send({"cmd": "new", "seed": 1})
    assert "no game yet" in two.send({"cmd": "state"})["error"]
    missing = client.post("/engine", json={"cmd": "hello"}, headers={SESSION_HEADER: "nope"})
    assert missing.status_code == 410 and "session" in missing.json()["error"]
    assert client.post("/engine", json={"cmd": "hello"}).status_code == 410


def test_sessions_capped_and_expired() -> None:
    now = [0.0]
    store = SessionStore(WebLimits(max_sessions=2, session_ttl=10.0))
    store.clock = lambda: now[0]
    a, _ = store.create()
    now[0] = 1.0
    b, _ = store.create()
    now[0] = 2.0
    c, _ = store.create()  # at the cap: the least recently used (a) makes room
    assert store.get(a) is None and store.get(b) is not None and len(store) == 2
    session_c = store.get(c)
    assert session_c is not None
    now[0] = 30.0
    assert store.get(b) is None and store.get(c) is None and len(store) == 0  # expired
    # Every session busy: a new one is refused rather than one dropped mid-request.
    _, session_d = store.create()
    _, session_e = store.create()
    with session_d.lock, session_e.lock, pytest.raises(QwirkleError, match="busy"):
        store.create()


def test_guards(client: TestClient) -> None:
    page = Page(client)
    # DNS rebinding: another name for this machine is not this server.
    assert client.get("/", headers={"Host": "attacker.example:8765"}).status_code == 403
    for headers in ({"Origin": "http://attacker.example"}, {"Sec-Fetch-Site": "cross-site"}):
        reply = client.post("/engine", json={"cmd": "hello"}, headers={SESSION_HEADER: page.key, **headers})
        assert reply.status_code == 403
    assert client.post("/session", json={}, headers={"Origin": f"http://{HOST}"}).status_code == 200
    # A link from another site opens the page (a navigation reads nothing back); its
    # script, or anything else, fetched from there is refused.
    cross = {"Sec-Fetch-Site": "cross-site"}
    document = {"Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "document"}
    assert client.get("/", headers={**cross, **document}).status_code == 200
    assert client.get("/", headers={**cross, "Sec-Fetch-Mode": "navigate"}).status_code == 403
    assert client.get("/", headers={**cross, **document, "Sec-Fetch-Dest": "iframe"}).status_code == 403
    assert client.get("/", headers={**cross, "Sec-Fetch-Mode": "no-cors"}).status_code == 403
    assert client.get("/static/board.js", headers={**cross, "Sec-Fetch-Mode": "navigate"}).status_code == 403
    # A plain form post (no CORS preflight) is not JSON: refused.
    form = client.post("/engine", content=b"cmd=hello", headers={"Content-Type": "text/plain", SESSION_HEADER: page.key})
    assert form.status_code == 415
    big = client.post("/engine", content=b" " * 5000, headers={**JSON, SESSION_HEADER: page.key})
    assert big.status_code == 413
    assert page.send({"cmd": "hello"})["ok"]  # and it goes on
    assert client.get("/engine").status_code == 405


def test_time_bound() -> None:
    client = TestClient(make_app(WebLimits(timeout=0.5), [HOST]), base_url=f"http://{HOST}")
    page = Page(client)
    page.send({"cmd": "new", "seed": 2})
    # A page may not ask for more time than the server gives (0.5 s here).  One ply a
    # sample: a round of samples stays short with the JIT off too.
    reply = page.send({"cmd": "sim", "top": 2, "plies": 1, "iterations": 10**6, "timeout": 10**4})
    assert reply["ok"] and reply["stopped"] and reply["stopped_by"] == "timeout"
    reply = page.send({"cmd": "selfplay", "games": 10**6})
    assert "more than this engine plays" in reply["error"]  # 1,000 at most
    # No timeout, or null (the engine's "none"), is the server's bound too: a thousand
    # games of two simulating bots would take hours.
    for timeout in ({}, {"timeout": None}):
        reply = page.send({"cmd": "selfplay", "games": 1000, "bots": "sim,sim", **timeout})
        assert "timed out" in reply["error"], timeout


def test_a_bots_search_keeps_the_time_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    """A searching bot's movetime is cut to the bound: the bot the engine makes is
    given at most the bound (read from what it is given, not from a clock, so the test
    means the same with the JIT off), and a bot whose search is stopped at once still
    plays a legal move."""
    import qwirkle_core.bots

    given: list[float | None] = []
    real_make_bot = qwirkle_core.bots.make_bot

    def spy(name: str, seed: int = 0, seat: int = 0, movetime: float | None = None) -> Any:
        given.append(movetime)
        return real_make_bot("greedy", seed=seed, seat=seat)  # no search: what it was given is the point

    monkeypatch.setattr(qwirkle_core.bots, "make_bot", spy)
    session = BoardSession(WebLimits(timeout=0.5))
    session.handle({"cmd": "new", "seed": 2})
    for cmd in ("best", "bot_play"):
        reply = session.handle({"cmd": cmd, "bot": "sim", "movetime": 6, "timeout": None})
        assert reply["ok"], (cmd, reply)
    assert len(given) == 2 and all(t is not None and 0 < t <= 0.5 for t in given), given
    monkeypatch.undo()
    # The library's side: a bot stopped at once still plays a legal move.
    game = Game(players=2, seed=2)
    assert stop_when(make_bot("sim", movetime=60), lambda: True).choose(game) in game.legal_actions()
    with pytest.raises(QwirkleError, match="callable"):
        stop_when(make_bot("sim"), 5)  # type: ignore[arg-type]


def test_check_names_the_rule() -> None:
    session = BoardSession(WebLimits())
    game = played_game(6)
    session.handle({"cmd": "position", "position": game.to_string()})
    best = game.legal_moves().best()
    assert best is not None
    ok = session.handle({"cmd": "check", "action": best.text()})
    assert ok["legal"] and ok["score"] == game.board.score(best)
    assert session.handle({"cmd": "check", "action": {"action": "place", "placements": best.to_json()}})["ok"]
    tile = game.hand()[0]
    far = f"{tile.text()}@40,40"
    with pytest.raises(IllegalMoveError) as refused:
        game.copy().push(far)
    assert session.handle({"cmd": "check", "action": far})["error"] == str(refused.value)
    assert session.handle({"cmd": "check", "action": 5})["error"]
    assert session.handle({"cmd": "state"})["hand"] == [t.as_json() for t in game.hand()]  # unchanged


def test_load_record() -> None:
    session = BoardSession(WebLimits())
    game = played_game(24, seed=9)
    record = game.to_record()
    reply = session.handle({"cmd": "load_record", "record": json.dumps(record)})
    assert reply["turns"] == game.turn_count
    state = session.handle({"cmd": "state"})
    assert state["scores"] == game.scores and state["hand"] == [t.as_json() for t in game.hand()]
    assert session.handle({"cmd": "load_record", "record": {"format": "other"}})["error"]
    bad = dict(record, turns=record["turns"][:3] + [{"player": 0, "action": "pass"}])
    assert session.handle({"cmd": "load_record", "record": bad})["error"]
    assert session.handle({"cmd": "state"})["scores"] == game.scores  # unchanged
    assert session.handle({"cmd": "load_record", "record": 3})["error"]


def test_seeds_as_text_are_exact() -> None:
    """A page's JavaScript rounds a JSON number above 2**53: the board's seeds also go
    as decimal text (sent in ``new`` and ``bot_play``, shown in ``seed_text``), and a
    record also as its line of JSON (``text``), which loads back as the same game."""
    session = BoardSession(WebLimits())
    big = str(2**64 - 1)
    assert session.handle({"cmd": "new", "seed": big})["ok"]
    assert session.handle({"cmd": "view", "referee": True})["ok"]
    state = session.handle({"cmd": "state"})
    assert state["seed"] == 2**64 - 1 and state["seed_text"] == big
    assert session.handle({"cmd": "bot_play", "bot": "greedy", "seed": big})["ok"]
    reply = session.handle({"cmd": "record"})
    assert json.loads(reply["text"]) == reply["record"] and "\n" not in reply["text"]
    again = Game.from_record(reply["text"])
    assert again.seed == 2**64 - 1 and again.turn_count == 1 and again.scores == session.engine.game.scores
    # The server's own seed (63 bits), told as text too.
    assert session.handle({"cmd": "new"})["ok"]
    state = session.handle({"cmd": "state"})
    assert state["seed_text"] == str(state["seed"]) == str(session.engine.game.seed)
    # Text that is not a seed's digits is refused, and nothing changes.
    before = session.handle({"cmd": "state"})
    for bad in ("-1", "1.5", "12a", " 7", "", "\u0661", "9" * 41, str(2**64)):
        for cmd in ("new", "bot_play"):
            assert "seed" in session.handle({"cmd": cmd, "seed": bad, "bot": "greedy"})["error"]
    assert session.handle({"cmd": "state"}) == before


def test_stop_while_a_search_runs() -> None:
    import threading

    session = BoardSession(WebLimits(timeout=60.0))
    session.handle({"cmd": "new", "seed": 3})
    replies: list[dict[str, Any]] = []
    worker = threading.Thread(target=lambda: replies.append(session.handle({"cmd": "sim", "top": 2, "plies": 1, "iterations": 10**6})))
    worker.start()
    while not session.lock.locked():
        pass
    assert session.handle({"cmd": "stop"})["stopped"]
    worker.join(30)
    assert replies and replies[0]["stopped_by"] == "stop"


def test_allowed_hosts() -> None:
    # Port 80: a browser's Host leaves it out.
    assert allowed_hosts("127.0.0.1", 80) == {"127.0.0.1:80", "localhost:80", "[::1]:80", "127.0.0.1", "localhost", "[::1]"}
    assert "localhost" not in allowed_hosts("127.0.0.1", 8080)
    assert "192.168.1.5:9" in allowed_hosts("192.168.1.5", 9)
    assert "[::1]:9" in allowed_hosts("::1", 9)
    assert allowed_hosts("0.0.0.0", 9, ["box.lan"]) == {"127.0.0.1:9", "localhost:9", "[::1]:9", "box.lan:9"}


def test_the_address_announced_is_the_one_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    """A name may resolve to ::1 first (localhost on many systems): the address printed
    is the one the socket is bound to."""
    import socket as sockets

    import uvicorn

    from qwirkle_core.web import server

    try:
        with sockets.socket(sockets.AF_INET6) as probe:
            probe.bind(("::1", 0))
    except OSError:
        pytest.skip("no IPv6 loopback here")
    async def serve(self: Any, sockets: list[Any]) -> None:  # started, then stopped at once
        self.started = True
        sockets[0].close()

    monkeypatch.setattr(uvicorn.Server, "serve", serve)
    monkeypatch.setattr(server, "warm_page_kernels", lambda: None)
    resolve = sockets.getaddrinfo
    six = [(sockets.AF_INET6, sockets.SOCK_STREAM, 6, "", ("::1", 0, 0, 0))]
    monkeypatch.setattr(sockets, "getaddrinfo", lambda host, *a, **k: six if host == "six.test" else resolve(host, *a, **k))
    for host, shown in (("six.test", "[::1]"), ("127.0.0.1", "127.0.0.1"), ("0.0.0.0", "127.0.0.1")):
        urls: list[str] = []
        server.serve(host, 0, announce=urls.append)
        assert urls[0].startswith(f"http://{shown}:"), (host, urls)


def test_arguments_checked() -> None:
    with pytest.raises(QwirkleError, match="max_sessions"):
        WebLimits(max_sessions=0)
    with pytest.raises(QwirkleError, match="timeout"):
        WebLimits(timeout=float("nan"))
    for bad in (lambda: BoardSession(3), lambda: SessionStore("x"), lambda: make_app(hosts="localhost:1"),  # type: ignore[arg-type]
                lambda: allowed_hosts("h", True), lambda: allowed_hosts("h", 1, [5])):  # type: ignore[list-item]
        with pytest.raises(QwirkleError):
            bad()
    assert SessionStore().get(["unhashable"]) is None  # type: ignore[arg-type]


def test_serve_command_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    from qwirkle_core.cli import main

    with pytest.raises(SystemExit) as exited:
        main(["serve", "--port", "70000"])
    assert exited.value.code == 2
    with pytest.raises(SystemExit):
        main(["serve", "--timeout", "nan"])
    err = capsys.readouterr().err
    assert err.count("\n") == 2 and all(line.startswith("qwirkle-core: error: ") for line in err.splitlines())
    # A port in use: one line, status 2, no server.
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["serve", "--port", str(port)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("qwirkle-core: error: cannot listen on 127.0.0.1:") and err.count("\n") == 1
    # A name the IDNA codec refuses (an empty label; one over 63 characters): the same.
    for host in ("a..b", "x" * 64 + ".example"):
        assert main(["serve", "--host", host, "--port", "0"]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"qwirkle-core: error: cannot listen on {host}:0: not a host name") and err.count("\n") == 1


def test_serve_without_the_web_extra(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from qwirkle_core.cli import main

    monkeypatch.setitem(sys.modules, "qwirkle_core.web.server", None)  # as if starlette were missing
    assert main(["serve"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("qwirkle-core: error: serve needs the web extra") and err.count("\n") == 1


@pytest.mark.process
def test_import_needs_no_web_extra() -> None:
    code = "import sys, qwirkle_core, qwirkle_core.web.sessions; print(sorted({'starlette', 'uvicorn'} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_one_seat_view_hides_the_bots_hand() -> None:
    """A person at seat 0 against a bot: on the bot's turn the page learns the sizes of
    the hands only, the bot plays on the server, and stepping back and forth works."""
    session = BoardSession(WebLimits())
    assert session.handle({"cmd": "view", "referee": False, "seats": [0]})["seats"] == [0]
    game = Game(players=2, seed=1)
    if game.to_move == 0:
        best = game.legal_moves().best()
        assert best is not None
        session.handle({"cmd": "new", "seed": 1})
        assert session.handle({"cmd": "play", "action": best.text()})["ok"]
        game.push(best)
    else:
        session.handle({"cmd": "new", "seed": 1})
    assert game.to_move == 1
    state = session.handle({"cmd": "state"})
    assert "hand" not in state and state["hand_sizes"] == [6, 6]
    for cmd in ("moves", "count", "best", "analyse", "masks", "sim", "solve"):
        assert "this page sees seat 0's hand only" in session.handle({"cmd": cmd})["error"], cmd
    refused = session.handle({"cmd": "play", "action": "pass"})["error"]
    assert "bot_play" in refused and "pass" not in refused.split("(")[0]
    assert "this page sees seat 0" in session.handle({"cmd": "check", "action": "pass"})["error"]
    played = session.handle({"cmd": "bot_play", "bot": "greedy", "seed": 1})
    bot_action = game.push(make_bot("greedy", seed=1, seat=1).choose(game))
    assert played["played"] == bot_action.text() and played["scores"] == game.scores
    assert played["hand"] == [t.as_json() for t in game.hand()]  # seat 0's turn again: its own hand
    # Back to the bot's turn and forward again: "redo" replays the turn undone.
    undone = session.handle({"cmd": "undo"})
    assert undone["undone"] == bot_action.text() and "hand" not in undone
    assert "redo" in session.handle({"cmd": "play", "action": bot_action.text()})["error"]
    assert session.handle({"cmd": "state"})["redo"] == [bot_action.text()]
    assert session.handle({"cmd": "redo"})["scores"] == game.scores
    assert "nothing to redo" in session.handle({"cmd": "redo"})["error"]
    assert "bot" in session.handle({"cmd": "bot_play"})["error"]
    # The referee's view sees every turn.
    session.handle({"cmd": "view", "referee": True, "seats": [0]})
    assert session.handle({"cmd": "undo"})["hand"]
    assert "seats" in session.handle({"cmd": "view", "referee": False, "seats": [9]})["error"]
    assert "seats" in session.handle({"cmd": "view", "referee": False, "seats": 0})["error"]


def test_a_bots_exchange_is_a_number_of_tiles() -> None:
    """Seat 1, a bot, holds nothing that fits and exchanges: outside the referee's view
    the page learns how many tiles, in every reply (played, undone, history, redo)."""
    session = BoardSession(WebLimits())
    session.handle({"cmd": "view", "referee": False, "seats": [0]})
    hands = [[[0, 1], [0, 2], [0, 3], [0, 4], [0, 5], [1, 0]], [[1, 1], [1, 2], [2, 2], [3, 3], [4, 4], [5, 5]]]
    assert session.handle({"cmd": "position", "board": [[0, 0, 0, 0]], "hands": hands, "to_move": 1})["ok"]
    played = session.handle({"cmd": "bot_play", "bot": "greedy"})
    assert played["played"] == "exchange 6"  # no tile named
    count = played["played"]
    state = session.handle({"cmd": "state"})
    assert state["history"][-1]["text"] == count and "seed" not in state
    assert session.handle({"cmd": "undo"})["undone"] == count
    assert session.handle({"cmd": "state"})["redo"] == [count]
    assert session.handle({"cmd": "redo"})["played"] == count
    session.handle({"cmd": "view", "referee": True, "seats": [0]})
    assert session.handle({"cmd": "state", "reveal": True})["history"][-1]["text"].startswith("x ")


def test_the_server_deals() -> None:
    """A new game without a seed is dealt from the server's own (the page cannot rebuild
    the bag); the referee's view tells it."""
    hands = []
    for _ in range(2):
        session = BoardSession(WebLimits())
        hand = session.handle({"cmd": "new", "seed": None})["hand"]
        assert "seed" not in session.handle({"cmd": "state"})
        session.handle({"cmd": "view", "referee": True, "seats": None})
        seed = session.handle({"cmd": "state"})["seed"]
        assert hand == [t.as_json() for t in Game(players=2, seed=seed).hand()]
        hands.append(hand)
    assert hands[0] != hands[1]


def test_two_people_and_a_bot() -> None:
    """The seats people play are shown; the bot's is not, on its turn either."""
    session = BoardSession(WebLimits())
    session.handle({"cmd": "view", "referee": False, "seats": [0, 1]})
    session.handle({"cmd": "new", "players": 3, "seed": 5})
    for _ in range(3):
        state = session.handle({"cmd": "state"})
        assert ("hand" in state) == (state["to_move"] != 2)
        if state["to_move"] == 2:
            assert "seats 0, 1" in session.handle({"cmd": "moves"})["error"]
            session.handle({"cmd": "bot_play", "bot": "greedy"})
        else:
            session.handle({"cmd": "play", "action": session.handle({"cmd": "best"})["action"]})


@pytest.mark.process
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_serve_ends_on_a_signal_with_its_status(signum: int) -> None:
    """Ctrl-C (130) or SIGTERM (143) once it serves, as every command: uvicorn shuts
    down and hands the signal back to the command line's handling."""
    from tests.signals import popen_taking_sigint

    proc = popen_taking_sigint(
        [sys.executable, "-m", "qwirkle_core", "serve", "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        assert proc.stdout is not None
        assert b"http://127.0.0.1:" in proc.stdout.readline()
        proc.send_signal(signum)
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 128 + signum and b"Traceback" not in err, err


@pytest.mark.process
def test_serve_writes_one_line_for_what_it_cannot_read() -> None:
    """A request line that is not HTTP, and a page that goes away in the middle of its
    body: the server goes on, and writes on stderr one ``qwirkle-core: `` line for the
    first and nothing for the second (nobody is left to answer), never a traceback."""
    from tests.signals import popen_taking_sigint

    proc = popen_taking_sigint(
        [sys.executable, "-m", "qwirkle_core", "serve", "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        assert proc.stdout is not None
        port = int(proc.stdout.readline().decode().split("http://127.0.0.1:")[1].split("/")[0])

        def exchange(data: bytes, close_early: bool = False) -> bytes:
            with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
                sock.sendall(data)
                if close_early:
                    time.sleep(0.3)
                    return b""
                answer = b""
                while chunk := sock.recv(65536):
                    answer += chunk
                return answer

        head = f"Host: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
        hello = exchange(f"POST /session HTTP/1.1\r\n{head}Content-Length: 2\r\nConnection: close\r\n\r\n{{}}".encode())
        key = json.loads(hello.split(b"\r\n\r\n", 1)[1])["session"]
        exchange(f"POST /engine HTTP/1.1\r\n{head}{SESSION_HEADER}: {key}\r\nContent-Length: 100\r\n\r\n{{".encode(), True)
        exchange(b"NOT HTTP AT ALL\r\n\r\n")
        health = exchange(f"GET /health HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n".encode())
        assert health.startswith(b"HTTP/1.1 200"), health
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    # (Not the lines of a cold or unwritable numba cache: the server compiles the page's
    # kernels as it starts, which a run alone on a fresh checkout does.)
    lines = [line for line in err.decode().splitlines() if "compiling kernels" not in line and "cache" not in line]
    assert len(lines) == 1 and lines[0].startswith("qwirkle-core: warning: "), lines


def test_a_page_sending_too_much_waits_its_turn(client: TestClient) -> None:
    """Requests behind a running one: a few wait, more get 429; a stop is answered at
    once, on the event loop, and takes no turn (it stops those waiting)."""
    import threading

    page = Page(client)
    page.send({"cmd": "new", "seed": 1})
    session = client.app.state.sessions.get(page.key)  # type: ignore[attr-defined]
    statuses: list[int] = []

    def post() -> None:
        reply = client.post("/engine", content='{"cmd": "count"}', headers={**JSON, SESSION_HEADER: page.key})
        statuses.append(reply.status_code)

    with session.lock:  # a request running
        waiting = [threading.Thread(target=post) for _ in range(5)]
        for thread in waiting:
            thread.start()
        while session._admitted < 5:
            time.sleep(0.01)
        post()
        assert statuses == [429]
        assert page.send({"cmd": "stop"})["ok"]  # not behind the five waiting
    for thread in waiting:
        thread.join(30)
    assert sorted(statuses) == [200] * 5 + [429]


WORKQUEUE_SCRIPT = """
import threading
from qwirkle_core.web.sessions import BoardSession, WebLimits
sessions = [BoardSession(WebLimits(timeout=20.0)) for _ in range(3)]
for i, s in enumerate(sessions):
    s.handle({"cmd": "new", "seed": i + 1})
out = []
threads = [threading.Thread(target=lambda s=s: out.append(s.handle({"cmd": "sim", "top": 4, "iterations": 600})))
           for s in sessions]
for t in threads: t.start()
for t in threads: t.join()
assert not any("error" in r for r in out), out
print("ok")
"""


@pytest.mark.process
def test_parallel_kernels_from_pages_at_once_under_workqueue() -> None:
    """numba's workqueue layer aborts the process when two threads start parallel
    kernels: three pages simulating at once take turns instead."""
    import os

    env = {**os.environ, "NUMBA_THREADING_LAYER": "workqueue"}
    done = subprocess.run([sys.executable, "-c", WORKQUEUE_SCRIPT], env=env, capture_output=True, timeout=300, check=False)
    assert done.returncode == 0 and b"ok" in done.stdout, done.stderr[-2000:]


def test_a_page_s_waiting_requests_hold_no_worker_thread(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each waiting request held a thread of the server's pool: enough pages gone wrong
    (five requests each) starved every other page.  They now wait on the event loop."""
    import threading

    page = Page(client)
    page.send({"cmd": "new", "seed": 1})
    session = client.app.state.sessions.get(page.key)  # type: ignore[attr-defined]
    answer = BoardSession.answer
    counted = threading.Lock()
    in_flight = [0, 0]  # now, most

    def counting(self: BoardSession, request: Any, seq: int | None = None) -> str:
        with counted:
            in_flight[0] += 1
            in_flight[1] = max(in_flight)
        try:
            return answer(self, request, seq)
        finally:
            with counted:
                in_flight[0] -= 1

    monkeypatch.setattr(BoardSession, "answer", counting)
    statuses: list[int] = []

    def post() -> None:
        reply = client.post("/engine", content='{"cmd": "count"}', headers={**JSON, SESSION_HEADER: page.key})
        statuses.append(reply.status_code)

    waiting = [threading.Thread(target=post) for _ in range(5)]
    with session.lock:  # a request running
        for thread in waiting:
            thread.start()
        deadline = time.monotonic() + 60
        while session._admitted < 5 and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.3)  # time for any of them to reach a worker thread
        assert session._admitted == 5 and in_flight[1] == 1
    for thread in waiting:
        thread.join(30)
    assert statuses == [200] * 5


def test_a_stop_ends_the_wait_for_another_page_s_search(monkeypatch: pytest.MonkeyPatch) -> None:
    """Under numba's workqueue layer the searches of all pages take turns; a page whose
    search waits for another page's is stopped at once, not after it."""
    import threading

    from qwirkle_core.web import sessions

    monkeypatch.setattr(sessions, "_parallel_unsafe", lambda: True)
    session = BoardSession(WebLimits(timeout=60.0))
    session.handle({"cmd": "new", "seed": 3})
    replies: list[dict[str, Any]] = []
    worker = threading.Thread(target=lambda: replies.append(session.handle({"cmd": "sim", "top": 2, "iterations": 128})))
    with sessions._PARALLEL_LOCK:  # another page's search runs
        worker.start()
        while not session.lock.locked():
            time.sleep(0.01)
        assert session.handle({"cmd": "stop"})["stopped"]
        worker.join(10)
        assert replies == [{"id": None, "error": "stopped by a stop request"}]


def test_shutting_down_stops_every_page_s_search() -> None:
    import threading

    store = SessionStore(WebLimits(timeout=60.0))
    _, session = store.create()
    session.handle({"cmd": "new", "seed": 3})
    replies: list[dict[str, Any]] = []
    worker = threading.Thread(target=lambda: replies.append(session.handle({"cmd": "sim", "top": 2, "plies": 1, "iterations": 10**6})))
    worker.start()
    while not session.lock.locked():
        time.sleep(0.01)
    store.stop_everything()
    worker.join(300)  # (a first sim compiles its kernels where the cache is cold)
    assert replies and replies[0]["stopped_by"] == "stop"
    assert session.handle({"cmd": "count"})["error"] == "stopped by a stop request"


def test_shutting_down_takes_no_lock_a_request_may_hold() -> None:
    """The stop runs in uvicorn's signal handler, on the thread that takes the store's
    lock for every request: with that lock taken it would wait for ever."""
    import threading

    store = SessionStore(WebLimits(timeout=60.0))
    store.create()
    with store._lock:  # a request's get() or create() when the signal comes
        stopping = threading.Thread(target=store.stop_everything, daemon=True)
        stopping.start()
        stopping.join(10)
        assert not stopping.is_alive()


def test_web_limits_refuse_what_the_engine_refuses() -> None:
    for name in ("max_body_bytes", "max_games"):
        with pytest.raises(QwirkleError, match=name):
            WebLimits(**{name: 2**41})
