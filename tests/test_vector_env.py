"""VectorQwirkle: the same games, rules and legal sub-steps as Game, step by step."""

from __future__ import annotations

import math
import os

import numpy as np
import pytest

from qwirkle_core import _layout
from qwirkle_core.envs import encoding as enc
from qwirkle_core.envs.vector import MIN_WINDOW, SCALARS, VectorQwirkle
from qwirkle_core.errors import IllegalMoveError, QwirkleError
from qwirkle_core.game import END_NAMES, Game

NO_JIT = os.environ.get("NUMBA_DISABLE_JIT") == "1"
STEPS = 80 if NO_JIT else 1500
W = enc.DEFAULT_WINDOW


def mirror(env: VectorQwirkle, steps: int, check_masks: bool = True) -> int:
    """Step ``env`` with random legal sub-steps and play every completed turn on a Game
    of the same seed beside it; compare hands, bag, scores, generator, mask, rewards."""
    games = [Game(env.players, seed=env.game_seed(i)) for i in range(env.n)]
    turn: list[list[int]] = [[] for _ in range(env.n)]
    finished = 0
    for _ in range(steps):
        actions = env.random_actions()
        acting = [g.to_move for g in games]
        before = [g.scores for g in games]
        obs, masks, rewards, terminated, truncated, info = env.step(actions)
        for i, game in enumerate(games):
            turn[i].append(int(actions[i]))
            if turn[i][-1] in (enc.end_id(W), enc.pass_id(W)):
                game.push(enc.action_from_substeps(game, turn[i]))
                turn[i] = []
            assert rewards[i] == game.scores[acting[i]] - before[i][acting[i]]
            assert not truncated[i]
            if terminated[i]:
                assert game.is_over
                assert info["final_scores"][i, : env.players].tolist() == game.scores
                games[i] = Game(env.players, seed=env.game_seed(i))
                finished += 1
                continue
            assert not game.is_over
            _, meta, hands, hand_sizes, bag, scores, rng = game.engine_state()
            _, meta2, hands2, hand_sizes2, bag2, scores2, rng2 = env.engine_state(i)
            assert (hands == hands2).all() and (hand_sizes == hand_sizes2).all()
            assert (scores == scores2).all() and (rng == rng2).all()
            assert (bag[: game.bag_size] == bag2[: game.bag_size]).all()
            assert meta[_layout.M_PLAYER] == meta2[_layout.M_PLAYER] == info["to_move"][i]
            assert env.partial_turn(i) == turn[i]
            if check_masks:
                assert (enc.legal_substeps(game, turn[i]).mask == masks[i]).all()
            scalars = obs["scalars"][i]
            assert scalars[SCALARS["bag"]] == game.bag_size
            seat = game.to_move
            assert scalars[SCALARS["scores"]][0] == game.scores[seat]
            hand_counts = np.bincount([t.kind for t in game.hand()], minlength=36)
            assert (obs["hand"][i].sum(axis=0) <= hand_counts).all()
    return finished


@pytest.mark.parametrize("players", [2, 3, 6])
def test_same_games_as_game(players: int) -> None:
    env = VectorQwirkle(3, players=players, seed=10 * players)
    env.reset()
    finished = mirror(env, STEPS)
    assert NO_JIT or finished >= 3


def test_seeds_and_determinism() -> None:
    a = VectorQwirkle(4, players=2, game_seeds=7, opponents="greedy")
    b = VectorQwirkle(4, players=2, game_seeds=7, opponents="greedy")
    a.reset()
    b.reset()
    assert a.info()["seed"].tolist() == [7, 8, 9, 10]
    for _ in range(50 if NO_JIT else 400):
        acts = a.random_actions()
        ra = a.step(acts)
        rb = b.step(acts.copy())
        assert (ra[0]["board"] == rb[0]["board"]).all() and (ra[1] == rb[1]).all()
        assert (ra[2] == rb[2]).all()
    # later games take the seeds seed + i + k*n
    assert all((s - 7 - i) % 4 == 0 for i, s in enumerate(a.info()["seed"]))


