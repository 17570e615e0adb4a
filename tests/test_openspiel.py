"""The OpenSpiel game python_qwirkle (the rl extra)."""

from __future__ import annotations

import os
from collections import Counter
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hst

pyspiel = pytest.importorskip("pyspiel", reason="the rl extra (pip install '.[rl]') is not installed")

from open_spiel.python.algorithms import ismcts, mcts

from qwirkle_core import _layout
from qwirkle_core._state import tiles_of
from qwirkle_core.bots import make_bot
from qwirkle_core.envs import openspiel as qos
from qwirkle_core.envs._kernels import window_of
from qwirkle_core.envs.encoding import legal_substeps, mark_id, place_id, turn_substeps
from qwirkle_core.errors import IllegalMoveError, QwirkleError
from qwirkle_core.game import Action, Game
from qwirkle_core.tiles import ALL_TILES

NO_JIT = os.environ.get("NUMBA_DISABLE_JIT") == "1"
SLOW = pytest.mark.skipif(NO_JIT, reason="whole OpenSpiel games: minutes with every kernel in plain Python")


class FlatEvaluator(mcts.Evaluator):  # type: ignore[misc]
    """Value 0 and a uniform prior: the searches run without rollouts (fast)."""

    def evaluate(self, state: Any) -> np.ndarray:
        return np.zeros(state.num_players())

    def prior(self, state: Any) -> list[tuple[int, float]]:
        if state.is_chance_node():
            return state.chance_outcomes()  # type: ignore[no-any-return]
        actions = state.legal_actions()
        return [(a, 1.0 / len(actions)) for a in actions]


def play(state: Any, choose: Any, rng: np.random.Generator) -> Any:
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(outcomes, p=probs)))
        else:
            state.apply_action(choose(state))
    return state


def tiles_conserved(state: Any) -> bool:
    counts: Counter[int] = Counter(int(k) for k in state.bag[: state.meta[_layout.M_BAG]])
    for p in range(state.players):
        counts.update(int(k) for k in state.hands[p, : state.hand_sizes[p]])
    counts.update(int(kind) for _, _, kind in tiles_of(state.st).tolist())
    if state.pending and state.turn_action[_layout.A_TYPE] == _layout.EXCHANGE:  # set aside until the draws are done
        counts.update(int(k) for k in state.turn_action[_layout.A_KINDS : _layout.A_KINDS + state.turn_action[_layout.A_N]])
    return all(counts[k] == 3 for k in range(36))


@SLOW
@pytest.mark.parametrize(("players", "observation"), [(2, "flat"), (4, "planes")])
def test_random_sim_test_with_serialization(players: int, observation: str) -> None:
    game = pyspiel.load_game("python_qwirkle", {"players": players, "observation": observation})
    assert game.num_players() == players and game.num_distinct_actions() == 36_902
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


def test_a_twin_resampled_for_another_player_has_its_own_legal_actions() -> None:
    """Resampled for a player not to move, the mover's hand is dealt anew: the twin's
    legal sub-steps are those of its own hand (not the original's, which it was cloned
    with after they were asked for), and the original's are unchanged."""
    game = pyspiel.load_game("python_qwirkle", {"players": 2})
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    other = 1 - state.current_player()
    before = state.legal_actions()
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    differ = 0
    for _ in range(10):
        twin = state.resample_from_infostate(other, sampler)
        assert twin.legal_actions() == legal_substeps(twin.to_game()).actions()
        differ += twin.legal_actions() != before
        for action in twin.legal_actions()[:3]:
            twin.clone().apply_action(action)
    assert differ and state.legal_actions() == before
    for bad in (2, -1, "0", 1.5, None, True):
        with pytest.raises(QwirkleError, match="player_id"):
            state.resample_from_infostate(bad, sampler)
    # Mid-turn, the mover's placed tiles are hidden from the other seat, and a hand dealt
    # anew would not hold them: refused for that seat; the mover's own is as before.
    place = next(a for a in state.legal_actions() if a < qos.N_ACTIONS - 38)
    state.apply_action(place)
    with pytest.raises(pyspiel.SpielError, match="start of a turn"):
        state.resample_from_infostate(other, sampler)
    twin = state.resample_from_infostate(1 - other, sampler)
    assert twin.legal_actions() == state.legal_actions()


