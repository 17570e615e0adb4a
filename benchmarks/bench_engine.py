"""Round-trip time of engine requests through a real engine process (pytest-benchmark).

    .venv/bin/python -m pytest benchmarks/bench_engine.py --benchmark-enable
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from qwirkle_core import Board
from qwirkle_core.client import EngineClient
from qwirkle_core.game import Game


@pytest.fixture(scope="module")
def engine() -> Iterator[EngineClient]:
    client = EngineClient.start()
    # A mid-game position: a seeded game played greedily for 20 turns.
    game = Game(players=2, seed=3)
    for _ in range(20):
        best = game.legal_moves().best()
        game.push(best if best is not None else game.legal_actions()[-1])
    client.position(game.to_string())
    try:
        yield client
    finally:
        client.quit()


@pytest.mark.parametrize("cmd", ["hello", "count", "best", "moves", "masks", "analyse"])
def test_request_round_trip(benchmark: Any, engine: EngineClient, cmd: str) -> None:
    benchmark(lambda: engine.request(cmd))


def test_play_and_undo_round_trip(benchmark: Any, engine: EngineClient) -> None:
    action = engine.best()["action"]

    def both() -> None:
        engine.play(action)
        engine.undo()

    benchmark(both)


def test_analyse_every_move_of_the_worst_position(benchmark: Any) -> None:
    """``analyse`` listing every move (with its risk) of the position with the most moves
    we know, through a real engine process: the reply is ~7.7 MB of JSON."""
    worst = json.loads((Path(__file__).parent / "data" / "worst_position.json").read_text())
    board = Board.from_json(worst["board"])
    used = board.tile_counts()
    for color, shape in worst["hand"]:
        used[color * 6 + shape] += 1
    rest = [[k // 6, k % 6] for k in range(36) for _ in range(3 - used[k])]
    client = EngineClient.start()
    try:
        client.position(board=worst["board"], hands=[worst["hand"], rest[:6]], bag=rest[6:])
        reply = client.request("analyse", top=100_000)
        assert reply["count"] == worst["moves"] == len(reply["moves"])
        benchmark.pedantic(lambda: client.request("analyse", top=100_000), rounds=5, iterations=1)
    finally:
        client.quit()
