"""The numba self-play engine against the Python Game, the selfplay command, rollouts."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

import numba
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from qwirkle_core import QwirkleError, _batch, _bot_kernels, _layout, _movegen, _turn
from qwirkle_core import selfplay as selfplay_module
from qwirkle_core._prng import GAME_STREAM, new_state
from qwirkle_core.bots import BOT_IDS, Bot, action_from_row, make_bot, play, rollouts
from qwirkle_core.cli.selfplay import register
from qwirkle_core.game import Action, Game
from qwirkle_core.records import record_from_log
from qwirkle_core.selfplay import SelfPlayArgumentError, selfplay
from tests.games import greedy_game

# With NUMBA_DISABLE_JIT=1 (the coverage run) every kernel is plain Python, a few
# hundred times slower: the same checks run on fewer games.
JIT_OFF = bool(numba.config.DISABLE_JIT)
SETTINGS = settings(
    deadline=None, max_examples=3 if JIT_OFF else 15, suppress_health_check=[HealthCheck.too_slow]
)
TIE = np.arange(6, dtype=np.int64)


def engine_game(seed: int, bots: list[str]) -> tuple[dict, int]:  # type: ignore[type-arg]
    """Play one game in the numba loop; its record and how it ended (END_*)."""
    ids = np.zeros(6, np.int64)
    ids[: len(bots)] = [BOT_IDS[b] for b in bots]
    log = _batch.empty_logs(1, 600)[0]
    scores, turns, end = _batch.play_game(len(bots), seed & 0xFFFFFFFF, seed >> 32, TIE, ids, log)
    assert turns <= 600
    return record_from_log(len(bots), seed, log[:turns], scores, end), int(end)


@SETTINGS
@given(seed=st.integers(0, 2**64 - 1), players=st.integers(2, 6), data=st.data())
def test_engine_and_game_agree_turn_by_turn(seed: int, players: int, data: st.DataObject) -> None:
    bots = [data.draw(st.sampled_from(sorted(BOT_IDS))) for _ in range(players)]
    record, end = engine_game(seed, bots)
    game = play(Game(players, seed), [make_bot(b, seed, p) for p, b in enumerate(bots)])
    python_record = game.to_record()
    for i, (ours, theirs) in enumerate(zip(record["turns"], python_record["turns"])):
        assert ours == theirs, f"turn {i} differs"
    assert record == python_record
    assert record["end"] == game.end is not None and end != _layout.END_RUNAWAY
    # The engine's record replays in the Python Game to the same end.
    assert Game.from_record(record) == game


def test_engine_is_deterministic_and_serial_equals_parallel() -> None:
    n = 2 if JIT_OFF else 20
    bots = ["greedy", "random", "heuristic"]
    serial = selfplay(n, 3, bots, seed=99, parallel=False, record=True)
    parallel = selfplay(n, 3, bots, seed=99, parallel=True, record=True)
    assert (serial.scores == parallel.scores).all() and (serial.turns == parallel.turns).all()
    assert serial.records == parallel.records
    again = selfplay(n, 3, bots, seed=99, record=True)
    assert again.records == serial.records
    other = selfplay(n, 3, bots, seed=100, record=True)
    assert other.records[: n - 1] == serial.records[1:]  # game i is seed S + i
    for record in serial.records[:5]:
        Game.from_record(record)


def test_long_games_are_logged_whole(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # Games longer than the first log buffer are played again, logged whole.
    monkeypatch.setattr(selfplay_module, "LOG_CAPACITY", 30)
    result = selfplay(2 if JIT_OFF else 8, 3, ["random"], seed=5, record=True)
    assert result.turns.min() > 30
    for record, turns in zip(result.records, result.turns):
        assert len(record["turns"]) == turns
        Game.from_record(record)


def test_greedy_beats_random() -> None:
    n = 10 if JIT_OFF else 200
    result = selfplay(n, 2, ["greedy", "random"], seed=1)
    wins, ties = result.wins()
    assert wins[0] >= n * 0.9 and wins.sum() + ties.sum() // 2 <= n
    assert result.scores.shape == (n, 2) and (result.scores >= 0).all()


@pytest.mark.skipif(JIT_OFF, reason="needs 2,000 games: runs with the JIT")
def test_heuristic_is_stronger_than_greedy() -> None:
    # Both seatings, so that moving first is no advantage on the balance.
    # Measured over 6,000 games: the heuristic wins about 53%, greedy about 45%.
    a = selfplay(1000, 2, ["heuristic", "greedy"], seed=2024)
    b = selfplay(1000, 2, ["greedy", "heuristic"], seed=2024)
    heuristic_wins = a.wins()[0][0] + b.wins()[0][1]
    greedy_wins = a.wins()[0][1] + b.wins()[0][0]
    assert heuristic_wins > greedy_wins


def test_rollouts_from_a_position() -> None:
    game = Game(2, 17)
    bots = [make_bot("greedy", 17, p) for p in range(2)]
    for _ in range(20):
        game.push(bots[game.to_move].choose(game))
    before = game.to_string()
    count = 4 if JIT_OFF else 16
    scores = rollouts(game, ["greedy", "greedy"], count, seed=3)
    assert game.to_string() == before  # the game itself is not touched
    assert scores.shape == (count, 2)
    assert (scores >= np.array(game.scores)).all()
    # The bag order is part of the position: without determinization every greedy
    # rollout that breaks ties the same way plays the same game.
    assert (rollouts(game, ["greedy", "greedy"], count, seed=3) == scores).all()
    hidden = rollouts(game, ["greedy", "greedy"], count, seed=3, viewer=0)
    assert len({tuple(r) for r in hidden}) > 1
    # A rollout is the game the Python bots play from the same state.
    single = rollouts(game, ["greedy", "greedy"], 1, seed=8)
    copy = game.copy()
    copy._rng[:] = new_state(8, GAME_STREAM)  # a rollout mixes exchanges with its own seed
    play(copy, [make_bot("greedy", 8, p) for p in range(2)])
    assert list(single[0]) == copy.scores
    with pytest.raises(QwirkleError):
        rollouts(game, ["greedy"], 4)


def test_heuristic_endgame_agrees_with_the_game() -> None:
    """Two heuristic bots reach the endgame where they look a reply ahead."""
    bots = ["heuristic", "heuristic"]
    record, _ = engine_game(31, bots)
    game = play(Game(2, 31), [make_bot(b, 31, p) for p, b in enumerate(bots)])
    assert record == game.to_record()


def test_a_user_bot_plays() -> None:
    class FirstAction(Bot):
        name = "first"

        def choose(self, game: Game) -> Action:
            return game.legal_actions()[0]

    game = play(Game(2, 8), [FirstAction(), make_bot("greedy", 8, 1)])
    assert game.is_over and Game.from_record(game.to_record()) == game


# -------------------------------------------------------------- the command
def run_command(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="qwirkle_core")
    register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["selfplay", *argv])
    return int(args.handler(args))


def test_command_summary_and_records(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "games.jsonl"
    n = 3 if JIT_OFF else 30
    status = run_command(["--games", str(n), "--players", "3", "--bots", "greedy,random,heuristic",
                          "--seed", "4", "--record", str(path), "--progress", "always"])
    out = capsys.readouterr()
    assert status == 0
    assert "games per second" in out.out and "mean score" in out.out
    assert f"{n}/{n}" in out.err  # the progress bar, finished
    for seat, bot in enumerate(["greedy", "random", "heuristic"]):
        assert any(line.split()[:2] == [str(seat), bot] for line in out.out.splitlines())
    lines = path.read_text().splitlines()
    assert len(lines) == n
    records = [json.loads(line) for line in lines]
    assert [r["seed"] for r in records] == list(range(4, 4 + n))
    for record in records[:3]:
        Game.from_record(record)


@pytest.mark.parametrize(
    "argv",
    [
        ["--games", "0"],
        ["--games", "many"],
        ["--players", "7"],
        ["--players", "1"],
        ["--bots", "alphazero"],
        ["--bots", "greedy,random,greedy", "--players", "2"],
        ["--seed", "-1"],
        ["--seed", str(2**64)],
        ["--threads", "0"],
        ["--append"],  # (without --record: nothing to add to)
    ],
)
def test_command_bad_arguments_give_one_line_and_status_2(argv: list[str], capsys) -> None:  # type: ignore[no-untyped-def]
    assert run_command(argv) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_bad_threads_and_progress_are_refused() -> None:
    for kwargs in ({"threads": "2"}, {"threads": 2.5}, {"threads": 0}, {"progress": 5}):
        with pytest.raises(SelfPlayArgumentError):
            selfplay(4, 2, ["greedy"], 1, **kwargs)  # type: ignore[arg-type]


def test_the_summary_counts_seeds_modulo_2_64(capsys, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Game i's seed is seed + i modulo 2**64, as the records say: so does the summary,
    for JSON lines and for a dataset."""
    top = str(2**64 - 1)
    path = tmp_path / "games.jsonl"
    assert run_command(["--games", "2", "--seed", top, "--record", str(path), "--progress", "never"]) == 0
    assert f"seeds {top}..0 (past 2**64 - 1, from 0)" in capsys.readouterr().out
    assert [json.loads(line)["seed"] for line in path.read_text().splitlines()] == [2**64 - 1, 0]
    assert run_command(["--games", "2", "--seed", str(2**64 - 2), "--progress", "never"]) == 0
    assert f"seeds {2**64 - 2}..{top}\n" in capsys.readouterr().out