def test_chance_tiles_and_hidden_information() -> None:
    game = pyspiel.load_game("python_qwirkle", {"players": 3})
    state = game.new_initial_state()
    outcomes = state.chance_outcomes()
    assert len(outcomes) == 36 and all(abs(p - 3 / 108) < 1e-12 for _, p in outcomes)
    rng = np.random.default_rng(2)
    for _ in range(40 if NO_JIT else 250):
        if state.is_terminal():
            break
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            assert abs(sum(probs) - 1) < 1e-9
            state.apply_action(int(rng.choice(outcomes, p=probs)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
        assert tiles_conserved(state)
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    player = state.current_player()
    clone = state.clone()
    assert str(clone) == str(state) and clone.history() == state.history()
    resampled = state.resample_from_infostate(player, pyspiel.UniformProbabilitySampler(0.0, 1.0))
    assert tiles_conserved(resampled)
    assert (resampled.hands[player] == state.hands[player]).all()
    assert (resampled.hand_sizes == state.hand_sizes).all()
    assert resampled.observation_string(player) == state.observation_string(player)
    assert len(state.observation_tensor(player)) == qos.OBS_SIZE
    info_tensor = np.array(state.information_state_tensor(player))
    assert len(info_tensor) == qos.INFO_SIZE == game.information_state_tensor_size()
    # the copies the player has not seen: the bag and the other hands
    assert info_tensor[qos.OBS_SIZE : qos.OBS_SIZE + 36].sum() == state.meta[_layout.M_BAG] + sum(
        int(state.hand_sizes[p]) for p in range(3) if p != player
    )
    # the resampled twin: the same information state for the player
    assert resampled.information_state_string(player) == state.information_state_string(player)
    assert resampled.information_state_tensor(player) == state.information_state_tensor(player)
    other = (player + 1) % 3
    assert state.information_state_string(player) != state.information_state_string(other)
    clone.apply_action(clone.legal_actions()[0])
    assert clone.history() != state.history()
    again = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))[1]
    assert str(again) == str(state)
    assert [state.action_to_string(a) for a in state.legal_actions()[:3]]
    assert state.returns() == [0.0, 0.0, 0.0]


@SLOW
def test_mcts_and_ismcts_play_whole_games() -> None:
    game = pyspiel.load_game("python_qwirkle", {"players": 2})
    rng = np.random.default_rng(3)
    bot = mcts.MCTSBot(game, 2.0, 3, FlatEvaluator(), random_state=np.random.RandomState(1))
    state = play(game.new_initial_state(), lambda s: bot.step(s) if s.current_player() == 0
                 else int(rng.choice(s.legal_actions())), rng)
    assert state.is_terminal() and sorted(state.returns()) in ([-1.0, 1.0], [1.0, 1.0])
    searcher = ismcts.ISMCTSBot(game, FlatEvaluator(), 2.0, 3, random_state=np.random.RandomState(2))
    state = play(game.new_initial_state(), lambda s: searcher.step(s) if s.current_player() == 1
                 else int(rng.choice(s.legal_actions())), rng)
    assert state.is_terminal()


def test_bad_parameters() -> None:
    with pytest.raises(Exception, match="2 to 6"):
        pyspiel.load_game("python_qwirkle", {"players": 7})


def to_decision(state: Any, rng: np.random.Generator) -> Any:
    while state.is_chance_node():
        outcomes, probs = zip(*state.chance_outcomes())
        state.apply_action(int(rng.choice(outcomes, p=probs)))
    return state


def exchange_position(seed: int) -> Any:
    """A 2-player position after the opening, at the second player's turn (who may exchange)."""
    game = pyspiel.load_game("python_qwirkle", {"players": 2})
    rng = np.random.default_rng(seed)
    state = to_decision(game.new_initial_state(), rng)
    opener = state.current_player()
    while state.current_player() == opener:
        state.apply_action(int(rng.choice(state.legal_actions())))
        to_decision(state, rng)
    return state


def marks(state: Any) -> list[int]:
    return [a for a in state.legal_actions() if state.action_to_string(a).startswith("mark")]


def info(state: Any, player: int) -> tuple[str, bytes]:
    return state.information_state_string(player), np.array(state.information_state_tensor(player), np.float32).tobytes()


