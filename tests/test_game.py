"""The Game: rules of a whole game, push/pop, notation, position strings, records."""

from __future__ import annotations

import json
from collections import Counter

import numba
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from qwirkle_core import (
    ALL_TILES,
    IllegalMoveError,
    InvalidPositionError,
    Move,
    QwirkleError,
    _layout,
    parse_tiles,
)
from qwirkle_core.bots import make_bot, play
from qwirkle_core.game import (
    Action,
    Game,
    InvalidRecordError,
    distinct_exchanges,
    largest_group,
    opening_player,
)
from qwirkle_core.records import read_records, record_line
from tests.games import greedy_game

# With NUMBA_DISABLE_JIT=1 (the coverage run) the kernels are plain Python: fewer games.
JIT_OFF = bool(numba.config.DISABLE_JIT)
SETTINGS = settings(
    deadline=None, max_examples=2 if JIT_OFF else 12, suppress_health_check=[HealthCheck.too_slow]
)
BOT_NAMES = ["random", "greedy", "heuristic"]


def position(board: str, hands: list[str], to_move: int = 0, scores: list[int] | None = None, state: str = "p") -> Game:
    """A position with these board and hands; the bag holds every other tile."""
    left = Counter({k: 3 for k in range(36)})
    for t in parse_tiles(" ".join(w.split("@")[0] for w in board.split())):
        left[t.kind] -= 1
    for h in hands:
        for t in parse_tiles(h):
            left[t.kind] -= 1
    bag = "".join(ALL_TILES[k].text() * n for k, n in sorted(left.items()))
    hands_text = "/".join(h.replace(" ", "") or "-" for h in hands)
    scores_text = ",".join(str(s) for s in (scores or [0] * len(hands)))
    return Game.from_string(f"{board or '-'}|{hands_text}|{bag or '-'}|{scores_text}|{to_move}|{state}|{'0' * 31}1")


def played_game(seed: int, players: int, bots: list[str]) -> Game:
    return play(Game(players, seed), [make_bot(b, seed, p) for p, b in enumerate(bots)])


def game_until(seed: int, players: int, stop, tries: int = 50) -> Game:  # type: ignore[no-untyped-def]
    """Play greedy games from seed, seed+1, ... until ``stop(game)`` holds before a turn."""
    for s in range(seed, seed + tries):
        game = Game(players, s)
        bots = [make_bot("greedy", s, p) for p in range(players)]
        while not game.is_over:
            if stop(game):
                return game
            game.push(bots[game.to_move].choose(game))
    raise AssertionError("no game reached the wanted state")


def tile_total(game: Game) -> Counter[int]:
    counts = Counter(t.kind for t in game.bag)
    for h in game.hands:
        counts.update(t.kind for t in h)
    counts.update(t.kind for _, _, t in game.board.placements())
    return counts


# --------------------------------------------------------------- rules, one by one
def test_opening_group_counts_duplicates_once() -> None:
    assert largest_group(parse_tiles("Rc Rc Rs Rd Yc Bc")) == 3
    assert largest_group(parse_tiles("Rc Rc Rc Rs Rs Rs")) == 2
    assert largest_group(parse_tiles("Rc Oc Yc Gc Bc Pc")) == 6
    # Seat 1 holds four reds but two are the same tile: 3, less than seat 0's 4 circles.
    hands = [parse_tiles("Rc Oc Yc Gc Bs Bs"), parse_tiles("Rc Rc Rs Rd Rd Yl")]
    assert opening_player(hands) == 0


def test_opening_tie_break() -> None:
    hands = [parse_tiles("Rc Os Yd Gl Bx Pb"), parse_tiles("Rc Rs Ob Ox Gd Pl"), parse_tiles("Bc Bs Rl Rl Yx Yx")]
    # Every hand's largest group is 2: the lowest seat opens, unless the caller says.
    assert [largest_group(h) for h in hands] == [1, 2, 2]
    assert opening_player(hands) == 1
    assert opening_player(hands, tie_break=[2, 0, 1]) == 2
    assert opening_player(hands, tie_break=[0, 1, 2]) == 1
    with pytest.raises(QwirkleError):
        opening_player(hands, tie_break=[0, 0, 1])


