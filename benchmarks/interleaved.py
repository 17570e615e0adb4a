"""Two source trees measured in one process, call for call, for a machine that is noisy.

    python benchmarks/interleaved.py TREE_A TREE_B [--rounds 6] [--games 300]

``back_to_back.py`` runs each tree in its own process, one after the other; on a
shared machine whose speed changes by half from one minute to the next, that compares
the moments more than the trees.  This script imports each tree's ``qwirkle_core``
under a name of its own (``tree_a``, ``tree_b``: the package imports itself only
relatively) and alternates between them at every position: each figure of a round is
the median over the 60 mid-game positions of ``benchmarks/positions.py`` of the best
of five batches of calls, tree A then tree B on the same position, so a slow spell
slows both.  Self-play alternates batches of greedy two-player games.  It prints, per
figure, each tree's best and median round and the median of the rounds' ratios B / A
(self-play: the games per second of 2 x rounds batches of each tree, alternated).

The trees' kernels compile into each tree's own cache (the first run of a changed
tree takes minutes).
"""

from __future__ import annotations

import argparse
import importlib
import json
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np

from benchmarks.back_to_back import game_loop, greedy_games
from benchmarks.positions import positions

NAMES = ("tree_a", "tree_b")


def load_trees(trees: list[str], into: Path) -> dict[str, ModuleType]:
    """Each tree's package, copied under its own name and imported."""
    packages = {}
    for name, tree in zip(NAMES, trees, strict=True):
        shutil.copytree(Path(tree) / "qwirkle_core", into / name, ignore=shutil.ignore_patterns("__pycache__"))
    sys.path.insert(0, str(into))
    for name in NAMES:
        packages[name] = importlib.import_module(name)
    return packages


def best_of_five(fn: Callable[[], Any], n: int) -> float:
    fn()
    best = float("inf")
    for _ in range(5):
        t = time.perf_counter_ns()
        for _ in range(n):
            fn()
        best = min(best, (time.perf_counter_ns() - t) / n / 1000)
    return best


def position_calls(package: ModuleType) -> dict[str, list[Callable[[], Any]]]:
    """Per figure, one call per mid-game position, on this package's own boards."""
    board_type = package.Board
    generate = package._movegen.generate
    calls: dict[str, list[Callable[[], Any]]] = {k: [] for k in
                                                 ("legal_moves", "kernel", "from_placements", "from_json", "copy", "push_pop")}
    for board, hand in positions("mid"):
        mine = board_type.from_json(board.to_json())
        my_hand = [package.Tile(int(t.color), int(t.shape)) for t in hand]
        mask = sum(1 << t.kind for t in set(hand))
        state = mine.state_arrays()[0]
        table = np.empty((256, 20), np.int32)
        placements = mine.placements()
        value = mine.to_json()
        calls["legal_moves"].append(lambda b=mine, h=my_hand: b.legal_moves(h))
        calls["kernel"].append(lambda s=state, o=table, m=mask: generate(s, o, m, 0))
        calls["from_placements"].append(lambda p=placements: board_type.from_placements(p))
        calls["from_json"].append(lambda v=value: board_type.from_json(v))
        calls["copy"].append(mine.copy)
        moves = mine.legal_moves(my_hand)
        if len(moves):
            pushed = mine.copy()

            def push_pop(b: Any = pushed, m: Any = moves[0]) -> None:
                b.push(m)
                b.pop()

            calls["push_pop"].append(push_pop)
    return calls


def selfplay_call(package: ModuleType, games: int) -> Callable[[], Any]:
    return greedy_games(game_loop(package.__name__), games)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs=2, help="two source trees (each holds qwirkle_core/)")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--games", type=int, default=300, help="greedy games per self-play batch")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        packages = load_trees(args.trees, Path(tmp))
        calls = {name: position_calls(p) for name, p in packages.items()}
        games = {name: selfplay_call(p, args.games) for name, p in packages.items()}
        rounds: dict[str, dict[str, list[float]]] = {name: {} for name in NAMES}
        checksums: dict[str, set[tuple[int, int]]] = {name: set() for name in NAMES}
        for _ in range(args.rounds):
            for figure in calls["tree_a"]:
                per_position: dict[str, list[float]] = {name: [] for name in NAMES}
                for i in range(len(calls["tree_a"][figure])):
                    for name in NAMES:
                        n = 50 if figure.startswith("from_") else 200
                        per_position[name].append(best_of_five(calls[name][figure][i], n))
                for name in NAMES:
                    rounds[name].setdefault(figure, []).append(statistics.median(per_position[name]))
        # Self-play in a block of its own, alternating batch by batch.
        for _ in range(2 * args.rounds):
            for name in NAMES:
                t = time.perf_counter()
                scores, turns = games[name]()[:2]
                rounds[name].setdefault("greedy_games_per_second", []).append(args.games / (time.perf_counter() - t))
                checksums[name].add((int(scores.sum()), int(turns.sum())))
    print(f"tree_a = {args.trees[0]}, tree_b = {args.trees[1]}; each: best / median of the rounds")
    for figure in rounds["tree_a"]:
        a, b = rounds["tree_a"][figure], rounds["tree_b"][figure]
        best = max if figure.endswith("per_second") else min
        ratio = statistics.median(y / x for x, y in zip(a, b, strict=True))
        print(
            f"{figure:24s} tree_a {best(a):9.3f} / {statistics.median(a):9.3f}   "
            f"tree_b {best(b):9.3f} / {statistics.median(b):9.3f}   b/a {ratio:.3f}"
        )
    print("games checksum:", json.dumps({name: sorted(v) for name, v in checksums.items()}))


if __name__ == "__main__":
    main()
