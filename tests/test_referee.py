"""Self-play and Game records against the independent referee of tests/naive.py.

The referee deals from the seed with its own generator, checks every turn against the
rules (naive_score for placements) and decides on its own when the game ends; it
shares no code with qwirkle_core.  Here thousands of engine games of 2 to 6 players,
and Games played turn by turn, go through it.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import numba
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from qwirkle_core import _prng
from qwirkle_core.game import Action, Game, distinct_exchanges
from qwirkle_core.records import InvalidRecordError, game_from_record, read_records
from qwirkle_core.selfplay import selfplay

from .naive import ENDS, NaiveRng, RefereeError, naive_deal, referee_replay

# With NUMBA_DISABLE_JIT=1 (the coverage run) the engine is plain Python, a few hundred
# times slower: a handful of games instead of thousands.
JIT_OFF = bool(numba.config.DISABLE_JIT)
# The bounds-checked run plays an eighth of the games: its task is an index out of range
# in the kernels, and most of the time here is the referee, plain Python in every run.
BOUNDS_CHECKED = bool(numba.config.BOUNDSCHECK)

# (players, bots, first seed, games with the JIT); 2,000 games in all.
CONFIGS = [
    (2, ("random", "random"), 0, 200),
    (2, ("greedy", "greedy"), 10_000, 250),
    (2, ("heuristic", "heuristic"), 20_000, 250),
    (2, ("random", "heuristic"), 2**64 - 100, 150),  # seeds wrap past 2**64 - 1
    (3, ("random", "greedy", "heuristic"), 30_000, 200),
    (3, ("greedy", "greedy", "greedy"), 2**32 - 60, 150),  # the seed's high word changes
    (4, ("heuristic",) * 4, 40_000, 150),
    (4, ("random", "greedy", "heuristic", "random"), 50_000, 150),
    (5, ("random",) * 5, 60_000, 100),
    (5, ("greedy", "heuristic", "random", "heuristic", "greedy"), 70_000, 150),
    (6, ("greedy", "heuristic") * 3, 80_000, 150),
    (6, ("random",) * 6, 90_000, 100),
]


def config_id(config: tuple) -> str:  # type: ignore[type-arg]
    players, bots, _, _ = config
    return f"{players}p-" + "-".join(sorted(set(bots)))


@pytest.mark.parametrize("config", CONFIGS, ids=config_id)
def test_selfplay_records_pass_the_referee(config: tuple) -> None:  # type: ignore[type-arg]
    players, bots, first_seed, games = config
    if JIT_OFF:
        if players not in (2, 6) and "random" not in bots:
            pytest.skip("without the JIT a few configurations stand for all")
        games = 1
    elif BOUNDS_CHECKED:
        games //= 8
    result = selfplay(games, players, list(bots), seed=first_seed, record=True, parallel=False)
    ends: Counter[str | None] = Counter()
    actions: Counter[str] = Counter()
    began = time.perf_counter()
    for i, record in enumerate(result.records):
        assert record["seed"] == (first_seed + i) % 2**64
        try:
            res = referee_replay(record)
        except RefereeError as exc:  # pragma: no cover - the message is the point
            pytest.fail(f"{players} players {bots}, seed {record['seed']}: {exc}")
        assert res.end in ENDS, f"seed {record['seed']}: self-play stopped before the end"
        assert record["end"] == res.end  # written, and (checked by the referee) right
        assert res.scores == result.scores[i].tolist()
        assert res.turns == result.turns[i]
        if res.end == "out":
            assert not res.hands[res.went_out] and not res.bag  # type: ignore[index]
        ends[res.end] += 1
        actions.update(res.actions)
    assert actions["place"] > 0
    if "random" in bots and not JIT_OFF:
        assert actions["exchange"] > 0
    # How long the referee took, for `pytest -s`.
    print(f"\n{config_id(config)}: {games} games, {time.perf_counter() - began:.2f}s, ends {dict(ends)}, {dict(actions)}")


@pytest.mark.skipif(JIT_OFF, reason="the parallel kernel is the serial one without the JIT")
def test_parallel_selfplay_records_pass_the_referee() -> None:
    result = selfplay(120, 4, ["random", "heuristic", "greedy", "random"], seed=123_456, record=True)
    for i, record in enumerate(result.records):
        res = referee_replay(record)
        assert res.end == record["end"] and res.scores == result.scores[i].tolist()


@pytest.mark.process
def test_the_selfplay_commands_record_file_passes_the_referee(tmp_path: Path) -> None:
    """The record file the command line streams, line by line."""
    path = tmp_path / "games.jsonl"
    games = 2 if JIT_OFF else 30
    command = [sys.executable, "-m", "qwirkle_core", "selfplay", "--games", str(games), "--players", "5",
               "--bots", "random,greedy,heuristic,greedy,random", "--seed", str(2**64 - 7), "--record", str(path),
               "--progress", "never", "--threads", "1"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr
    records = list(read_records(path.read_text().splitlines()))
    assert [r["seed"] for r in records] == [(2**64 - 7 + i) % 2**64 for i in range(games)]
    for record in records:
        assert referee_replay(record).end == record["end"] in ENDS
    # The same file through the referee's command line, then with one record broken.
    naive_py = str(Path(__file__).with_name("naive.py"))
    done = subprocess.run([sys.executable, naive_py, str(path)], capture_output=True, text=True, check=False)
    assert done.returncode == 0 and f"{games} records follow the rules" in done.stdout, done.stdout + done.stderr
    records[-1]["turns"][0]["score"] += 1
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    done = subprocess.run([sys.executable, naive_py, str(path)], capture_output=True, text=True, check=False)
    assert done.returncode == 1 and f":{games}: turn " in done.stdout, done.stdout + done.stderr


# Engine games (2 greedy players) that end blocked: the bag is empty and no hand can
# place; found by playing the seeds 0..29,999 (about one game in 4,000 ends so).
BLOCKED_SEEDS = [390, 8731, 9367, 11978, 19542, 20762, 21543, 28228]


@pytest.mark.parametrize("seed", BLOCKED_SEEDS[:1] if JIT_OFF else BLOCKED_SEEDS)
def test_blocked_games_pass_the_referee(seed: int) -> None:
    record = selfplay(1, 2, ["greedy", "greedy"], seed=seed, record=True, parallel=False).records[0]
    res = referee_replay(record)
    assert res.end == "blocked" and res.went_out is None and not res.bag
    assert all(res.hands), "a blocked game ends with tiles in every hand"
    game = game_from_record(record)
    assert game.is_over and game.went_out is None and game.scores == res.scores


# Greedy against greedy from this seed closes all 18 orange tiles in a 3 x 6 block
# with 78 tiles in the bag: a dead board (the same seed as tests/test_endings.py).
DEAD_SEED = 100769


def test_a_dead_board_passes_the_referee() -> None:
    record = selfplay(1, 2, ["greedy", "greedy"], seed=DEAD_SEED, record=True, parallel=False).records[0]
    res = referee_replay(record)
    assert res.end == "dead" and res.went_out is None and len(res.bag) == 78
    assert res.turns == len(record["turns"]) and record["turns"][-1]["action"] == "place"
    # The referee finds the end itself: a record that stops a turn early, goes on a
    # turn late, or names another end fails.
    early = copy.deepcopy(record)
    early["turns"].pop()
    with pytest.raises(RefereeError, match="goes on") as info:
        referee_replay(early)
    assert info.value.rule == "end"
    late = copy.deepcopy(record)
    seat = 1 - record["turns"][-1]["player"]  # the next to move, who could only exchange
    late["turns"].append(
        {"player": seat, "hand": [list(t) for t in res.hands[seat]], "action": "exchange",
         "tiles": [list(res.hands[seat][0])], "drawn": [list(res.bag[-1])]}
    )
    with pytest.raises(RefereeError) as info:
        referee_replay(late)
    assert (info.value.rule, info.value.turn) == ("game over", len(record["turns"]))
    for other in ("blocked", "out", None):
        with pytest.raises(RefereeError) as info:
            referee_replay({**record, "end": other})
        assert info.value.rule == "end"


# ----------------------------------------------------------------- Games by hand

GAME_SETTINGS = settings(
    deadline=None, max_examples=3 if JIT_OFF else 25, suppress_health_check=[HealthCheck.too_slow]
)


@GAME_SETTINGS
@given(players=st.integers(2, 6), seed=st.integers(0, 2**64 - 1), data=st.data())
def test_game_records_pass_the_referee(players: int, seed: int, data: st.DataObject) -> None:
    """A Game played turn by turn (random legal actions, any tie-break, stopped at any
    point) writes a record that the referee accepts, with the same end and position."""
    tie_break = data.draw(st.permutations(range(players)), label="tie_break")
    game = Game(players, seed, tie_break=tie_break)
    turns = data.draw(st.integers(0, 40 if JIT_OFF else 400), label="turns")
    place_bias = data.draw(st.integers(0, 3), label="place_bias")  # 0: any action; else prefer placing
    for _ in range(turns):
        if game.is_over:
            break
        moves = game.legal_moves()
        if moves and place_bias and data.draw(st.integers(0, place_bias), label="place"):
            game.push(moves[data.draw(st.integers(0, len(moves) - 1), label="move")])
            continue
        # Any legal action: the placements, the distinct exchanges, pass (what
        # legal_actions lists, without building an Action for every placement).
        exchanges = distinct_exchanges(game.hand(), game.bag_size) if game.opening_size == 0 else []
        can_pass = not moves and game.bag_size == 0
        pick = data.draw(st.integers(0, len(moves) + len(exchanges) + can_pass - 1), label="action")
        if pick < len(moves):
            game.push(moves[pick])
        elif pick < len(moves) + len(exchanges):
            game.push(Action.exchange(exchanges[pick - len(moves)]))
        else:
            game.push(Action.pass_turn())
    record = game.to_record()
    res = referee_replay(record)
    assert record["end"] == res.end == game.end
    if game.is_over:
        assert res.end in ENDS
        assert (res.end == "out") == (game.went_out is not None)
        assert res.went_out == game.went_out
    else:
        assert res.end is None
    assert res.scores == game.scores
    assert res.hands == [[(int(t.color), int(t.shape)) for t in h] for h in game.hands]
    assert res.bag == [(int(t.color), int(t.shape)) for t in game.bag]
    assert res.board == {(r, c): (int(t.color), int(t.shape)) for r, c, t in game.board.placements()}


@pytest.mark.parametrize("seed", [3, 11])
def test_a_game_played_to_its_end_passes(seed: int) -> None:
    """Greedy placements, exchanges when stuck: the Game ends where the referee does."""
    game = Game(3, seed)
    while not game.is_over:
        moves = game.legal_moves()
        if moves:
            game.push(moves.best())  # type: ignore[arg-type]
        else:
            game.push(game.legal_actions()[-1])
    res = referee_replay(game.to_record())
    assert res.end in ENDS and res.scores == game.scores and res.went_out == game.went_out


# ----------------------------------------------------------------- the generator


@settings(deadline=None, max_examples=30 if JIT_OFF else 200)
@given(seed=st.integers(0, 2**64 - 1), stream=st.integers(0, 7), n=st.integers(1, 2**32 - 1))
def test_the_referees_generator_is_the_librarys(seed: int, stream: int, n: int) -> None:
    ours = NaiveRng(seed, stream)
    theirs = _prng.new_state(seed, stream)
    assert ours.state == theirs.tolist()
    for bound in (n, 1, 2, 7, 108, 2**31 + 1):
        assert ours.below(bound) == int(_prng.below(theirs, bound))
    assert ours.state == theirs.tolist()


@settings(deadline=None, max_examples=10 if JIT_OFF else 60)
@given(seed=st.integers(0, 2**64 - 1), players=st.integers(2, 6))
def test_the_referees_deal_is_the_games(seed: int, players: int) -> None:
    bag, hands, _ = naive_deal(seed, players)
    game = Game(players, seed)
    assert hands == [[(int(t.color), int(t.shape)) for t in h] for h in game.hands]
    assert bag == [(int(t.color), int(t.shape)) for t in game.bag]


# ----------------------------------------------------------------- both reject

_RECORD: list[dict] = []  # type: ignore[type-arg]


def engine_record() -> dict:  # type: ignore[type-arg]
    if not _RECORD:
        _RECORD.append(selfplay(1, 3, ["random", "greedy", "heuristic"], seed=5, record=True, parallel=False).records[0])
    return copy.deepcopy(_RECORD[0])


def tamper(record: dict, how: str) -> None:  # type: ignore[type-arg]
    turns = record["turns"]
    place = next(i for i, t in enumerate(turns) if t["action"] == "place" and len(t["drawn"]) >= 2 and i > 2)
    exchange = next(i for i, t in enumerate(turns) if t["action"] == "exchange")
    if how == "score":
        turns[place]["score"] += 1
    elif how == "draw":
        turns[place]["drawn"][0] = [(turns[place]["drawn"][0][0] + 1) % 6, turns[place]["drawn"][0][1]]
    elif how == "hand order":
        turns[exchange + 1]["hand"].reverse()
    elif how == "exchange":
        turns[exchange]["tiles"] = turns[exchange]["hand"] * 2
    elif how == "bonus":
        record["scores"][0] += 6
    elif how == "late end":
        turns.append(dict(turns[-3]))
    elif how == "early end":
        turns.pop()  # the record still says the game ended ("out")
        record["end"] = "out"
    elif how == "pass":
        turns[place] = {"player": turns[place]["player"], "hand": turns[place]["hand"], "action": "pass"}


@pytest.mark.parametrize(
    ("how", "rule"),
    [
        ("score", "score"),
        ("draw", "draw"),
        ("hand order", "hand"),
        ("exchange", "exchange"),
        ("bonus", "final scores"),
        ("late end", "game over"),
        ("early end", "end"),
        ("pass", "pass"),
    ],
)
def test_the_library_and_the_referee_reject_the_same_tampering(how: str, rule: str) -> None:
    record = engine_record()
    referee_replay(record)
    game_from_record(record)
    tamper(record, how)
    with pytest.raises(RefereeError) as info:
        referee_replay(record)
    assert info.value.rule == rule, str(info.value)
    with pytest.raises(InvalidRecordError):
        game_from_record(record)
