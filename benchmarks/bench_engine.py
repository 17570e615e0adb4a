"""Round-trip time of engine requests through a real engine process (pytest-benchmark).

    .venv/bin/python -m pytest benchmarks/bench_engine.py --benchmark-enable
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

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
