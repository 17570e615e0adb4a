"""The searching bots by name: ``sim`` and ``endgame`` (qwirkle_core.analysis) wherever
make_bot is used, with a per-move budget."""

from __future__ import annotations

import numba
import numpy as np
import pytest

from qwirkle_core import Game
from qwirkle_core.bots import BOT_IDS, BOTS, EndgameBot, SimBot, make_bot, play
from qwirkle_core.errors import QwirkleError
from tests.games import greedy_until_bag_empty, small_endgame

# With the JIT off (the coverage run) the solver visits its nodes in plain Python: the
# endgames there are small ones (5 tiles in the two hands, not 12).
JIT_OFF = bool(numba.config.DISABLE_JIT)
# Bounds-checked kernels run about 3x slower: small endgames there too.
SMALL_ENDGAMES = JIT_OFF or bool(numba.config.BOUNDSCHECK)


def test_every_bot_is_named_and_the_search_bots_are_not_kernel_bots() -> None:
    assert set(BOTS) == {"random", "greedy", "heuristic", "endgame", "sim"}
    assert set(BOT_IDS) == {"random", "greedy", "heuristic"}
    with pytest.raises(QwirkleError, match="unknown bot 'deep'.*sim"):
        make_bot("deep")


@pytest.mark.parametrize(
    "movetime",
    [0, -1.0, float("nan"), float("inf"), "1", True, 2**1024, np.bool_(True), np.float64("nan"), np.float32("inf"),
     np.int64(0), np.float32(-1.0)],
)
def test_a_movetime_is_a_positive_number_of_seconds(movetime: object) -> None:
    with pytest.raises(QwirkleError, match="movetime"):
        make_bot("sim", movetime=movetime)  # type: ignore[arg-type]
    for search_bot in (SimBot, EndgameBot):  # made directly, not by make_bot
        with pytest.raises(QwirkleError, match="movetime"):
            search_bot(movetime=movetime)  # type: ignore[arg-type]


@pytest.mark.parametrize("movetime", [np.int64(1), np.float32(0.5), np.float64(0.25)])
def test_a_movetime_may_be_a_numpy_number(movetime: object) -> None:
    """As the counts and seeds may be: the bot keeps it as a plain float, what the
    search's clock and a JSON reply take."""
    for bot in (make_bot("sim", movetime=movetime), make_bot("endgame", movetime=movetime),  # type: ignore[arg-type]
                SimBot(movetime=movetime), EndgameBot(movetime=movetime)):  # type: ignore[arg-type]
        assert type(bot._movetime) is float and bot._movetime == float(movetime)  # type: ignore[attr-defined]


def test_no_bot_chooses_for_a_finished_game_or_for_what_is_no_game() -> None:
    """A finished game has no legal action: every bot says so (the kernel bots and the
    endgame bot, which falls back to greedy, used to return a placement)."""
    game = Game(2, 4)
    play(game, [make_bot("greedy", 4, seat) for seat in range(2)])
    assert game.is_over and game.legal_actions() == []
    for name in BOTS:
        with pytest.raises(QwirkleError, match="the game is over"):
            make_bot(name, 4, game.to_move).choose(game)
        with pytest.raises(QwirkleError, match="a bot chooses for a Game"):
            make_bot(name).choose(None)  # type: ignore[arg-type]


def test_the_kernel_bots_take_a_movetime_and_play_as_without() -> None:
    game = Game(2, 5)
    assert make_bot("greedy", 5, 0, movetime=0.5).choose(game) == make_bot("greedy", 5, 0).choose(game)


def test_the_endgame_bot_is_greedy_while_the_bag_holds_tiles() -> None:
    game = Game(2, 11)
    endgame, greedy = make_bot("endgame", 11, 0), make_bot("greedy", 11, 0)
    for _ in range(6):
        assert game.bag_size
        seat = game.to_move
        chosen = make_bot("endgame", 11, seat).choose(game)
        assert chosen == make_bot("greedy", 11, seat).choose(game)
        game.push(chosen)
    assert endgame.name == "endgame" and greedy.name == "greedy"


def test_with_the_bag_empty_both_search_bots_play_the_solvers_move() -> None:
    from qwirkle_core.analysis.endgame import solve_endgame

    checked = 0
    # Seeds whose whole endgames solve in under 0.4 s each (seed 3's takes 5 s, and each
    # position is solved five times here).
    for seed in (0, 1, 2, 6):
        game = small_endgame(seed, 5) if SMALL_ENDGAMES else greedy_until_bag_empty(seed)
        if game is None or game.is_over:
            continue
        best = solve_endgame(game)
        for name in ("endgame", "sim"):
            action = make_bot(name, seed, game.to_move).choose(game)
            after = game.copy()
            after.push(action)
            # The bot's move keeps the solved spread (it may be another move of equal value).
            mover = game.to_move
            if after.is_over:
                assert after.scores[mover] - after.scores[1 - mover] == best.spread
            else:
                assert -solve_endgame(after).spread == best.spread
        checked += 1
    assert checked >= 2


@pytest.mark.skipif(JIT_OFF, reason="two whole games of 1,000-iteration simulations: compiled runs only")
def test_a_sim_game_against_greedy_ends_and_repeats_for_its_seed() -> None:
    def one() -> list[str]:
        game = Game(2, 3)
        play(game, [make_bot("sim", 3, 0), make_bot("greedy", 3, 1)])
        assert game.is_over
        return [turn.action.text() for turn in game.history]

    assert one() == one()


def test_a_sim_move_with_a_movetime_is_legal() -> None:
    game = Game(2, 8)
    game.push(make_bot("greedy", 8, game.to_move).choose(game))
    action = make_bot("sim", 8, game.to_move, movetime=0.05).choose(game)
    assert action in game.legal_actions()
