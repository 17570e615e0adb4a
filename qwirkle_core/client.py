"""Drive an engine process from Python (in the spirit of python-chess's SimpleEngine).

>>> with EngineClient.start() as engine:                       # doctest: +SKIP
...     engine.new(players=2, seed=1)
...     best = engine.best()
...     engine.play(best["action"])
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
from collections.abc import Sequence
from types import TracebackType
from typing import Any

from .errors import QwirkleError


class EngineError(QwirkleError):
    """The engine answered a request with an error (its state is unchanged)."""


class EngineTerminatedError(QwirkleError):
    """The engine process ended before it answered."""


class EngineClient:
    """One engine process and a request/reply dialogue with it.

    ``request(cmd, **args)`` sends one request and returns the reply (without ``ok`` and
    ``id``), raising :class:`EngineError` for an error reply.  The methods below are
    thin names for the commands.
    """

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self._process = process
        self._next_id = 0

    @classmethod
    def start(cls, command: Sequence[str] | None = None) -> EngineClient:
        """Start ``python -m qwirkle_core engine`` (or ``command``, a sequence of
        arguments such as ``["qwirkle-core", "engine", "--timeout", "5"]``).  Raises
        EngineTerminatedError when the program cannot be started."""
        if isinstance(command, (str, bytes)):
            raise QwirkleError(f"command is a sequence of arguments (a list), not one string: {command!r}")
        argv = list(command) if command is not None else [sys.executable, "-m", "qwirkle_core", "engine"]
        try:
            process = subprocess.Popen(
                argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
            )
        except (OSError, ValueError, TypeError) as exc:
            raise EngineTerminatedError(f"the engine did not start: {exc}") from None
        return cls(process)

    def request(self, cmd: str, **args: Any) -> dict[str, Any]:
        """Send one request ``{"cmd": cmd, **fields}`` (fields that are None left out) and return the reply
        without ``id`` and ``ok``; raises EngineError for an error reply, and QwirkleError,
        sending nothing, for fields that JSON cannot carry (NaN, an infinity, an object)."""
        if self._process.stdin is None or self._process.stdout is None:
            raise EngineTerminatedError("the engine has no pipes")
        if self._process.stdin.closed or self._process.stdout.closed:
            raise EngineTerminatedError("the client is closed")
        message = {"cmd": cmd, "id": self._next_id + 1, **{k: v for k, v in args.items() if v is not None}}
        try:
            # (allow_nan=False: Python would write NaN or Infinity, which is no JSON; the
            # engine could not read the line, nor say which request it was.)
            text = json.dumps(message, allow_nan=False)
        except (TypeError, ValueError, RecursionError) as exc:  # (RecursionError: nested too deep)
            raise QwirkleError(f"the {cmd!r} request cannot be written as JSON: {exc}") from None
        self._next_id += 1
        rid = self._next_id
        try:
            self._process.stdin.write(text + "\n")
            self._process.stdin.flush()
        except (BrokenPipeError, OSError):
            raise EngineTerminatedError("the engine is not running") from None
        reply = self._reply_to(rid)
        if "error" in reply:
            raise EngineError(str(reply["error"]))
        reply.pop("id", None)
        reply.pop("ok", None)
        return reply

    def _reply_to(self, rid: int) -> dict[str, Any]:
        """The reply to request ``rid``.  Replies to earlier requests are passed over:
        a request interrupted in the caller (Ctrl-C, a signal's exception) leaves its
        reply to come, and the next request would otherwise read it as its own."""
        assert self._process.stdout is not None
        while True:
            line = self._process.stdout.readline()
            if not line:
                raise EngineTerminatedError(f"the engine ended (exit status {self._process.poll()})")
            try:
                reply = json.loads(line)
            except ValueError:
                raise EngineError(f"the engine wrote a line that is not JSON: {line[:80]!r}") from None
            if not isinstance(reply, dict):
                raise EngineError(f"the engine wrote a line that is not a reply object: {line[:80]!r}")
            got = reply.get("id")
            if type(got) is int and got < rid:
                continue
            if got is None and "error" in reply:
                # The engine could not read the request (a line too long, say): its error.
                return reply
            if got != rid:
                raise EngineError(f"reply to request {got!r}, expected {rid}")
            return reply

    # The commands.
    def hello(self) -> dict[str, Any]:
        """The engine's name, version, protocol and commands."""
        return self.request("hello")

    def new(self, players: int = 2, seed: int = 0, tie_break: list[int] | None = None) -> dict[str, Any]:
        """Start a new game from a seed."""
        return self.request("new", players=players, seed=seed, tie_break=tie_break)

    def position(self, position: str | None = None, **parts: Any) -> dict[str, Any]:
        """Set up a position: a position string, or ``board`` and ``hands`` (and ``bag``, ``scores``,
        ``to_move``)."""
        return self.request("position", position=position, **parts)

    def state(self) -> dict[str, Any]:
        """The current game as the player to move sees it (see the engine protocol)."""
        return self.request("state")

    def moves(self, top: int | None = None, min_score: int | None = None) -> dict[str, Any]:
        """The legal moves of the player to move (the ``top`` best, or those scoring at least ``min_score``)."""
        return self.request("moves", top=top, min_score=min_score)

    def count(self) -> int:
        """How many legal moves the player to move has."""
        return int(self.request("count")["count"])

    def best(self, bot: str | None = None, seed: int | None = None, movetime: float | None = None) -> dict[str, Any]:
        """The engine's choice: the highest-scoring move, else an exchange or a pass; or,
        with ``bot``, that built-in bot's choice (``movetime``: seconds, for the bots
        that search)."""
        return self.request("best", bot=bot, seed=seed, movetime=movetime)

    def play(self, action: str | dict[str, Any]) -> dict[str, Any]:
        """Play an action (notation text or a JSON object) for the player to move."""
        return self.request("play", action=action)

    def undo(self) -> dict[str, Any]:
        """Take back the last turn."""
        return self.request("undo")

    def masks(self) -> dict[str, Any]:
        """For every empty cell beside the board, the tiles that fit there alone."""
        return self.request("masks")

    def analyse(self, top: int | None = None, win: bool = False, **fields: Any) -> dict[str, Any]:
        """The best moves with their risk, and the open Qwirkle slots; with ``win``, each
        move's win probability by simulation (``fields``: ``iterations``,
        ``time_limit``, ``seed``, ``plies``, ``threads``)."""
        return self.request("analyse", top=top, win=win or None, **fields)

    def selfplay(
        self, games: int, players: int = 2, bots: str = "greedy", seed: int = 0, movetime: float | None = None
    ) -> dict[str, Any]:
        """Play ``games`` games between built-in bots inside the engine; returns the summary.
        ``movetime``: seconds a move for the bots that search (``sim``, ``endgame``)."""
        return self.request("selfplay", games=games, players=players, bots=bots, seed=seed, movetime=movetime)

    def sim(
        self,
        top: int | None = None,
        plies: int | str | None = None,
        iterations: int | None = None,
        time_limit: float | None = None,
        seed: int | None = None,
        threads: int | None = None,
        candidates: Sequence[str | dict[str, Any]] | None = None,
        **fields: Any,
    ) -> dict[str, Any]:
        """Rank the player to move's actions by Monte Carlo simulation: ``ranked``, best
        first, each with ``action``, ``score``, ``equity``, ``win``, ``stderr``,
        ``iterations``; and ``stopped``.  ``plies``: None for the engine's default (2),
        ``"end"`` to play each sampled game to its end.  ``fields``: more request
        fields (``timeout``, ``reveal``)."""
        return self.request(
            "sim", top=top, plies=plies, iterations=iterations, time_limit=time_limit, seed=seed, threads=threads,
            candidates=list(candidates) if candidates is not None else None, **fields,
        )

    def solve(self, time_limit: float | None = None, **fields: Any) -> dict[str, Any]:
        """Solve the endgame (two players, the bag empty): ``action``, ``spread``, ``pv``,
        ``nodes``, ``exact``, ``stopped``."""
        return self.request("solve", time_limit=time_limit, **fields)

    def quit(self) -> None:
        """Ask the engine to stop and wait for it."""
        if self._process.poll() is None:
            try:
                self.request("quit")
            except QwirkleError:
                pass
        self.close()

    def close(self) -> None:
        """Close the pipes and wait for the engine process to end (kill it after 10 s)."""
        for pipe in (self._process.stdin, self._process.stdout):
            if pipe is not None:
                # Closing flushes what a failed write left buffered: to a dead engine
                # that is a broken pipe, which must not hide the error being raised.
                with contextlib.suppress(OSError):
                    pipe.close()
        try:
            self._process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()

    def __enter__(self) -> EngineClient:  # noqa: PYI034 - Self needs Python 3.11
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.quit()