def test_information_state_has_perfect_recall() -> None:
    base = exchange_position(5)
    mover = base.current_player()
    viewer = 1 - mover
    first = marks(base)[0]
    # Exchanging one tile or two: the viewer's observation is the same after the draws
    # (board, scores, bag size, hand sizes, their own hand), their information state not.
    one, two = base.clone(), base.clone()
    one.apply_action(first)
    two.apply_action(first)
    two.apply_action(marks(two)[0])
    for state in (one, two):
        state.apply_action(qos.END)
        while state.is_chance_node():
            state.apply_action(state.chance_outcomes()[0][0])
    assert one.observation_string(viewer) == two.observation_string(viewer)
    assert one.observation_tensor(viewer) == two.observation_tensor(viewer)
    for a, b in zip(info(one, viewer), info(two, viewer)):
        assert a != b
    # Exchanging a different tile, drawing the same: the viewer cannot tell, the mover can.
    kinds = marks(base)
    if len(kinds) > 1:
        a, b = base.clone(), base.clone()
        for state, mark in ((a, kinds[0]), (b, kinds[-1])):
            state.apply_action(mark)
            state.apply_action(qos.END)
        drawn = min(set(dict(a.chance_outcomes())) & set(dict(b.chance_outcomes())))
        a.apply_action(drawn)
        b.apply_action(drawn)
        assert info(a, viewer) == info(b, viewer)
        assert all(x != y for x, y in zip(info(a, mover), info(b, mover)))
        assert "mark 1" in a.information_state_string(viewer)
        assert f"mark {a.action_to_string(kinds[0])[5:]}" in a.information_state_string(mover)
    # The turn records: the opening, the exchange (its size, not its tiles), the turn begun.
    turns = np.array(one.information_state_tensor(viewer))[qos.INFO_SIZE - qos.MAX_TURNS * qos.TURN_COLS :]
    table = turns.reshape(qos.MAX_TURNS, qos.TURN_COLS)
    assert table[:, qos.T_BEGUN].sum() == one.meta[_layout.M_TURNS] + 1  # the turns over and the one begun
    assert table[1, qos.T_EXCHANGE] == 1 and table[1, qos.T_N] == 1 and table[1, qos.T_MARKS] == 0


def test_a_turn_in_progress_is_the_mover_s_alone_until_it_ends() -> None:
    """The other seats' information states do not change while the mover places or
    marks tiles (their observations never did): a turn is one move to them, seen once
    it ends.  (The tiles placed, and how many marks, were in their strings and tensors.)"""
    tried = 0
    for seed in range(8):
        base = exchange_position(seed)
        places = [a for a in base.legal_actions() if "@" in base.action_to_string(a)]
        if not places or not marks(base):
            continue
        tried += 1
        viewer = 1 - base.current_player()
        before = info(base, viewer)
        placed, marked = base.clone(), base.clone()
        placed.apply_action(places[0])
        marked.apply_action(marks(marked)[0])
        for state in (placed, marked):
            assert info(state, viewer) == before
            assert info(state, 1 - viewer) != info(base, 1 - viewer)  # the mover sees its own
        while placed.current_player() == 1 - viewer and qos.END not in placed.legal_actions():
            placed.apply_action(placed.legal_actions()[0])  # a placement that needs more tiles
        placed.apply_action(qos.END)
        assert info(placed, viewer) != before and "+" in placed.information_state_string(viewer).split(" | ")[-1]
    assert tried >= 2


def test_observation_types_other_than_the_player_s_own_are_refused() -> None:
    """The game writes one kind of observation: the public information and one player's
    private information.  A public-only one (private_info NONE), every player's, or one
    without the public information was that one under another name (the hand shown)."""
    game = pyspiel.load_game("python_qwirkle", {"players": 2})
    kinds = pyspiel.PrivateInfoType
    for public, private in ((True, kinds.NONE), (True, kinds.ALL_PLAYERS), (False, kinds.SINGLE_PLAYER)):
        for recall in (False, True):
            kind = pyspiel.IIGObservationType(perfect_recall=recall, public_info=public, private_info=private)
            with pytest.raises(QwirkleError, match="SINGLE_PLAYER"):
                game.make_py_observer(kind)
    for recall in (False, True):
        game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=recall))


