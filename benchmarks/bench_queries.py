"""Speed of the exhaustive queries (qwirkle_core.queries) on mid-game positions.

    .venv/bin/python -m pytest benchmarks/bench_queries.py --benchmark-enable

As in bench_movegen, each round of a one-position query times ONE call on one position
(``positions.time_per_position``), cycling through the 60 mid-game positions, so the
median is a median over positions.  The batch
queries handle all 60 positions per round: with numba's threads (all cores), with
``threads=1`` (the serial kernel), and ``*_serial_loop``, the same work as a Python loop
of one-position Board calls, for comparison.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numba
import numpy as np
import pytest

from qwirkle_core import Board, queries

from .positions import Position, positions, time_per_position

ONE_POSITION: dict[str, Callable[[Board, list[Any]], Any]] = {
    "top_moves_k5": lambda b, h: queries.top_moves(b, h, 5),
    "moves_with_tiles_only3": lambda b, h: queries.moves_with_tiles(b, h, h[:3]),
    "moves_with_tiles_any_of1": lambda b, h: queries.moves_with_tiles(b, h, h[:1], any_of=True),
    "moves_on_cells_4": lambda b, h: queries.moves_on_cells(b, h, _CELLS[id(b)]),
    "qwirkle_slots": lambda b, h: queries.qwirkle_slots(b),
    "move_risk": lambda b, h: queries.move_risk(b, h),
    "position_planes_32": lambda b, h: queries.position_planes(b, 32),
}
# Four frontier cells per board (spread over its legal-cell list), for moves_on_cells.
_CELLS: dict[int, Any] = {}


@pytest.mark.parametrize("query", list(ONE_POSITION))
def test_query_mid_game(benchmark: Any, query: str) -> None:
    items = positions("mid")
    for board, _ in items:
        coords = board.legal_tile_masks().coords
        _CELLS[id(board)] = coords[np.linspace(0, len(coords) - 1, 4).astype(int)]
    benchmark.extra_info["positions"] = len(items)
    time_per_position(benchmark, ONE_POSITION[query], items, "cold")


BATCH: dict[str, Callable[[list[Position]], Any]] = {
    "batch_counts": queries.batch_counts,
    "batch_best_scores": queries.batch_best_scores,
    "batch_moves": queries.batch_moves,
    "batch_counts_threads1": lambda items: queries.batch_counts(items, threads=1),
    "batch_best_scores_threads1": lambda items: queries.batch_best_scores(items, threads=1),
    "batch_moves_threads1": lambda items: queries.batch_moves(items, threads=1),
    "batch_counts_serial_loop": lambda items: [b.count_moves(h) for b, h in items],
    "batch_best_scores_serial_loop": lambda items: [b.best_moves(h) for b, h in items],
    "batch_moves_serial_loop": lambda items: [b.legal_moves(h) for b, h in items],
}


@pytest.mark.parametrize("query", list(BATCH))
def test_batch_mid_game(benchmark: Any, query: str) -> None:
    """All 60 mid-game positions per round (divide the median by 60 for one)."""
    items = positions("mid")
    BATCH[query](items)  # compile and warm up
    benchmark.extra_info["positions"] = len(items)
    benchmark.extra_info["threads"] = numba.get_num_threads()
    benchmark(lambda: BATCH[query](items))
