"""Matches in mirrored pairs (qwirkle_core.match) and the ``match`` command.

The statistics are checked against numbers worked out by hand and against a plain
recomputation (the statistics module, loops over the games); the games of the numba
path against the Python path (``Game`` + ``bots.play``, one turn at a time)."""

from __future__ import annotations

import json
import math
import statistics
import subprocess
import sys
from typing import Any

import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from qwirkle_core import bots as bots_module
from qwirkle_core.bots import Bot
from qwirkle_core.cli import main
from qwirkle_core.errors import QwirkleError
from qwirkle_core.game import Action, Game
from qwirkle_core.match import MatchArgumentError, MatchResult, match, pair_scores, play_deal

KERNEL_BOTS = ["random", "greedy", "heuristic"]
# With the JIT off (the coverage run) every game is plain Python, ~1,000x slower: the
# tests play fewer games there, and the same code.
JIT_OFF = bool(numba.config.DISABLE_JIT)


# ------------------------------------------------------------------ the mirror


def test_each_deal_is_played_twice_with_the_seats_swapped() -> None:
    """Greedy against greedy: with the seats swapped, game 1 of a deal is game 0 again
    (the same deal, the same bot in each seat with its seat's stream), so each bot's
    score there is the other's in game 0.  Were the second game dealt anew, or the
    seats not swapped, the scores would not line up."""
    pairs = 12 if JIT_OFF else 30
    scores = pair_scores(["greedy", "greedy"], pairs, seed=11)
    assert np.array_equal(scores[:, 1, 0], scores[:, 0, 1])
    assert np.array_equal(scores[:, 1, 1], scores[:, 0, 0])
    # Not vacuous: the deals differ, and within a game the seats' scores differ.
    assert len(set(scores[:, 0, 0].tolist())) > pairs // 3
    assert int((scores[:, 0, 0] != scores[:, 0, 1]).sum()) > 2 * pairs // 3


def test_the_pair_is_the_same_deal_played_by_each_order_of_seats() -> None:
    """Deal i's games are Game(2, seed + i) played by (A, B) and by (B, A), each bot
    seeded for its seat: replayed turn by turn here."""
    seed = 40
    deals = 2 if JIT_OFF else 4
    scores = pair_scores(["random", "heuristic"], deals, seed=seed)
    for i in range(deals):
        for game, seated in enumerate((["random", "heuristic"], ["heuristic", "random"])):
            g = Game(2, seed + i)
            players = [bots_module.make_bot(name, seed=seed + i, seat=seat) for seat, name in enumerate(seated)]
            final = bots_module.play(g, players).scores
            a_seat = seated.index("random")
            assert scores[i, game].tolist() == [final[a_seat], final[1 - a_seat]]


@settings(max_examples=1 if JIT_OFF else 12, deadline=None)
@given(
    a=st.sampled_from(KERNEL_BOTS),
    b=st.sampled_from(KERNEL_BOTS),
    seed=st.integers(0, 2**64 - 1),
    pairs=st.integers(1, 1 if JIT_OFF else 3),
)
def test_the_numba_and_python_paths_play_the_same_games(a: str, b: str, seed: int, pairs: int) -> None:
    in_numba = pair_scores([a, b], pairs, seed, numba_path=True)
    in_python = pair_scores([a, b], pairs, seed, numba_path=False, processes=1)
    assert np.array_equal(in_numba, in_python)
    assert bool((in_numba > 0).any())  # games were played


def test_the_seeds_wrap_at_2_64() -> None:
    last = 2**64 - 1
    scores = pair_scores(["greedy", "heuristic"], 2, seed=last)
    assert scores[0].tolist() == play_deal(["greedy", "heuristic"], last).tolist()
    assert scores[1].tolist() == play_deal(["greedy", "heuristic"], 0).tolist()


def test_threads_do_not_change_the_games() -> None:
    pairs = 2 if JIT_OFF else 24
    one = pair_scores(["greedy", "heuristic"], pairs, 5, processes=1)
    two = pair_scores(["greedy", "heuristic"], pairs, 5, processes=2)
    assert np.array_equal(one, two)