def test_opening_move_places_exactly_the_largest_group() -> None:
    game = Game(3, seed=5)
    size = game.opening_size
    assert size == largest_group(game.hand())
    assert all(h_group <= size for h_group in (largest_group(h) for h in game.hands))
    actions = game.legal_actions()
    assert actions and all(a.kind == "place" and len(a.tiles) == size for a in actions)
    # Fewer tiles of the group: refused, naming the rule.
    first = actions[0]
    assert first.move is not None
    if size > 1:
        shorter = Move(first.move.placements[:-1])
        before = game.to_string()
        with pytest.raises(IllegalMoveError, match="largest group"):
            game.push(shorter)
        assert game.to_string() == before
    with pytest.raises(IllegalMoveError, match="largest group"):
        game.push(Action.exchange(game.hand()[:1]))
    # The opening may lie anywhere, in any direction.
    tiles = first.tiles
    game.push(Move([(40 + i, -7, t) for i, t in enumerate(tiles)]))
    assert game.scores[game.history[0].player] == (max(1, size))


def test_seeded_tie_break_changes_the_opener_only_on_a_tie() -> None:
    for seed in range(200):
        game = Game(4, seed)
        groups = [largest_group(h) for h in game.hands]
        tied = [p for p in range(4) if groups[p] == max(groups)]
        if len(tied) > 1:
            assert game.to_move == tied[0]
            last = tied[-1]
            other = Game(4, seed, tie_break=[last] + [p for p in range(4) if p != last])
            assert other.to_move == last
            assert other.hands == game.hands
            return
    raise AssertionError("no deal with a tie in 200 seeds")


def test_must_exchange_when_no_tile_fits() -> None:
    # Nothing in seat 0's hand shares a colour or a shape with the red circle.
    game = position("Rc@0,0", ["Os Yd Gl Bx Pb Os", "Rs Rd Oc Yc Gc Bc"])
    assert not game.legal_moves()
    actions = game.legal_actions()
    assert actions and all(a.kind == "exchange" for a in actions)
    # Distinct multisets: 5 distinct kinds with one doubled -> 2*2*2*2*3 - 1 exchanges.
    assert len(actions) == len(set(actions)) == 47
    with pytest.raises(IllegalMoveError, match="bag is empty"):
        game.push("pass")
    with pytest.raises(IllegalMoveError):
        game.push("Os@0,1")
    game.push(Action.exchange(parse_tiles("Os Os")))
    assert game.to_move == 1 and len(game.hand(0)) == 6


def test_exchange_larger_than_the_bag_is_refused() -> None:
    game = game_until(1, 2, lambda g: 0 < g.bag_size < len(g.hand()))
    before = game.to_string()
    too_many = game.hand()[: game.bag_size + 1]
    with pytest.raises(IllegalMoveError, match=f"bag holds only {game.bag_size}"):
        game.push(Action.exchange(too_many))
    assert game.to_string() == before
    assert all(len(a.tiles) <= game.bag_size for a in game.legal_actions() if a.kind == "exchange")
    game.push(Action.exchange(game.hand()[: game.bag_size]))


def test_exchange_of_tiles_not_held_is_refused() -> None:
    game = position("Rc@0,0", ["Os Yd Gl Bx Pb Od", "Rs Rd Oc Yc Gc Bc"])
    with pytest.raises(IllegalMoveError, match="not that many"):
        game.push(Action.exchange(parse_tiles("Os Os")))


def test_pass_refused_while_the_bag_holds_tiles_or_a_tile_fits() -> None:
    game = Game(2, 3)
    game.push(game.legal_actions()[0])
    with pytest.raises(IllegalMoveError, match="bag is empty"):
        game.push("pass")
    late = game_until(3, 2, lambda g: g.bag_size == 0 and bool(g.legal_moves()))
    before = late.to_string()
    with pytest.raises(IllegalMoveError, match="no tile can be placed"):
        late.push("pass")
    assert late.to_string() == before
    assert all(a.kind == "place" for a in late.legal_actions())


