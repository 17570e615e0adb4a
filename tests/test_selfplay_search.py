"""Self-play with the search bots (sim, endgame): the games played in Python, the
same result fields and records as the numba path, --movetime."""

from __future__ import annotations

import argparse
import json

import numba
import numpy as np
import pytest

from qwirkle_core import selfplay as selfplay_module
from qwirkle_core.bots import make_bot, play
from qwirkle_core.cli.selfplay import register
from qwirkle_core.game import Game
from qwirkle_core.records import game_from_record
from qwirkle_core.selfplay import (
    SelfPlayArgumentError,
    check_movetime,
    parse_bots,
    play_batches,
    searches,
    selfplay,
)

# With the JIT off every kernel is plain Python: a search bot's move is then minutes
# (1,000 simulated games a candidate; the endgame solver's millions of positions), so
# the games of search bots run with the JIT only; the checks of the arguments and the
# Python path's agreement with the numba path run on one game of kernel bots.
JIT_OFF = bool(numba.config.DISABLE_JIT)
needs_jit = pytest.mark.skipif(JIT_OFF, reason="search bots' games: minutes each with the JIT off")


def run_command(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="qwirkle_core")
    register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["selfplay", *argv])
    return int(args.handler(args))


def test_searches_and_parse_bots_know_every_bot() -> None:
    assert parse_bots("greedy,sim", 2) == ["greedy", "sim"]
    assert parse_bots("endgame", 3) == ["endgame"] * 3
    assert searches(["greedy", "sim"]) and searches(["endgame", "endgame"])
    assert not searches(["greedy", "random", "heuristic"])
    for bad in ("sim", ["alphazero"], [1], None):
        with pytest.raises(SelfPlayArgumentError):
            searches(bad)  # type: ignore[arg-type]
    with pytest.raises(SelfPlayArgumentError, match="unknown bot"):
        parse_bots("greedy,alphazero", 2)


@pytest.mark.parametrize("movetime", [0, -1.0, float("nan"), float("inf"), 3601, True, "1", [1]])
def test_a_bad_movetime_is_refused(movetime: object) -> None:
    with pytest.raises(SelfPlayArgumentError, match="movetime"):
        check_movetime(movetime, ["sim", "greedy"])
    with pytest.raises(SelfPlayArgumentError, match="movetime"):
        selfplay(1, 2, ["sim", "greedy"], movetime=movetime)  # type: ignore[arg-type]


def test_movetime_without_a_search_bot_is_refused() -> None:
    assert check_movetime(None, ["greedy"]) is None
    assert check_movetime(0.5, ["greedy", "sim"]) == 0.5
    with pytest.raises(SelfPlayArgumentError, match="no seat plays one"):
        check_movetime(0.5, ["greedy", "random"])
    with pytest.raises(SelfPlayArgumentError, match="no seat plays one"):
        list(play_batches(1, 2, ["greedy"], movetime=0.5))


def test_the_python_path_plays_and_records_the_numba_path_games() -> None:
    """What a search run is made of, checked on kernel bots: the same scores, turns,
    ends and record bytes as the kernel loop's for the same seeds."""
    n = 1 if JIT_OFF else 6
    for players, bots in ((2, ["greedy", "heuristic"]), (3, ["random", "greedy", "heuristic"])):
        parts = list(play_batches(n, players, bots, seed=11, record=True, parallel=False))
        python = selfplay_module._play_python_games(players, bots, [11 + i for i in range(n)], record=True)
        assert b"".join(p.records_text for p in parts) == python.records_text
        for field in ("scores", "turns", "ends"):
            assert np.array_equal(np.concatenate([getattr(p, field) for p in parts]), getattr(python, field)), field
        if JIT_OFF:
            break


