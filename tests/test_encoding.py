"""The action encoding: every legal turn is exactly one sequence of legal sub-steps."""

from __future__ import annotations

import os
from collections.abc import Iterator

import numba
import numpy as np
import pytest

from qwirkle_core.bots import make_bot
from qwirkle_core.envs import _kernels, encoding
from qwirkle_core.envs.encoding import (
    action_count,
    action_from_substeps,
    describe,
    end_id,
    legal_substeps,
    mark_id,
    pass_id,
    place_id,
    turn_substeps,
    window,
)
from qwirkle_core.errors import IllegalMoveError, QwirkleError
from qwirkle_core.game import Action, Game
from qwirkle_core.queries import PLANE_LEGAL, position_planes

NO_JIT = os.environ.get("NUMBA_DISABLE_JIT") == "1"
# Games per player count: with the JIT about 1,500 positions in all; without it (the
# coverage run, where every kernel is plain Python) six per player count.  The bounds-checked
# run plays one game per player count (about 400 positions): its task is an index out
# of range in the kernels, and the walk over each position's sub-steps is Python.
GAMES = 1 if NO_JIT or numba.config.BOUNDSCHECK else 4
MAX_POSITIONS = 6 if NO_JIT else 10_000


def positions(players: int, seed: int) -> Iterator[Game]:
    """Every position of a game between random and greedy bots (random ones exchange
    and pass, greedy ones make long lines)."""
    game = Game(players, seed=seed)
    bots = [make_bot("random" if (p + seed) % 3 else "greedy", seed=seed, seat=p) for p in range(players)]
    count = 0
    while not game.is_over and count < MAX_POSITIONS:
        yield game
        count += 1
        game.push(bots[game.to_move].choose(game))


def complete_turns(game: Game, width: int) -> tuple[list[list[int]], int]:
    """Every complete sub-step sequence (a depth-first walk over legal_substeps'
    kernel), and the number of legal moves outside the window."""
    st, meta, hands, hand_sizes, *_ = game.engine_state(copy_state=False)
    seat = game.to_move
    mask = np.zeros(action_count(width), np.bool_)
    found: list[list[int]] = []
    outside = -1

    def walk(prefix: list[int], partial: np.ndarray, placed: int, marked: int) -> None:
        nonlocal outside
        _, out, _ = _kernels.turn_mask(st, meta, hands[seat], hand_sizes[seat], width, partial, placed, marked, mask)
        outside = out if outside < 0 else outside
        for a in np.flatnonzero(mask).tolist():
            what, kind, _, _ = describe(a, width)
            if what in ("end", "pass"):
                found.append(prefix + [a])
            elif what == "place":
                p = partial.copy()
                p[placed] = a
                walk(prefix + [a], p, placed + 1, marked)
            else:
                p = partial.copy()
                p[6 + marked] = kind
                walk(prefix + [a], p, placed, marked + 1)

    walk([], np.full(12, -1, np.int64), 0, 0)
    return found, outside


def test_action_ids() -> None:
    assert action_count() == 36_902 == 36 * 32 * 32 + 38
    assert action_count(24) == 36 * 24 * 24 + 38
    assert describe(place_id(7, 3, 5)) == ("place", 7, 3, 5)
    assert describe(mark_id(35)) == ("mark", 35, -1, -1)
    assert describe(end_id()) == ("end", -1, -1, -1)
    assert describe(pass_id()) == ("pass", -1, -1, -1)
    for bad in (-1, action_count()):
        with pytest.raises(QwirkleError):
            describe(bad)
    with pytest.raises(QwirkleError):
        action_count(0)


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_sub_step_sequences_are_the_legal_actions_each_once(players: int) -> None:
    total = outside = 0
    for seed in range(GAMES):
        for game in positions(players, 100 * players + seed):
            turns, out = complete_turns(game, encoding.DEFAULT_WINDOW)
            actions = [action_from_substeps(game, t) for t in turns]
            legal = game.legal_actions()
            assert len(actions) == len(set(actions)) == len(legal)
            assert set(actions) == set(legal)
            # and back: each legal action encodes to its one sequence
            assert sorted(turn_substeps(game, a) for a in legal) == sorted(turns)
            total += 1
            outside += out
    assert total >= (MAX_POSITIONS if NO_JIT else 50 * GAMES)
    assert outside == 0  # none seen with W = 32 (the prototype: none in 32,618 positions)


def test_moves_outside_a_small_window_are_counted_not_hidden() -> None:
    width = 5
    counted = 0
    for game in positions(2, 7):
        if game.turn_count > (15 if NO_JIT else 60):
            break
        turns, outside = complete_turns(game, width)
        actions = {action_from_substeps(game, t, width) for t in turns}
        legal = game.legal_actions()
        top, left = window(game, width)
        inside = [
            a for a in legal
            if a.move is None or all(0 <= r - top < width and 0 <= c - left < width for r, c, _ in a.move.placements)
        ]
        assert actions == set(inside) and len(turns) == len(inside)
        assert outside == len(legal) - len(inside)
        counted += outside
        with pytest.raises(IllegalMoveError) if len(inside) < len(legal) else _nothing():
            for a in legal:
                turn_substeps(game, a, width)
    assert counted > 0


class _nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *args: object) -> None:
        return None


def test_place_block_lines_up_with_the_legal_tile_planes() -> None:
    matched = 0
    for game in positions(2, 3):
        if game.turn_count > 12:
            break
        mask = legal_substeps(game).mask
        planes = position_planes(game.board, encoding.DEFAULT_WINDOW).planes
        place = mask[: 36 * 32 * 32].reshape(36, 32, 32)
        legal_planes = planes[PLANE_LEGAL : PLANE_LEGAL + 36].astype(bool)
        # Every one-tile move (kind k alone on a cell: the legal-tile planes, for the
        # kinds in the hand) is a first placement at the same window cell.
        if not game.opening_size:
            hand_kinds = {t.kind for t in game.hand()}
            for k in range(36):
                if k in hand_kinds:
                    assert not (legal_planes[k] & ~place[k]).any()
                    matched += int(legal_planes[k].sum())
                else:
                    assert not place[k].any()
    assert matched > 0


def test_partial_turns() -> None:
    game = Game(2, seed=4)
    opening = game.legal_actions()[0]
    steps = turn_substeps(game, opening)
    assert legal_substeps(game, steps[:-1]).end_score == opening.score
    assert legal_substeps(game, steps[:-1]).mask[end_id()]
    game.push(opening)
    exchange = next(a for a in game.legal_actions() if a.kind == Action.EXCHANGE)
    steps = turn_substeps(game, exchange)
    assert legal_substeps(game, steps[:-1]).mask[end_id()]
    assert action_from_substeps(game, steps) == exchange
    with pytest.raises(IllegalMoveError):
        legal_substeps(game, [mark_id(0), place_id(0, 0, 0)])
    with pytest.raises(IllegalMoveError):
        action_from_substeps(game, [mark_id(0)])
    with pytest.raises(IllegalMoveError):
        action_from_substeps(game, [end_id()])
    assert action_from_substeps(game, [pass_id()]) == Action.pass_turn()
    assert turn_substeps(game, Action.pass_turn()) == [pass_id()]
    assert not legal_substeps(game, [place_id(0, 0, 0)] * 6).mask.any()
