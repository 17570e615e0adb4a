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
The searches (``sim``, ``solve``, ``analyse`` with ``"win": true``) see only that too:
the simulation deals what the player cannot see anew, and the solver runs only where
the bag is empty and the other hand is every tile the player cannot see.  A ``stop``
(or the request's timeout) ends a search with the best it has so far, in an ok reply
marked ``"stopped": true``; other requests it ends with an error reply.
docs/engine.md gives every request and reply.

The engine's logic lives in :class:`EngineSession` (no I/O), so it can be driven and
tested in-process; :func:`serve` reads and writes the lines; :class:`EngineClient` in
``qwirkle_core.client`` drives a separate engine process from Python.
"""

from __future__ import annotations

import queue
import signal
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import IO, Any

import numpy as np
import numpy.typing as npt

from . import __version__
from ._layout import COL_COLS, COL_KINDS, COL_N, COL_ROWS, COL_SCORE
from ._seconds import as_seconds
from .errors import QwirkleError, show
from .game import Action, Game, Turn
from .jsonio import BadInputError, brief, dumps, loads, read_board, read_hand, read_placements, read_tile
from .moves import Move, MoveList
from .tiles import ALL_TILES, COPIES_PER_KIND, N_KINDS, Tile

PROTOCOL_VERSION = 1
ENGINE_NAME = "qwirkle_core"
MAX_TIMEOUT = 86_400.0  # seconds: the longest "timeout" a request may ask for
MAX_LIMIT = 1 << 40  # the largest --max-line-bytes, --max-moves or --max-games (a line is read with a limit one byte more)


@dataclass(frozen=True)
class Limits:
    """What one request may ask for; set when the engine starts (``engine --max-...``).

    ``max_line_bytes``: the longest request line (a longer one gets an error reply and
    is skipped).  ``max_moves``: the most moves one reply lists (``moves``, ``analyse``;
    positions with about 39,000 moves exist).  ``max_games``: the most games one
    ``selfplay`` request plays.  ``timeout``: seconds a request may run unless it asks
    for its own ``"timeout"`` (None: no limit)."""

    max_line_bytes: int = 1 << 20
    max_moves: int = 100_000
    max_games: int = 10_000
    timeout: float | None = None

    def __post_init__(self) -> None:
        for name in ("max_line_bytes", "max_moves", "max_games"):
            value = getattr(self, name)
            if type(value) is not int or not 1 <= value <= MAX_LIMIT:
                raise QwirkleError(f"{name} must be an integer in 1..{MAX_LIMIT:,}, got {brief(value)}")
        if self.timeout is not None and not _is_seconds(self.timeout):
            raise QwirkleError(f"timeout must be a number of seconds in (0, {MAX_TIMEOUT:g}], got {brief(self.timeout)}")


def _is_seconds(value: Any) -> bool:
    seconds = as_seconds(value)
    return seconds is not None and seconds <= MAX_TIMEOUT


class RequestStopped(QwirkleError):
    """A request that ran past its timeout or was stopped (``{"cmd": "stop"}``)."""


def _is_search(cmd: str, request: dict[str, Any]) -> bool:
    """Whether a request is a search that a stop ends with its best so far."""
    return (
        cmd in ("sim", "solve")
        or (cmd == "analyse" and request.get("win") is True)
        or (cmd == "best" and request.get("bot") in ("sim", "endgame"))
    )


def _opt_int(req: dict[str, Any], key: str, default: int | None, lo: int, hi: int) -> int | None:
    if key not in req or req[key] is None:
        return default
    value = req[key]
    if type(value) is not int or not lo <= value <= hi:
        raise BadInputError(f'"{key}" must be an integer in {lo}..{hi}, got {brief(value)}')
    return value


def _req_str(req: dict[str, Any], key: str) -> str:
    value = req.get(key)
    if not isinstance(value, str):
        raise BadInputError(f'"{key}" must be a string')
    return value


_TILE_TEXT = [t.text() for t in ALL_TILES]


class RawJSON(str):
    """JSON text already encoded (a long list of moves), put into a reply line as it
    is by :func:`reply_line`; :meth:`EngineSession.handle` gives callers in Python
    the parsed value instead."""


def _json_objects(*parts: Any) -> npt.NDArray[Any]:
    """Concatenate text columns element-wise (numpy object arrays and plain strings):
    one C loop per part instead of one Python statement per move."""
    out = parts[0]
    for part in parts[1:]:
        out = out + part
    return np.asarray(out, dtype=object)


def _moves_text(
    table_moves: MoveList, extra: npt.NDArray[Any] | str = "", check: Callable[[], None] | None = None
) -> RawJSON:
    """The moves as a JSON array of {"placements", "score", "text"} objects (plus the
    ``extra`` text of each: more members, each starting with a comma), in the list's
    order, with no Python object per number.  A reply may list tens of thousands of
    moves: building dicts and encoding them took about 1 s for 38,642 moves; this
    writes each distinct placement's text once and joins the texts column by column."""
    table = table_moves.table
    m = table.shape[0]
    if m == 0:
        return RawJSON("[]")
    rows_all = table[:, COL_ROWS : COL_ROWS + 6].astype(np.int64)
    cols_all = table[:, COL_COLS : COL_COLS + 6].astype(np.int64)
    sizes = table[:, COL_N]
    used = np.arange(6) < sizes[:, None]
    top, left = int(rows_all[used].min()), int(cols_all[used].min())
    width = int(cols_all[used].max()) - left + 1
    scores = np.array(list(map(str, table[:, COL_SCORE].tolist())), dtype=object)
    out = np.empty(m, dtype=object)
    for n in range(1, 7):
        where = np.flatnonzero(sizes == n)
        if not where.size:
            continue
        group = table[where].astype(np.int64)
        rows = group[:, COL_ROWS : COL_ROWS + n] - top
        cols = group[:, COL_COLS : COL_COLS + n] - left
        kinds = group[:, COL_KINDS : COL_KINDS + n]
        # One key per (cell, tile): the same placement recurs in many moves.
        keys = (rows * width + cols) * N_KINDS + kinds
        distinct, index = np.unique(keys.ravel(), return_inverse=True)
        placed, texts = [], []
        for key in distinct.tolist():
            cell, kind = divmod(key, N_KINDS)
            r, c = divmod(cell, width)
            r += top
            c += left
            placed.append(f"[{r},{c},{kind // 6},{kind % 6}]")
            texts.append(f"{_TILE_TEXT[kind]}@{r},{c}")
        placed_of = np.array(placed, dtype=object)[index].reshape(keys.shape)
        text_of = np.array(texts, dtype=object)[index].reshape(keys.shape)
        placements = _json_objects(*[x for s in range(n) for x in ((",",) if s else ()) + (placed_of[:, s],)])
        text = _json_objects(*[x for s in range(n) for x in ((" ",) if s else ()) + (text_of[:, s],)])
        out[where] = _json_objects(
            '{"placements":[', placements, '],"score":', scores[where], ',"text":"', text, '"',
            extra[where] if isinstance(extra, np.ndarray) else extra, "}",
        )
        if check is not None:
            check()
    return RawJSON("[" + ",".join(out.tolist()) + "]")


def _shown_text(action: str, reveal: bool) -> str:
    """An action's notation as the player to move may see it: an exchange names its
    tiles only when revealing (a referee's view), else it says how many (``exchange
    3``), as a history entry's ``tiles`` does."""
    if reveal or not action.startswith("x "):
        return action
    return f"exchange {len(action.split()) - 1}"


def _read_action(value: Any, what: str) -> Action:
    """An action from notation text or a JSON object (``{"action": "place", ...}``)."""
    if isinstance(value, str):
        return Action.from_text(value)
    if isinstance(value, dict):
        kind = value.get("action", "place")
        if kind == "place":
            return Action.place(Move(read_placements(value.get("placements"), "placements")))
        if kind == "exchange":
            return Action.exchange(read_hand(value.get("tiles"), "tiles"))
        if kind == "pass":
            return Action.pass_turn()
        raise BadInputError(f"unknown action {dumps(kind)[:40]}")
    raise BadInputError(f"{what} must be notation text or an object")


class _StopWatch:
    """``should_stop`` for the searches (simulate, solve_endgame): True once a stop
    request came after the running one or it is past its deadline; ``reason`` says
    which ("stop" or "timeout"), None while it runs on."""

    def __init__(self, session: EngineSession) -> None:
        self.session = session
        self.reason: str | None = None

    def __call__(self) -> bool:
        if self.reason is None:
            self.reason = self.session._stop_reason()
        return self.reason is not None

    def fields(self) -> dict[str, Any]:
        """The reply's ``stopped`` (and ``stopped_by`` when it stopped)."""
        return {"stopped": True, "stopped_by": self.reason} if self.reason else {"stopped": False}


def _opt_seconds(req: dict[str, Any], key: str) -> float | None:
    value = req.get(key)
    if value is None:
        return None
    if not _is_seconds(value):
        raise BadInputError(f'"{key}" must be a number of seconds in (0, {MAX_TIMEOUT:g}], got {brief(value)}')
    return float(value)


def _opt_bool(req: dict[str, Any], key: str) -> bool:
    value = req.get(key, False)
    if type(value) is not bool:
        raise BadInputError(f'"{key}" must be true or false')
    return value


def _sim_entry(result: Any) -> dict[str, Any]:
    """One ranked action of a simulation (a SimResult) as a reply entry."""
    action = result.action
    return {
        "action": action.text(),
        "score": (action.move.score or 0) if action.move is not None else 0,
        "equity": result.equity,
        "win": result.win,
        "stderr": result.stderr,
        "iterations": result.iterations,
    }


def _plain(reply: dict[str, Any]) -> dict[str, Any]:
    """A reply with its pre-encoded parts parsed: what :meth:`EngineSession.handle` returns."""
    return {k: loads(v) if isinstance(v, RawJSON) else v for k, v in reply.items()}


def _row_keys(table: npt.NDArray[np.int32]) -> npt.NDArray[Any]:
    """One opaque, sortable key per move (its placements), to match two tables."""
    cells = np.ascontiguousarray(table[:, 2:])
    return cells.view(np.dtype((np.void, cells.dtype.itemsize * cells.shape[1]))).ravel()


def _tiles_json(tiles: list[Tile] | tuple[Tile, ...]) -> list[list[int]]:
    return [t.as_json() for t in tiles]


class EngineSession:
    """The state and the commands of one engine dialogue."""

    def __init__(self, limits: Limits | None = None) -> None:
        self.limits = limits if limits is not None else Limits()
        self.game: Game | None = None
        # Requests are numbered as they are read; a stop read as request n stops every
        # request numbered below n (set from the reader thread, read by check_time).
        self.current = 0
        self.stop_before = 0
        self._stopped_some = False
        self._deadline: float | None = None
        self._timeout: float | None = None
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
            "sim": self._sim,
            "solve": self._solve,
            "selfplay": self._selfplay,
            "stop": self._stop,
            "quit": self._quit,
        }
        self.done = False
        self.reveal = False  # the current request's "reveal"

    # ------------------------------------------------------------ dispatch
    def handle_line(self, line: str | bytes, seq: int | None = None) -> dict[str, Any]:
        """Answer one request line (never raises)."""
        return _plain(self._answer_line(line, seq))

    def handle(self, request: Any, seq: int | None = None) -> dict[str, Any]:
        """Answer one request object.  Never raises (but KeyboardInterrupt and
        SystemExit pass through): any failure is an error reply, and the state is the
        one before the request.  ``seq`` numbers the request (the engine process
        numbers them as it reads them); by default the next number."""
        return _plain(self._answer(request, seq))

    def _answer_line(self, line: str | bytes, seq: int | None = None) -> dict[str, Any]:
        try:
            request = loads(line)
        except QwirkleError as exc:
            return {"id": None, "error": str(exc)}
        return self._answer(request, seq)

    def _answer(self, request: Any, seq: int | None = None, stop_first: bool = True) -> dict[str, Any]:
        """:meth:`handle`, with long lists of moves left as :class:`RawJSON` text (the
        engine process writes them out as they are).  ``stop_first`` False: a request
        that is the second step of one already running (the analysis board's bot
        playing what its search chose) is not refused for a stop that came before it."""
        self.current = self.current + 1 if seq is None else seq
        rid = request.get("id") if isinstance(request, dict) else None
        saved = self.game
        backup = None
        try:
            if not isinstance(request, dict):
                raise BadInputError('a request is an object {"cmd": ...}')
            if "cmd" not in request:
                raise BadInputError('missing "cmd" (a request is an object {"cmd": ...}; see hello)')
            cmd = request["cmd"]
            if not isinstance(cmd, str) or cmd not in self.commands:
                raise BadInputError(f"unknown command {brief(cmd)} (see hello)")
            reveal = request.get("reveal", False)
            if type(reveal) is not bool:
                raise BadInputError('"reveal" must be true or false')
            self.reveal = reveal
            self._start_clock(request)
            if stop_first and cmd not in ("stop", "quit") and not _is_search(cmd, request):
                # A request still waiting when a stop came is stopped before it starts
                # (a search starts, and answers with its best so far).
                self.check_time()
            if cmd in ("play", "undo") and saved is not None:
                backup = saved.copy()  # these change the game in place
            reply = self.commands[cmd](request)
        except QwirkleError as exc:
            self._restore(saved, backup)
            return {"id": rid, "error": str(exc)}
        except RecursionError:
            self._restore(saved, backup)
            return {"id": rid, "error": "request nested too deeply"}
        except Exception as exc:  # noqa: BLE001 - the promise: the engine survives any request
            self._restore(saved, backup)
            return {"id": rid, "error": f"internal error ({type(exc).__name__}): {brief(str(exc))}"}
        except BaseException:
            self._restore(saved, backup)
            raise
        finally:
            self._deadline = None
        return {"id": rid, "ok": True, **reply}

    def stop(self) -> None:
        """Stop the running request (for a program that drives a session in-process
        from another thread; the engine process does this on ``{"cmd": "stop"}``)."""
        self.stop_before = self.current + 1

    def _restore(self, saved: Game | None, backup: Game | None) -> None:
        self.game = backup if backup is not None else saved

    def _start_clock(self, request: dict[str, Any]) -> None:
        timeout = request.get("timeout")
        if timeout is None:  # absent or null: the engine's own
            timeout = self.limits.timeout
        if timeout is not None and not _is_seconds(timeout):
            raise BadInputError(f'"timeout" must be a number of seconds in (0, {MAX_TIMEOUT:g}], got {brief(timeout)}')
        self._timeout = timeout
        self._deadline = None if timeout is None else time.monotonic() + timeout

    def check_time(self) -> None:
        """Raise RequestStopped when the running request is past its deadline or was
        asked to stop.  Long commands call it between steps."""
        reason = self._stop_reason()
        if reason == "stop":
            raise RequestStopped("stopped by a stop request")
        if reason == "timeout":
            raise RequestStopped(f"timed out after {self._timeout:g} s")

    def _stop_reason(self) -> str | None:
        """"stop" when a stop request came after the running one, "timeout" when it is
        past its deadline, else None."""
        if self.current < self.stop_before:
            self._stopped_some = True
            return "stop"
        if self._deadline is not None and time.monotonic() > self._deadline:
            return "timeout"
        return None

    def _time_left(self) -> float | None:
        """Seconds to the running request's deadline (None: no deadline)."""
        return None if self._deadline is None else max(1e-3, self._deadline - time.monotonic())

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
        whose numbers it gives instead; ``text``, the turn as :func:`_shown_text` gives it."""
        out = turn.to_json()
        out["text"] = _shown_text(turn.action.text(), self.reveal)
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
            "limits": asdict(self.limits),
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
        board = read_board(req["board"])
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
        used = board.tile_counts()
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
            board, hands, bag, scores_value, to_move=to_move, seed=seed
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

    def _top(self, req: dict[str, Any], default: int | None) -> int | None:
        most = self.limits.max_moves
        top = _opt_int(req, "top", default, 0, 2**63 - 1)
        if top is not None and top > most:
            raise BadInputError(f'"top" = {top} is more than this engine lists in one reply ({most}, --max-moves)')
        return top

    def _listed(self, moves: MoveList) -> RawJSON:
        if len(moves) > self.limits.max_moves:
            raise BadInputError(
                f"{len(moves)} moves are more than this engine lists in one reply "
                f'({self.limits.max_moves}, --max-moves): ask for "top" or "min_score"'
            )
        return _moves_text(moves, check=self.check_time)

    def _moves(self, req: dict[str, Any]) -> dict[str, Any]:
        top = self._top(req, None)
        min_score = _opt_int(req, "min_score", None, 0, 10**9)
        moves = self._legal()
        total = len(moves)
        if min_score is not None:
            moves = MoveList._trusted(moves.table[moves.scores >= min_score])
        if top is not None:
            moves = moves.sorted()[:top]
        return {"count": total, "moves": self._listed(moves)}

    def _count(self, req: dict[str, Any]) -> dict[str, Any]:
        return {"count": len(self._legal())}

    def _best_by_score(self, game: Game) -> dict[str, Any]:
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
        played = game.push(_read_action(req.get("action"), '"action"'))
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
        top = self._top(req, 10)
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
            # Match the ranked moves to the risk table by their placements: one sort,
            # not one scan of the table per move.
            keys = _row_keys(risk.moves.table)
            order = np.argsort(keys, kind="stable")
            where = order[np.searchsorted(keys[order], _row_keys(ranked.table))]
            risky = risk.risky[where]
            opens = risk.opened[where].astype(np.int64)
        extra = _json_objects(
            np.where(risky, ',"leaves_qwirkle":true', ',"leaves_qwirkle":false').astype(object),
            ',"opens_slots":',
            np.array(list(map(str, opens.tolist())), dtype=object),
        )
        won: dict[str, Any] = {}
        if _opt_bool(req, "win"):
            extra, won = self._analyse_win(req, top, ranked, extra)
        # With "win" the simulation is the search, and a search replies with what it has:
        # no check of the clock or of a stop after it (one that came during its last
        # round, which ended at its cap or race, must not throw the result away; the
        # listed moves are few, so writing them takes no time).
        top_moves = _moves_text(ranked, extra, None if won else self.check_time)
        return {
            "count": len(moves),
            "best_score": int(moves.scores.max()) if len(moves) else None,
            "moves": top_moves,
            "qwirkle_slots": slot_list,
            "unseen": len(unseen),
            **won,
        }

    def _analyse_win(
        self, req: dict[str, Any], top: int, ranked: MoveList, extra: npt.NDArray[Any]
    ) -> tuple[npt.NDArray[Any], dict[str, Any]]:
        """``analyse`` with ``"win": true``: each listed move simulated (as ``sim`` with
        these moves as the candidates), its ``win``, ``equity``, ``stderr`` and
        ``iterations`` added to its entry."""
        from .analysis.simulation import MAX_CANDIDATES, simulate

        if top > MAX_CANDIDATES:
            raise BadInputError(f'"win" simulates at most {MAX_CANDIDATES} moves: ask for a "top" of at most that')
        options = self._sim_options(req)
        watch = _StopWatch(self)
        if not len(ranked):
            return extra, {"stopped": False}
        game = self._need_game()
        results = simulate(game, candidates=[Action.place(ranked[i]) for i in range(len(ranked))], should_stop=watch, **options)
        by_move = {frozenset(r.action.move.placements): r for r in results if r.action.move is not None}
        texts = []
        for i in range(len(ranked)):
            r = by_move[frozenset(ranked[i].placements)]
            texts.append(
                f',"win":{dumps(r.win)},"equity":{dumps(r.equity)},"stderr":{dumps(r.stderr)},'
                f'"iterations":{r.iterations}'
            )
        return _json_objects(extra, np.array(texts, dtype=object)), watch.fields()

    def _sim_options(self, req: dict[str, Any]) -> dict[str, Any]:
        """simulate's keywords from a request: ``plies`` (absent: 2; ``"end"`` or null:
        to the end of each sampled game), ``iterations``, ``time_limit`` (seconds), ``seed``,
        ``threads``."""
        from .analysis.simulation import MAX_ITERATIONS, MAX_PLIES

        plies: int | None = 2
        if "plies" in req:
            to_end = req["plies"] is None or req["plies"] == "end"
            if not to_end and (type(req["plies"]) is not int or not 1 <= req["plies"] <= MAX_PLIES):
                raise BadInputError(f'"plies" must be an integer in 1..{MAX_PLIES}, or "end", got {brief(req["plies"])}')
            plies = None if to_end else req["plies"]
        return {
            "plies": plies,
            "iterations": _opt_int(req, "iterations", None, 1, MAX_ITERATIONS),
            "time_limit": _opt_seconds(req, "time_limit"),
            "seed": _opt_int(req, "seed", 0, 0, 2**64 - 1),
            "threads": _opt_int(req, "threads", None, 1, 1 << 16),
        }

    def _sim(self, req: dict[str, Any]) -> dict[str, Any]:
        """Monte Carlo simulation of the player to move's candidates (see
        ``qwirkle_core.analysis.simulation.simulate``): what they may know only."""
        from .analysis.simulation import DEFAULT_TOP, MAX_CANDIDATES, simulate

        game = self._need_game()
        top = _opt_int(req, "top", DEFAULT_TOP, 1, MAX_CANDIDATES)
        assert top is not None
        candidates = None
        if req.get("candidates") is not None:
            value = req["candidates"]
            if not isinstance(value, list) or not 1 <= len(value) <= MAX_CANDIDATES:
                raise BadInputError(f'"candidates" must be a list of 1 to {MAX_CANDIDATES} actions')
            candidates = [_read_action(v, f"candidates[{i}]") for i, v in enumerate(value)]
        options = self._sim_options(req)
        watch = _StopWatch(self)
        results = simulate(game, candidates=candidates, top=top, should_stop=watch, **options)
        return {
            "ranked": [_sim_entry(r) for r in results],
            **watch.fields(),
        }

    def _solve(self, req: dict[str, Any]) -> dict[str, Any]:
        """The exact endgame solver (two players, the bag empty: the other hand is then
        every tile the player to move cannot see, so the line may name its moves)."""
        from .analysis.endgame import solve_endgame

        game = self._need_game()
        limit = _opt_seconds(req, "time_limit")
        left = self._time_left()
        # The request's timeout as a time limit, so that it ends in the best of the
        # deepest search completed rather than of the first.
        by_timeout = left is not None and (limit is None or left < limit)
        watch = _StopWatch(self)
        result = solve_endgame(game, time_limit=left if by_timeout else limit, should_stop=watch)
        if by_timeout and not result.exact and watch.reason is None:
            watch.reason = "timeout"
        return {
            "action": result.action.text(),
            "spread": result.spread,
            "pv": [a.text() for a in result.pv],
            "nodes": result.nodes,
            "exact": result.exact,
            **watch.fields(),
        }

    def _best(self, req: dict[str, Any]) -> dict[str, Any]:
        from .bots import BOTS, make_bot, stop_when

        game = self._need_game()
        # Every field checked, whichever answer the request gets.
        name = req.get("bot")
        seed = _opt_int(req, "seed", 0, 0, 2**64 - 1)
        movetime = _opt_seconds(req, "movetime")
        if name is not None and (not isinstance(name, str) or name not in BOTS):
            raise BadInputError(f"unknown bot {brief(name)} (choose from {', '.join(BOTS)})")
        if name is None:
            return self._best_by_score(game)
        assert seed is not None
        if game.is_over:
            return {"action": None}
        # The search bots read the request's clock and a stop, and then answer with the
        # best they found so far, as "sim" and "solve" do.
        watch = _StopWatch(self)
        bot = stop_when(make_bot(name, seed=seed, seat=game.to_move, movetime=movetime), watch)
        action = bot.choose(game)
        if action.move is not None:
            return {"action": action.text(), "placements": action.move.to_json(), "score": action.move.score, **watch.fields()}
        return {"action": action.text(), "score": 0, **watch.fields()}

    def _selfplay(self, req: dict[str, Any]) -> dict[str, Any]:
        from .bots import BOT_IDS
        from .selfplay import SelfPlayArgumentError, check_movetime, parse_bots, selfplay

        games = _opt_int(req, "games", 10, 1, 2**63 - 1)
        players = _opt_int(req, "players", 2, 2, 6)
        seed = _opt_int(req, "seed", 0, 0, 2**64 - 1)
        movetime = _opt_seconds(req, "movetime")
        assert games is not None and players is not None and seed is not None
        try:  # self-play's own rules for its options
            bots = parse_bots(req.get("bots", "greedy"), players)
        except SelfPlayArgumentError as exc:
            raise BadInputError(f'"bots": {exc}') from None
        try:
            check_movetime(movetime, bots)
        except SelfPlayArgumentError as exc:
            raise BadInputError(f'"movetime": {exc}') from None
        if games > self.limits.max_games:
            raise BadInputError(f'"games" = {games} is more than this engine plays in one request ({self.limits.max_games}, --max-games)')
        self.check_time()
        if all(name in BOT_IDS for name in bots):
            result = selfplay(games, players, bots, seed=seed, progress=lambda done: self.check_time())
            scores, seconds = result.scores, result.seconds
        else:
            scores, seconds = self._selfplay_in_python(games, players, bots, seed, movetime)
        top = scores.max(axis=1, keepdims=True)
        at_top = scores == top
        alone = at_top.sum(axis=1, keepdims=True) == 1
        return {
            "games": games,
            "mean_scores": [round(float(x), 3) for x in scores.mean(axis=0)],
            "wins": (at_top & alone).sum(axis=0).tolist(),
            "shared_wins": (at_top & ~alone).sum(axis=0).tolist(),
            "games_per_second": round(games / seconds, 1) if seconds > 0 else None,
        }

    def _selfplay_in_python(
        self, games: int, players: int, bots: list[str], seed: int, movetime: float | None
    ) -> tuple[npt.NDArray[np.int64], float]:
        """Games with a bot that searches (``sim``, ``endgame``): played turn by turn in
        Python (game i from seed ``seed + i``, each bot seeded as ``make_bot`` seeds
        seat p of that game, as ``selfplay.selfplay`` does), here in this process rather
        than on the processes ``selfplay`` spreads them over, so that the clock and a
        stop are read between turns.  Final scores (games x players) and the seconds
        they took."""
        from .bots import make_bot, play, stop_when
        from .errors import RunawayGameError

        scores = np.zeros((games, players), np.int64)
        started = time.perf_counter()
        for i in range(games):
            game_seed = (seed + i) % 2**64
            # A bot's search reads the clock too, not only the turns between them.
            seats = [
                stop_when(make_bot(name, seed=game_seed, seat=p, movetime=movetime), _StopWatch(self))
                for p, name in enumerate(bots)
            ]
            try:
                scores[i] = play(Game(players=players, seed=game_seed), seats, before_turn=self.check_time).scores
            except RunawayGameError as exc:
                raise RunawayGameError(f"game {i} (seed {game_seed}): {exc}") from None
        return scores, time.perf_counter() - started

    def _stop(self, req: dict[str, Any]) -> dict[str, Any]:
        """Stop every request sent before this one.  The engine process reads requests
        on a thread of its own (see :func:`serve`), so a stop takes effect while an
        earlier request runs; its own reply comes in turn and says whether it stopped
        anything."""
        stopped, self._stopped_some = self._stopped_some, False
        return {"stopped": stopped}

    def _quit(self, req: dict[str, Any]) -> dict[str, Any]:
        self.done = True
        return {"bye": True}


def reply_line(reply: dict[str, Any]) -> str:
    """A reply as one line of JSON.  An ``id`` that cannot be written back (nested too
    deeply) is replaced by null and the reply by an error, so every line is JSON."""
    if not isinstance(reply, dict):
        raise QwirkleError(f"a reply is a dict (what EngineSession.handle returns), got {show(reply)}")
    try:
        raw = {key: value for key, value in reply.items() if isinstance(value, RawJSON)}
        if not raw:
            return dumps(reply)
        # The other members encoded as usual, then the pre-encoded ones as they are.
        head = dumps({key: value for key, value in reply.items() if key not in raw})[1:-1]
        members = [head] if head else []
        members += [f"{dumps(key)}:{value}" for key, value in raw.items()]
        return "{" + ",".join(members) + "}"
    except (ValueError, TypeError, RecursionError):
        return dumps({"id": None, "error": "the request's id cannot be echoed (nested too deeply)"})


_EOF = object()


class _LineReader:
    """Reads request lines on a thread of its own, so that a ``stop`` request (or end
    of input) is seen while another request runs.  A line longer than the limit is
    skipped up to its end and answered with an error; no line is ever held whole
    beyond the limit."""

    def __init__(self, stdin: IO[bytes], session: EngineSession) -> None:
        self.stdin = stdin
        self.session = session
        self.lines: queue.Queue[Any] = queue.Queue()
        self.thread = threading.Thread(target=self._run, name="qwirkle-engine-reader", daemon=True)

    def _run(self) -> None:
        limit = self.session.limits.max_line_bytes
        seq = 0
        try:
            while True:
                raw = self.stdin.readline(limit + 1)
                if not raw:
                    break
                if len(raw) > limit and not raw.endswith(b"\n"):
                    while raw and not raw.endswith(b"\n"):  # skip the rest of the line
                        raw = self.stdin.readline(1 << 16)
                    self.lines.put(ValueError(f"request line longer than {limit} bytes (--max-line-bytes)"))
                    continue
                line = raw.strip()
                if not line:
                    continue
                seq += 1
                # Parsed only where it may be a stop: its text holds "stop", or an escape
                # (JSON may spell it "\u0073top").
                if (b'"stop"' in line or b"\\" in line) and _is_stop(line):
                    self.session.stop_before = seq
                self.lines.put((seq, line))
        except (OSError, ValueError):  # stdin closed or unreadable: as end of input
            pass
        finally:
            self.lines.put(_EOF)

    def get(self) -> Any:
        while True:  # wake up now and then, so that signals are handled at once
            try:
                return self.lines.get(timeout=0.2)
            except queue.Empty:
                continue


def _is_stop(line: bytes) -> bool:
    try:
        request = loads(line)
    except QwirkleError:
        return False
    return isinstance(request, dict) and request.get("cmd") == "stop"


def serve(stdin: IO[bytes], stdout: IO[str], limits: Limits | None = None) -> int:
    """Answer request lines until ``quit`` or end of input; returns the exit status
    (0).  Requests are read on a second thread, so ``{"cmd": "stop"}`` stops the
    requests read before it, the one running and those still waiting (a search replies
    with its best so far, marked ``"stopped": true``, any other request with an error;
    then the stop gets its own reply).  The kernels release the GIL, so the reader sees a stop at once; a search
    asks between kernel calls."""
    session = EngineSession(limits)
    reader = _LineReader(stdin, session)
    reader.thread.start()
    while True:
        item = reader.get()
        if item is _EOF:
            break
        if isinstance(item, ValueError):
            reply: dict[str, Any] = {"id": None, "error": str(item)}
        else:
            seq, line = item
            reply = session._answer_line(line, seq)
        stdout.write(reply_line(reply) + "\n")
        stdout.flush()
        if session.done:
            break
    return 0


class _Terminated(BaseException):
    """SIGTERM, turned into an exception so that the engine ends as on SIGINT."""


def _on_sigterm(signum: int, frame: Any) -> None:
    raise _Terminated


def run_stdio(limits: Limits | None = None) -> int:
    """The engine on stdin/stdout.  Exit status: 0 at ``quit`` or end of input, 130
    on SIGINT, 143 on SIGTERM, 1 when stdout goes away; never a traceback."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _on_sigterm)
    if sys.stdin is None:  # a closed stdin is an empty one: nothing to answer
        return 0
    try:
        return serve(sys.stdin.buffer, sys.stdout, limits)
    except KeyboardInterrupt:
        return 130
    except _Terminated:
        return 143
    except (BrokenPipeError, OSError):
        return 1
