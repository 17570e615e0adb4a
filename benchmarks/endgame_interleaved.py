"""Two source trees' endgame solvers on the same positions, alternated position by
position, for a machine whose speed swings (see ``interleaved.py``).

    python benchmarks/endgame_interleaved.py TREE_A TREE_B [--seeds 0:200]

Each seed's position is the one where greedy two-player self-play first empties the bag
(as ``endgame_figures.py`` takes it), built by each tree's own ``Game``; tree A solves
it exactly, then tree B, then the next seed, so a slow spell slows both; times are the solving thread's CPU time (time.thread_time), which other processes on the machine move far less than the wall clock.  The spreads
must agree (an exact solver has one answer).  Prints each tree's solve-time median,
99th percentile and max, its total nodes, and the median of B's time over A's.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.endgame_figures import percentile
from benchmarks.interleaved import NAMES, load_trees


def bag_empty(package: ModuleType, seed: int) -> Any:
    """``package``'s Game of ``seed`` when greedy self-play first empties its bag, or None."""
    game = package.game.Game(players=2, seed=seed)
    bots = [package.bots.make_bot("greedy", seed=seed, seat=s) for s in range(2)]
    while not game.is_over and game.bag_size > 0:
        game.push(bots[game.to_move].choose(game))
    return None if game.is_over else game


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs=2, help="two source trees (each holds qwirkle_core/)")
    parser.add_argument("--seeds", default="0:200", help="a range of seeds, FIRST:END (default 0:200)")
    args = parser.parse_args()
    first, end = (int(x) for x in args.seeds.split(":"))
    with tempfile.TemporaryDirectory() as tmp:
        packages = load_trees(args.trees, Path(tmp))
        for package in packages.values():
            __import__(package.__name__ + ".analysis.endgame")
            __import__(package.__name__ + ".bots")
        times: dict[str, list[float]] = {name: [] for name in NAMES}
        nodes: dict[str, int] = dict.fromkeys(NAMES, 0)
        warmed = False
        for seed in range(first, end):
            games = {name: bag_empty(p, seed) for name, p in packages.items()}
            if games[NAMES[0]] is None:
                continue
            spreads = set()
            for name, package in packages.items():
                solve = package.analysis.endgame.solve_endgame
                if not warmed:
                    solve(games[name])  # compile or load the kernels outside the timing
                began = time.thread_time()
                result = solve(games[name])
                times[name].append(time.thread_time() - began)
                nodes[name] += result.nodes
                spreads.add(result.spread)
            warmed = True
            assert len(spreads) == 1, f"seed {seed}: the trees disagree on the spread: {spreads}"
    print(f"tree_a = {args.trees[0]}, tree_b = {args.trees[1]}; {len(times[NAMES[0]])} positions of seeds {args.seeds}")
    for name in NAMES:
        t = times[name]
        print(
            f"{name}: median {statistics.median(t) * 1e3:.1f} ms, p99 {percentile(t, 0.99) * 1e3:.0f} ms, "
            f"max {max(t) * 1e3:.0f} ms, total {sum(t):.1f} s, {nodes[name]:,} nodes"
        )
    ratios = [b / a for a, b in zip(times[NAMES[0]], times[NAMES[1]], strict=True)]
    print(f"b/a: median {statistics.median(ratios):.3f}, total {sum(times[NAMES[1]]) / sum(times[NAMES[0]]):.3f}")


if __name__ == "__main__":
    main()