def test_pass_when_stuck_with_an_empty_bag() -> None:
    # Passes are rare (about one greedy 6-player game in 300); seed 58 has one.
    game = game_until(58, 6, lambda g: g.bag_size == 0 and not g.legal_moves(), tries=1)
    assert [a.kind for a in game.legal_actions()] == ["pass"]
    player = game.to_move
    game.push("pass")
    assert game.to_move == (player + 1) % 6 and not game.is_over


def test_going_out_scores_six_more_and_ends_the_game() -> None:
    game = played_game(0, 2, ["greedy", "greedy"])
    assert game.is_over and game.went_out is not None and game.bag_size == 0
    assert game.hand(game.went_out) == []
    for p in range(2):
        turn_points = sum(t.score for t in game.history if t.player == p)
        assert game.scores[p] == turn_points + (6 if p == game.went_out else 0)
    last = game.history[-1]
    assert last.player == game.went_out and last.action.kind == "place"
    with pytest.raises(IllegalMoveError, match="over"):
        game.push("pass")
    assert game.legal_actions() == []
    assert game.winners() == [p for p in range(2) if game.scores[p] == max(game.scores)]


def test_blocked_game_ends_at_once_without_bonus() -> None:
    # Blocked ends are rare (9 greedy 2-player games in 40,000); seed 390 is one.
    game = played_game(390, 2, ["greedy", "greedy"])
    assert game.is_over and game.went_out is None and game.bag_size == 0
    assert all(h for h in game.hands)
    assert not any(game.board.has_move(h) for h in game.hands)
    for p in range(2):
        assert game.scores[p] == sum(t.score for t in game.history if t.player == p)
    # It ended at once: the turn before the end still had a hand able to place.
    game.pop()
    assert any(game.board.has_move(h) for h in game.hands)


def test_illegal_placement_names_the_rule_and_changes_nothing() -> None:
    game = position("Rc@0,0 Rs@0,1", ["Rd Yc Bc Gl Px Ob", "Oc Os Od Ol Ox Ob"])
    before = game.to_string()
    with pytest.raises(IllegalMoveError, match="invalid line"):
        game.push("Yc@0,2")
    with pytest.raises(IllegalMoveError, match="not in the hand"):
        game.push("Rx@0,2")
    with pytest.raises(IllegalMoveError, match="taken"):
        game.push("Rd@0,1")
    assert game.to_string() == before and game.history == []
    game.push("Rd@0,2")
    assert game.scores == [3, 0] and len(game.hand(0)) == 6


def test_distinct_exchanges_are_multisets() -> None:
    hand = parse_tiles("Rc Rc Rc Bs Bs Yd")
    all_of_them = distinct_exchanges(hand, 6)
    assert len(all_of_them) == 4 * 3 * 2 - 1 == len(set(all_of_them))
    assert len(distinct_exchanges(hand, 2)) == sum(1 for x in all_of_them if len(x) <= 2)


# ---------------------------------------------------------------- notation
def test_action_text_round_trips() -> None:
    for text in ["Rc@0,0 Rs@0,1", "Pb@-3,7", "x Rc Rc Yd", "pass"]:
        action = Action.from_text(text)
        assert action.text() == text and Action.from_text(action.text()) == action
    assert Action.from_text("x Yd Rc") == Action.exchange(parse_tiles("Rc Yd"))
    for bad in ["x", "x Zz", "Rc@0", "passes"]:
        with pytest.raises(QwirkleError):
            Action.from_text(bad)


def test_position_string_rejects_impossible_positions() -> None:
    good = Game(2, 1).to_string()
    fields = good.split("|")
    bad_cases = [
        "|".join(fields[:6]),  # a field missing
        "|".join([fields[0], fields[1], fields[2][2:], *fields[3:]]),  # a tile lost
        "|".join([fields[0], fields[1] + "Rc", *fields[2:]]),  # a hand of 7, a tile too many
        "|".join([*fields[:4], "2", *fields[5:]]),  # no seat 2
        "|".join([*fields[:5], "p", fields[6]]),  # in play with an empty board
        "|".join([*fields[:6], "0" * 32]),  # the zero generator state
    ]
    for text in bad_cases:
        with pytest.raises(InvalidPositionError):
            Game.from_string(text)