def test_seeds_share_no_deals_draw_entropy_and_continue() -> None:
    """seed=s derives the envs' game seeds from SeedSequence(s): seeds s and s + 1 share
    no deal (they shared n - 1 of n when env i played s + i), the same s replays its
    games, seed=None draws entropy, and reset() without a seed deals new games."""

    def seeds(env: VectorQwirkle, seed: int | None = None) -> list[int]:
        return [int(s) for s in env.reset(seed)[2]["seed"]]

    env = VectorQwirkle(4, players=2, seed=100)
    first = seeds(env)
    assert len(set(first)) == 4 and set(first).isdisjoint(seeds(VectorQwirkle(4, players=2, seed=101)))
    assert seeds(VectorQwirkle(4, players=2), 100) == first == seeds(env, 100)
    assert seeds(VectorQwirkle(4, players=2)) != seeds(VectorQwirkle(4, players=2))
    words = np.random.SeedSequence(100).generate_state(5, np.uint64) >> np.uint64(2)  # the documented mapping
    assert first == [int(w) for w in words[:4]]
    later = seeds(env)  # continued: each env's next seed, base + n
    assert later == [s + 4 for s in first]
    with pytest.raises(QwirkleError, match="not both"):
        VectorQwirkle(2, seed=1, game_seeds=1)


def test_against_bots_the_learner_always_moves() -> None:
    env = VectorQwirkle(4, players=3, seed=3, opponents=["greedy", None, "random"], learner=1)
    obs, masks, info = env.reset()
    total = np.zeros(4)
    for _ in range(60 if NO_JIT else 600):
        obs, masks, rewards, _terminated, _truncated, info = env.step(env.random_actions())
        total += rewards
        assert (info["to_move"] == 1).all()
        assert masks.any(axis=1).all()
    assert (obs["scalars"][:, SCALARS["seat"]] == 1).all()


def test_no_autoreset_and_errors() -> None:
    env = VectorQwirkle(2, players=2, seed=5, opponents="greedy", autoreset=False)
    env.reset()
    with pytest.raises(IllegalMoveError):
        env.step(np.array([enc.pass_id(W), enc.pass_id(W)]))
    with pytest.raises(QwirkleError):
        env.step(np.array([0]))
    with pytest.raises(QwirkleError):
        VectorQwirkle(0)
    with pytest.raises(QwirkleError):
        VectorQwirkle(2, players=7)
    with pytest.raises(QwirkleError):
        VectorQwirkle(2, opponents="clever")
    with pytest.raises(QwirkleError):
        VectorQwirkle(2, seed=-1)
    done = np.zeros(2, bool)
    for _ in range(3000):
        if done.all():
            break
        acts = env.random_actions()
        acts[done] = 0
        live = ~done
        if not live.all():
            # a finished game refuses every action until reset
            with pytest.raises(IllegalMoveError, match="over"):
                env.step(acts)
            break
        _, _masks, _, terminated, truncated, _info = env.step(acts)
        done |= terminated | truncated
    env.reset()
    assert env.masks.any(axis=1).all()
    game = env.to_game(0)
    assert game.to_move == int(env.info()["to_move"][0]) and len(game.legal_actions()) > 0


def test_counts_may_be_numpy_integers() -> None:
    """As every count of the library (qwirkle_core._ints): an int or a numpy integer,
    never a float or a boolean."""
    from qwirkle_core.bots import make_bot

    env = VectorQwirkle(np.int64(2), players=np.int32(3), learner=np.uint8(1), window=np.int16(12), seed=1)  # type: ignore[arg-type]
    assert (env.n, env.players, env.learner, env.window) == (2, 3, 1, 12)
    assert type(env.n) is int and env.reset()[1].shape == (2, enc.action_count(12))
    assert enc.action_count(np.int64(8)) == enc.action_count(8)  # type: ignore[arg-type]
    assert Game(np.int64(3), seed=np.uint64(7)).hand(2) == Game(3, seed=7).hand(2)  # type: ignore[arg-type]
    assert make_bot("greedy", seed=1, seat=np.int64(2)) is not None  # type: ignore[arg-type]
    for bad in ({"n": 2.0}, {"players": True}, {"learner": 1.0}, {"window": 8.0}):
        with pytest.raises(QwirkleError):
            VectorQwirkle(**{"n": 2, "players": 2, **bad})  # type: ignore[arg-type]
    with pytest.raises(QwirkleError):
        Game(3.0)  # type: ignore[arg-type]