@pytest.mark.process
def test_processes_do_not_change_the_games() -> None:
    """The Python path on 1, 2 and 3 processes (spawned), and the numba path."""
    bots = ["heuristic", "random"]
    alone = pair_scores(bots, 7, 900, numba_path=False, processes=1)
    for processes in (2, 3):
        seen: list[tuple[int, int]] = []

        def heard(done: int, total: int, seen: list[tuple[int, int]] = seen) -> None:
            seen.append((done, total))

        spread = pair_scores(bots, 7, 900, numba_path=False, processes=processes, progress=heard)
        assert np.array_equal(alone, spread)
        assert seen[-1] == (14, 14) and [d for d, _ in seen] == sorted(d for d, _ in seen)
    assert np.array_equal(alone, pair_scores(bots, 7, 900))


@pytest.mark.process
def test_processes_given_several_deals_a_task_play_the_same_games() -> None:
    """Enough pairs that each task of the Python path holds several deals (261 pairs
    on 2 processes: 2 a task, the last task 1)."""
    in_python = pair_scores(["greedy", "heuristic"], 261, 77, numba_path=False, processes=2)
    assert np.array_equal(in_python, pair_scores(["greedy", "heuristic"], 261, 77))


# ------------------------------------------------------------------ the statistics


def test_counts_add_up() -> None:
    pairs = 4 if JIT_OFF else 30
    result = match(["greedy", "heuristic"], pairs, seed=3)
    assert result.games == 2 * pairs == 2 * result.pairs
    assert result.wins[0] + result.wins[1] + result.draws == result.games
    assert result.scores.shape == (pairs, 2, 2)
    assert math.isclose(result.win_rate[0] + result.win_rate[1], 1.0)
    assert math.isclose(result.mean_spread[0], -result.mean_spread[1])
    for b in (0, 1):
        low, high = result.ci95[b]
        assert 0.0 <= low < result.win_rate[b] < high <= 1.0
    with pytest.raises(ValueError):
        result.scores[0, 0, 0] = 1  # read-only


def test_a_tiny_match_by_hand() -> None:
    # Final scores [deal][game][bot A, bot B]; game 0 has A in seat 0, game 1 in seat 1.
    scores = np.array(
        [
            [[10, 5], [3, 8]],  # A wins, A loses: the pair scores A 1/2
            [[7, 7], [9, 1]],  # a draw, A wins: 3/4
            [[1, 2], [0, 4]],  # A loses twice: 0
        ],
        np.int64,
    )
    result = MatchResult.from_scores(["x", "y"], scores, seed=9)
    assert result.bots == ("x", "y") and result.games == 6 and result.pairs == 3 and result.seed == 9
    assert result.wins == (2, 3) and result.draws == 1
    # (2 wins + 1 draw / 2) / 6 games = 5/12, the mean of the pairs' 1/2, 3/4, 0.
    assert math.isclose(result.win_rate[0], 5 / 12) and math.isclose(result.win_rate[1], 7 / 12)
    # The pairs' sample variance: ((1/2-5/12)^2 + (3/4-5/12)^2 + (0-5/12)^2) / 2 = (1/144 + 16/144 + 25/144) / 2
    # = 21/144; the half-width 1.96 * sqrt(21/144) / sqrt(3) = 0.43214 reaches below 0: clipped.
    half = 1.96 * math.sqrt(21 / 144) / math.sqrt(3)
    assert math.isclose(half, 0.432139, abs_tol=1e-6)
    assert result.ci95[0] == (0.0, pytest.approx(5 / 12 + half))
    assert result.ci95[1] == (pytest.approx(7 / 12 - half), 1.0)
    # Spreads 5, -5, 0, 8, -1, -4: a mean of 3/6.
    assert result.mean_spread == (pytest.approx(0.5), pytest.approx(-0.5))


def test_one_pair_has_the_whole_interval() -> None:
    result = MatchResult.from_scores(["x", "y"], np.array([[[3, 1], [4, 1]]], np.int64))
    assert result.win_rate == (1.0, 0.0) and result.ci95 == ((0.0, 1.0), (0.0, 1.0))


