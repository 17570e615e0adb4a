"""The move generator of the working tree against a committed one, in one process.

    NUMBA_CACHE_DIR=/tmp/nc-gen .venv/bin/python benchmarks/generate_parts.py [--rev HEAD] [--rounds 15]

For a change to ``_movegen.py`` alone: the file at ``--rev`` (``git show``) is loaded
as a second module of this tree's package (``qwirkle_core._movegen_at_rev``, its
relative imports resolving to this tree's other modules), so the two generators differ
in their own code only.  It first checks that both give the same table, row for row,
for every position and mode; then, each round, on every position it times the best of
five batches of calls of each generator, alternating which goes first, and takes the
median over the positions.  It prints each generator's best and median round and the
median of the rounds' ratios new / old, per figure: the kernel alone (through its
compiled entry, as ``bench_movegen.py``'s ``test_generate_kernel_mid_game``) on the
early, mid-game, late and worst-case positions of ``benchmarks/positions.py``, every
move kept (MODE_ALL) and, mid-game, counted only (MODE_COUNT).

The committed file is written to a fixed place under the temporary directory, its
modification time kept while its text is unchanged, so that numba's cache of it stays
valid from one run to the next (set NUMBA_CACHE_DIR: the first run compiles both).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np

from benchmarks.positions import positions, worst_cases
from qwirkle_core import _layout, _movegen
from qwirkle_core._jit import CompiledEntry


def load_at_rev(rev: str, name: str = "_movegen_at_rev") -> ModuleType:
    """``qwirkle_core/_movegen.py`` as committed at ``rev`` (or the file ``rev``, if it
    is one), as module ``name`` of this package."""
    if Path(rev).is_file():
        text = Path(rev).read_text()
    else:
        text = subprocess.run(
            ["git", "show", f"{rev}:qwirkle_core/_movegen.py"], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout
    place = Path(tempfile.gettempdir()) / "generate_parts"
    place.mkdir(exist_ok=True)
    path = place / f"{name}.py"
    if not path.exists() or path.read_text() != text:
        path.write_text(text)
    name = f"qwirkle_core.{name}"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def entry_of(generate: Any) -> Callable[..., Any]:
    """The generator's compiled entry (compiled by a first call)."""
    entry = CompiledEntry(generate)
    state, mask = _cases()["mid"][0][:2]
    entry.call(state, np.empty((256, _layout.OUT_COLS), np.int32), mask, _movegen.MODE_ALL)
    return entry.call


def _cases() -> dict[str, list[tuple[Any, int, int]]]:
    """Per figure, (state, hand mask, mode) for each of its positions."""
    def of(items: list[Any], mode: int) -> list[tuple[Any, int, int]]:
        return [(b.state_arrays()[0], sum(1 << t.kind for t in set(h)), mode) for b, h in items]

    return {
        "early": of(positions("early"), _movegen.MODE_ALL),
        "mid": of(positions("mid"), _movegen.MODE_ALL),
        "late": of(positions("late"), _movegen.MODE_ALL),
        "worst_case": of(worst_cases(), _movegen.MODE_ALL),
        "mid_count": of(positions("mid"), _movegen.MODE_COUNT),
    }


def check_same(old: Callable[..., Any], new: Callable[..., Any], cases: dict[str, list[Any]]) -> int:
    """Both generators' answers and tables, for every case and mode; the cases checked."""
    checked = 0
    for items in cases.values():
        for state, mask, _ in items:
            for mode in (0, 1, 2, 3, _movegen.CHECK_EDGE):
                a = np.full((4096, _layout.OUT_COLS), 7, np.int32)
                b = np.full((4096, _layout.OUT_COLS), 7, np.int32)
                n_a = old(state, a, mask, mode)
                n_b = new(state, b, mask, mode)
                assert n_a == n_b, (n_a, n_b, mode)
                assert np.array_equal(a, b), mode
                checked += 1
    return checked


def best_of_five(fn: Callable[..., Any], args: tuple[Any, ...], n: int) -> float:
    """µs a call: the best of five batches of ``n`` calls."""
    best = float("inf")
    for _ in range(5):
        t = time.perf_counter_ns()
        for _ in range(n):
            fn(*args)
        best = min(best, (time.perf_counter_ns() - t) / n / 1000)
    return best