def test_a_window_that_cannot_hold_every_opening_is_refused() -> None:
    """An opening runs east or south from the window's middle cell: a line of six needs
    W // 2 + 5 < W, so W >= 11.  Narrower, deals whose opening did not fit were skipped
    (a seed did not replay its game), and for many players dealing need not end."""
    for window in (1, 5, 0, 6, 10, 1025):
        with pytest.raises(QwirkleError, match="window width"):
            VectorQwirkle(2, players=6, seed=1, window=window)
    narrow = VectorQwirkle(2, players=6, seed=1, window=11)
    narrow.reset()
    assert narrow.window == 11


def test_the_narrowest_window_skips_no_deal_and_replays_a_game_seed() -> None:
    """Every opening fits the narrowest window: no deal is skipped, and a game seed
    plays its own game (with W = 6, deal 0's opening of four did not fit and
    ``game_seed=0`` played the game of seed 1)."""
    env = VectorQwirkle(64, players=2, seed=1, window=MIN_WINDOW)
    _, _, info = env.reset()
    assert int(info["games_skipped"].sum()) == 0
    for players in (2, 6):
        for seed in range(20):
            assert VectorQwirkle(1, players=players, game_seeds=seed, window=MIN_WINDOW).reset()[2]["seed"][0] == seed


@pytest.mark.parametrize("copy_of", ["pickle", "deepcopy"])
def test_an_env_pickles_and_its_copy_plays_on_as_it(copy_of: str) -> None:
    """Mid-game (a search opponent's bots made too), a copy steps as the env does."""
    import copy
    import pickle

    env = VectorQwirkle(3, players=2, seed=5, opponents=[None, "endgame"])  # type: ignore[list-item]
    env.reset()
    for _ in range(6):
        env.step(env.random_actions())
    twin = pickle.loads(pickle.dumps(env)) if copy_of == "pickle" else copy.deepcopy(env)
    assert twin.obs is not env.obs and twin._sts is not env._sts
    for _ in range(40 if NO_JIT else 300):
        actions = env.random_actions()
        mine, theirs = env.step(actions), twin.step(actions)
        assert all((mine[0][key] == theirs[0][key]).all() for key in mine[0])
        assert all((a == b).all() for a, b in zip(mine[1:5], theirs[1:5]))
        assert all(np.array_equal(mine[5][key], theirs[5][key]) for key in mine[5])


def test_game_seeds_count_on_modulo_2_64_as_game_s_seeds() -> None:
    """Env i plays g + i, g + i + n, ...: near the end of the range the count goes on
    past 2**63 (where int64 wraps) and the seeds reported are still those of ``Game``."""
    n = 2
    g = 2**63 - 2 * n - 1
    env = VectorQwirkle(n, players=2, game_seeds=g, opponents="greedy")
    _, _, info = env.reset()
    assert info["seed"].dtype == np.uint64
    seen = [[int(s)] for s in info["seed"]]
    for _ in range(10_000):
        if min(len(s) for s in seen) >= 4:
            break
        _, _, _, terminated, truncated, info = env.step(env.random_actions())
        for i in np.flatnonzero(terminated | truncated):
            seen[i].append(int(info["seed"][i]))
    for i in range(n):
        assert seen[i][:4] == [g + i + k * n for k in range(4)] and env.game_seed(i) == seen[i][-1]
    assert env.game_seed(0) > 2**63 and Game(2, seed=env.game_seed(0)).seed == env.game_seed(0)


