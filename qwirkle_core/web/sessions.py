"""The engine sessions behind the analysis board: one per page, capped and expired.

Each page gets an :class:`~qwirkle_core.engine.EngineSession` of its own and sends it
the engine's JSON requests unchanged (``POST /engine``), plus the board's own that the
engine process has no use for (``view``, ``check``, ``bot_play``, ``redo``,
``load_record``, ``record``).  Every rule, move and score comes from the engine and the library: this
module only routes requests, bounds them and keeps hidden information hidden.

Hidden information (the other hands, the bag, the position string, a record) reaches
a page only in the referee's view, which the page asks for with ``{"cmd": "view",
"referee": true}``: until then ``"reveal": true`` and ``record`` are refused, so a
page in the player's view cannot see, even in its own network log, what a player at
the table could not.  No import here needs the ``web`` extra.
"""

from __future__ import annotations

import asyncio
import itertools
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeGuard

from ..engine import MAX_LIMIT, MAX_TIMEOUT, EngineSession, Limits, _read_action, _shown_text, reply_line
from ..errors import QwirkleError
from ..game import Game
from ..jsonio import BadInputError, brief, loads
from ..records import record_line

# numba's workqueue threading layer (the one it falls back to without TBB or OpenMP)
# aborts the whole process when parallel kernels start from two threads at once, and
# the server runs each page's requests on a thread of its own: the requests that may
# start one (rollouts, self-play, the batch queries) then take turns, process-wide.
PARALLEL_COMMANDS = frozenset({"sim", "analyse", "solve", "selfplay", "best", "bot_play"})
_PARALLEL_LOCK = threading.Lock()
PARALLEL_POLL_SECONDS = 0.05  # how often a request waiting for that turn looks for a stop
TURN_POLL_SECONDS = 0.005  # how often a page's request waiting for its turn looks again


def _parallel_unsafe() -> bool:
    """Whether parallel kernels may not start from two threads at once: the workqueue
    layer, or none chosen yet (numba chooses at the first parallel kernel)."""
    from numba.np.ufunc.parallel import threading_layer

    try:
        return bool(threading_layer() == "workqueue")  # type: ignore[no-untyped-call]
    except ValueError:  # no parallel kernel has run yet
        return True

# The requests a page may not send: "quit" would end an engine process, and a page's
# session ends by expiring instead.
REFUSED = frozenset({"quit"})
# The requests of one page that may wait for the one running (a page sends one at a
# time; more are a page gone wrong, and each waiting holds a worker thread).
MAX_WAITING = 4
BOARD_COMMANDS = ("view", "check", "bot_play", "redo", "load_record", "record")
# The requests whose replies tell the hand of the player to move (its moves, their
# simulation, the endgame line, a refusal that says a tile is not held): refused on
# another seat's turn in a one-seat view.  That seat's turn is a bot's: "bot_play".
HAND_READERS = frozenset({"moves", "count", "best", "play", "analyse", "sim", "solve", "masks", "check"})


