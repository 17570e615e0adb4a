"""Steps per CPU second of each environment, for two source trees compared in turn.

    .venv/bin/python benchmarks/env_rates.py --compare OLD_TREE . --rounds 4

Each round runs one fresh process per tree, alternating (OLD, NEW, OLD, NEW, ...), so
that both meet the same moments of a shared machine; a process imports the package of
its tree (``--tree TREE``, printing one JSON line) and measures, on one thread, with
random legal actions:

- ``vector16``, ``vector256``: ``VectorQwirkle(n)`` with every seat played by the
  caller, sub-steps (n per step) per CPU second, ``random_actions`` included;
- ``vector256_greedy``: the same against the greedy bot (the bots' turns inside);
- ``gymnasium``: ``QwirkleVsBot`` against greedy, steps per CPU second of ``reset`` and
  ``step`` alone (the caller's choice from the mask is not timed);
- ``pettingzoo``: the wrapped AEC ``env()``, ``observe`` + ``step`` per CPU second;
- ``gymnasium_vector16``: ``QwirkleVectorVsBot(16)`` against greedy, sub-steps per CPU
  second of ``step`` (trees that have it);
- ``openspiel_rl``: OpenSpiel's ``rl_environment.Environment("python_qwirkle")`` (2
  players, its defaults: information-state tensors for every player each step, chance
  nodes sampled inside), decisions per CPU second of ``reset`` and ``step``.

The comparison prints, per figure, each tree's best and median round and their ratio.
Only API present before and after issue 24's changes is used.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

CPU_SECONDS = 1.0  # per figure and round, after a warm-up


def _rate(run: Callable[[], int]) -> float:
    """Units per CPU second of ``run`` (which returns how many units it did)."""
    run()  # compiled, caches filled
    units, start = 0, time.process_time()
    while time.process_time() - start < CPU_SECONDS:
        units += run()
    return units / (time.process_time() - start)


def _vector(n: int, opponents: str | None) -> Callable[[], int]:
    from qwirkle_core.envs.vector import VectorQwirkle

    env = VectorQwirkle(n, players=2, seed=1, opponents=opponents)
    env.reset()

    def run() -> int:
        for _ in range(20):
            env.step(env.random_actions())
        return 20 * n

    return run


def _gymnasium() -> Callable[[], float]:
    from qwirkle_core.envs.gymnasium import QwirkleVsBot

    env = QwirkleVsBot(players=2, opponents="greedy")
    rng = np.random.default_rng(1)
    timed = [0.0, 0.0]  # CPU seconds in the env's calls, steps

    def run() -> float:
        start = time.process_time()
        env.reset(seed=int(rng.integers(1 << 30)))
        timed[0] += time.process_time() - start
        while True:
            action = int(rng.choice(np.flatnonzero(env.action_masks())))
            start = time.process_time()
            _, _, terminated, truncated, _ = env.step(action)
            timed[0] += time.process_time() - start
            timed[1] += 1
            if terminated or truncated:
                return timed[1] / timed[0]

    return run


def _pettingzoo() -> Callable[[], float]:
    from qwirkle_core.envs.pettingzoo import env as make_env

    aec = make_env(players=2)
    rng = np.random.default_rng(1)
    timed = [0.0, 0.0]

    def run() -> float:
        aec.reset(seed=int(rng.integers(1 << 30)))
        for agent in aec.agent_iter():
            start = time.process_time()
            obs, _, terminated, truncated, _ = aec.last()
            timed[0] += time.process_time() - start
            action = None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"])))
            start = time.process_time()
            aec.step(action)
            timed[0] += time.process_time() - start
            timed[1] += 1
        return timed[1] / timed[0]

    return run


def _vector_face() -> Callable[[], float]:
    """``QwirkleVectorVsBot(16)`` against greedy (the trees that have it): sub-steps per
    CPU second of ``step`` alone (the choice from the masks is not timed)."""
    from qwirkle_core.envs.gymnasium import QwirkleVectorVsBot

    env = QwirkleVectorVsBot(16, players=2, opponents="greedy")
    _, info = env.reset(seed=1)
    rng = np.random.default_rng(1)
    timed = [0.0, 0.0]

    def run() -> float:
        nonlocal info
        for _ in range(20):
            actions = np.array([rng.choice(np.flatnonzero(mask)) for mask in info["action_mask"]])
            start = time.process_time()
            _, _, _, _, info = env.step(actions)
            timed[0] += time.process_time() - start
            timed[1] += 16
        return timed[1] / timed[0]

    return run


def _openspiel_rl() -> Callable[[], float]:
    """OpenSpiel's ``rl_environment`` on python_qwirkle, 2 players, random legal actions."""
    from open_spiel.python import rl_environment

    import qwirkle_core.envs.openspiel  # noqa: F401  (registers python_qwirkle)

    env = rl_environment.Environment("python_qwirkle", players=2)
    rng = np.random.default_rng(1)
    timed = [0.0, 0.0]

    def run() -> float:
        start = time.process_time()
        step = env.reset()
        timed[0] += time.process_time() - start
        while not step.last():
            player = step.observations["current_player"]
            action = int(rng.choice(step.observations["legal_actions"][player]))
            start = time.process_time()
            step = env.step([action])
            timed[0] += time.process_time() - start
            timed[1] += 1
        return timed[1] / timed[0]

    return run