def test_small_window_truncates_instead_of_inventing_a_rule() -> None:
    # (The narrowest window, against greedy: most of its games end truncated.)
    env = VectorQwirkle(8, players=2, seed=1, window=MIN_WINDOW, opponents="greedy")
    env.reset()
    outside = truncated_games = 0
    for _ in range(100 if NO_JIT else 1500):
        _, masks, _, _, truncated, info = env.step(env.random_actions())
        outside += int(info["moves_outside_window"].sum())
        truncated_games += int(truncated.sum())
        assert masks.any(axis=1).all()
    truncated_games += int(info["games_skipped"].sum())
    assert outside > 0
    assert NO_JIT or truncated_games > 0


@pytest.mark.parametrize(
    ("players", "opponents", "learner"), [(3, None, 0), (2, "greedy", 0), (4, ["random", None, "greedy", "random"], 1)]
)
def test_seat_rewards_sum_to_each_seat_s_points_over_a_game(players: int, opponents: object, learner: int) -> None:
    """``seat_rewards()`` after each step, summed over a game, is each seat's final score
    (the bots' turns inside reset, or after an autoreset, count in the game's first
    step); with no bots the acting seat's entry is ``rewards``."""
    env = VectorQwirkle(3, players=players, seed=40 + players, opponents=opponents, learner=learner)  # type: ignore[arg-type]
    env.reset()
    assert not env.seat_rewards().any() and env.seat_rewards().shape == (3, players)
    total = np.zeros((3, players))
    games = 0
    for _ in range(300 if NO_JIT else 3000):
        acting = env.info()["to_move"].copy()
        _, _, rewards, terminated, truncated, info = env.step(env.random_actions())
        gains = env.seat_rewards()
        if opponents is None:
            assert np.array_equal(gains[np.arange(3), acting], rewards)
            assert np.count_nonzero(gains) <= np.count_nonzero(rewards)  # the acting seat only
        total += gains
        for i in np.flatnonzero(terminated | truncated):
            assert np.array_equal(total[i], info["final_scores"][i, :players])
            total[i] = 0
            games += 1
    assert games >= 1


def margin(scores: object, learner: int) -> float:
    """The learner's score less the mean of the others' (written from the docs)."""
    values = [float(s) for s in scores]  # type: ignore[attr-defined]
    return values[learner] - (sum(values) - values[learner]) / (len(values) - 1)


@pytest.mark.parametrize(("players", "learner"), [(2, 1), (3, 0)])
def test_rewards_against_bots_sum_to_the_final_margin(players: int, learner: int) -> None:
    """After every step a game's rewards so far are the learner's margin now, the bots'
    turns before its first turn (inside reset or an autoreset) included; at the end,
    the final margin (before, a bot's opening was in no reward)."""
    n = 6
    env = VectorQwirkle(n, players=players, seed=20 + players, opponents="greedy", learner=learner)
    env.reset()
    bots_opened = sum(env.scores(i)[learner] == 0 and sum(env.scores(i)) > 0 for i in range(n))
    assert bots_opened >= 1  # the seeds are chosen so: the case the issue found
    total = np.zeros(n)
    fresh = np.zeros(n, bool)  # a game dealt in the last step: none of its steps yet
    games = 0
    for _ in range(40 if NO_JIT else 500):
        _, _, rewards, terminated, truncated, info = env.step(env.random_actions())
        total += rewards
        points = env.seat_rewards()  # the docs' conversion: points to margin, step by step
        assert np.allclose(rewards, points[:, learner] - (points.sum(axis=1) - points[:, learner]) / (players - 1))
        for i in range(n):
            if terminated[i] or truncated[i]:
                assert total[i] == pytest.approx(margin(info["final_scores"][i, :players], learner))
                total[i], fresh[i] = 0.0, True
                games += 1
            elif fresh[i]:
                fresh[i] = False
            else:
                assert total[i] == pytest.approx(margin(env.scores(i), learner))
    assert NO_JIT or games >= 10


