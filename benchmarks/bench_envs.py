"""Environment speed: sub-steps per second (masks and observations included).

    .venv/bin/python -m pytest benchmarks/bench_envs.py --benchmark-enable -q -s

Each round plays ROUND_STEPS steps of VectorQwirkle(256) on one core, with uniformly
random legal sub-steps chosen by a kernel (``random_actions``, timed too); and
ROUND_STEPS // 10 steps of the PettingZoo AEC env (one game, random legal sub-steps
from the mask), when pettingzoo is installed.  On a shared machine, read the best
round (``process_time`` figures are printed too: CPU time of this process only).
"""

from __future__ import annotations

import time

import numpy as np
import pytest

from qwirkle_core.envs.vector import VectorQwirkle

N = 256
ROUND_STEPS = 100


def _report(benchmark, label: str, substeps: int, cpu: float) -> None:  # type: ignore[no-untyped-def]
    if benchmark.stats is None:  # --benchmark-disable: ran once, untimed
        return
    stats = benchmark.stats.stats
    benchmark.extra_info["substeps_per_second"] = round(substeps / stats.median)
    benchmark.extra_info["substeps_per_second_best_round"] = round(substeps / stats.min)
    print(
        f"\n{label}: {substeps / stats.median:,.0f} sub-steps/s median, {substeps / stats.min:,.0f} best round,"
        f" {substeps / cpu:,.0f} per CPU second"
    )


@pytest.mark.parametrize("opponents", [None, "greedy"])
def test_vector_env_substeps(benchmark, opponents: str | None) -> None:  # type: ignore[no-untyped-def]
    env = VectorQwirkle(N, players=2, seed=1, opponents=opponents)
    env.reset()
    for _ in range(20):
        env.step(env.random_actions())
    cpu: list[float] = []

    def round_() -> None:
        start = time.process_time()
        for _ in range(ROUND_STEPS):
            env.step(env.random_actions())
        cpu.append(time.process_time() - start)

    benchmark.pedantic(round_, rounds=7, iterations=1)
    _report(benchmark, f"VectorQwirkle({N}), opponents={opponents}", N * ROUND_STEPS, float(np.median(cpu)))


def test_pettingzoo_env_substeps(benchmark) -> None:  # type: ignore[no-untyped-def]
    pytest.importorskip("pettingzoo", reason="the rl extra (pip install '.[rl]') is not installed")
    from qwirkle_core.envs.pettingzoo import env as make_env

    aec = make_env(players=2)
    aec.reset(seed=1)
    rng = np.random.default_rng(1)
    steps = ROUND_STEPS * 10
    cpu: list[float] = []

    def round_() -> None:
        start = time.process_time()
        for _ in range(steps):
            if any(aec.terminations.values()) or any(aec.truncations.values()):
                aec.reset()
            mask = aec.observe(aec.agent_selection)["action_mask"]
            aec.step(int(rng.choice(np.flatnonzero(mask))))
        cpu.append(time.process_time() - start)

    benchmark.pedantic(round_, rounds=5, iterations=1)
    _report(benchmark, "PettingZoo AEC env (one game)", steps, float(np.median(cpu)))
