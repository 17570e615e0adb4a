"""The engine protocol: scripted dialogues in-process, and a real engine process."""

from __future__ import annotations

import io
import json
import math
import time

import pytest

from qwirkle_core import Board, Move
from qwirkle_core.client import EngineClient, EngineError
from qwirkle_core.engine import EngineSession, _LineReader, serve
from qwirkle_core.errors import QwirkleError
from qwirkle_core.game import Game


def ask(session: EngineSession, **request: object) -> dict:  # type: ignore[type-arg]
    return session.handle(request)


def test_hello_lists_the_commands() -> None:
    reply = ask(EngineSession(), cmd="hello", id=7)
    assert reply["id"] == 7 and reply["ok"] and reply["protocol"] == 1
    for cmd in ["new", "position", "moves", "count", "best", "play", "undo", "masks", "analyse", "sim", "solve",
                "selfplay", "stop", "quit"]:
        assert cmd in reply["commands"]


def test_a_whole_dialogue_follows_the_game() -> None:
    session = EngineSession()
    reply = ask(session, cmd="new", players=3, seed=11, reveal=True)
    game = Game(players=3, seed=11)
    assert reply["position"] == game.to_string()
    for _ in range(12):
        moves = ask(session, cmd="moves")
        assert moves["count"] == len(game.legal_moves())
        assert {m["text"] for m in moves["moves"]} == {m.text() for m in game.legal_moves()}
        assert ask(session, cmd="count")["count"] == moves["count"]
        best = ask(session, cmd="best")
        played = ask(session, cmd="play", action=best["action"], reveal=True)
        game.push(best["action"])
        assert played["position"] == game.to_string()
    undone = ask(session, cmd="undo", reveal=True)
    game.pop()
    assert undone["position"] == game.to_string()


def test_errors_leave_the_state_unchanged() -> None:
    session = EngineSession()
    assert "error" in ask(session, cmd="moves", id="x") and ask(session, cmd="moves", id="x")["id"] == "x"
    before = ask(session, cmd="new", seed=3, reveal=True)["position"]
    for bad in [
        {"cmd": "play", "action": "Rc@50,50"},
        {"cmd": "play", "action": "pass"},
        {"cmd": "play", "action": 5},
        {"cmd": "play", "action": {"action": "teleport"}},
        {"cmd": "new", "players": 9},
        {"cmd": "new", "players": True},
        {"cmd": "position", "position": "nonsense"},
        {"cmd": "moves", "top": -1},
        {"cmd": "frobnicate"},
        {"nocmd": 1},
        [1, 2],
        "text",
    ]:
        reply = session.handle(bad)
        assert "error" in reply and "ok" not in reply, bad
        assert ask(session, cmd="state", reveal=True)["position"] == before
    assert "error" in session.handle_line(b"{not json")
    assert "error" in session.handle_line(b"[" * 100_000)
    assert ask(session, cmd="state", reveal=True)["position"] == before


def test_position_from_parts_and_string() -> None:
    session = EngineSession()
    reply = ask(
        session,
        cmd="position",
        board=[[0, 0, 0, 0], [0, 1, 0, 1]],
        hands=[[[0, 2], [4, 0]], [[1, 1]]],
        to_move=0,
        seed=4,
        reveal=True,
    )
    assert reply["bag"] == 108 - 2 - 3
    moves = ask(session, cmd="moves", min_score=3)
    assert {m["text"] for m in moves["moves"]} == {"Rd@0,-1", "Rd@0,2"}
    top = ask(session, cmd="moves", top=1)["moves"]
    assert len(top) == 1 and top[0]["score"] == 3
    again = ask(EngineSession(), cmd="position", position=reply["position"], reveal=True)
    assert again["position"] == reply["position"]
    board = Board.from_json([[0, 0, 0, 0], [0, 1, 0, 1]])
    masks = ask(session, cmd="masks")["cells"]
    coords, want = board.legal_tile_masks()
    assert masks == [[r, c, m] for (r, c), m in zip(coords.tolist(), want.tolist())]


