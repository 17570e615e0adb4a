"""Random positions for the property tests, played with the library itself.

The positions only need to be ones real play reaches; which moves are correct is
judged by tests/naive.py.  Moves are chosen at random, sometimes greedily (so that
long lines and Qwirkles appear), and the game can start anywhere on the plane.

Every choice (how many turns, which move, greedy or not, where the game sits) is
drawn through :class:`Choices`: from Hypothesis (``st.data()``) in the property
tests, so that a failure shrinks to a short game of first moves at offset 0 rather
than to an opaque seed; from a seeded ``random.Random`` elsewhere.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, MutableSequence, Sequence
from typing import Any, TypeVar

from hypothesis import strategies as st

from qwirkle_core import ALL_TILES, Board, Tile

NaiveBoard = dict[tuple[int, int], tuple[int, int]]
T = TypeVar("T")


class Choices:
    """The random choices of a test, with the few ``random.Random`` methods the tests
    use.  Given an ``st.data()`` object, each choice is one ``data.draw(st.integers(...))``
    (labelled, so a failing example reads as the list of choices made); given an int,
    a ``random.Random`` seeded with it makes them."""

    def __init__(self, source: st.DataObject | int | Choices) -> None:
        if isinstance(source, Choices):
            self._data, self._rng = source._data, source._rng
        elif isinstance(source, int):
            self._data, self._rng = None, random.Random(source)
        else:
            self._data, self._rng = source, None

    def randint(self, a: int, b: int, label: str = "choice") -> int:
        if self._data is not None:
            return self._data.draw(st.integers(a, b), label=label)
        assert self._rng is not None
        return self._rng.randint(a, b)

    def randrange(self, n: int, label: str = "choice") -> int:
        return self.randint(0, n - 1, label)

    def choice(self, seq: Sequence[T], label: str = "choice") -> T:
        return seq[self.randrange(len(seq), label)]

    def random(self, label: str = "chance") -> float:
        """A number in [0, 1) in steps of 1/1000 (0 when shrunk)."""
        return self.randint(0, 999, label) / 1000

    def sample(self, population: Sequence[T], k: int, label: str = "sample") -> list[T]:
        pool = list(population)
        return [pool.pop(self.randrange(len(pool), label)) for _ in range(k)]

    def shuffle(self, items: MutableSequence[T], label: str = "shuffle") -> None:
        """Fisher-Yates, each swap one choice (all 0: the order is kept)."""
        for i in range(len(items) - 1, 0, -1):
            j = i - self.randint(0, i, label)
            items[i], items[j] = items[j], items[i]


def random_positions(
    choices: Choices | st.DataObject | int, n_players: int = 2, max_turns: int = 200, greedy: float = 0.3
) -> Iterator[tuple[Board, list[Tile]]]:
    """Yield (board, hand of the player to move) before each turn of a random game of
    at most ``max_turns`` turns (the number itself is one of the choices).
    The same Board object is reused and changes after each yield: copy to keep."""
    ch = Choices(choices)
    turns = ch.randint(0, max_turns, "turns")
    # The deal and the mixing of exchanged tiles come from one drawn seed: they are
    # not what a failure is about, and shrink to the deal of seed 0.
    bag_rng = random.Random(ch.randint(0, 2**32 - 1, "bag seed"))
    bag = [ALL_TILES[k] for k in range(36) for _ in range(3)]
    bag_rng.shuffle(bag)
    hands = [[bag.pop() for _ in range(6)] for _ in range(n_players)]
    board = Board()
    offset = (ch.randint(-1_000_000, 1_000_000, "row offset"), ch.randint(-1_000_000, 1_000_000, "col offset"))
    vertical = ch.randint(0, 1, "vertical") == 1
    player = 0
    passes = 0
    for _ in range(turns):
        hand = hands[player]
        yield board, list(hand)
        moves = board.legal_moves(hand)
        if moves:
            if board.is_empty():
                m = moves[ch.randrange(len(moves), "opening")]
                # Put the opening somewhere else on the plane, maybe turned.
                placements = [
                    (offset[0] + (c if vertical else r), offset[1] + (r if vertical else c), t)
                    for r, c, t in m.placements
                ]
                move = board.push(placements)
            elif ch.randint(0, 99, "greedy?") < 100 * greedy:
                move = board.push(moves.best())  # type: ignore[arg-type]
            else:
                move = board.push(moves[ch.randrange(len(moves), "move")])
            for t in move.tiles:
                hand.remove(t)
            while len(hand) < 6 and bag:
                hand.append(bag.pop())
            passes = 0
            if not hand:
                return
        elif bag:
            n = min(len(hand), len(bag))
            out = [hand.pop(i) for i in sorted(ch.sample(range(len(hand)), n, "exchange"), reverse=True)]
            hand.extend(bag.pop() for _ in range(n))
            bag.extend(out)
            bag_rng.shuffle(bag)
        else:
            passes += 1
            if passes >= n_players:
                return
        player = (player + 1) % n_players


def as_naive(board: Board) -> NaiveBoard:
    return {(r, c): (int(t.color), int(t.shape)) for r, c, t in board.placements()}


def hand_as_naive(hand: list[Tile]) -> list[tuple[int, int]]:
    return [(int(t.color), int(t.shape)) for t in hand]


def moves_as_naive(moves) -> dict[frozenset[tuple[int, int, int, int]], int]:  # type: ignore[no-untyped-def]
    out: dict[frozenset[tuple[int, int, int, int]], int] = {}
    for m in moves:
        key = frozenset((r, c, int(t.color), int(t.shape)) for r, c, t in m.placements)
        assert key not in out, f"move generated twice: {m}"
        out[key] = m.score
    return out


def greedy_game(players: int, seed: int, turns: int) -> Any:
    """``Game(players, seed)`` after at most ``turns`` turns of greedy bots (fewer if
    the game ends first)."""
    from qwirkle_core.bots import make_bot
    from qwirkle_core.game import Game

    game = Game(players, seed)
    bots = [make_bot("greedy", seed, p) for p in range(players)]
    for _ in range(turns):
        if game.is_over:
            break
        game.push(bots[game.to_move].choose(game))
    return game



def plays_out(game: Any, pv: list[str]) -> int:
    """The final spread for the player to move of playing ``pv`` (each move legal in
    turn, the game over after the last)."""
    mover, play_game = game.to_move, game.copy()
    for text in pv:
        play_game.push(text)
    assert play_game.is_over
    return int(play_game.scores[mover] - play_game.scores[1 - mover])


def greedy_until_bag_empty(seed: int, players: int = 2) -> Any:
    """Greedy self-play of ``Game(players, seed)`` until the bag is first empty (or the
    game ends)."""
    from qwirkle_core.bots import make_bot
    from qwirkle_core.game import Game

    game = Game(players=players, seed=seed)
    bots = [make_bot("greedy", seed=seed, seat=s) for s in range(players)]
    while not game.is_over and game.bag_size > 0:
        game.push(bots[game.to_move].choose(game))
    return game


def small_endgame(seed: int, tiles: int) -> Any:
    """The game of ``seed`` played on from its empty bag (greedy_until_bag_empty) by the
    random bot until both hands hold ``tiles`` tiles or fewer; None when it ends first."""
    from qwirkle_core.bots import make_bot

    game = greedy_until_bag_empty(seed)
    bots = [make_bot("random", seed=seed, seat=s) for s in range(2)]
    while not game.is_over and sum(len(h) for h in game.hands) > tiles:
        game.push(bots[game.to_move].choose(game))
    return None if game.is_over else game