@dataclass(frozen=True)
class WebLimits:
    """What the server allows: ``max_sessions`` pages at once (the least recently used
    is dropped for a new one), each dropped after ``session_ttl`` seconds unused; a
    request body of at most ``max_body_bytes``; a request runs at most ``timeout``
    seconds (a search then replies with its best so far, as in the engine); a
    ``selfplay`` request plays at most ``max_games`` games."""

    max_sessions: int = 16
    session_ttl: float = 3600.0
    max_body_bytes: int = 1 << 20
    timeout: float = 30.0
    max_games: int = 1000

    def __post_init__(self) -> None:
        for name in ("max_sessions", "max_body_bytes", "max_games"):
            value = getattr(self, name)
            if type(value) is not int or not 1 <= value <= MAX_LIMIT:
                raise QwirkleError(f"{name} must be an integer in 1..{MAX_LIMIT:,}, got {brief(value)}")
        for name in ("session_ttl", "timeout"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= MAX_TIMEOUT:
                raise QwirkleError(f"{name} must be a number of seconds in (0, {MAX_TIMEOUT:g}], got {brief(value)}")

    def engine_limits(self) -> Limits:
        """The engine's limits for a page's session: its request size, games and time."""
        return Limits(max_line_bytes=self.max_body_bytes, max_games=self.max_games, timeout=self.timeout)


def _checked_limits(limits: object) -> WebLimits:
    if limits is None:
        return WebLimits()
    if not isinstance(limits, WebLimits):
        raise QwirkleError(f"limits must be a WebLimits, got {brief(limits)}")
    return limits


class BoardSession:
    """One page's engine session, its view (player or referee) and when it was used."""

    def __init__(self, limits: WebLimits | None = None) -> None:
        self.limits = _checked_limits(limits)
        self.engine = EngineSession(self.limits.engine_limits())
        self.referee = False
        # The player's view of some seats (the people playing against bots): the other
        # seats' hands stay hidden on their turns too.  None: the view of whoever is to
        # move (people taking turns at one screen), as the engine gives it.
        self.seats: frozenset[int] | None = None
        # The turns undone, the next to play again last, in full: "redo" replays one
        # (on a hidden turn too: it tells nothing new, it was played before), so the
        # page never needs an exchange's tiles to step through.
        self.undone: list[str] = []
        # The time source of the expiry (SessionStore sets its own; tests set a fake).
        self.clock: Callable[[], float] = time.monotonic
        self.last_used = self.clock()
        self._numbers = itertools.count(1)
        self._seq = 0  # the number of the request running
        # One request at a time per session (the engine's state is not shared between
        # threads); a "stop" does not wait for it, which is its point.
        self.lock = threading.Lock()
        # The server's requests of this page wait for their turn (take_turn) on its
        # event loop, not on a worker thread: a waiting request held a thread of the
        # server's pool, and enough pages gone wrong starved every other page.
        self._turn = threading.Lock()
        self._admitted = 0  # requests running or waiting (enter/leave)
        self._admit_lock = threading.Lock()

    def enter(self) -> bool:
        """Admit one more request (True), unless MAX_WAITING already wait behind the
        one running (False: the server answers 429).  :meth:`leave` when answered."""
        with self._admit_lock:
            if self._admitted > MAX_WAITING:
                return False
            self._admitted += 1
            return True

    def leave(self) -> None:
        """A request admitted by :meth:`enter` was answered."""
        with self._admit_lock:
            self._admitted -= 1

    def handle(self, request: Any) -> dict[str, Any]:
        """Answer one request: an engine request or one of the board's own.  Never
        raises; a bad request gets ``{"id": ..., "error": ...}`` and changes nothing."""
        reply: dict[str, Any] = loads(self.answer(request))
        return reply

    async def take_turn(self) -> None:
        """Wait, on the event loop, until no other request of this page runs; then
        this one's turn holds until :meth:`end_turn`.  (It polls: an asyncio lock is
        bound to one event loop, and a test client runs each request in a loop of its
        own.  A page sends one request at a time; more wait in no set order, as they
        did for a thread's lock.)"""
        while not self._turn.acquire(blocking=False):
            await asyncio.sleep(TURN_POLL_SECONDS)

    def end_turn(self) -> None:
        """The request whose turn :meth:`take_turn` gave is answered."""
        if not self._turn.locked():
            raise QwirkleError("no turn to end: take_turn gives one")
        self._turn.release()

    def number(self) -> int:
        """The next request's number.  Requests are numbered as they arrive, as the
        engine process numbers the lines it reads: a stop stops every request that
        arrived before it, the one running and those waiting for it, and none that
        comes after.  (The server numbers a request on arrival, before it waits for
        its turn.)"""
        return next(self._numbers)

    def stop_everything(self) -> None:
        """Stop the request running and every one waiting or still to come (the
        server shutting down: none is left to wait for)."""
        self.engine.stop_before = 1 << 62

    def answer(self, request: Any, seq: int | None = None) -> str:
        """:meth:`handle`'s reply as one line of JSON, as the engine process writes it:
        a long move list goes out as the engine encoded it, column by column, not
        decoded into Python objects and encoded again (about 1 s for 38,642 moves).
        ``seq``: the request's number from :meth:`number` (by default, numbered now)."""
        return reply_line(self._reply(request, self.number() if seq is None else seq))

    def _reply(self, request: Any, seq: int) -> dict[str, Any]:
        self.last_used = self.clock()
        rid = request.get("id") if isinstance(request, dict) else None
        cmd = request.get("cmd") if isinstance(request, dict) else None
        if cmd == "stop":
            self.engine.stop_before = max(self.engine.stop_before, seq)
            return {"id": rid, "ok": True, "stopped": self.lock.locked()}
        with self.lock:
            self._seq = seq
            try:
                if not isinstance(cmd, str):
                    return self.engine._answer(request, seq)  # the engine's own error for it
                if cmd in PARALLEL_COMMANDS and _parallel_unsafe():
                    if not self._parallel_turn(seq):
                        return {"id": rid, "error": "stopped by a stop request"}
                    try:
                        return self._handle(cmd, request, rid)
                    finally:
                        _PARALLEL_LOCK.release()
                return self._handle(cmd, request, rid)
            finally:
                self.last_used = self.clock()

    def _parallel_turn(self, seq: int) -> bool:
        """Wait for the process-wide turn of the requests that may start parallel
        kernels (True, holding _PARALLEL_LOCK), or until a stop comes for request
        ``seq`` (False): a stopped page does not wait out another page's search."""
        while not _PARALLEL_LOCK.acquire(timeout=PARALLEL_POLL_SECONDS):
            if seq < self.engine.stop_before:
                return False
        return True

    def _handle(self, cmd: str, request: dict[str, Any], rid: Any) -> dict[str, Any]:
        try:
            if cmd in REFUSED:
                raise BadInputError(f'"{cmd}" is not served here: a page\'s session ends when it expires')
            if request.get("reveal") is True and not self.referee:
                raise BadInputError('"reveal" needs the referee\'s view: send {"cmd": "view", "referee": true} first')
            request = self._bounded(request)
            if cmd in ("new", "bot_play") and isinstance(request.get("seed"), str):
                request = {**request, "seed": _seed_from_text(request["seed"])}
            if cmd == "new" and request.get("seed") is None:
                # The server deals: a seed the page chose (or saw) would tell it every
                # hand and the bag.  The referee's view and the record tell it.
                request = {**request, "seed": secrets.randbits(63)}
            if self._hidden_turn() and cmd in HAND_READERS:
                raise BadInputError(
                    f"it is seat {self._game().to_move}'s turn, and this page sees {self._seats_text()} only"
                    + (' (a bot plays it: "bot_play"; a turn undone: "redo")' if cmd == "play" else "")
                )
            if cmd in BOARD_COMMANDS:
                return self._shown(cmd, {"id": rid, "ok": True, **getattr(self, "_" + cmd)(request)})
        except QwirkleError as exc:
            return {"id": rid, "error": str(exc)}
        except RecursionError:
            return {"id": rid, "error": "request nested too deeply"}
        except Exception as exc:  # noqa: BLE001 - as the engine: the session survives any request
            return {"id": rid, "error": f"internal error ({type(exc).__name__}): {brief(str(exc))}"}
        reply = self.engine._answer(request, self._seq)
        if "error" not in reply:
            self._track_undone(cmd, reply)
        return self._shown(cmd, reply)

    def _shown(self, cmd: str, reply: dict[str, Any]) -> dict[str, Any]:
        """What the page may see of a reply: no hand of a seat it does not see, no
        exchanged tiles outside the referee's view (their number instead, as in the
        history), and the turns "redo" plays again."""
        if "error" in reply:
            return reply
        if self._hidden_turn():
            reply.pop("hand", None)  # another seat's hand: its size is in hand_sizes
        for key in ("played", "undone"):
            if isinstance(reply.get(key), str):
                reply[key] = _shown_text(reply[key], self.referee)
        if cmd == "state":
            reply["redo"] = [_shown_text(text, self.referee) for text in reversed(self.undone)]
            if self.referee:
                seed = self._game().seed
                # Also as text: a page's JavaScript reads a JSON number above 2**53
                # rounded, and the server's own seeds are 63 bits.
                reply["seed"] = seed
                reply["seed_text"] = None if seed is None else str(seed)
        return reply

    def _seats_text(self) -> str:
        seats = sorted(self.seats or ())
        if len(seats) == 1:
            return f"seat {seats[0]}'s hand"
        return f"the hands of seats {', '.join(map(str, seats))}" if seats else "no seat's hand"

    def _bounded(self, request: dict[str, Any]) -> dict[str, Any]:
        """The request within the server's time bound, whatever the page asks for: no
        ``"timeout"``, null (which the engine reads as its own) or a longer one is the
        bound; a ``"movetime"`` (a searching bot's budget a move) is at most the bound.
        A value that is not a number is left for the engine to refuse."""
        bound = self.limits.timeout
        out = dict(request)
        timeout = request.get("timeout")
        if timeout is None or (_is_number(timeout) and timeout > bound):
            out["timeout"] = bound
        movetime = request.get("movetime")
        if _is_number(movetime) and movetime > bound:
            out["movetime"] = bound
        return out

    def _track_undone(self, cmd: str, reply: dict[str, Any]) -> None:
        # Before _shown: the texts kept are whole, for "redo" to play.
        if cmd == "undo":
            self.undone.append(reply["undone"])
        elif cmd == "play" and self.undone and reply["played"] == self.undone[-1]:
            self.undone.pop()
        elif cmd in ("play", "new", "position"):
            self.undone.clear()

    def _hidden_turn(self) -> bool:
        """Whether the seat to move is one whose hand this page may not see."""
        game = self.engine.game
        return not self.referee and self.seats is not None and game is not None and game.to_move not in self.seats

    # ------------------------------------------------------------ the board's commands
    def _game(self) -> Game:
        if self.engine.game is None:
            raise BadInputError('no game yet: send "new" or "position" first')
        return self.engine.game

    def _view(self, request: dict[str, Any]) -> dict[str, Any]:
        """The referee's view (``"referee": true``: every hand and the bag), or a
        player's: ``"seats"``, the seats whose hands the page may show (the people
        playing), or null for whoever is to move."""
        referee = request.get("referee")
        if type(referee) is not bool:
            raise BadInputError('"referee" must be true or false')
        seats = request.get("seats")
        if seats is not None and (
            not isinstance(seats, list) or any(type(seat) is not int or not 0 <= seat < 6 for seat in seats)
        ):
            raise BadInputError('"seats" must be a list of seat numbers (0 to 5), or null')
        self.referee = referee
        self.seats = None if seats is None else frozenset(seats)
        return {"referee": referee, "seats": None if self.seats is None else sorted(self.seats)}

    def _check(self, request: dict[str, Any]) -> dict[str, Any]:
        """Whether an action is legal for the player to move, and its score, judged by
        ``Game.push`` on a copy of the game: its error names the rule broken.  The
        action is given as ``play`` takes it (the engine reads it)."""
        played = self._game().copy().push(_read_action(request.get("action"), '"action"'))
        return {"legal": True, "action": played.text(), "score": played.score or 0}

    def _bot_play(self, request: dict[str, Any]) -> dict[str, Any]:
        """A built-in bot plays the turn: the engine's ``best`` with ``bot`` (and its
        ``seed``, ``movetime``), then ``play``; the reply is ``play``'s.  On the server,
        so that a page in one seat's view never sees the hand a bot plays from."""
        if request.get("bot") is None:
            raise BadInputError('"bot" names a built-in bot (random, greedy, heuristic, sim, endgame)')
        best = {key: request[key] for key in ("bot", "seed", "movetime", "timeout") if key in request}
        chosen = self.engine.handle({**best, "cmd": "best"}, self._seq)
        if "error" in chosen:
            raise BadInputError(chosen["error"])
        if chosen["action"] is None:
            raise BadInputError("the game is over")
        # The search's choice is played even where a stop ended the search (its best so
        # far), as the engine's "best" with a bot answers one.
        played = self.engine._answer(
            {"cmd": "play", "action": chosen["action"], "reveal": self.referee}, self._seq, stop_first=False,
        )
        if "error" in played:
            raise BadInputError(played["error"])
        played.pop("id", None)
        played.pop("ok", None)
        self.undone.clear()
        return {**played, "stopped": chosen.get("stopped", False)}

    def _redo(self, request: dict[str, Any]) -> dict[str, Any]:
        """Play the turn undone last again (the same tiles drawn: undo put the bag
        back); the reply is ``play``'s."""
        if not self.undone:
            raise BadInputError("nothing to redo")
        played = self.engine.handle({"cmd": "play", "action": self.undone[-1], "reveal": self.referee}, self._seq)
        if "error" in played:
            raise BadInputError(played["error"])
        self.undone.pop()
        played.pop("id", None)
        played.pop("ok", None)
        return played

    def _load_record(self, request: dict[str, Any]) -> dict[str, Any]:
        """Replay a ``qwirkle-record/1`` record (an object or its JSON text) under the
        rules; the session's game becomes the game at its end."""
        record = request.get("record")
        if not isinstance(record, (dict, str)):
            raise BadInputError('"record" must be a qwirkle-record/1 object or its JSON text')
        game = Game.from_record(record)
        self.engine.game = game
        self.undone.clear()
        return {"turns": game.turn_count}

    def _record(self, request: dict[str, Any]) -> dict[str, Any]:
        """The game so far as a record: every hand and the bag, so the referee's only."""
        if not self.referee:
            raise BadInputError("a record holds every hand and the bag: switch to the referee's view first")
        record = self._game().to_record()
        # Also as one line of JSON text, which a page saves as it is: JavaScript would
        # round the seed (63 bits where the server dealt) if it wrote the object again.
        return {"record": record, "text": record_line(record)}


def _seed_from_text(text: str) -> int:
    """A seed a page sends as its decimal digits (a JavaScript number holds integers
    exactly only up to 2**53); the engine checks its range."""
    if not (text.isascii() and text.isdigit() and len(text) <= 40):
        raise BadInputError(f'"seed" is an integer or its decimal digits, got {brief(text)}')
    return int(text)


def _is_number(value: object) -> TypeGuard[int | float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


class SessionStore:
    """The pages' sessions, by an unguessable id: at most ``max_sessions``, each
    dropped ``session_ttl`` seconds after its last request."""

    def __init__(self, limits: WebLimits | None = None) -> None:
        self.limits = _checked_limits(limits)
        # The time source of the expiry (tests set a fake one).
        self.clock: Callable[[], float] = time.monotonic
        self._sessions: dict[str, BoardSession] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._sessions)

    def stop_everything(self) -> None:
        """Stop every session's requests, running, waiting and to come (the server
        shutting down)."""
        # No lock: this runs in a signal handler, on the thread that may hold _lock
        # (get, create) when the signal comes.  list() of a dict's values runs
        # without yielding the GIL, so it sees the dict whole.
        for session in list(self._sessions.values()):
            session.stop_everything()

    def _expire(self) -> None:
        oldest = self.clock() - self.limits.session_ttl
        for key in [k for k, s in self._sessions.items() if s.last_used < oldest and not s.lock.locked()]:
            del self._sessions[key]

    def create(self) -> tuple[str, BoardSession]:
        """A new session.  At the cap the least recently used idle one makes room; when
        every one is busy, QwirkleError."""
        with self._lock:
            self._expire()
            if len(self._sessions) >= self.limits.max_sessions:
                idle = [(s.last_used, k) for k, s in self._sessions.items() if not s.lock.locked()]
                if not idle:
                    raise QwirkleError(f"all {self.limits.max_sessions} sessions are busy: try again shortly")
                del self._sessions[min(idle)[1]]
            key = secrets.token_urlsafe(18)
            session = BoardSession(self.limits)
            session.clock = self.clock
            session.last_used = self.clock()
            self._sessions[key] = session
            return key, session

    def get(self, key: str) -> BoardSession | None:
        """The session of ``key``, or None when there is none (never was, or expired)."""
        if not isinstance(key, str):
            return None
        with self._lock:
            self._expire()
            return self._sessions.get(key)
