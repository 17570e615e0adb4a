"""Dataset writing speed on one core: the same greedy games played with no output, and
played, turned into Parquet tables and written as a chunk (what one task does).

    .venv/bin/python -m pytest benchmarks/bench_datasets.py --benchmark-enable -q

Each round handles GAMES games from fixed seeds; games/s = GAMES / the round's time.
The whole-run figures (200,000 games, all cores, a Dask cluster) come from
benchmarks/scale_figures.py.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from benchmarks.bench_selfplay import GAMES, GREEDY, NO_LOGS, SEEDS_HIGH, SEEDS_LOW, TIE_RANK, _report
from qwirkle_core import _batch

pytest.importorskip("pyarrow", reason="datasets need the scale extra")

from qwirkle_core.datasets import DatasetSpec, _prepare, write_chunk
from qwirkle_core.warmup import warm_kernels


def test_greedy_games_no_output_one_core(benchmark) -> None:  # type: ignore[no-untyped-def]
    _batch.play_games_serial(2, SEEDS_LOW[:2], SEEDS_HIGH[:2], TIE_RANK, GREEDY, NO_LOGS[:2])
    benchmark.pedantic(
        _batch.play_games_serial, args=(2, SEEDS_LOW, SEEDS_HIGH, TIE_RANK, GREEDY, NO_LOGS), rounds=5, iterations=1
    )
    _report(benchmark, "greedy games, no output, one core")


def test_greedy_games_written_as_a_parquet_chunk_one_core(benchmark) -> None:  # type: ignore[no-untyped-def]
    warm_kernels(replay=False)
    spec = DatasetSpec(GAMES, 2, ("greedy", "greedy"), 0, GAMES)
    with tempfile.TemporaryDirectory() as tmp:
        _prepare(Path(tmp) / "ds", spec)  # the directories and the manifest a chunk task expects
        benchmark.pedantic(write_chunk, args=(str(Path(tmp) / "ds"), spec.to_json(), 0), rounds=5, iterations=1)
    _report(benchmark, "greedy games written as a Parquet chunk, one core")
