"""The engine's searches: sim, solve, analyse with "win", the bots by name, stopped by
a stop request or a timeout (the library's stop hooks: tests/test_search_stops.py)."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from typing import Any

import numba
import pytest

from qwirkle_core.analysis import simulation
from qwirkle_core.analysis.endgame import solve_endgame
from qwirkle_core.analysis.simulation import simulate
from qwirkle_core.bots import make_bot, play
from qwirkle_core.client import EngineClient, EngineError
from qwirkle_core.engine import EngineSession
from qwirkle_core.game import Action, Game

from .games import greedy_until_bag_empty, plays_out, small_endgame

# With the JIT off (the coverage run) every sampled game is plain Python, ~1,000x
# slower: fewer iterations, one ply, smaller endgames.
JIT_OFF = bool(numba.config.DISABLE_JIT)
ITERATIONS = 6 if JIT_OFF else 200
PLIES = 1 if JIT_OFF else 2
TOP = 3 if JIT_OFF else 6
ENDGAME_TILES = 4 if JIT_OFF else 8


def ask(session: EngineSession, **request: Any) -> dict[str, Any]:
    return session.handle(request)


def mid_game(seed: int = 2, turns: int = 8) -> Game:
    game = Game(players=2, seed=seed)
    bots = [make_bot("greedy", seed=seed, seat=s) for s in range(2)]
    for _ in range(turns):
        game.push(bots[game.to_move].choose(game))
    return game


def session_at(game: Game) -> EngineSession:
    session = EngineSession()
    assert "error" not in ask(session, cmd="position", position=game.to_string())
    return session


def entries(results: list[simulation.SimResult]) -> list[dict[str, Any]]:
    return [
        {
            "action": r.action.text(),
            "score": (r.action.move.score or 0) if r.action.move is not None else 0,
            "equity": r.equity,
            "win": r.win,
            "stderr": r.stderr,
            "iterations": r.iterations,
        }
        for r in results
    ]


# ------------------------------------------------------------------ sim
def test_sim_reply_is_simulate_for_the_same_seed() -> None:
    game = mid_game()
    session = session_at(game)
    reply = ask(session, cmd="sim", top=TOP, plies=PLIES, iterations=ITERATIONS, seed=7, id=1)
    assert reply["ok"] and reply["id"] == 1 and reply["stopped"] is False and "stopped_by" not in reply
    want = simulate(game, top=TOP, plies=PLIES, iterations=ITERATIONS, seed=7)
    assert reply["ranked"] == entries(want)
    assert len(reply["ranked"]) >= 2
    # Candidates in notation (and as objects), ranked as simulate ranks them.
    texts = [e["action"] for e in reply["ranked"][:2]]
    picked = ask(session, cmd="sim", candidates=[texts[1], texts[0]], plies=PLIES, iterations=ITERATIONS, seed=3)
    assert picked["ranked"] == entries(simulate(game, candidates=[texts[1], texts[0]], plies=PLIES,
                                                iterations=ITERATIONS, seed=3))
    # Each sampled game to its end.
    ends = ask(session, cmd="sim", top=2, plies="end", iterations=2, seed=1)
    assert ends["ranked"] == entries(simulate(game, top=2, plies=None, iterations=2, seed=1))
    assert ask(session, cmd="sim", top=2, plies=None, iterations=2, seed=1) == ends


def test_sim_ranks_an_exchange_in_notation() -> None:
    game = mid_game(seed=4, turns=6)
    session = session_at(game)
    exchange = Action.exchange(game.hand()[:2]).text()
    reply = ask(session, cmd="sim", candidates=[exchange], plies=1, iterations=2)
    (entry,) = reply["ranked"]
    assert entry["action"] == exchange and entry["score"] == 0 and entry["iterations"] == 2


def test_sim_replies_depend_only_on_what_the_player_to_move_sees() -> None:
    """Two games alike for the player to move (board, own hand, scores, the sizes, the
    unseen tiles as a multiset) but with the other hand and the bag's order dealt
    differently give the same replies to sim and to analyse with win."""
    game = mid_game(seed=6, turns=6)
    me, other = game.to_move, 1 - game.to_move
    hidden = list(game.hand(other)) + list(game.bag)
    replies = []
    positions = set()
    for shuffle_seed in (1, 2):
        tiles = hidden[:]
        random.Random(shuffle_seed).shuffle(tiles)
        hands: list[list[list[int]]] = [[], []]
        hands[me] = [t.as_json() for t in game.hand(me)]
        hands[other] = [t.as_json() for t in tiles[: len(game.hand(other))]]
        session = EngineSession()
        setup = ask(
            session, cmd="position", board=game.board.to_json(), hands=hands,
            bag=[t.as_json() for t in tiles[len(game.hand(other)) :]], scores=list(game.scores), to_move=me,
            reveal=True,
        )
        assert "error" not in setup, setup
        positions.add(setup["position"])
        replies.append((
            ask(session, cmd="sim", top=TOP, plies=PLIES, iterations=ITERATIONS, seed=5),
            ask(session, cmd="analyse", top=3, win=True, plies=PLIES, iterations=ITERATIONS, seed=5),
            ask(session, cmd="state"),
        ))
    assert len(positions) == 2  # the hidden tiles differ ...
    assert replies[0] == replies[1]  # ... and nothing in the replies does


# ------------------------------------------------------------------ solve
@pytest.mark.parametrize("seed", [3, 8])
def test_solve_reply_is_solve_endgame(seed: int) -> None:
    game = small_endgame(seed, ENDGAME_TILES)
    assert game is not None
    session = session_at(game)
    reply = ask(session, cmd="solve", id="s")
    want = solve_endgame(game)
    assert reply["ok"] and reply["exact"] is True and reply["stopped"] is False
    assert reply["spread"] == want.spread
    assert reply["pv"][0] == reply["action"] and plays_out(game, reply["pv"]) == reply["spread"]
    assert type(reply["nodes"]) is int and reply["nodes"] > 0
    # The engine's solve is solve_endgame with a should_stop that never stops.
    same = solve_endgame(game, should_stop=lambda: False)
    assert same.exact and same.spread == reply["spread"]
    # Under a time limit: an ok reply, exact or not, whose line is the best it found.
    timed = ask(session, cmd="solve", time_limit=0.001)
    assert timed["ok"] and timed["stopped"] is False and timed["pv"][0] == timed["action"]
    assert plays_out(game, timed["pv"]) == timed["spread"]
    if timed["exact"]:
        assert timed["spread"] == want.spread


def test_errors_leave_the_state_unchanged_and_the_engine_running() -> None:
    game = mid_game()
    session = session_at(game)
    before = ask(session, cmd="state", reveal=True)
    three = EngineSession()
    ask(three, cmd="new", players=3, seed=1)
    assert "two players" in ask(three, cmd="solve")["error"]
    for bad, says in [
        ({"cmd": "solve"}, "the bag holds"),
        ({"cmd": "solve", "time_limit": -1}, '"time_limit"'),
        ({"cmd": "sim", "top": 0}, '"top"'),
        ({"cmd": "sim", "plies": 0}, '"plies"'),
        ({"cmd": "sim", "plies": "x"}, '"plies"'),
        ({"cmd": "sim", "iterations": 0}, '"iterations"'),
        ({"cmd": "sim", "iterations": True}, '"iterations"'),
        ({"cmd": "sim", "time_limit": "1"}, '"time_limit"'),
        ({"cmd": "sim", "time_limit": 10**400}, '"time_limit"'),  # (an integer too large for a float)
        ({"cmd": "sim", "timeout": 10**400}, '"timeout"'),
        ({"cmd": "sim", "seed": -1}, '"seed"'),
        ({"cmd": "sim", "threads": 0}, '"threads"'),
        ({"cmd": "sim", "threads": 60_000}, "threads"),
        ({"cmd": "sim", "candidates": "Rc@0,0"}, '"candidates"'),
        ({"cmd": "sim", "candidates": []}, '"candidates"'),
        ({"cmd": "sim", "candidates": ["Rc@50,50"]}, "candidate 0"),
        ({"cmd": "sim", "candidates": [5]}, "candidates[0]"),
        ({"cmd": "analyse", "win": "yes"}, '"win"'),
        ({"cmd": "analyse", "win": True, "top": 2000}, '"top"'),
        ({"cmd": "analyse", "win": True, "iterations": -3}, '"iterations"'),
        ({"cmd": "best", "bot": "nope"}, "unknown bot"),
        ({"cmd": "best", "bot": "sim", "movetime": 0}, '"movetime"'),
        ({"cmd": "selfplay", "bots": "nope"}, "endgame, sim"),
        ({"cmd": "selfplay", "bots": "sim,sim,sim"}, "one per seat"),
        ({"cmd": "selfplay", "bots": "sim", "movetime": -1}, '"movetime"'),
        ({"cmd": "selfplay", "bots": "greedy", "movetime": 1}, '"movetime": movetime is for the search bots'),
    ]:
        reply = session.handle(bad)
        assert "error" in reply and "ok" not in reply and says in reply["error"], (bad, reply)
        assert "internal error" not in reply["error"]
        assert ask(session, cmd="state", reveal=True) == before
    legal = game.legal_moves()[0].text()
    assert "twice" in ask(session, cmd="sim", candidates=[legal, legal])["error"]
    assert "no game" in ask(EngineSession(), cmd="sim")["error"]
    assert ask(session, cmd="hello")["ok"] and ask(session, cmd="state", reveal=True) == before


# ------------------------------------------------------------------ analyse
def test_analyse_gains_win_probabilities_on_request() -> None:
    game = mid_game()
    session = session_at(game)
    plain = ask(session, cmd="analyse", top=3)
    assert "stopped" not in plain and all("win" not in m for m in plain["moves"])
    reply = ask(session, cmd="analyse", top=3, win=True, plies=PLIES, iterations=ITERATIONS, seed=9)
    assert reply["stopped"] is False
    assert [{k: m[k] for k in plain["moves"][0]} for m in reply["moves"]] == plain["moves"]  # otherwise unchanged
    results = simulate(game, candidates=[m["text"] for m in plain["moves"]], plies=PLIES, iterations=ITERATIONS,
                       seed=9)
    by_text = {r.action.text(): r for r in results}
    for move in reply["moves"]:
        want = by_text[move["text"]]
        assert (move["win"], move["equity"], move["stderr"], move["iterations"]) == (
            want.win, want.equity, want.stderr, want.iterations)
    assert ask(session, cmd="analyse", top=0, win=True)["moves"] == []


# ------------------------------------------------------------------ stop and timeout
def stopped_session_request(session: EngineSession, request: dict[str, Any]) -> dict[str, Any]:
    """``request`` answered as if a stop had been read while it ran (as the engine
    process's reader thread marks it)."""
    session.stop()
    session.current -= 1
    return session.handle(request, seq=session.current)


def test_a_stop_ends_sim_and_solve_with_their_best_so_far() -> None:
    game = mid_game()
    session = session_at(game)
    reply = stopped_session_request(session, {"cmd": "sim", "top": 2, "plies": 1, "iterations": 10**6})
    assert reply["ok"] and reply["stopped"] is True and reply["stopped_by"] == "stop"
    assert {e["iterations"] for e in reply["ranked"]} == {simulation.ROUND}  # one round, then the stop
    assert ask(session, cmd="stop")["stopped"] is True
    assert ask(session, cmd="stop")["stopped"] is False
    analysed = stopped_session_request(session, {"cmd": "analyse", "top": 2, "win": True, "plies": 1,
                                                 "iterations": 10**6})
    assert analysed["stopped"] is True and {m["iterations"] for m in analysed["moves"]} == {simulation.ROUND}
    late = greedy_until_bag_empty(3)
    session = session_at(late)
    solved = stopped_session_request(session, {"cmd": "solve"})
    assert solved["ok"] and solved["stopped"] is True and solved["exact"] is False
    assert solved["pv"][0] == solved["action"] and plays_out(late, solved["pv"]) == solved["spread"]
    assert ask(session, cmd="stop")["stopped"] is True


def test_a_timeout_ends_sim_and_solve_with_their_best_so_far() -> None:
    session = session_at(mid_game())
    reply = ask(session, cmd="sim", top=2, plies=1, iterations=10**6, timeout=1e-9)
    assert reply["ok"] and reply["stopped_by"] == "timeout" and reply["ranked"][0]["iterations"] == simulation.ROUND
    late = greedy_until_bag_empty(3)
    session = session_at(late)
    solved = ask(session, cmd="solve", timeout=1e-9)
    assert solved["ok"] and solved["stopped_by"] == "timeout" and solved["exact"] is False
    assert plays_out(late, solved["pv"]) == solved["spread"]
    # Other requests still end in an error at their timeout.
    assert "timed out" in ask(session, cmd="selfplay", games=1000, timeout=1e-9)["error"]


def test_a_search_that_reaches_its_cap_as_a_stop_or_timeout_comes_keeps_its_result() -> None:
    """A simulation asks for a stop between rounds, after its cap: one whose last round
    ends at the cap while a stop or the timeout comes ran to its own end.  Its reply is
    that result, not an error (analyse with "win" used to check the clock once more
    after it and throw the simulation away)."""
    session = session_at(mid_game())
    requests = [{"cmd": "sim", "top": 2}, {"cmd": "analyse", "top": 2, "win": True}]
    for request in requests:
        capped = {**request, "plies": 1, "iterations": simulation.ROUND}
        for reply in (ask(session, **capped, timeout=1e-9), stopped_session_request(session, capped)):
            assert reply.get("ok") and reply["stopped"] is False, reply
            listed = reply["ranked"] if request["cmd"] == "sim" else reply["moves"]
            assert listed and {m["iterations"] for m in listed} == {simulation.ROUND}


# ------------------------------------------------------------------ bots
def test_best_names_a_bot() -> None:
    game = mid_game()
    session = session_at(game)
    for name in ("greedy", "heuristic", "random"):
        reply = ask(session, cmd="best", bot=name, seed=4)
        assert reply["action"] == make_bot(name, seed=4, seat=game.to_move).choose(game).text()
    chosen = ask(session, cmd="best", bot="sim", movetime=0.05)
    assert Action.from_text(chosen["action"]) in game.legal_actions()
    assert ask(session, cmd="best") == ask(session, cmd="best", bot=None)  # unchanged without one
    late = small_endgame(3, ENDGAME_TILES)
    assert late is not None
    solved = ask(session_at(late), cmd="best", bot="endgame")
    assert Action.from_text(solved["action"]) == solve_endgame(late).action or Action.from_text(
        solved["action"]) in late.legal_actions()


@pytest.mark.skipif(JIT_OFF, reason="whole games with exact endgame solves: minutes without the JIT")
def test_selfplay_plays_the_search_bots() -> None:
    reply = ask(EngineSession(), cmd="selfplay", games=2, bots="endgame,greedy", seed=1)
    scores = []
    for seed in (1, 2):
        game = play(Game(players=2, seed=seed), [make_bot("endgame", seed, 0), make_bot("greedy", seed, 1)])
        scores.append(game.scores)
    assert reply["games"] == 2
    assert reply["mean_scores"] == [round(sum(s[p] for s in scores) / 2, 3) for p in range(2)]
    assert sum(reply["wins"]) + sum(reply["shared_wins"]) >= 2


def test_selfplay_with_a_search_bot_stops_between_turns() -> None:
    session = EngineSession()
    reply = stopped_session_request(session, {"cmd": "selfplay", "games": 5, "bots": "sim", "movetime": 0.01})
    assert "stopped" in reply["error"]
    assert ask(session, cmd="stop")["stopped"] is True


# ------------------------------------------------------------------ the engine process
def _engine() -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "qwirkle_core", "engine"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def _send(proc: subprocess.Popen[bytes], *requests: dict[str, Any]) -> None:
    assert proc.stdin is not None
    proc.stdin.write(b"".join(json.dumps(r).encode() + b"\n" for r in requests))
    proc.stdin.flush()


def _read(proc: subprocess.Popen[bytes]) -> dict[str, Any]:
    assert proc.stdout is not None
    reply: dict[str, Any] = json.loads(proc.stdout.readline())
    return reply


@pytest.mark.process
def test_stop_ends_a_long_sim_and_solve_in_the_engine_process() -> None:
    late = greedy_until_bag_empty(3)  # an exact solve of seconds (minutes without the JIT)
    proc = _engine()
    try:
        _send(proc, {"cmd": "new", "seed": 2, "id": 0})
        assert _read(proc)["ok"]
        # Sent together: the stop is read while the sim runs (or before it starts).
        long_sim = {"cmd": "sim", "plies": 1, "top": 2} if JIT_OFF else {"cmd": "sim", "plies": "end"}
        _send(proc, {**long_sim, "iterations": 10**7, "id": 1}, {"cmd": "stop", "id": 2})
        sim, stop = _read(proc), _read(proc)
        assert sim["id"] == 1 and sim["ok"] and sim["stopped"] is True and sim["stopped_by"] == "stop"
        assert sim["ranked"] and all(e["iterations"] >= 1 for e in sim["ranked"])
        assert stop == {"id": 2, "ok": True, "stopped": True}
        _send(proc, {"cmd": "position", "position": late.to_string(), "id": 3})
        assert _read(proc)["ok"]
        _send(proc, {"cmd": "solve", "id": 4}, {"cmd": "stop", "id": 5})
        solved, stop = _read(proc), _read(proc)
        assert solved["id"] == 4 and solved["ok"] and solved["stopped"] is True and solved["exact"] is False
        assert plays_out(late, solved["pv"]) == solved["spread"]
        assert stop == {"id": 5, "ok": True, "stopped": True}
        _send(proc, {"cmd": "hello", "id": 6})
        assert _read(proc)["id"] == 6
    finally:
        proc.kill()
        proc.communicate()


@pytest.mark.process
def test_client_sim_and_solve() -> None:
    game = mid_game()
    late = small_endgame(8, ENDGAME_TILES)
    assert late is not None
    with EngineClient.start() as engine:
        engine.position(game.to_string())
        ranked = engine.sim(top=3, plies=PLIES, iterations=ITERATIONS, seed=2)
        assert ranked == {"ranked": entries(simulate(game, top=3, plies=PLIES, iterations=ITERATIONS, seed=2)),
                          "stopped": False}
        analysed = engine.analyse(top=2, win=True, plies=PLIES, iterations=ITERATIONS)
        assert all(0 <= m["win"] <= 1 for m in analysed["moves"])
        with pytest.raises(EngineError, match="the bag holds"):
            engine.solve()
        engine.position(late.to_string())
        solved = engine.solve()
        assert solved["exact"] and solved["spread"] == solve_endgame(late).spread
        assert engine.best(bot="greedy")["action"] == make_bot("greedy", 0, late.to_move).choose(late).text()
