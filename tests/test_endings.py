"""How games end: going out, blocked, dead boards, and the turn cap of every game loop."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numba
import pytest

from qwirkle_core import QwirkleError
from qwirkle_core._batch import MAX_TURNS
from qwirkle_core._layout import END_DEAD, END_OUT
from qwirkle_core.bots import Bot, make_bot, play, rollouts
from qwirkle_core.errors import RunawayGameError
from qwirkle_core.game import Action, Game
from qwirkle_core.records import game_from_record, record_from_game
from qwirkle_core.selfplay import selfplay

JIT_OFF = bool(numba.config.DISABLE_JIT)
DEAD_SEED = 100769  # greedy vs greedy: all 18 orange tiles end in a closed 3 x 6 block


def _greedy_game(seed: int) -> Game:
    return play(Game(2, seed), [make_bot("greedy", seed, 0), make_bot("greedy", seed, 1)])


def test_a_dead_board_ends_the_game_at_once_without_bonus() -> None:
    game = _greedy_game(DEAD_SEED)
    assert game.is_over and game.end == "dead" and game.went_out is None
    assert game.bag_size == 78  # tiles are left: before the rule, both players exchanged forever
    # No tile left anywhere fits the board, each tested alone.
    left = set(game.bag) | {t for h in game.hands for t in h}
    _, masks = game.board.legal_tile_masks()
    fits = 0
    for m in masks.tolist():
        fits |= m
    assert not any(fits >> t.kind & 1 for t in left)
    # No bonus: the scores are the sums of the turns' points.
    points = [0, 0]
    for turn in game.history:
        points[turn.player] += turn.score
    assert game.scores == points
    assert game.legal_actions() == []
    with pytest.raises(QwirkleError, match="over"):
        game.push(Action.exchange(game.hand()[:1]))


def test_the_dead_end_is_the_same_in_the_game_loop_records_and_replays() -> None:
    result = selfplay(1, 2, ["greedy", "greedy"], seed=DEAD_SEED, record=True, parallel=False)
    record = result.records[0]
    game = _greedy_game(DEAD_SEED)
    assert int(result.ends[0]) == END_DEAD and record["end"] == "dead"
    assert record == record_from_game(game)
    assert game_from_record(record) == game
    # A record that claims another end is refused.
    with pytest.raises(QwirkleError, match="ended"):
        game_from_record({**record, "end": "blocked"})


def test_pop_takes_back_the_dead_end() -> None:
    game = _greedy_game(DEAD_SEED)
    before = game.to_string()
    last = game.pop()
    assert not game.is_over and game.end is None
    game.push(last)
    assert game.end == "dead" and game.to_string() == before


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_every_game_says_how_it_ended(players: int) -> None:
    n = 4 if JIT_OFF else 40
    bots = ["greedy", "heuristic", "random", "greedy", "random", "heuristic"][:players]
    result = selfplay(n, players, bots, seed=7 * players, record=True, parallel=False)
    for record, end, scores in zip(result.records, result.ends.tolist(), result.scores.tolist()):
        assert record["end"] in ("out", "blocked", "dead")
        assert (record["end"] == "out") == (end == END_OUT)
        assert record["scores"] == scores


class AlwaysExchange(Bot):
    """Exchanges one tile every turn it may (never places after the opening)."""

    name = "always-exchange"

    def choose(self, game: Game) -> Action:
        actions = game.legal_actions()
        exchanges = [a for a in actions if a.kind == Action.EXCHANGE]
        return exchanges[0] if exchanges else actions[0]


def test_a_game_that_runs_away_is_an_error_not_a_hang() -> None:
    game = Game(2, seed=3)
    with pytest.raises(RunawayGameError, match="ran past 50 turns"):
        play(game, [AlwaysExchange(), AlwaysExchange()], max_turns=50)
    assert game.turn_count == 50 and not game.is_over  # stopped, not silently cut short
    assert MAX_TURNS >= 10 * 256  # far above any real game (see _batch)


class Stop(Exception):
    pass


def test_play_calls_before_turn_before_each_turn_and_what_it_raises_stops_the_game() -> None:
    calls: list[int] = []
    game = play(Game(2, seed=3), [make_bot("greedy"), make_bot("greedy")], before_turn=lambda: calls.append(1))
    assert game.is_over and len(calls) == game.turn_count

    def stop_at_five() -> None:
        if halted.turn_count == 5:
            raise Stop

    halted = Game(2, seed=3)
    with pytest.raises(Stop):
        play(halted, [make_bot("greedy"), make_bot("greedy")], before_turn=stop_at_five)
    assert halted.turn_count == 5 and not halted.is_over
    with pytest.raises(QwirkleError, match="before_turn"):
        play(Game(2, seed=3), [make_bot("greedy"), make_bot("greedy")], before_turn=5)  # type: ignore[arg-type]


@pytest.mark.skipif(JIT_OFF, reason="runs its own JIT-off process")
def test_the_kernel_loops_stop_at_the_turn_cap() -> None:
    """The numba loop cannot be given a Python bot, so lower its cap (a module global,
    read at run time when the JIT is off) until random bots reach it."""
    script = (
        "from qwirkle_core import _batch, selfplay, bots, game\n"
        "from qwirkle_core.errors import RunawayGameError\n"
        "_batch.MAX_TURNS = 5\n"
        "out = []\n"
        "try:\n"
        "    selfplay.selfplay(1, 2, ['random', 'random'], seed=1, parallel=False)\n"
        "except RunawayGameError as exc:\n"
        "    out.append(str(exc))\n"
        "try:\n"
        "    bots.rollouts(game.Game(2, 1), ['random', 'random'], 2)\n"
        "except RunawayGameError as exc:\n"
        "    out.append(str(exc))\n"
        "import json; print(json.dumps(out))\n"
    )
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=600, check=False
    )
    assert done.returncode == 0, done.stderr
    messages = json.loads(done.stdout)
    assert len(messages) == 2 and all("ran past 5 turns" in m for m in messages)


def test_rollouts_end_dead_boards_too() -> None:
    game = _greedy_game(DEAD_SEED)
    game.pop()
    scores = rollouts(game, ["greedy", "greedy"], 2 if JIT_OFF else 8)
    assert scores.shape[1] == 2