def _episodes_rate(make: Callable[[], Callable[[], float]]) -> float:
    """Steps per CPU second of the env's own calls, over whole episodes."""
    run = make()
    run()
    start, rate = time.process_time(), 0.0
    while time.process_time() - start < 3 * CPU_SECONDS:  # the env's share of it is less
        rate = run()
    return rate


def measure() -> dict[str, float]:
    figures: dict[str, float] = {
        "vector16": _rate(_vector(16, None)),
        "vector256": _rate(_vector(256, None)),
        "vector256_greedy": _rate(_vector(256, "greedy")),
    }
    try:
        figures["gymnasium"] = _episodes_rate(_gymnasium)
        figures["pettingzoo"] = _episodes_rate(_pettingzoo)
        figures["openspiel_rl"] = _episodes_rate(_openspiel_rl)
        figures["gymnasium_vector16"] = _episodes_rate(_vector_face)
    except ImportError:  # no rl extra, or a tree before QwirkleVectorVsBot
        pass
    return {name: round(value) for name, value in figures.items()}


def compare(trees: list[str], rounds: int) -> None:
    results: dict[str, list[dict[str, float]]] = {tree: [] for tree in trees}
    for r in range(rounds):
        for tree in trees:
            env = dict(os.environ, PYTHONPATH=os.path.abspath(tree))
            done = subprocess.run(
                [sys.executable, os.path.abspath(__file__), "--tree", os.path.abspath(tree)],
                capture_output=True, text=True, env=env, check=True,
            )
            results[tree].append(json.loads(done.stdout.strip().splitlines()[-1]))
            print(f"round {r + 1} {tree}: {results[tree][-1]}", file=sys.stderr)
    print(f"{'figure':<18}" + "".join(f"{t[-24:]:>30}" for t in trees) + "   ratio (median)")
    names = list(dict.fromkeys(name for tree in trees for run in results[tree] for name in run))
    for name in names:
        cells, medians = [], []
        for tree in trees:
            values = [run.get(name, 0) for run in results[tree]]
            medians.append(statistics.median(values))
            cells.append(f"best {max(values):>9,.0f} med {medians[-1]:>9,.0f}")
        ratio = f"{medians[-1] / medians[0]:.2f}" if medians[0] else "-"
        print(f"{name:<18}" + "".join(f"{c:>30}" for c in cells) + f"   {ratio}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--tree", help="measure this tree's package (one JSON line)")
    parser.add_argument("--compare", nargs="+", metavar="TREE", help="trees to compare, in turn")
    parser.add_argument("--rounds", type=int, default=4)
    args = parser.parse_args(argv)
    if args.tree:
        sys.path.insert(0, args.tree)
        import qwirkle_core

        assert os.path.dirname(os.path.dirname(os.path.abspath(qwirkle_core.__file__))) == args.tree
        figures: dict[str, Any] = measure()
        print(json.dumps(figures))
    elif args.compare:
        compare(args.compare, args.rounds)
    else:
        parser.error("give --tree TREE or --compare TREE ...")


if __name__ == "__main__":
    main()