@pytest.mark.parametrize(
    "argv",
    [
        ["--bots", "greedy", "--movetime", "1"],
        ["--bots", "greedy,random", "--movetime", "0.1"],
        ["--bots", "sim", "--movetime", "0"],
        ["--bots", "sim", "--movetime", "-2"],
        ["--bots", "sim", "--movetime", "nan"],
        ["--bots", "sim", "--movetime", "soon"],
        ["--bots", "greedy,sim", "--out", "unused-dir"],
    ],
)
def test_command_refuses_a_bad_movetime_or_a_search_dataset(argv: list[str], capsys, tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.chdir(tmp_path)
    assert run_command(["--games", "1", *argv]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err and err.startswith("qwirkle-core: error: ")
    assert not (tmp_path / "unused-dir").exists()


@needs_jit
def test_selfplay_with_the_sim_bot_is_valid_and_the_same_for_a_seed() -> None:
    result = selfplay(3, 2, ["greedy", "sim"], seed=2, record=True, parallel=False)
    again = selfplay(3, 2, ["greedy", "sim"], seed=2, record=True, parallel=False)
    assert result.scores.shape == (3, 2) and result.turns.shape == (3,) and result.ends.shape == (3,)
    assert np.array_equal(result.scores, again.scores) and result.records == again.records
    assert (result.ends > 0).all() and result.seconds > 0
    for i, record in enumerate(result.records):
        assert record["seed"] == 2 + i
        game = game_from_record(record)  # the record replays under the rules
        assert game.scores == list(result.scores[i]) and game.turn_count == result.turns[i]
    # Game 0 is bots.play's game of the bots make_bot makes for its seed.
    bots = [make_bot("greedy", seed=2, seat=0), make_bot("sim", seed=2, seat=1)]
    assert play(Game(2, 2), bots).scores == list(result.scores[0])


@needs_jit
def test_selfplay_of_search_bots_on_processes_equals_one_process() -> None:
    serial = selfplay(3, 3, ["endgame", "greedy", "sim"], seed=9, record=True, parallel=False)
    spread = selfplay(3, 3, ["endgame", "greedy", "sim"], seed=9, record=True, threads=2)
    assert np.array_equal(serial.scores, spread.scores) and serial.records == spread.records


@needs_jit
def test_selfplay_with_a_movetime_gives_a_valid_result() -> None:
    """With a budget the search stops by the clock: the games may differ from run to
    run, so only their validity is checked."""
    result = selfplay(2, 2, ["endgame", "sim"], seed=4, record=True, parallel=False, movetime=0.01)
    assert result.scores.shape == (2, 2) and (result.ends > 0).all()
    for i, record in enumerate(result.records):
        assert game_from_record(record).scores == list(result.scores[i])


@needs_jit
def test_command_with_a_search_bot(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "games.jsonl"
    argv = ["--games", "2", "--bots", "greedy,sim", "--seed", "6", "--json", "--record", str(path), "--threads", "1"]
    assert run_command([*argv, "--progress", "never"]) == 0
    summary = json.loads(capsys.readouterr().out)
    direct = selfplay(2, 2, ["greedy", "sim"], seed=6, parallel=False)
    assert summary["bots"] == ["greedy", "sim"] and summary["threads"] == 1
    assert summary["mean_scores"] == [round(float(m), 3) for m in direct.scores.mean(axis=0)]
    assert summary["wins"] == [int(w) for w in direct.wins()[0]] and summary["ends"]["out"] + summary["ends"][
        "blocked"
    ] + summary["ends"]["dead"] == 2
    records = [json.loads(line) for line in path.read_text().splitlines()]
    assert [r["seed"] for r in records] == [6, 7]
    assert [game_from_record(r).scores for r in records] == direct.scores.tolist()
    # With a budget: the summary says it, and the games are played.
    path2 = tmp_path / "budget.jsonl"
    assert run_command(["--games", "1", "--bots", "endgame,greedy", "--movetime", "0.01", "--json",
                        "--record", str(path2), "--threads", "1", "--progress", "never"]) == 0
    assert json.loads(capsys.readouterr().out)["movetime"] == 0.01
    assert len(path2.read_text().splitlines()) == 1


def test_the_endgame_bot_of_three_players_plays_greedy_games() -> None:
    """The solver applies to two players only, so with three the endgame bot is greedy
    throughout: a run in Python on processes, or in this process, gives the kernel
    loop's greedy games (cheap enough for the run with the JIT off)."""
    n = 2 if JIT_OFF else 6
    kernel = selfplay(n, 3, ["greedy", "random", "greedy"], seed=30, record=True, parallel=False)
    for options in ({"parallel": False}, {"threads": 2}):
        search = selfplay(n, 3, ["endgame", "random", "greedy"], seed=30, record=True, **options)  # type: ignore[arg-type]
        assert np.array_equal(search.scores, kernel.scores) and np.array_equal(search.ends, kernel.ends)
        assert np.array_equal(search.turns, kernel.turns) and search.records == kernel.records
    seen: list[int] = []
    parts = list(play_batches(n, 3, ["endgame"], seed=30, parallel=False, batch=1))
    for part in parts:
        seen.extend(part.seeds)
        assert part.start == seen.index(part.seeds[0]) and part.seconds >= 0
    assert seen == list(range(30, 30 + n))