def test_a_twin_is_not_resampled_for_another_seat_during_an_exchange_s_draws() -> None:
    """The exchanged tiles go back to the bag after the draws; until then the other seats
    cannot know them, and a twin dealt anew kept their true kinds."""
    state = exchange_position(3)
    viewer = 1 - state.current_player()
    state.apply_action(marks(state)[0])
    state.apply_action(qos.END)
    assert state.is_chance_node()
    with pytest.raises(pyspiel.SpielError, match="exchanged"):
        state.resample_from_infostate(viewer, np.random.default_rng(0).random)
    state.resample_from_infostate(1 - viewer, np.random.default_rng(0).random)  # the mover knows them
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    state.resample_from_infostate(viewer, np.random.default_rng(0).random)  # back in the bag


def test_clone_and_serialization_keep_the_record() -> None:
    game = pyspiel.load_game("python_qwirkle", {"players": 2})
    rng = np.random.default_rng(4)
    state = to_decision(game.new_initial_state(), rng)
    for _ in range(60):
        state.apply_action(int(rng.choice(state.legal_actions())))
        to_decision(state, rng)
    before = str(state), info(state, 0), info(state, 1)
    clone = state.clone()
    for _ in range(30):  # the clone plays on; the original (sharing its board state) is untouched
        clone.apply_action(int(rng.choice(clone.legal_actions())))
        to_decision(clone, rng)
    assert (str(state), info(state, 0), info(state, 1)) == before
    assert clone.meta[_layout.M_BOARD_TILES] > state.meta[_layout.M_BOARD_TILES]
    again = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))[1]
    assert (str(again), info(again, 0), info(again, 1)) == before
    again.apply_action(again.legal_actions()[0])
    assert (str(state), info(state, 0), info(state, 1)) == before


@pytest.mark.skipif(NO_JIT, reason="256 turns of exchanges: 10 s without the JIT; the JIT-on runs play it")
def test_turn_cap() -> None:
    """A player who only exchanges: the game stops at MAX_TURNS turns, every one recorded."""
    game = pyspiel.load_game("python_qwirkle", {"players": 2})
    rng = np.random.default_rng(1)
    state = to_decision(game.new_initial_state(), rng)
    while not state.is_terminal():
        legal = state.legal_actions()
        options = marks(state)
        state.apply_action(qos.END if qos.END in legal else options[0] if options else legal[0])
        to_decision(state, rng)
    assert state.truncated and state.meta[_layout.M_TURNS] == qos.MAX_TURNS
    table = np.array(state.information_state_tensor(0))[-qos.MAX_TURNS * qos.TURN_COLS :].reshape(qos.MAX_TURNS, -1)
    assert table[:, qos.T_DONE].all()


# ------------------------------------------------------- illegal actions refused
def snapshot(state: Any) -> tuple[Any, ...]:
    players = state.num_players()
    return (
        state.history(), str(state), state.current_player(), state.legal_actions(),
        tuple(state.information_state_string(p) for p in range(players)),
    )


def refused(state: Any, action: int) -> None:
    """``action`` is refused (OpenSpiel's SpielError, the library's IllegalMoveError) and
    the state is as before, then plays on."""
    before = snapshot(state)
    with pytest.raises(qos.IllegalActionError) as caught:
        state.apply_action(action)
    assert isinstance(caught.value, pyspiel.SpielError) and isinstance(caught.value, IllegalMoveError)
    assert snapshot(state) == before


