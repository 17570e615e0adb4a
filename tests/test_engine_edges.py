"""The engine, its client and the bots at their edges: a stop with requests waiting, a
null timeout, fields checked whatever the answer, an over game that is not over, huge
limits, a client whose request was interrupted or whose engine died.  Each test
reproduces a finding of a review of the engine (it failed before its fix)."""

from __future__ import annotations

import io
from typing import Any

import numpy as np
import pytest

from qwirkle_core.bots import make_bot, play
from qwirkle_core.client import EngineClient, EngineError, EngineTerminatedError
from qwirkle_core.engine import EngineSession, Limits
from qwirkle_core.errors import QwirkleError
from qwirkle_core.game import Game


def _session_with_a_game(seed: int = 3) -> EngineSession:
    session = EngineSession()
    assert session.handle({"cmd": "new", "seed": seed}, seq=1)["ok"]
    return session


# ------------------------------------------------------------------ a stop
def test_a_stop_ends_the_requests_still_waiting() -> None:
    session = _session_with_a_game()
    before = session.handle({"cmd": "state", "reveal": True}, seq=2)["position"]
    session.stop_before = 6  # the reader thread read a stop as request 6
    best = session.handle({"cmd": "best"}, seq=3)
    assert best["error"] == "stopped by a stop request"
    played = session.handle({"cmd": "play", "action": "pass"}, seq=4)
    assert played["error"] == "stopped by a stop request"
    renewed = session.handle({"cmd": "new", "seed": 9}, seq=5)
    assert renewed["error"] == "stopped by a stop request"
    assert session.handle({"cmd": "stop"}, seq=6)["stopped"] is True
    assert session.handle({"cmd": "state", "reveal": True}, seq=7)["position"] == before  # nothing moved


def test_a_waiting_search_answers_with_its_best_so_far() -> None:
    session = _session_with_a_game()
    session.stop_before = 3
    reply = session.handle({"cmd": "sim", "top": 2, "iterations": 1024, "seed": 1}, seq=2)
    assert reply["ok"] and reply["stopped"] is True and reply["stopped_by"] == "stop"
    assert len(reply["ranked"]) == 2


# ------------------------------------------------------------------ fields
def test_a_null_timeout_is_the_engine_s() -> None:
    session = EngineSession(Limits(timeout=1e-6))
    session.handle({"cmd": "new", "seed": 3})
    reply = session.handle({"cmd": "selfplay", "games": 2000, "timeout": None})
    assert reply["error"].startswith("timed out after")


@pytest.mark.parametrize(
    "request_",
    [
        {"cmd": "best", "seed": -1},
        {"cmd": "best", "movetime": "abc"},
        {"cmd": "best", "bot": "nope"},
        {"cmd": "best", "bot": 5},
    ],
)
def test_best_checks_every_field(request_: dict[str, Any]) -> None:
    assert "error" in _session_with_a_game().handle(request_)


def test_best_checks_its_bot_on_a_finished_game() -> None:
    session = EngineSession()
    game = Game(2, 1)
    play(game, [make_bot("greedy", 1, 0), make_bot("greedy", 1, 1)])
    assert session.handle({"cmd": "position", "position": game.to_string()})["ok"]
    assert session.handle({"cmd": "best", "bot": "greedy"})["action"] is None
    assert "error" in session.handle({"cmd": "best", "bot": "nope"})


def test_a_game_in_play_is_not_over() -> None:
    fields = Game(2, 1).to_string().split("|")
    fields[5] = "e"
    reply = EngineSession().handle({"cmd": "position", "position": "|".join(fields)})
    assert "a tile can still be placed" in reply["error"]


def test_limits_beyond_what_a_line_read_takes_are_refused() -> None:
    for value in (2**63 - 1, 10**20):
        with pytest.raises(QwirkleError, match="max_line_bytes"):
            Limits(max_line_bytes=value)


# ------------------------------------------------------------------ the bots
def test_a_search_bot_takes_a_numpy_seat() -> None:
    game = Game(2, 3)
    chosen = make_bot("sim", seed=2**63, seat=np.int64(1)).choose(game)
    assert chosen == make_bot("sim", seed=2**63, seat=1).choose(game)


@pytest.mark.parametrize("max_turns", ["5", None, float("nan"), -1, 2**70])
def test_play_checks_max_turns(max_turns: object) -> None:
    with pytest.raises(QwirkleError, match="max_turns"):
        play(Game(2, 1), [make_bot("greedy"), make_bot("greedy")], max_turns=max_turns)  # type: ignore[arg-type]


# ------------------------------------------------------------------ the client
class _Pipe(io.StringIO):
    def __init__(self, text: str = "", broken: bool = False) -> None:
        super().__init__(text)
        self.broken = broken

    def close(self) -> None:
        super().close()
        if self.broken:
            raise BrokenPipeError(32, "Broken pipe")


class _FakeEngine:
    """What EngineClient reads a process through: replies already written."""

    def __init__(self, replies: str, broken: bool = False) -> None:
        self.stdin = _Pipe(broken=broken)
        self.stdout = _Pipe(replies)

    def poll(self) -> int | None:
        return 0

    def wait(self, timeout: float | None = None) -> int:
        return 0

    def kill(self) -> None:
        pass


def _client(replies: str, broken: bool = False) -> EngineClient:
    return EngineClient(_FakeEngine(replies, broken))  # type: ignore[arg-type]


def test_the_reply_to_an_interrupted_request_is_passed_over() -> None:
    client = _client('{"id":1,"ok":true,"count":7}\n{"id":2,"ok":true,"count":9}\n')
    client._next_id = 1  # request 1 was interrupted before its reply was read
    assert client.count() == 9


def test_the_engine_s_error_for_an_unreadable_request_is_shown() -> None:
    client = _client('{"id":null,"error":"request line longer than 1048576 bytes (--max-line-bytes)"}\n')
    with pytest.raises(EngineError, match="longer than"):
        client.count()


@pytest.mark.parametrize("line", ["not json", "[1, 2]"])
def test_a_line_that_is_no_reply_is_an_engine_error(line: str) -> None:
    with pytest.raises(EngineError):
        _client(line + "\n").count()


def test_a_closed_client_says_so() -> None:
    client = _client("")
    client.close()
    with pytest.raises(EngineTerminatedError, match="closed"):
        client.count()


def test_closing_a_dead_engine_s_pipe_raises_nothing() -> None:
    _client("", broken=True).close()


def test_a_command_that_cannot_start_is_an_engine_error() -> None:
    with pytest.raises(EngineTerminatedError, match="did not start"):
        EngineClient.start(["/nonexistent/qwirkle-engine"])
    with pytest.raises(QwirkleError, match="not one string"):
        EngineClient.start("qwirkle-core engine")  # type: ignore[arg-type]