def test_b_s_figures_are_its_own_not_one_minus_a_s() -> None:
    """B's figures are computed from B's counts: no float noise of 1 - x, no -0.0 (a
    table that printed -0.00, a JSON that said 0.30000000000000004)."""
    won_twice, won_once = [[2, 1], [2, 1]], [[2, 1], [1, 2]]
    # A wins 7 games of 10: A's rate 0.7, B's 0.3 (where 1 - 0.7 is 0.30000000000000004).
    result = MatchResult.from_scores(["x", "y"], np.array([won_twice] * 2 + [won_once] * 3, np.int64))
    assert result.win_rate == (0.7, 0.3) and json.dumps(result.to_json()["win_rate"]) == "[0.7, 0.3]"
    assert result.mean_spread == (0.4, -0.4)  # (7 - 3) / 10
    (low, high), (low_b, high_b) = result.ci95
    assert 0.0 < low < 0.7 < high < 1.0 and (low_b, high_b) == (pytest.approx(1 - high), pytest.approx(1 - low))
    # Spreads of 0, -1, +1, 0: a mean spread of 0 for each bot, neither -0.0.
    even = MatchResult.from_scores(["x", "y"], np.array([[[5, 5], [3, 4]], [[4, 3], [6, 6]]], np.int64))
    assert [math.copysign(1.0, s) for s in even.mean_spread] == [1.0, 1.0]
    assert json.dumps(even.to_json()["mean_spread"]) == "[0.0, 0.0]"
    # Clipped at an end: B's interval there is exactly one minus A's.
    swept = MatchResult.from_scores(["x", "y"], np.array([won_twice] * 3, np.int64))
    assert swept.win_rate == (1.0, 0.0) and swept.ci95 == ((1.0, 1.0), (0.0, 0.0))


def test_the_statistics_of_a_real_match_recomputed() -> None:
    """Every figure again, from the games, by loops and the statistics module."""
    result = match(["heuristic", "greedy"], 8 if JIT_OFF else 25, seed=123)
    wins = [0, 0]
    draws = 0
    pair_points = []
    spreads = []
    for deal in result.scores.tolist():
        points = 0.0
        for a, b in deal:
            spreads.append(a - b)
            if a > b:
                wins[0] += 1
                points += 1
            elif b > a:
                wins[1] += 1
            else:
                draws += 1
                points += 0.5
        pair_points.append(points / 2)
    assert list(result.wins) == wins and result.draws == draws
    rate = (wins[0] + draws / 2) / result.games
    assert result.win_rate[0] == pytest.approx(rate) == statistics.mean(pair_points)
    half = 1.96 * statistics.stdev(pair_points) / math.sqrt(result.pairs)
    assert result.ci95[0] == (pytest.approx(max(0, rate - half)), pytest.approx(min(1, rate + half)))
    assert result.ci95[1] == (pytest.approx(max(0, 1 - rate - half)), pytest.approx(min(1, 1 - rate + half)))
    assert result.mean_spread[0] == pytest.approx(statistics.mean(spreads))
    # The interval is from the pairs: narrower or wider than the games' own would be,
    # it is not theirs (a check that the pairs are what is measured).
    games_points = [1.0 if a > b else 0.5 if a == b else 0.0 for deal in result.scores.tolist() for a, b in deal]
    games_half = 1.96 * statistics.stdev(games_points) / math.sqrt(result.games)
    assert not math.isclose(half, games_half)


def test_random_against_greedy_is_lopsided() -> None:
    """Greedy beats random in nearly every game (measured: all 100 of these); a bug
    that mixes up the bots, their seats or the winner cannot pass this."""
    pairs = 6 if JIT_OFF else 50
    result = match(["random", "greedy"], pairs, seed=0)
    assert result.win_rate[1] > 0.8 and result.ci95[1][0] > 0.8
    assert result.wins[1] > 0.8 * result.games and result.mean_spread[1] > 100
    # The bots named the other way round: the same games, each bot's scores its own.
    flipped = pair_scores(["greedy", "random"], 2 if JIT_OFF else 10, seed=0)
    assert np.array_equal(flipped, result.scores[: len(flipped), ::-1, ::-1])


# ------------------------------------------------------------------ JSON


def test_json_keys_and_types() -> None:
    pairs = 2 if JIT_OFF else 10
    result = match(["greedy", "heuristic"], pairs, seed=1)
    out = json.loads(json.dumps(result.to_json()))
    assert set(out) == {"bots", "games", "wins", "draws", "win_rate", "ci95", "mean_spread"}
    assert out["bots"] == ["greedy", "heuristic"]
    assert type(out["games"]) is int and out["games"] == 2 * pairs
    assert type(out["draws"]) is int
    assert [type(w) for w in out["wins"]] == [int, int]
    assert [type(r) for r in out["win_rate"]] == [float, float]
    assert [type(s) for s in out["mean_spread"]] == [float, float]
    assert len(out["ci95"]) == 2 and all(len(c) == 2 and all(type(x) is float for x in c) for c in out["ci95"])
    assert out["wins"] == list(result.wins) and out["ci95"] == [list(c) for c in result.ci95]