def test_analyse_reports_risk_and_slots() -> None:
    session = EngineSession()
    # A red line of four: playing a fifth red tile leaves a Qwirkle slot open.
    ask(
        session,
        cmd="position",
        board=[[0, c, 0, s] for c, s in enumerate([0, 1, 2, 3])],
        hands=[[[0, 4], [3, 3]], [[1, 1]]],
    )
    reply = ask(session, cmd="analyse", top=50)
    by_text = {m["text"]: m for m in reply["moves"]}
    assert by_text["Rx@0,4"]["leaves_qwirkle"] is True and by_text["Rx@0,4"]["score"] == 5
    assert reply["qwirkle_slots"] == []
    assert reply["count"] == len(reply["moves"])


def test_selfplay_and_quit() -> None:
    session = EngineSession()
    reply = ask(session, cmd="selfplay", games=4, players=2, bots="greedy", seed=1)
    assert reply["games"] == 4 and sum(reply["wins"]) + sum(reply["shared_wins"]) >= 4
    assert ask(session, cmd="quit")["bye"] is True and session.done


def test_the_reader_marks_a_stop_however_its_json_spells_it() -> None:
    """The reader thread marks a stop (for the request running) as it reads it: also
    one whose text is escaped, which it used to pass over (it looked for the bytes
    "stop" only)."""
    for stop in (b'{"cmd": "stop"}', b'{"cmd": "\\u0073top"}', b'{"\\u0063md": "st\\u006fp"}'):
        session = EngineSession()
        reader = _LineReader(io.BytesIO(b'{"cmd": "hello"}\n' + stop + b'\n{"cmd": "hello", "note": "\\n"}\n'), session)
        reader.thread.start()
        reader.thread.join(timeout=60)
        assert session.stop_before == 2, stop


def test_serve_reads_lines_until_quit() -> None:
    lines = b'{"cmd": "hello", "id": 1}\n\n{"cmd": "quit", "id": 2}\n{"cmd": "hello", "id": 3}\n'
    out = io.StringIO()
    assert serve(io.BytesIO(lines), out) == 0
    replies = [json.loads(x) for x in out.getvalue().splitlines()]
    assert [r["id"] for r in replies] == [1, 2]


@pytest.mark.process
def test_client_drives_a_real_engine_process() -> None:
    with EngineClient.start() as engine:
        assert engine.hello()["name"] == "qwirkle_core"
        engine.new(players=2, seed=9)
        game = Game(players=2, seed=9)
        start = time.perf_counter()
        rounds = 20
        for _ in range(rounds):
            assert engine.count() == len(game.legal_moves())
        per_request = (time.perf_counter() - start) / rounds
        assert per_request > 0
        best = engine.best()
        engine.play(best["action"])
        game.push(best["action"])
        assert engine.request("state", reveal=True)["position"] == game.to_string()
        with pytest.raises(EngineError):
            engine.play("Rc@99,99")
        assert engine.request("state", reveal=True)["position"] == game.to_string()
        move = Move.from_text(engine.moves(top=1)["moves"][0]["text"])
        assert move in game.legal_moves()
        # What JSON cannot carry is refused before it is sent: the engine's replies still
        # follow the requests.
        for bad in (math.inf, math.nan, object()):
            with pytest.raises(QwirkleError, match="cannot be written as JSON"):
                engine.request("sim", time_limit=bad)
        assert engine.hello()["name"] == "qwirkle_core"