def test_illegal_reward_refuses_one_env_and_steps_the_others() -> None:
    kwargs = {"players": 2, "seed": 9, "opponents": "random"}
    env = VectorQwirkle(3, illegal_reward=-0.5, **kwargs)  # type: ignore[arg-type]
    twin = VectorQwirkle(3, **kwargs)  # type: ignore[arg-type]
    env.reset()
    twin.reset()
    for step in range(12):  # env 1 is given illegal actions only; envs 0 and 2 legal ones
        actions = twin.random_actions()
        wrong = actions.copy()
        wrong[1] = np.flatnonzero(~env.masks[1])[step] if step % 2 else -3  # in and out of the space
        board, mask, turn = env.obs["board"][1].copy(), env.masks[1].copy(), env.partial_turn(1)
        scores = env.scores(1)
        _, masks, rewards, _, _, info = env.step(wrong)
        assert info["illegal"].tolist() == [False, True, False] and rewards[1] == -0.5
        assert (env.obs["board"][1] == board).all() and (masks[1] == mask).all()
        assert env.partial_turn(1) == turn and env.scores(1) == scores
        _, twin_masks, twin_rewards, _, _, twin_info = twin.step(actions)
        assert not twin_info["illegal"].any()
        for i in (0, 2):  # the others stepped as they would have
            assert (masks[i] == twin_masks[i]).all() and rewards[i] == twin_rewards[i]
            assert env.scores(i) == twin.scores(i) and env.partial_turn(i) == twin.partial_turn(i)
    with pytest.raises(IllegalMoveError):  # the default still refuses the whole batch
        twin.step(np.array([-1, -1, -1]))
    for bad in (math.nan, math.inf, 10**400, "1", True, [1.0]):
        with pytest.raises(QwirkleError, match="illegal_reward"):
            VectorQwirkle(1, illegal_reward=bad)  # type: ignore[arg-type]


def test_step_returns_new_reward_flag_and_info_arrays() -> None:
    env = VectorQwirkle(2, players=2, seed=3)
    obs, masks, info = env.reset()
    first = env.step(env.random_actions())
    second = env.step(env.random_actions())
    assert first[0] is second[0] is obs and first[1] is second[1] is masks  # the documented buffers
    for a, b in zip(first[2:5], second[2:5]):
        assert a is not b and not np.shares_memory(a, b)
    for key, value in first[5].items():
        assert not np.shares_memory(value, second[5][key]), key
        assert not np.shares_memory(value, info[key]), key


