"""The stop hooks of the searches: ``simulate(..., should_stop=)`` and
``solve_endgame(..., should_stop=)`` (what the engine's stop and timeouts are built on),
cut between kernel calls, a cut solve resumed from its table."""

from __future__ import annotations

import numba
import pytest

from qwirkle_core.analysis import endgame, simulation
from qwirkle_core.analysis.endgame import solve_endgame
from qwirkle_core.analysis.simulation import simulate
from qwirkle_core.errors import QwirkleError

from .games import greedy_game, greedy_until_bag_empty, plays_out, small_endgame

# With the JIT off (the coverage run) every sampled game is plain Python: fewer
# iterations, one ply, a smaller endgame.
JIT_OFF = bool(numba.config.DISABLE_JIT)
ITERATIONS = 6 if JIT_OFF else 200
PLIES = 1 if JIT_OFF else 2
ENDGAME_TILES = 4 if JIT_OFF else 8


def test_simulate_stops_when_asked_between_rounds() -> None:
    game = greedy_game(2, 2, 8)
    calls = []

    def after_two() -> bool:
        calls.append(1)
        return len(calls) >= 2

    results = simulate(game, top=2, plies=1, iterations=10**6, should_stop=after_two)
    assert len(calls) == 2 and max(r.iterations for r in results) == 2 * simulation.ROUND  # (some drop out)
    never = simulate(game, top=2, plies=PLIES, iterations=ITERATIONS, seed=4, should_stop=lambda: False)
    assert never == simulate(game, top=2, plies=PLIES, iterations=ITERATIONS, seed=4)
    with pytest.raises(QwirkleError, match="should_stop"):
        simulate(game, should_stop=True)  # type: ignore[arg-type]


def test_solve_endgame_stops_when_asked() -> None:
    game = greedy_until_bag_empty(3)
    for limit in (None, 30.0):
        result = solve_endgame(game, time_limit=limit, should_stop=lambda: True)
        assert not result.exact and result.pv[0] == result.action
        assert result.action in game.legal_actions()
        assert plays_out(game, [a.text() for a in result.pv]) == result.spread
    with pytest.raises(QwirkleError, match="should_stop"):
        solve_endgame(game, should_stop=1)  # type: ignore[arg-type]


def test_a_solve_cut_into_many_calls_is_still_exact(monkeypatch: pytest.MonkeyPatch) -> None:
    """With should_stop the search runs in calls of a node budget, each cut short and
    started again; what they finished is kept in the table, so it still ends, exact,
    with the spread of one uncut search."""
    game = small_endgame(5, ENDGAME_TILES)
    assert game is not None
    want = solve_endgame(game)
    monkeypatch.setattr(endgame, "POLL_SECONDS", 1e-9)
    monkeypatch.setattr(endgame, "MIN_POLL_NODES", 1)
    calls = []

    def count() -> bool:
        calls.append(1)
        return False

    for limit in (None, 1e6):
        calls.clear()
        got = solve_endgame(game, time_limit=limit, should_stop=count)
        assert got.exact and got.spread == want.spread and plays_out(game, [a.text() for a in got.pv]) == got.spread
        assert len(calls) > 2, "the search was cut into many calls"