def test_apply_action_refuses_what_is_not_legal() -> None:
    game = pyspiel.load_game("python_qwirkle", {"players": 2})
    state = game.new_initial_state()
    for bad in (36, 40, 255, qos.END, qos.N_ACTIONS, 10**12, -2):
        refused(state, bad)
    for _ in range(3):  # every copy of kind 0 dealt: 0 is no longer an outcome
        state.apply_action(0)
    assert 0 not in dict(state.chance_outcomes())
    refused(state, 0)
    rng = np.random.default_rng(7)
    to_decision(state, rng)
    seat = state.current_player()
    assert state.meta[_layout.M_BAG] == 96
    hand = {int(k) for k in state.hands[seat, : state.hand_sizes[seat]]}
    legal = set(state.legal_actions())
    wrong = [qos.PASS, qos.END, qos.N_ACTIONS, qos.N_ACTIONS + 5, 2**40]
    wrong += [mark_id(kind) for kind in range(36) if kind not in hand]  # marks of kinds not in the hand
    wrong += [mark_id(kind) for kind in hand]  # no exchange at the opening
    wrong += [place_id(kind, 16, 16) for kind in range(36) if kind not in hand]
    wrong += [place_id(min(hand), 0, j) for j in range(32) if place_id(min(hand), 0, j) not in legal]
    for bad in wrong:
        refused(state, bad)
    assert len(wrong) >= 40
    # mid-turn (the opening places the largest group): no PASS, no mark, END once it is whole
    state.apply_action(min(legal))
    while True:
        legal = set(state.legal_actions())
        for bad in (qos.PASS, qos.END, *(mark_id(kind) for kind in range(36)), place_id(min(hand), 0, 0)):
            if bad not in legal:
                refused(state, bad)
        if qos.END in legal:
            break
        state.apply_action(min(legal))
    state.apply_action(qos.END)
    assert state.is_chance_node()
    size = int(state.meta[_layout.M_BAG])
    missing = [kind for kind in range(36) if not (state.bag[:size] == kind).any()]
    for bad in (*missing, 36, 40, qos.END):
        refused(state, bad)
    # a finished game: nothing is legal
    play(state, lambda s: int(rng.choice(s.legal_actions())), rng) if not NO_JIT else None
    if state.is_terminal():
        for bad in (0, qos.END, qos.PASS):
            refused(state, bad)


def random_state(seed: int, steps: int) -> Any:
    game = pyspiel.load_game("python_qwirkle", {"players": 2 + seed % 3})
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    for _ in range(steps):
        if state.is_terminal():
            break
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(outcomes, p=probs)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    return state


@settings(max_examples=10 if NO_JIT else 60, deadline=None)
@given(seed=hst.integers(0, 2**20), steps=hst.integers(0, 40 if NO_JIT else 300),
       ids=hst.lists(hst.integers(-1, qos.N_ACTIONS + 100), min_size=1, max_size=8))
def test_random_illegal_ids_are_refused(seed: int, steps: int, ids: list[int]) -> None:
    state = random_state(seed, steps)
    if state.is_chance_node():
        ids = [a % 40 for a in ids]
        legal = {a for a, _ in state.chance_outcomes()}
    else:
        legal = set(state.legal_actions())
    for a in ids:
        if a not in legal and a != -1:  # -1 is OpenSpiel's kInvalidAction: its own check refuses it
            refused(state, a)
    if legal:
        state.apply_action(min(legal))


def test_random_legal_play_never_meets_a_state_without_actions() -> None:
    rng = np.random.default_rng(11)
    for players in (2, 3, 4, 6):
        state = pyspiel.load_game("python_qwirkle", {"players": players}).new_initial_state()
        steps = 0
        while not state.is_terminal() and steps < (150 if NO_JIT else 100_000):
            steps += 1
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes())
                assert outcomes and abs(sum(probs) - 1) < 1e-9
                state.apply_action(int(rng.choice(outcomes, p=probs)))
            else:
                legal = state.legal_actions()
                assert legal, str(state)
                assert np.flatnonzero(state.legal_actions_mask()).tolist() == legal
                state.apply_action(int(rng.choice(legal)))
        assert NO_JIT or state.is_terminal()
        assert state.legal_actions() == [] or not state.is_terminal()


