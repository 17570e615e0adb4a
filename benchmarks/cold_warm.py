"""Why a query on a new board costs more than the same query repeated.

    python benchmarks/cold_warm.py [--rounds 3]

Times the move generator's kernel (``generate``, MODE_ALL, through its compiled entry as
``Board.legal_moves`` calls it) on the 60 mid-game positions of ``positions.py``, one
timed call at a time, and prints the median over the calls of each way of calling it:

- ``repeated``: each position 20 times in a row (the CPU's caches and branch predictor
  hold that position's walk);
- ``repeated+python``: the same, with a little Python run between the calls (as
  pytest-benchmark runs between its rounds);
- ``cycled``: the 60 positions in turn (each call on a board the last call did not see);
- ``cycled+python``: the same, with the Python between (what ``bench_movegen.py``'s
  ``cold`` figure measures);
- ``cycled+state``: the positions in turn, after a small kernel read the whole board
  state, so that its data is in the first-level cache: if this were as fast as
  ``repeated``, the cold cost would be the data; it is as slow as ``cycled``, so the
  cost is the branches (docs/performance.md, "Cold and warm calls").

Pin it to one core (``taskset -c 1``): each figure is the best of the rounds' medians.
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numba
import numpy as np

from benchmarks.positions import positions
from qwirkle_core._jit import CompiledEntry
from qwirkle_core._layout import OUT_COLS
from qwirkle_core._movegen import INITIAL_CAPACITY, MODE_ALL, generate


@numba.njit(nogil=False, _nrt=False)
def _read_all(state: Any) -> int:
    total = 0
    for i in range(state.shape[0]):
        total += state[i]
    return total


def _some_python() -> None:
    counts: dict[int, int] = {}
    for i in range(100):
        counts[i % 7] = counts.get(i % 7, 0) + i


def _median_call(call: Callable[..., Any], items: list[tuple[Any, ...]], way: str, calls: int = 1200) -> float:
    repeat = 20 if way.startswith("repeated") else 1
    sequence = itertools.cycle([item for item in items for _ in range(repeat)])
    clock = time.perf_counter_ns
    times = []
    for _ in range(calls):
        state, out, mask = next(sequence)
        if way.endswith("+python"):
            _some_python()
        elif way == "cycled+state":
            _read_all(state)
        start = clock()
        call(state, out, mask, MODE_ALL)
        times.append(clock() - start)
    return statistics.median(times) / 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    out = np.empty((INITIAL_CAPACITY, OUT_COLS), np.int32)
    items = [(b.state_arrays()[0], out, sum(1 << t.kind for t in set(h))) for b, h in positions("mid")]
    entry = CompiledEntry(generate)
    entry.call(items[0][0], out, items[0][2], MODE_ALL)  # compiled: call is now its entry
    _read_all(items[0][0])
    ways = ["repeated", "repeated+python", "cycled", "cycled+python", "cycled+state"]
    medians: dict[str, list[float]] = {way: [] for way in ways}
    for _ in range(args.rounds):
        for way in ways:
            medians[way].append(_median_call(entry.call, items, way))
    for way in ways:
        print(f"{way:16s} {min(medians[way]):6.2f} µs (rounds: {', '.join(f'{m:.2f}' for m in medians[way])})")


if __name__ == "__main__":
    main()