def test_replies_hide_the_bag_and_the_other_hands() -> None:
    """A player sees their own hand, the scores, the board and the sizes of the bag and
    the other hands; the bag's order and the other hands only with "reveal"."""
    session = EngineSession()
    game = Game(players=3, seed=5)
    for cmd in ("new", "state"):
        reply = ask(session, cmd=cmd, players=3, seed=5) if cmd == "new" else ask(session, cmd=cmd)
        assert "position" not in reply and "hands" not in reply and "bag_tiles" not in reply
        assert reply["hand"] == [t.as_json() for t in game.hand()]
        assert reply["hand_sizes"] == [6, 6, 6] and reply["bag"] == 108 - 18
    best = ask(session, cmd="best")["action"]
    played = ask(session, cmd="play", action=best)
    assert isinstance(played["drawn"], int) and "position" not in played
    state = ask(session, cmd="state")
    assert state["board"] and set(state["history"][0]) == {"player", "action", "placements", "score", "drawn", "text"}
    assert state["history"][0]["text"] == best
    assert state["history"][0]["drawn"] == played["drawn"]
    text = json.dumps(state)
    game.push(best)
    for seat in range(3):
        if seat != game.to_move:
            assert json.dumps([t.as_json() for t in game.hand(seat)]) not in text
    referee = ask(session, cmd="state", reveal=True)
    assert referee["position"] == game.to_string()
    assert referee["hands"] == [[t.as_json() for t in h] for h in game.hands]
    assert referee["bag_tiles"] == [t.as_json() for t in game.bag]
    assert "error" in ask(session, cmd="state", reveal="yes")


def test_a_request_without_cmd_says_so() -> None:
    reply = EngineSession().handle({"id": 3, "players": 2})
    assert reply == {"id": 3, "error": 'missing "cmd" (a request is an object {"cmd": ...}; see hello)'}


@pytest.mark.parametrize("seed", [3, 8])
def test_listed_moves_are_the_move_list_in_order_and_the_line_says_the_same(seed: int) -> None:
    """The moves of a reply are written as JSON text column by column (no dict per
    move): they must be the MoveList's moves, in its order, field for field, and the
    line the engine process writes must parse to what ``handle`` returns."""
    from qwirkle_core.bots import make_bot
    from qwirkle_core.engine import reply_line

    game = Game(players=2, seed=seed)
    bot = make_bot("greedy")
    session = EngineSession()
    for _ in range(12):
        if game.is_over:
            break
        ask(session, cmd="position", position=game.to_string())
        want = [
            {
                "placements": [[r, c, int(t.color), int(t.shape)] for r, c, t in m.placements],
                "score": m.score,
                "text": m.text(),
            }
            for m in game.legal_moves()
        ]
        request = {"cmd": "moves", "id": [1, "x"]}
        reply = session.handle(request)
        assert reply["moves"] == want
        line = json.loads(reply_line(session._answer(request)))
        assert line == reply and list(line) == sorted(line, key=lambda k: k == "moves")  # moves last
        analysed = session.handle({"cmd": "analyse", "top": 10_000})
        by_text = {m["text"]: m for m in want}
        ranked = [{k: m[k] for k in ("placements", "score", "text")} for m in analysed["moves"]]
        assert len(ranked) == len(want) and all(m == by_text[m["text"]] for m in ranked)
        assert [m["score"] for m in ranked] == sorted((m["score"] for m in want), reverse=True)
        assert all(type(m["leaves_qwirkle"]) is bool and type(m["opens_slots"]) is int for m in analysed["moves"])
        assert json.loads(reply_line(session._answer({"cmd": "analyse", "top": 10_000}))) == analysed
        game.push(bot.choose(game))


def test_a_history_entry_names_exchanged_tiles_only_with_reveal() -> None:
    session = EngineSession()
    ask(session, cmd="new", seed=3)
    game = Game(players=2, seed=3)
    game.push(ask(session, cmd="best")["action"])  # the opening: a placement
    ask(session, cmd="play", action=game.history[0].action.text())
    exchange = ask(session, cmd="play", action="x " + " ".join(t.text() for t in game.hand()[:2]))["played"]
    assert exchange.startswith("x ")  # the player's own: named
    assert ask(session, cmd="state")["history"][1]["text"] == "exchange 2"
    assert ask(session, cmd="state", reveal=True)["history"][1]["text"] == exchange