# ------------------------------------------------------- properties over games
@SETTINGS
@given(seed=st.integers(0, 2**64 - 1), players=st.integers(2, 6), data=st.data())
def test_whole_games(seed: int, players: int, data: st.DataObject) -> None:
    bots = [data.draw(st.sampled_from(BOT_NAMES)) for _ in range(players)]
    game = Game(players, seed)
    agents = [make_bot(b, seed, p) for p, b in enumerate(bots)]
    positions = [game.to_string()]
    while not game.is_over:
        # Tiles are conserved; the position string and the copy give the same game.
        assert all(n == 3 for n in tile_total(game).values()) and len(tile_total(game)) == 36
        assert Game.from_string(positions[-1]) == game
        action = agents[game.to_move].choose(game)
        assert action in game.legal_actions()
        assert Action.from_text(action.text()) == action
        game.push(action)
        positions.append(game.to_string())
    assert sum(tile_total(game).values()) == 108
    assert Game.from_string(game.to_string()) == game and Game.from_string(game.to_string()).is_over
    bonus = [6 if p == game.went_out else 0 for p in range(players)]
    for p in range(players):
        assert game.scores[p] == sum(t.score for t in game.history if t.player == p) + bonus[p]
    # The record: exactly the issue's format, replaying to the same end.
    record = game.to_record()
    assert list(record) == ["format", "players", "seed", "turns", "scores", "end"]
    assert record["end"] == game.end and game.end in ("out", "blocked", "dead")
    line = record_line(record)
    assert "\n" not in line
    replayed = Game.from_record(line)
    assert replayed == game and replayed.history == game.history
    # The same seed and bots give the same game.
    assert played_game(seed, players, bots).to_record() == record
    # A copy plays on independently.
    copy = game.copy()
    copy.pop()
    assert game.to_string() == positions[-1]
    # pop over the whole game restores every position on the way back.
    for expected in reversed(positions[:-1]):
        game.pop()
        assert game.to_string() == expected
    assert game.history == [] and game == Game(players, seed)
    with pytest.raises(IndexError):
        game.pop()


def test_record_turns_have_the_issue_fields() -> None:
    game = played_game(4, 3, ["random", "greedy", "heuristic"])
    record = json.loads(record_line(game.to_record()))
    kinds = Counter(t["action"] for t in record["turns"])
    assert kinds["place"] and kinds["exchange"]
    for turn in record["turns"]:
        fields = {"place": ["player", "hand", "action", "placements", "score", "drawn"],
                  "exchange": ["player", "hand", "action", "tiles", "drawn"],
                  "pass": ["player", "hand", "action"]}[turn["action"]]
        assert list(turn) == fields
    assert record["turns"][0]["player"] == Game(3, 4).to_move
    assert [t["player"] for t in record["turns"]] == [(record["turns"][0]["player"] + i) % 3 for i in range(len(record["turns"]))]
    assert list(read_records([record_line(record), "", record_line(record)])) == [record, record]


def test_tampered_records_are_refused() -> None:
    record = played_game(2, 2, ["greedy", "greedy"]).to_record()
    for tamper in ("score", "drawn", "hand", "final"):
        bad = json.loads(json.dumps(record))
        if tamper == "final":
            bad["scores"][0] += 1
        else:
            place = next(t for t in bad["turns"] if t["action"] == "place" and t["drawn"])
            place[tamper] = [[0, 0]] if tamper != "score" else place["score"] + 1
        with pytest.raises(InvalidRecordError):
            Game.from_record(bad)
    # Final scores or an end of another kind than JSON gives: refused, not compared as arrays.
    for key, value in (("scores", np.array(record["scores"])), ("end", np.array(record["end"]))):
        with pytest.raises(InvalidRecordError, match="scores|ended"):
            Game.from_record({**record, key: value})