# ------------------------------------------------------------------ observers
def reference_tensor(state: Any, player: int, perfect_recall: bool) -> np.ndarray:
    """The observer's tensor, computed slowly from the state's turn records (the
    ``_Turn`` tuples) and the board's tiles: what the observer wrote before its kernels."""
    s = state._s
    width = qos.WIDTH
    t = np.zeros(qos.INFO_SIZE if perfect_recall else qos.OBS_SIZE, np.float32)
    area = width * width
    hand_at = qos.PLANES * area
    for kind in s.hands[player, : s.hand_sizes[player]]:
        t[hand_at + kind] += 1
    deal_done = s.dealt == 6 * s.players
    top, left = (int(v) for v in window_of(s.st, s.meta, width))
    if deal_done:
        for r, c, kind in tiles_of(s.st).tolist():
            if 0 <= r - top < width and 0 <= c - left < width:
                t[(kind // 6) * area + (r - top) * width + c - left] = 1
                t[(6 + kind % 6) * area + (r - top) * width + c - left] = 1
        mover = int(s.meta[_layout.M_PLAYER])
        if player == mover:
            for n in range(s.placed):
                code = int(s.partial[n])
                t[12 * area + code % area] = 1
                t[hand_at + code // area] -= 1
            for n in range(s.marked):
                t[hand_at + s.partial[6 + n]] -= 1
                t[hand_at + 36 + s.partial[6 + n]] += 1
        at = hand_at + 72
        for j in range(s.players):
            t[at + j] = s.scores[(player + j) % s.players]
            t[at + 6 + j] = s.hand_sizes[(player + j) % s.players]
        t[at + 12] = s.meta[_layout.M_BAG]
        t[at + 13] = s.meta[_layout.M_OPENING]
        t[at + 14] = float(player == mover)
        t[at + 15], t[at + 16] = top, left  # the window's origin
    if not perfect_recall:
        return t
    at = qos.OBS_SIZE
    seen = Counter(int(kind) for _, _, kind in tiles_of(s.st).tolist())
    seen.update(int(kind) for kind in s.hands[player, : s.hand_sizes[player]])
    t[at : at + 36] = [3 - seen[kind] for kind in range(36)]
    board_turns = at + 36
    deal_at = board_turns + area
    own = s.deal[6 * player : 6 * player + 6]
    t[deal_at : deal_at + len(own)] = np.array(own) + 1
    t[deal_at + 6] = s.dealt
    table = t[deal_at + 7 :].reshape(qos.MAX_TURNS, qos.TURN_COLS)
    turns = s.turns if s.cur is None else (*s.turns, s.cur)
    for i, turn in enumerate(turns):
        row = table[i]
        row[qos.T_BEGUN] = 1
        row[qos.T_DONE] = turn.kind >= 0
        row[qos.T_MOVER] = (turn.mover - player) % s.players
        if turn.kind < 0 and turn.mover != player:
            continue  # another seat's turn in progress: only that it began, and whose
        if turn.kind >= 0:
            row[qos.T_PLACE + turn.kind] = 1
        row[qos.T_N] = len(turn.places) + len(turn.marks)
        row[qos.T_SCORE] = turn.score
        row[qos.T_DRAWN] = len(turn.drawn)
        for n, (kind, r, c) in enumerate(turn.places):
            row[qos.T_PLACES + 3 * n : qos.T_PLACES + 3 * n + 3] = (kind + 1, r, c)
            if turn.kind == _layout.PLACE and 0 <= r - top < width and 0 <= c - left < width:
                t[board_turns + (r - top) * width + c - left] = i + 1
        if turn.mover == player:
            for n, kind in enumerate(turn.marks):
                row[qos.T_MARKS + n] = kind + 1
            for n, kind in enumerate(turn.drawn):
                row[qos.T_DRAWS + n] = kind + 1
    return t


def reference_string(state: Any, player: int, perfect_recall: bool) -> str:
    """The observer's string, computed from the turn records and the board's tiles."""
    s = state._s

    def text(kinds: Any) -> str:
        return "".join(ALL_TILES[int(kind)].text() for kind in kinds)

    board = " ".join(f"{ALL_TILES[kind].text()}@{r},{c}" for r, c, kind in tiles_of(s.st).tolist()) or "-"
    scores = ",".join(str(int(v)) for v in s.scores[: s.players])
    out = f"p{player} hand {text(s.hands[player, : s.hand_sizes[player]]) or '-'} scores {scores}"
    out += f" bag {int(s.meta[_layout.M_BAG])} board {board}"
    if s.dealt == 6 * s.players:
        top, left = (int(v) for v in window_of(s.st, s.meta, qos.WIDTH))
        out += f" window {top},{left}"
    if s.dealt == 6 * s.players and player == int(s.meta[_layout.M_PLAYER]):
        out += f" turn {s.partial[: s.placed].tolist()}{s.partial[6 : 6 + s.marked].tolist()}"
    if not perfect_recall:
        return out
    out += f" | deal {text(s.deal[6 * player : 6 * player + 6]) or '-'} of {s.dealt}"
    for i, turn in enumerate(s.turns if s.cur is None else (*s.turns, s.cur)):
        mine = turn.mover == player
        out += f" | t{i} p{turn.mover}"
        if turn.kind < 0 and not mine:
            continue  # another seat's turn in progress
        if turn.places:
            out += " " + " ".join(f"{ALL_TILES[kind].text()}@{r},{c}" for kind, r, c in turn.places)
        if turn.marks:
            out += f" mark {text(turn.marks) if mine else len(turn.marks)}"
        out += {_layout.PLACE: f" +{turn.score}", _layout.EXCHANGE: " exchange", _layout.PASS: " pass"}.get(turn.kind, "")
        if turn.drawn:
            out += f" draw {text(turn.drawn) if mine else len(turn.drawn)}"
    return out


@settings(max_examples=6 if NO_JIT else 40, deadline=None)
@given(seed=hst.integers(0, 2**20), steps=hst.integers(0, 60 if NO_JIT else 900))
def test_observers_match_a_slow_computation(seed: int, steps: int) -> None:
    state = random_state(seed, steps)
    game = state.get_game()
    observers = {pr: game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=pr)) for pr in (False, True)}
    for player in range(state.num_players()):
        for pr, observer in observers.items():
            observer.set_from(state, player)
            expected = reference_tensor(state, player, pr)
            assert np.array_equal(observer.tensor, expected), (pr, np.flatnonzero(observer.tensor != expected)[:10])
            assert observer.string_from(state, player) == reference_string(state, player, pr)
        assert state.observation_tensor(player) == reference_tensor(state, player, False).tolist()
        assert state.information_state_string(player) == reference_string(state, player, True)
    # the clone's caches (board text, turn texts) and the original's stay apart
    if not state.is_terminal():
        clone = state.clone()
        for _ in range(20):
            if clone.is_terminal():
                break
            clone.apply_action(clone.legal_actions()[-1] if not clone.is_chance_node() else clone.chance_outcomes()[-1][0])
            for player in range(state.num_players()):
                assert clone.information_state_string(player) == reference_string(clone, player, True)
                assert state.information_state_string(player) == reference_string(state, player, True)
        assert np.array_equal(np.array(state.information_state_tensor(0), np.float32), reference_tensor(state, 0, True))


# --------------------------------------------------- the bridge to the library's Game
def same_position(state: Any, game: Game) -> None:
    mirror = state.to_game()
    assert mirror.board.text() == game.board.text()
    assert [sorted(t.kind for t in h) for h in mirror.hands] == [sorted(t.kind for t in h) for h in game.hands]
    assert sorted(t.kind for t in mirror.bag) == sorted(t.kind for t in game.bag)
    assert mirror.scores == game.scores and mirror.is_over == game.is_over
    if not game.is_over:
        assert mirror.to_move == game.to_move == state.current_player()
        assert mirror.opening_size == game.opening_size
        legal = game.legal_actions()
        assert {a.text() for a in mirror.legal_actions()} == {a.text() for a in legal}
        if not state._s.placed and not state._s.marked:  # at a turn's start: the first sub-steps
            assert {turn_substeps(game, a)[0] for a in legal} == set(state.legal_actions())


@pytest.mark.parametrize("players,chooser", [(2, "greedy"), (3, "random"), (2, "random")])
def test_to_game_follows_the_library_game(players: int, chooser: str) -> None:
    seed = players * 10 + len(chooser)
    game = Game(players=players, seed=seed)
    state = pyspiel.load_game("python_qwirkle", {"players": players}).new_initial_state()
    with pytest.raises(QwirkleError, match="chance node"):
        state.to_game()
    for hand in game.hands:  # the library's deal, as chance outcomes
        for tile in hand:
            state.apply_action(tile.kind)
    bot = make_bot(chooser, seed=seed)
    turns = 0
    while not game.is_over and not state.is_terminal() and turns < (6 if NO_JIT else 400):
        turns += 1
        same_position(state, game)
        assert state.to_game().turn_count == game.turn_count
        action = bot.choose(state.to_game())
        ids = state.action_ids(action)
        assert ids == turn_substeps(game, action)
        if action.move:  # the observation's window origin maps each PLACE id to its board cell
            obs = state.observation_tensor(state.current_player())
            top, left = int(obs[-2]), int(obs[-1])
            area = qos.WIDTH * qos.WIDTH
            cells = [divmod(a % area, qos.WIDTH) for a in ids[:-1]]
            assert sorted((top + i, left + j) for i, j in cells) == sorted((r, c) for r, c, _ in action.move.placements)
            assert f" window {top},{left}" in state.observation_string(state.current_player())
        state.apply_action(ids[0])
        if len(ids) > 1:  # mid-turn: the same position, the rest of the sequence
            same_position(state, game)
            assert state.action_ids(action) == ids[1:]
            for a in ids[1:]:
                state.apply_action(a)
        seat = game.to_move
        before = Counter(t.kind for t in game.hand(seat))
        game.push(action)
        kept = before - Counter(t.kind for t in (action.tiles if action.kind == Action.EXCHANGE else
                                                 [t for _, _, t in action.move.placements] if action.move else []))
        drawn = Counter(t.kind for t in game.hand(seat)) - kept
        for kind in sorted(drawn.elements()):
            assert state.is_chance_node()
            state.apply_action(kind)
        assert not state.is_chance_node()
    if NO_JIT:
        return
    assert state.is_terminal() and game.is_over
    same_position(state, game)
    assert state.returns() == [1.0 if s == max(game.scores) else -1.0 for s in game.scores]
    with pytest.raises(qos.IllegalActionError):
        state.action_ids(Action.pass_turn())


def test_action_ids_refuses() -> None:
    state = to_decision(pyspiel.load_game("python_qwirkle", {"players": 2}).new_initial_state(), np.random.default_rng(9))
    with pytest.raises(qos.IllegalActionError):
        state.action_ids(Action.pass_turn())  # no pass with tiles in the bag
    with pytest.raises(QwirkleError, match="an Action"):
        state.action_ids("pass")
    legal = state.to_game().legal_actions()
    first = [a for a in legal if a.move is not None and len(a.move.placements) == max(
        len(b.move.placements) for b in legal if b.move is not None)]
    ids = state.action_ids(first[0])
    state.apply_action(ids[0])
    start = state.to_game()  # the turn's start
    other = [a for a in legal if turn_substeps(start, a)[0] != ids[0]]
    if other:  # a legal action the sub-step played does not begin
        with pytest.raises(qos.IllegalActionError, match="does not continue"):
            state.action_ids(other[0])


def test_planes_observation_is_the_shared_encoder() -> None:
    """observation="planes": the other envs' planes layout (observation.board_planes of
    the window's kinds, the tiles placed this turn and the mask) and features (hand,
    marks, scalars rotated to the player, the window's origin), from the same facts as
    the flat tensor."""
    from qwirkle_core.envs.observation import N_FEATURES, N_PLANES, board_planes

    game = pyspiel.load_game("python_qwirkle", {"players": 3, "observation": "planes"})
    assert game.observation_tensor_shape() == [N_PLANES * qos.WIDTH**2 + N_FEATURES]
    rng = np.random.default_rng(5)
    state = to_decision(game.new_initial_state(), rng)
    width, area = qos.WIDTH, qos.WIDTH**2
    for step in range(12 if NO_JIT else 60):
        for player in range(3):
            tensor = np.array(state.observation_tensor(player))
            planes, features = tensor[: N_PLANES * area].reshape(N_PLANES, width, width), tensor[N_PLANES * area :]
            flat = qos.QwirkleObserver(False)
            flat.set_from(state, player)
            board = np.full((1, 2, width, width), -1, np.int8)
            colours, shapes = flat.tensor[: 6 * area].reshape(6, area), flat.tensor[6 * area : 12 * area].reshape(6, area)
            held = colours.any(axis=0)
            board[0, 0].reshape(-1)[held] = (colours.argmax(axis=0) * 6 + shapes.argmax(axis=0))[held]
            mover = player == state.current_player()
            mask = np.zeros((1, qos.N_ACTIONS), bool)
            if mover:
                for code in state._s.partial[: state._s.placed].tolist():
                    board[0, 1].reshape(-1)[code % area] = code // area
                mask[0] = state._mask()[0]
            assert (planes == board_planes(board, mask)[0]).all()
            hand_at = 13 * area
            assert (features[:72] == flat.tensor[hand_at : hand_at + 72]).all()
            assert features[87] == player and (features[-2:] == flat.tensor[-2:]).all()
        if step % 5 == 4:
            state.apply_action(qos.END if qos.END in state.legal_actions() else state.legal_actions()[0])
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
        state = to_decision(state, rng)
        if state.is_terminal():
            break
