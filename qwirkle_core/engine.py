"""The engine protocol: one JSON object per line in, one per line out.

In the spirit of UCI (chess) and the Universal Hive Protocol: a program in any language
starts ``python -m qwirkle_core engine`` once and then asks questions about a game it
keeps.  Every request is an object ``{"cmd": NAME, ...}`` and may carry an ``"id"``
(any JSON value) that the reply echoes.  A reply is ``{"id": ..., "ok": true, ...}``,
or ``{"id": ..., "error": "..."}`` for a malformed or illegal request, after which the
engine keeps running with its state unchanged.  End of input ends it cleanly.

Replies show what the player to move may know: their own hand, the scores, the board,
the size of the bag and of every hand.  The bag's order, the other hands and the
position string come only with ``"reveal": true`` in the request (a referee's view).
docs/engine.md gives every request and reply.

The engine's logic lives in :class:`EngineSession` (no I/O), so it can be driven and
tested in-process; :func:`serve` reads and writes the lines; :class:`EngineClient` in
``qwirkle_core.client`` drives a separate engine process from Python.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import IO, Any

import numpy as np

from . import __version__
from .board import Board
from .errors import QwirkleError
from .game import Action, Game, Turn
from .jsonio import BadInputError, dumps, loads, read_hand, read_placements, read_tile
from .moves import Move, MoveList
from .tiles import ALL_TILES, COPIES_PER_KIND, N_KINDS, Tile

PROTOCOL_VERSION = 1
ENGINE_NAME = "qwirkle_core"


def _opt_int(req: dict[str, Any], key: str, default: int | None, lo: int, hi: int) -> int | None:
    if key not in req or req[key] is None:
        return default
    value = req[key]
    if type(value) is not int or not lo <= value <= hi:
        raise BadInputError(f'"{key}" must be an integer in {lo}..{hi}, got {dumps(value)[:40]}')
    return value


def _req_str(req: dict[str, Any], key: str) -> str:
    value = req.get(key)
    if not isinstance(value, str):
        raise BadInputError(f'"{key}" must be a string')
    return value


def _move_json(table_moves: MoveList) -> list[dict[str, Any]]:
    out = table_moves.to_json()
    for entry, move in zip(out, table_moves):
        entry["text"] = move.text()
    return out


def _tiles_json(tiles: list[Tile] | tuple[Tile, ...]) -> list[list[int]]:
    return [t.as_json() for t in tiles]


class EngineSession:
    """The state and the commands of one engine dialogue."""

    def __init__(self) -> None:
        self.game: Game | None = None
        self.commands: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
            "hello": self._hello,
            "new": self._new,
            "position": self._position,
            "state": self._state,
            "moves": self._moves,
            "count": self._count,
            "best": self._best,
            "play": self._play,
            "undo": self._undo,
            "masks": self._masks,
            "analyse": self._analyse,
            "selfplay": self._selfplay,
            "quit": self._quit,
        }
        self.done = False
        self.reveal = False  # the current request's "reveal"

    # ------------------------------------------------------------ dispatch
    def handle_line(self, line: str | bytes) -> dict[str, Any]:
        """Answer one request line (never raises)."""
        try:
            request = loads(line)
        except QwirkleError as exc:
            return {"id": None, "error": str(exc)}
        return self.handle(request)

    def handle(self, request: Any) -> dict[str, Any]:
        """Answer one request object (never raises; the state is unchanged on error)."""
        rid = request.get("id") if isinstance(request, dict) else None
        try:
            if not isinstance(request, dict):
                raise BadInputError('a request is an object {"cmd": ...}')
            if "cmd" not in request:
                raise BadInputError('missing "cmd" (a request is an object {"cmd": ...}; see hello)')
            cmd = request["cmd"]
            if not isinstance(cmd, str) or cmd not in self.commands:
                raise BadInputError(f"unknown command {dumps(cmd)[:40]} (see hello)")
            reveal = request.get("reveal", False)
            if type(reveal) is not bool:
                raise BadInputError('"reveal" must be true or false')
            self.reveal = reveal
            reply = self.commands[cmd](request)
        except QwirkleError as exc:
            return {"id": rid, "error": str(exc)}
        except RecursionError:
            return {"id": rid, "error": "request nested too deeply"}
        return {"id": rid, "ok": True, **reply}

    def _need_game(self) -> Game:
        if self.game is None:
            raise BadInputError('no game yet: send "new" or "position" first')
        return self.game

    def _summary(self) -> dict[str, Any]:
        """What the player to move may know: their own hand, the scores, the size of
        the bag and of every hand.  With ``"reveal": true`` (a referee's view) also
        every hand, the bag in order (the next draw last) and the position string."""
        game = self._need_game()
        out = {
            "to_move": game.to_move,
            "hand": _tiles_json(game.hand()),
            "hand_sizes": [len(h) for h in game.hands],
            "scores": list(game.scores),
            "bag": game.bag_size,
            "over": game.is_over,
            "end": game.end,
            "winners": game.winners() if game.is_over else [],
        }
        if self.reveal:
            out["hands"] = [_tiles_json(h) for h in game.hands]
            out["bag_tiles"] = _tiles_json(game.bag)
            out["position"] = game.to_string()
        return out

    def _turn_json(self, turn: Turn) -> dict[str, Any]:
        """A history entry: the whole record turn when revealing, else without the
        hidden tiles (the hand before the turn, the tiles drawn, the tiles exchanged),
        whose numbers it gives instead."""
        out = turn.to_json()
        if not self.reveal:
            out.pop("hand", None)
            if "drawn" in out:
                out["drawn"] = len(out["drawn"])
            if "tiles" in out:
                out["tiles"] = len(out["tiles"])
        return out

    # ------------------------------------------------------------ commands
    def _hello(self, req: dict[str, Any]) -> dict[str, Any]:
        return {
            "name": ENGINE_NAME,
            "version": __version__,
            "protocol": PROTOCOL_VERSION,
            "commands": sorted(self.commands),
        }

    def _new(self, req: dict[str, Any]) -> dict[str, Any]:
        players = _opt_int(req, "players", 2, 2, 6)
        seed = _opt_int(req, "seed", 0, 0, 2**64 - 1)
        tie_break = req.get("tie_break")
        if tie_break is not None and (
            not isinstance(tie_break, list) or any(type(s) is not int for s in tie_break)
        ):
            raise BadInputError('"tie_break" must be a list of seats')
        assert players is not None and seed is not None
        self.game = Game(players=players, seed=seed, tie_break=tie_break)
        return self._summary()

    def _position(self, req: dict[str, Any]) -> dict[str, Any]:
        if "position" in req:
            self.game = Game.from_string(_req_str(req, "position"))
            return self._summary()
        if "board" not in req or "hands" not in req:
            raise BadInputError('"position" needs a position string, or "board" and "hands"')
        board = read_placements(req["board"], "board")
        hands_value = req["hands"]
        if not isinstance(hands_value, list) or not 2 <= len(hands_value) <= 6:
            raise BadInputError('"hands" must be a list of 2 to 6 hands')
        hands = [read_hand(h, f"hands[{i}]") for i, h in enumerate(hands_value)]
        to_move = _opt_int(req, "to_move", 0, 0, len(hands) - 1)
        seed = _opt_int(req, "seed", 0, 0, 2**64 - 1)
        assert to_move is not None and seed is not None
        scores_value = req.get("scores", [0] * len(hands))
        if (
            not isinstance(scores_value, list)
            or len(scores_value) != len(hands)
            or any(type(s) is not int or s < 0 for s in scores_value)
        ):
            raise BadInputError('"scores" must be one non-negative integer per hand')
        used = [0] * N_KINDS
        for _, _, t in board:
            used[t.kind] += 1
        for hand in hands:
            for t in hand:
                used[t.kind] += 1
        if "bag" in req:
            bag_value = req["bag"]
            if not isinstance(bag_value, list):
                raise BadInputError('"bag" must be a list of tiles, the next draw last')
            bag = [read_tile(v, f"bag[{i}]") for i, v in enumerate(bag_value)]
        else:
            # The tiles nobody has seen, shuffled by the seed.
            bag = [ALL_TILES[k] for k in range(N_KINDS) for _ in range(max(0, COPIES_PER_KIND - used[k]))]
            rng = np.random.default_rng(seed)
            bag = [bag[i] for i in rng.permutation(len(bag))]
        self.game = Game.from_position(
            Board.from_placements(board), hands, bag, scores_value, to_move=to_move, seed=seed
        )
        return self._summary()

    def _state(self, req: dict[str, Any]) -> dict[str, Any]:
        game = self._need_game()
        return {
            **self._summary(),
            "board": game.board.to_json(),
            "history": [self._turn_json(turn) for turn in game.history],
        }

    def _legal(self) -> MoveList:
        return self._need_game().legal_moves()

    def _moves(self, req: dict[str, Any]) -> dict[str, Any]:
        top = _opt_int(req, "top", None, 0, 10**9)
        min_score = _opt_int(req, "min_score", None, 0, 10**9)
        moves = self._legal()
        total = len(moves)
        if min_score is not None:
            moves = MoveList(moves.table[moves.scores >= min_score])
        if top is not None:
            moves = moves.sorted()[:top]
        return {"count": total, "moves": _move_json(moves)}

    def _count(self, req: dict[str, Any]) -> dict[str, Any]:
        return {"count": len(self._legal())}

    def _best(self, req: dict[str, Any]) -> dict[str, Any]:
        game = self._need_game()
        moves = self._legal()
        best = moves.best()
        if best is not None:
            return {"action": best.text(), "placements": best.to_json(), "score": best.score}
        actions = game.legal_actions()
        if not actions:
            return {"action": None}
        # No placement: exchange everything the bag allows (the widest new hand), else pass.
        fallback = max(actions, key=lambda a: len(a.tiles))
        return {"action": fallback.text(), "score": 0}

    def _play(self, req: dict[str, Any]) -> dict[str, Any]:
        game = self._need_game()
        value = req.get("action")
        action: Action
        if isinstance(value, str):
            action = Action.from_text(value)
        elif isinstance(value, dict):
            kind = value.get("action", "place")
            if kind == "place":
                action = Action.place(Move(read_placements(value.get("placements"), "placements")))
            elif kind == "exchange":
                action = Action.exchange(read_hand(value.get("tiles"), "tiles"))
            elif kind == "pass":
                action = Action.pass_turn()
            else:
                raise BadInputError(f"unknown action {dumps(kind)[:40]}")
        else:
            raise BadInputError('"action" must be notation text or an object')
        played = game.push(action)
        turn = game.history[-1]
        return {
            "played": played.text(),
            "score": turn.score,
            # The player who played is no longer to move: their draw is theirs to see.
            "drawn": _tiles_json(turn.drawn) if self.reveal else len(turn.drawn),
            **self._summary(),
        }

    def _undo(self, req: dict[str, Any]) -> dict[str, Any]:
        game = self._need_game()
        if not game.history:
            raise BadInputError("nothing to undo")
        undone = game.pop()
        return {"undone": undone.text(), **self._summary()}

    def _masks(self, req: dict[str, Any]) -> dict[str, Any]:
        coords, masks = self._need_game().board.legal_tile_masks()
        cells = [[r, c, m] for (r, c), m in zip(coords.tolist(), masks.tolist())]
        return {"cells": cells}

    def _analyse(self, req: dict[str, Any]) -> dict[str, Any]:
        """The moves by score with their risk, and the open Qwirkle slots, as the player
        to move sees the game (the unseen tiles: the bag and the other hands)."""
        from . import queries

        game = self._need_game()
        top = _opt_int(req, "top", 10, 0, 10**6)
        assert top is not None
        board = game.board
        unseen = game.unseen_tiles(game.to_move)
        moves = self._legal()
        slots = queries.qwirkle_slots(board, unseen)
        slot_list = [
            {
                "cell": slots.coords[i].tolist(),
                "tiles": _tiles_json(slots.tiles(i)),
                "unseen_tiles": _tiles_json(slots.unseen_tiles(i)),
                "points": int(slots.points[i]),
            }
            for i in range(len(slots.coords))
        ]
        ranked = moves.sorted()[:top]
        risky = np.zeros(len(ranked), bool)
        opens = np.zeros(len(ranked), np.int64)
        if len(ranked) and not board.is_empty():
            risk = queries.move_risk(board, game.hand(), unseen)
            for i, move in enumerate(ranked):
                j = risk.moves.index(move)
                risky[i] = bool(risk.risky[j])
                opens[i] = int(risk.opened[j])
        top_moves = _move_json(ranked)
        for i, entry in enumerate(top_moves):
            entry["leaves_qwirkle"] = bool(risky[i])
            entry["opens_slots"] = int(opens[i])
        return {
            "count": len(moves),
            "best_score": int(moves.scores.max()) if len(moves) else None,
            "moves": top_moves,
            "qwirkle_slots": slot_list,
            "unseen": len(unseen),
        }

    def _selfplay(self, req: dict[str, Any]) -> dict[str, Any]:
        from .selfplay import parse_bots, selfplay

        games = _opt_int(req, "games", 10, 1, 100_000)
        players = _opt_int(req, "players", 2, 2, 6)
        seed = _opt_int(req, "seed", 0, 0, 2**64 - 1)
        assert games is not None and players is not None and seed is not None
        bots_value = req.get("bots", "greedy")
        if not isinstance(bots_value, str):
            raise BadInputError('"bots" must be text like "greedy" or "greedy,random"')
        bots = parse_bots(bots_value, players)
        result = selfplay(games, players, bots, seed=seed)
        wins, shared = result.wins()
        return {
            "games": games,
            "mean_scores": [round(float(x), 3) for x in result.scores.mean(axis=0)],
            "wins": wins.tolist(),
            "shared_wins": shared.tolist(),
            "games_per_second": round(games / result.seconds, 1) if result.seconds > 0 else None,
        }

    def _quit(self, req: dict[str, Any]) -> dict[str, Any]:
        self.done = True
        return {"bye": True}


def serve(stdin: IO[bytes], stdout: IO[str]) -> int:
    """Answer request lines until ``quit`` or end of input."""
    session = EngineSession()
    for raw in stdin:
        line = raw.strip()
        if not line:
            continue
        stdout.write(dumps(session.handle_line(line)) + "\n")
        stdout.flush()
        if session.done:
            break
    return 0


def run_stdio() -> int:
    """Serve the engine on this process's stdin and stdout; returns the exit status."""
    return serve(sys.stdin.buffer, sys.stdout)