@SETTINGS
@given(seed=st.integers(0, 2**32), players=st.integers(2, 6), turns=st.integers(0, 40), viewer=st.integers(0, 5))
def test_unseen_tiles_and_determinization(seed: int, players: int, turns: int, viewer: int) -> None:
    viewer %= players
    game = greedy_game(players, seed, turns)
    unseen = game.unseen_tiles(viewer)
    assert len(unseen) == game.bag_size + sum(len(h) for p, h in enumerate(game.hands) if p != viewer)
    other = game.determinize(viewer, seed=seed + 1)
    # What the viewer sees is kept; what it cannot see is dealt from the same tiles.
    assert other.board == game.board and other.scores == game.scores and other.to_move == game.to_move
    assert other.hand(viewer) == game.hand(viewer)
    assert [len(h) for h in other.hands] == [len(h) for h in game.hands]
    assert other.unseen_tiles(viewer) == unseen
    assert game.determinize(viewer, seed=seed + 1) == other
    assert other.turn_count == game.turn_count and other.history == []
    if not other.is_over:
        other.push(other.legal_actions()[0])
        assert other.turn_count == game.turn_count + 1


def test_more_than_six_tiles_are_refused_in_the_rules_order() -> None:
    """The game's end first, then the opening, then the count."""
    seven = Action.exchange(parse_tiles("Rc Rs Rd Rl Rx Rb Bc"))
    game = Game(2, seed=1)
    with pytest.raises(IllegalMoveError, match="opening player must place"):
        game.push(seven)
    with pytest.raises(IllegalMoveError, match="opening move places the opener's largest group: 2 tiles, not 7"):
        game.push("Rc@0,0 Rs@0,1 Rd@0,2 Rl@0,3 Rx@0,4 Rb@0,5 Bc@0,6")
    game.push(game.legal_actions()[0])
    with pytest.raises(IllegalMoveError, match="cannot exchange 7 tiles"):
        game.push(seven)
    over = greedy_game(2, 3, 10_000)
    assert over.is_over
    with pytest.raises(IllegalMoveError, match="the game is over"):
        over.push(seven)


def test_a_loaded_position_counts_the_turns_it_was_given() -> None:
    game = greedy_game(2, 5, 9)
    parts = (game.board, game.hands, game.bag, game.scores, game.to_move)
    assert Game.from_position(*parts).turn_count == 0
    loaded = Game.from_position(*parts, turns_played=9)
    assert loaded.turn_count == 9 and loaded.history == [] and loaded == Game.from_position(*parts)
    loaded.push(loaded.legal_actions()[0])
    assert loaded.turn_count == 10 and len(loaded.history) == 1
    assert loaded.copy().turn_count == 10 and loaded.engine_state()[1][_layout.M_TURNS] == 10
    for bad in (-1, 10_001, 1.5, True, "9"):
        with pytest.raises(InvalidPositionError, match="turns_played"):
            Game.from_position(*parts, turns_played=bad)  # type: ignore[arg-type]


def test_bad_game_arguments_are_refused() -> None:
    for players in (1, 7, True, "2"):
        with pytest.raises(QwirkleError):
            Game(players)  # type: ignore[arg-type]
    for seed in (-1, 2**64, 1.5, True):
        with pytest.raises(QwirkleError):
            Game(2, seed)  # type: ignore[arg-type]
    with pytest.raises(QwirkleError):
        Game(3, 0, tie_break=[0, 1])
    game = Game(2, 0)
    with pytest.raises(QwirkleError):
        game.hand(2)
    with pytest.raises(QwirkleError):
        game.unseen_tiles(-1)
    with pytest.raises(QwirkleError):
        game.push(42)  # type: ignore[arg-type]
    assert Game(2, 2**64 - 1).bag_size == 108 - 12


def test_a_copy_is_independent() -> None:
    game = Game(3, 11)
    copy = game.copy()
    copy.push(copy.legal_actions()[-1])
    assert game.history == [] and game.board.is_empty() and game == Game(3, 11)
    assert copy != game
    copy.pop()
    assert copy == game