def test_command_json_summary(capsys) -> None:  # type: ignore[no-untyped-def]
    assert run_command(["--games", "3", "--bots", "greedy,random", "--seed", "1", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    direct = selfplay(3, 2, ["greedy", "random"], seed=1)
    assert summary["mean_scores"] == [round(float(m), 3) for m in direct.scores.mean(axis=0)]
    assert summary["wins"] == [int(w) for w in direct.wins()[0]]
    assert summary["games"] == 3 and summary["games_per_second"] > 0


def test_command_unwritable_record(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    """A bad --record path is bad input: exit 2 and one line, before any game."""
    assert run_command(["--games", "1", "--record", str(tmp_path / "missing" / "x.jsonl")]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


@pytest.mark.slow
@pytest.mark.skipif(JIT_OFF, reason="compares the JIT with JIT off: needs the JIT")
def test_engine_gives_the_same_game_without_jit() -> None:
    """The kernels' integer arithmetic is exact both ways (no reliance on overflow)."""
    games = [(5 + (7 << 32), ["random", "greedy", "heuristic"]), (12, ["heuristic", "greedy"])]
    script = (
        "import json, sys, numpy as np\n"
        "from qwirkle_core import _batch\n"
        "from qwirkle_core.bots import BOT_IDS\n"
        "from qwirkle_core.records import record_from_log\n"
        "out = []\n"
        "for seed, bots in json.loads(sys.argv[1]):\n"
        "    log = _batch.empty_logs(1, 400)[0]\n"
        "    ids = np.zeros(6, np.int64)\n"
        "    ids[: len(bots)] = [BOT_IDS[b] for b in bots]\n"
        "    tie = np.arange(6, dtype=np.int64)\n"
        "    scores, turns, end = _batch.play_game(len(bots), seed & 0xFFFFFFFF, seed >> 32, tie, ids, log)\n"
        "    out.append(record_from_log(len(bots), seed, log[:turns], scores, end))\n"
        "print(json.dumps(out))\n"
    )
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    done = subprocess.run(
        [sys.executable, "-c", script, json.dumps(games)], env=env, capture_output=True, text=True,
        timeout=300, check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [engine_game(seed, bots)[0] for seed, bots in games]


@SETTINGS
@given(seed=st.integers(0, 2**32), players=st.integers(2, 6), turns=st.integers(1, 60))
def test_engine_enumerates_actions_in_the_order_of_legal_actions(seed: int, players: int, turns: int) -> None:
    """The random bot picks an index into the engine's action list; it must be
    Game.legal_actions() in the same order (placements, exchanges, pass)."""
    game = greedy_game(players, seed, turns)
    if game.is_over:
        return
    actions = game.legal_actions()
    state, meta, hands, hand_sizes, _, _, _ = game.engine_state()
    seat = game.to_move
    mask = _turn.held_kinds(hands[seat], hand_sizes[seat])
    table = _turn.legal_placements(state, meta, mask, _movegen.MODE_ALL, _turn.new_table())
    n_moves = table.shape[0]
    n_exchanges = _turn.count_exchanges(hands[seat], hand_sizes[seat], game.bag_size) if game.bag_size else 0
    assert [a.kind for a in actions[:n_moves]] == ["place"] * n_moves
    assert len(actions) == n_moves + n_exchanges + (1 if n_moves == 0 and game.bag_size == 0 else 0)
    row = np.zeros(_layout.ACTION_COLS, np.int64)
    for i in range(n_moves):
        _turn.set_place(row, table, i)
        assert action_from_row(row) == actions[i]
    for i in range(n_exchanges):
        _turn.nth_exchange(hands[seat], hand_sizes[seat], game.bag_size, i, row)
        assert action_from_row(row) == actions[n_moves + i]
    # The greedy bot takes a highest-scoring placement when there is one.
    choice = make_bot("greedy", seed, seat).choose(game)
    if n_moves:
        assert choice.kind == "place" and choice.score == int(table[:, 1].max())
    else:
        assert choice.kind in ("exchange", "pass") and choice in actions


def test_progress_bar_fits_a_narrow_terminal(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import io

    from qwirkle_core._progress import Progress

    monkeypatch.setenv("COLUMNS", "50")
    monkeypatch.setenv("LINES", "20")
    stream = io.StringIO()
    bar = Progress("qwirkle-core: selfplay", 1000, stream=stream, mode="bar")
    for done in (0, 10, 500, 1000):
        bar.set(done)
    bar.close()
    lines = [line for chunk in stream.getvalue().split("\n") for line in chunk.split("\r") if line.strip()]
    assert lines and all(len(line) <= 50 for line in lines), lines
    assert "1000/1000" in lines[-1]


@SETTINGS
@given(seed=st.integers(0, 2**32), players=st.integers(2, 4), turns=st.integers(0, 40))
def test_a_bot_given_too_small_a_table_asks_for_one_and_chooses_nothing(seed: int, players: int, turns: int) -> None:
    """choose_action_of with a one-row move table: when the bot's table has more rows,
    it returns how many, with the action and the bot's random state untouched; with a
    table that large it chooses what it chooses with a roomy one (the game loop, the
    environments and the Python bots all grow the table this way)."""
    game = greedy_game(players, seed, turns)
    if game.is_over:
        return
    state, meta, hands, hand_sizes, _, _, _ = game.engine_state()
    seat = game.to_move
    for bot in (_bot_kernels.BOT_RANDOM, _bot_kernels.BOT_GREEDY):
        in_play = _bot_kernels.bots_in_play(np.array([bot], np.int64), 1)
        roomy_rng = new_state(seed, 7)
        roomy = np.full(_layout.ACTION_COLS, -5, np.int64)
        args = (bot, state, meta, hands[seat], hand_sizes[seat])
        big_table = np.empty((4096, _layout.OUT_COLS), np.int32)
        assert _bot_kernels.choose_action_of(*args, roomy_rng, roomy, big_table, *in_play) == 0
        rng = new_state(seed, 7)
        action = np.full(_layout.ACTION_COLS, -5, np.int64)
        need = _bot_kernels.choose_action_of(*args, rng, action, np.empty((1, _layout.OUT_COLS), np.int32), *in_play)
        mode = _movegen.MODE_ALL if bot == _bot_kernels.BOT_RANDOM else _movegen.MODE_BEST
        rows = _turn.placements_in(state, meta, _turn.held_kinds(hands[seat], hand_sizes[seat]), mode, big_table)
        if need == 0:  # the table fitted
            assert rows <= 1 and action.tolist() == roomy.tolist() and rng.tolist() == roomy_rng.tolist()
            continue
        # (on the empty board the table holds every opening before the ones of the
        # opening's size are kept, so it may need more rows than it keeps)
        assert need >= max(rows, 2)
        assert (action == -5).all() and rng.tolist() == new_state(seed, 7).tolist()
        table = np.empty((need, _layout.OUT_COLS), np.int32)
        assert _bot_kernels.choose_action_of(*args, rng, action, table, *in_play) == 0
        assert action.tolist() == roomy.tolist() and rng.tolist() == roomy_rng.tolist()


def test_numpy_integers_count_games_players_and_seeds() -> None:
    from qwirkle_core.selfplay import selfplay

    with_numpy = selfplay(np.int64(4), np.int32(2), ["greedy"], seed=np.uint64(7))
    assert (with_numpy.scores == selfplay(4, 2, ["greedy"], seed=7).scores).all()