def measure(args: argparse.Namespace) -> dict[str, dict[str, list[float]]]:
    """Per generator ("old", "new") and figure, the rounds' medians over positions (µs)."""
    at_rev = load_at_rev(args.rev)
    new_module = load_at_rev(args.new_rev, "_movegen_new_rev") if args.new_rev else _movegen
    t = time.perf_counter()
    # Loaded (placed in memory) in the order the process's number says.
    if args.new_first:
        new = entry_of(new_module.generate)
        old = entry_of(at_rev.generate)
    else:
        old = entry_of(at_rev.generate)
        new = entry_of(new_module.generate)
    cases = _cases()
    checked = check_same(old, new, cases)
    print(f"compiled (or loaded) both in {time.perf_counter() - t:.1f} s;"
          f" same tables and answers: {checked} (position, mode) cases", file=sys.stderr)
    table = np.empty((256, _layout.OUT_COLS), np.int32)
    rounds: dict[str, dict[str, list[float]]] = {"old": {}, "new": {}}
    fns = {"old": old, "new": new}
    for r in range(args.rounds):
        order = ("old", "new") if r % 2 == 0 else ("new", "old")
        for figure, items in cases.items():
            n = args.calls // 10 if figure == "worst_case" else args.calls
            per_position: dict[str, list[float]] = {"old": [], "new": []}
            for state, mask, mode in items:
                call_args = (state, table, mask, mode)
                for name in order:
                    fns[name](*call_args)
                    per_position[name].append(best_of_five(fns[name], call_args, n))
            for name in fns:
                rounds[name].setdefault(figure, []).append(statistics.median(per_position[name]))
    return rounds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rev", default="HEAD", help="the committed _movegen.py to compare with (or a file)")
    parser.add_argument("--new-rev", help="a committed _movegen.py (or a file) instead of the working tree's"
                        " (--rev HEAD --new-rev HEAD: the method's own bias)")
    parser.add_argument("--rounds", type=int, default=15, help="rounds per process")
    parser.add_argument("--processes", type=int, default=6,
                        help="processes, one after the other (each places the code in memory anew)")
    parser.add_argument("--calls", type=int, default=100, help="calls per batch (worst case: a tenth)")
    parser.add_argument("--new-first", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(args)))
        return
    # A process's figures depend on where its code lies in memory (alignment, the branch
    # predictor's and the micro-op cache's sets): the same two generators measure up to
    # a few percent apart from one process to the next.  So each ratio is taken in
    # several processes, alternating which generator is loaded first.
    per_process: list[dict[str, dict[str, list[float]]]] = []
    for k in range(args.processes):
        command = [sys.executable, __file__, "--child", "--rev", args.rev, "--rounds", str(args.rounds),
                   "--calls", str(args.calls)] + (["--new-rev", args.new_rev] if args.new_rev else [])
        if k % 2:
            command.append("--new-first")
        out = subprocess.run(command, capture_output=True, text=True, check=True)
        per_process.append(json.loads(out.stdout))
        print(out.stderr.strip().splitlines()[-1], file=sys.stderr)
    print(f"rev {args.rev} (old) against {args.new_rev or 'the working tree'} (new): {args.processes} processes"
          f" x {args.rounds} rounds; µs a call, median over positions, median of the rounds;"
          " new/old: the median of each process's rounds' ratios, then their median")
    for figure in per_process[0]["old"]:
        ratios = []
        for rounds in per_process:
            a, b = rounds["old"][figure], rounds["new"][figure]
            ratios.append(statistics.median(y / x for x, y in zip(a, b, strict=True)))
        old = statistics.median(statistics.median(p["old"][figure]) for p in per_process)
        new = statistics.median(statistics.median(p["new"][figure]) for p in per_process)
        print(f"{figure:12s} old {old:8.3f}   new {new:8.3f}   new/old {statistics.median(ratios):.3f}"
              f"   (processes: {' '.join(f'{r:.3f}' for r in ratios)})")


if __name__ == "__main__":
    main()