# ------------------------------------------------------------------ other bots, movetime


class FirstActionBot(Bot):
    """Plays the first legal action: a bot that make_bot does not know by itself."""

    name = "first"

    def choose(self, game: Game) -> Action:
        return game.legal_actions()[0]


def _make_bot_with_first(made: list[dict[str, Any]]) -> Any:
    real = bots_module.make_bot

    def make_bot(name: str, seed: int = 0, seat: int = 0, **options: Any) -> Bot:
        made.append({"name": name, **options})
        if name == "first":
            return FirstActionBot()
        return real(name, seed=seed, seat=seat)

    return make_bot


def test_other_bots_play_through_make_bot(monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[dict[str, Any]] = []
    monkeypatch.setattr(bots_module, "make_bot", _make_bot_with_first(made))
    pairs = 2 if JIT_OFF else 3
    result = match(["first", "greedy"], pairs, seed=2, processes=1)
    assert result.games == 2 * pairs and result.wins[0] + result.wins[1] + result.draws == 2 * pairs
    assert {m["name"] for m in made} == {"first", "greedy"}
    assert all("movetime" not in m for m in made)  # none given, none passed
    for i in range(pairs):
        assert result.scores[i].tolist() == play_deal(["first", "greedy"], 2 + i).tolist()


def test_a_movetime_reaches_make_bot_only_when_given(monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[dict[str, Any]] = []
    monkeypatch.setattr(bots_module, "make_bot", _make_bot_with_first(made))
    match(["first", "random"], 1, seed=4, movetime=0.25, processes=1)
    played = [m for m in made if "movetime" in m]
    assert len(played) == 4 and all(m["movetime"] == 0.25 for m in played)  # two bots, two games


def test_kernel_bots_ignore_a_movetime() -> None:
    pairs = 2 if JIT_OFF else 5
    with_budget = pair_scores(["greedy", "random"], pairs, 8, movetime=0.5)
    assert np.array_equal(with_budget, pair_scores(["greedy", "random"], pairs, 8))


BAD_CALLS: list[tuple[dict[str, Any], str]] = [
    ({"bots": ["greedy"]}, "two bots"),
    ({"bots": "greedy,random"}, "two bots"),
    ({"bots": ["greedy", "nobody"]}, "unknown bot 'nobody'"),
    ({"bots": ["greedy", 3]}, "named by a string"),
    ({"pairs": 0}, "pairs"),
    ({"pairs": True}, "pairs"),
    ({"pairs": 2.0}, "pairs"),
    ({"seed": -1}, "seed"),
    ({"seed": 2**64}, "seed"),
    ({"movetime": 0}, "movetime"),
    ({"movetime": float("nan")}, "movetime"),
    ({"movetime": float("inf")}, "movetime"),
    ({"movetime": True}, "movetime"),
    ({"processes": 0}, "processes"),
    ({"progress": 5}, "progress"),
]


@pytest.mark.parametrize(("change", "says"), BAD_CALLS, ids=[s for _, s in BAD_CALLS])
def test_bad_arguments_are_refused(change: dict[str, Any], says: str) -> None:
    call: dict[str, Any] = {"bots": ["greedy", "random"], "pairs": 2, "seed": 0, **change}
    with pytest.raises(QwirkleError, match=says):
        match(call.pop("bots"), call.pop("pairs"), call.pop("seed"), **call)


def test_numpy_numbers_are_taken_as_plain_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    """Counts, seeds and seconds may be numpy numbers, as elsewhere in the library; the
    result holds plain ints and floats (its JSON is the same)."""
    plain = match(["greedy", "random"], 2, 3)
    numpy = match(["greedy", "random"], np.int64(2), np.uint64(3), processes=np.int64(1), movetime=np.float32(0.5))
    assert numpy == plain and np.array_equal(numpy.scores, plain.scores)
    assert type(numpy.seed) is int and json.dumps(numpy.to_json()) == json.dumps(plain.to_json())
    made: list[dict[str, Any]] = []
    monkeypatch.setattr(bots_module, "make_bot", _make_bot_with_first(made))
    match(["first", "random"], np.int32(1), np.int64(4), movetime=np.int64(1), processes=np.int64(1))
    assert {type(m["movetime"]) for m in made if "movetime" in m} == {float}


def test_the_numba_path_is_for_kernel_bots_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bots_module, "make_bot", _make_bot_with_first([]))
    with pytest.raises(MatchArgumentError, match="Python only"):
        pair_scores(["first", "greedy"], 1, numba_path=True)


# ------------------------------------------------------------------ the command


BAD_COMMANDS = {
    "unknown bot": ["--bots", "greedy,nobody"],
    "unknown bot, with a progress bar": ["--bots", "nobody,greedy", "--pairs", "3", "--progress", "always"],
    "one bot": ["--bots", "greedy"],
    "three bots": ["--bots", "greedy,random,heuristic"],
    "no bots": [],
    "zero pairs": ["--bots", "greedy,random", "--pairs", "0"],
    "pairs not a number": ["--bots", "greedy,random", "--pairs", "many"],
    "negative seed": ["--bots", "greedy,random", "--seed", "-3"],
    "negative movetime": ["--bots", "greedy,random", "--movetime", "-1"],
    "movetime not a number": ["--bots", "greedy,random", "--movetime", "soon"],
    "movetime nan": ["--bots", "greedy,random", "--movetime", "nan"],
    "zero processes": ["--bots", "greedy,random", "--processes", "0"],
}


@pytest.mark.parametrize("argv", list(BAD_COMMANDS.values()), ids=list(BAD_COMMANDS))
def test_the_command_exits_2_on_bad_input(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    try:
        status = main(["match", *argv])
    except SystemExit as exit_:  # argparse's own errors (a missing --bots)
        status = int(exit_.code or 0)
    out, err = capsys.readouterr()
    assert status == 2 and out == ""
    assert err.startswith("qwirkle-core: error: ") and err.count("\n") == 1, err


def test_the_command_prints_a_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["match", "--bots", "random,greedy", "--pairs", "5", "--seed", "3"]) == 0
    out, _ = capsys.readouterr()
    result = match(["random", "greedy"], 5, 3)
    lines = out.splitlines()
    assert lines[0].startswith("5 pairs (10 games), deals of seeds 3..7")
    assert lines[2].split()[:3] == ["random", str(result.wins[0]), f"{100 * result.win_rate[0]:.1f}%"]
    assert lines[3].split()[:3] == ["greedy", str(result.wins[1]), f"{100 * result.win_rate[1]:.1f}%"]


def test_the_command_prints_no_minus_zero(capsys: pytest.CaptureFixture[str]) -> None:
    """A bot against itself: each pair's two games are one game seen from each side
    (test_each_deal_is_played_twice_with_the_seats_swapped), so both spreads are 0,
    printed +0.00 (B's was -0.00)."""
    assert main(["match", "--bots", "greedy,greedy", "--pairs", "3"]) == 0
    rows = capsys.readouterr().out.splitlines()[2:4]
    assert [row.split()[-1] for row in rows] == ["+0.00", "+0.00"], rows


def test_the_command_names_the_seeds_as_they_wrap(capsys: pytest.CaptureFixture[str]) -> None:
    """The deals' seeds wrap at 2**64 (test_the_seeds_wrap_at_2_64): the header names
    the seeds played, not one past the last seed."""
    assert main(["match", "--bots", "greedy,random", "--pairs", "2", "--seed", str(2**64 - 1)]) == 0
    header = capsys.readouterr().out.splitlines()[0]
    assert f"deals of seeds {2**64 - 1}..0 (wrapping at 2**64)," in header, header


def run_command(argv: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "qwirkle_core", "match", *argv], capture_output=True, text=True, timeout=300, check=False
    )


@pytest.mark.process
def test_the_command_gives_the_json_of_match() -> None:
    proc = run_command(["--bots", "greedy,heuristic", "--pairs", "300", "--seed", "17", "--json", "--processes", "2"])
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == match(["greedy", "heuristic"], 300, 17).to_json()
    assert "600/600 games" in proc.stderr  # the progress, on stderr (its closing line off a terminal)


@pytest.mark.process
def test_the_command_exits_2_in_a_fresh_process() -> None:
    proc = run_command(["--bots", "greedy,nobody", "--pairs", "3"])
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.splitlines()[-1].startswith("qwirkle-core: error: unknown bot 'nobody' (choose from random, greedy")
    assert "Traceback" not in proc.stderr