def test_index_lists_and_packed_masks_are_the_masks() -> None:
    env = VectorQwirkle(5, players=3, seed=2, opponents="random", window=MIN_WINDOW)
    env.reset()
    for _ in range(10 if NO_JIT else 120):
        ids, counts = env.legal_ids()
        assert ids.dtype == np.int32 and ids.shape == (5, int(counts.max()))
        for i in range(env.n):
            legal = np.flatnonzero(env.masks[i])
            assert counts[i] == legal.size and (ids[i, : legal.size] == legal).all() and (ids[i, legal.size :] == -1).all()
        packed = env.packed_masks()
        assert packed.shape == (5, -(-env.action_count // 8))
        back = np.unpackbits(packed, axis=1, count=env.action_count, bitorder="little").view(bool)
        assert (back == env.masks).all()
        env.step(env.random_actions())


def test_index_lists_past_the_kernels_lists(monkeypatch: pytest.MonkeyPatch) -> None:
    """A row with more legal sub-steps than the kernels list is read from its mask."""
    from qwirkle_core.envs import vector

    env = VectorQwirkle(2, players=2, seed=1)
    env.reset()
    short = int(env.legal_ids()[1].min()) - 1
    assert short >= 1
    monkeypatch.setattr(vector, "SET_LIST", short)  # as if the lists held fewer ids than each row's
    ids, counts = env.legal_ids()
    for i in range(2):
        assert counts[i] > short and (ids[i, : counts[i]] == np.flatnonzero(env.masks[i])).all()
        assert (ids[i, counts[i] :] == -1).all()


# A game (seed 2986752612823950652, greedy opponent) that ends on a dead board with the
# learner to move, after these sub-steps of the learner's (random ones, as
# random_actions drew them in a review).  The terminal observation showed the hand
# before the last draw.
DEAD_BOARD_SEED = 2986752612823950652
DEAD_BOARD_STEPS = [8720, 33297, 14866, 36900, 36885, 36900, 36891, 36900, 36877, 36887, 36900, 36882, 36900, 36867, 36900, 36894, 36894, 36900, 36874, 36875, 36879, 36900, 36868, 36868, 36873, 36891, 36900, 36889, 36893, 36900, 36882, 36900, 36892, 36899, 36900, 36864, 36884, 36900, 36876, 36892, 36898, 36900, 36869, 36880, 36900, 36869, 36870, 36872, 36874, 36899, 36900, 36895, 36900, 36870, 36883, 36898, 36900, 36870, 36889, 36900, 36880, 36898, 36900, 36868, 36879, 36891, 36900, 36889, 36900, 36864, 36876, 36900, 36867, 36881, 36882, 36900, 36892, 36900, 36865, 36868, 36879, 36894, 36900, 36880, 36900, 36895, 36900, 36877, 36883, 36900, 36885, 36900, 36876, 36882, 36900, 36879, 36900, 36867, 36893, 36900, 36885, 36888, 36900, 36879, 36881, 36900, 36869, 36871, 36882, 36900, 36870, 36885, 36889, 36900, 36893, 36900, 36875, 36900, 36891, 36900, 36883, 36887, 36900, 36868, 36876, 36893, 36900, 36877, 36900, 36874, 36898, 36900, 36870, 36882, 36891, 36900, 36897, 36900, 36892, 36895, 36900, 36869, 36894, 36900, 36865, 36876, 36888, 36900, 36892, 36892, 36900, 36886, 36893, 36900]


def test_a_dead_board_s_terminal_observation_shows_the_hand_to_move() -> None:
    env = VectorQwirkle(1, players=2, game_seeds=DEAD_BOARD_SEED, opponents="greedy", autoreset=False)
    env.reset()
    for action in DEAD_BOARD_STEPS:
        *_, terminated, _, _ = env.step(np.array([action]))
    _, meta, hands, sizes, _, _, _ = env.engine_state(0)
    assert terminated[0] and END_NAMES[int(meta[_layout.M_END])] == "dead"
    seat = int(meta[_layout.M_PLAYER])
    shown = np.repeat(np.arange(36), env.obs["hand"][0, 0]).tolist()
    assert shown == sorted(hands[seat, : sizes[seat]].tolist()) and not env.obs["hand"][0, 1].any()


def test_an_opponent_named_for_the_learner_s_seat_is_refused() -> None:
    with pytest.raises(QwirkleError, match="learner's seat"):
        VectorQwirkle(1, players=2, opponents=["sim", "greedy"], learner=0)
    VectorQwirkle(1, players=2, opponents=[None, "greedy"], learner=0)


def test_envs_that_do_not_fit_in_memory_are_a_qwirkle_error(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_memory(self: VectorQwirkle, n: int, window: int) -> None:
        raise MemoryError

    monkeypatch.setattr(VectorQwirkle, "_allocate", no_memory)
    with pytest.raises(QwirkleError, match="n=1000 envs of window 1024"):
        VectorQwirkle(1000, window=1024)


@pytest.mark.parametrize("players", [2, 3])
def test_a_terminal_observation_shows_the_learner_s_hand_never_an_opponent_s(players: int) -> None:
    # (After a going out the seat to move is the next one, an opponent's: its hidden
    # hand must not reach the learner.)
    env = VectorQwirkle(16, players=players, seed=7, opponents="greedy", autoreset=False, illegal_reward=0.0)
    env.reset()
    done = np.zeros(env.n, bool)
    went_out = 0
    while not done.all():
        actions = env.random_actions()
        actions[done] = 0
        _, _, _, terminated, truncated, _ = env.step(actions)
        for i in np.flatnonzero((terminated | truncated) & ~done):
            _, meta, hands, sizes, _, _, _ = env.engine_state(int(i))
            shown = np.repeat(np.arange(36), env.obs["hand"][i, 0]).tolist()
            assert shown == sorted(hands[0, : sizes[0]].tolist()), (i, players)
            went_out += int(meta[_layout.M_WENT_OUT]) >= 0
        done |= terminated | truncated
    assert went_out
