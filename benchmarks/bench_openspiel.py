"""OpenSpiel game python_qwirkle: the observers' cost a call, and open_spiel's
rl_environment in steps per second.

    .venv/bin/python -m pytest benchmarks/bench_openspiel.py --benchmark-enable -q -s

The positions are the decision nodes of seeded random games of 2 and 4 players (every
7th sub-step, so early, middle and late positions all count).  ``observer`` times
``QwirkleObserver.set_from`` (the tensor) and ``string_from`` (the string) for the
observation and the perfect-recall information state, one call for each position, and
prints the mean and the slowest call in µs; ``string_cold`` drops the texts a state
keeps for its strings (the board's, each finished turn's) before each call, as a first
call on a state pays them.  ``state_call`` times what a caller of
``state.observation_tensor()`` / ``information_state_tensor()`` pays: the observer
plus OpenSpiel's copy into a Python list of 13,399 or 24,450 floats.  ``rl_environment``
plays random legal actions in ``rl_environment.Environment("python_qwirkle")`` (2
players, the information-state tensor of every player at every step, its default).  On
a shared machine, read the best round.  Needs the rl extra.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="the rl extra (pip install '.[rl]') is not installed")

from open_spiel.python import rl_environment

from qwirkle_core.envs import openspiel as qos

_STATES: list[Any] = []


def positions() -> list[Any]:
    """Decision nodes of seeded random games (made once)."""
    if not _STATES:
        rng = np.random.default_rng(0)
        for g in range(4):
            state = pyspiel.load_game("python_qwirkle", {"players": 2 if g % 2 == 0 else 4}).new_initial_state()
            n = 0
            while not state.is_terminal():
                if state.is_chance_node():
                    outcomes, probs = zip(*state.chance_outcomes())
                    state.apply_action(int(rng.choice(outcomes, p=probs)))
                    continue
                n += 1
                if n % 7 == 0:
                    _STATES.append(state.clone())
                state.apply_action(int(rng.choice(state.legal_actions())))
    return _STATES


def _observer(perfect_recall: bool) -> Any:
    game = pyspiel.load_game("python_qwirkle", {"players": 2})
    return game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=perfect_recall))


def _per_call(benchmark: Any, label: str, call: Callable[[Any], Any]) -> None:
    states = positions()
    for state in states[:5]:
        call(state)  # compiled, caches warm

    def round_() -> None:
        for state in states:
            call(state)

    benchmark.pedantic(round_, rounds=7, iterations=1)
    if benchmark.stats is None:  # --benchmark-disable: ran once, untimed
        return
    slowest = 0.0
    for state in states:
        start = time.perf_counter()
        call(state)
        slowest = max(slowest, time.perf_counter() - start)
    stats = benchmark.stats.stats
    benchmark.extra_info["us_per_call"] = round(stats.median / len(states) * 1e6, 1)
    benchmark.extra_info["us_per_call_best_round"] = round(stats.min / len(states) * 1e6, 1)
    print(
        f"\n{label}: {stats.median / len(states) * 1e6:.1f} µs a call median, {stats.min / len(states) * 1e6:.1f} best"
        f" round, slowest call {slowest * 1e6:.0f} µs ({len(states)} positions)"
    )


def _cold_string(observer: Any, state: Any) -> str:
    """The string with the texts the state keeps (the board's, the turns') dropped
    first, as in a state just deserialized: the cost of a first call."""
    state._s.board_text = state._s.turns_text = None
    return observer.string_from(state, state.current_player())  # type: ignore[no-any-return]


@pytest.mark.parametrize("what", ["tensor", "string", "string_cold"])
@pytest.mark.parametrize("perfect_recall", [False, True], ids=["observation", "information_state"])
def test_observer(benchmark: Any, perfect_recall: bool, what: str) -> None:
    observer = _observer(perfect_recall)
    label = f"{what} perfect_recall={perfect_recall}"
    if what == "tensor":
        _per_call(benchmark, label, lambda s: observer.set_from(s, s.current_player()))
    elif what == "string":
        _per_call(benchmark, label, lambda s: observer.string_from(s, s.current_player()))
    else:
        _per_call(benchmark, label, lambda s: _cold_string(observer, s))


@pytest.mark.parametrize("method", ["observation_tensor", "information_state_tensor", "legal_actions", "clone"])
def test_state_call(benchmark: Any, method: str) -> None:
    _per_call(benchmark, f"state.{method}()", lambda s: getattr(s, method)())


def test_random_play(benchmark: Any) -> None:
    """Whole games of random legal actions (legal_actions, apply_action, the chance
    outcomes): what a search pays per action, without observers."""
    game = pyspiel.load_game("python_qwirkle", {"players": 2})
    rng = np.random.default_rng(2)
    actions = [0]

    def round_() -> None:
        for _ in range(2):
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    outcomes, probs = zip(*state.chance_outcomes())
                    state.apply_action(int(rng.choice(outcomes, p=probs)))
                else:
                    state.apply_action(int(rng.choice(state.legal_actions())))
                actions[0] += 1

    round_()
    actions[0] = 0
    benchmark.pedantic(round_, rounds=5, iterations=1)
    if benchmark.stats is None:
        return
    per_round = actions[0] / 5
    stats = benchmark.stats.stats
    print(f"\nrandom play: {per_round / stats.median:,.0f} actions/s median, {per_round / stats.min:,.0f} best round")


def test_rl_environment_steps(benchmark: Any) -> None:
    env = rl_environment.Environment("python_qwirkle", players=2)
    env.seed(1)
    rng = np.random.default_rng(1)
    box = [env.reset()]
    steps = 200

    def round_() -> None:
        step = box[0]
        for _ in range(steps):
            if step.last():
                step = env.reset()
            player = step.observations["current_player"]
            step = env.step([int(rng.choice(step.observations["legal_actions"][player]))])
        box[0] = step

    round_()
    benchmark.pedantic(round_, rounds=5, iterations=1)
    if benchmark.stats is None:
        return
    stats = benchmark.stats.stats
    benchmark.extra_info["steps_per_second"] = round(steps / stats.median)
    print(f"\nrl_environment: {steps / stats.median:,.0f} steps/s median, {steps / stats.min:,.0f} best round")


def test_positions_are_decision_nodes() -> None:
    assert all(not s.is_chance_node() and not s.is_terminal() for s in positions())
    assert len(positions()) > 50 and qos.OBS_SIZE < qos.INFO_SIZE
