"""Pictures of a board: SVG, plain text, ANSI colour, and the ``render`` command."""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from qwirkle_core import ALL_TILES, Board, Color, Move, Shape, Tile, parse_tiles
from qwirkle_core.cli.render import register
from qwirkle_core.render import (
    ANSI_COLORS,
    ANSI_SYMBOLS,
    SVG_COLORS,
    board_ansi,
    board_svg,
    board_text,
    strip_ansi,
)

SVG_NS = "{http://www.w3.org/2000/svg}"
ROOT = Path(__file__).resolve().parent.parent


# ------------------------------------------------------------------ helpers
def play_record(seed: int, n_turns: int, players: int = 2) -> dict[str, Any]:
    """A qwirkle-record/1 game of ``n_turns`` turns, each move taken from
    ``board.legal_moves(hand)`` (best or random); a player with no move exchanges."""
    rng = random.Random(seed)
    bag = [t for t in ALL_TILES for _ in range(3)]
    rng.shuffle(bag)
    hands = [[bag.pop() for _ in range(6)] for _ in range(players)]
    board = Board()
    turns: list[dict[str, Any]] = []
    scores = [0] * players
    for number in range(n_turns):
        player = number % players
        hand = hands[player]
        held = [t.as_json() for t in hand]
        moves = board.legal_moves(hand)
        if not moves:
            out = hand[:]
            hand.clear()
            hand.extend(bag.pop() for _ in out)
            bag.extend(out)
            turns.append(
                {"player": player, "hand": held, "action": "exchange", "tiles": [t.as_json() for t in out]}
            )
            continue
        chosen = moves.best() if rng.random() < 0.6 else moves[rng.randrange(len(moves))]
        move = board.push(chosen)  # type: ignore[arg-type]
        for t in move.tiles:
            hand.remove(t)
        drawn = [bag.pop() for _ in range(min(6 - len(hand), len(bag)))]
        hand.extend(drawn)
        assert move.score is not None
        scores[player] += move.score
        turns.append(
            {
                "player": player,
                "hand": held,
                "action": "place",
                "placements": move.to_json(),
                "score": move.score,
                "drawn": [t.as_json() for t in drawn],
            }
        )
    return {"format": "qwirkle-record/1", "players": players, "seed": seed, "turns": turns, "scores": scores}


def replay(record: dict[str, Any], n_turns: int | None = None) -> Board:
    board = Board()
    for turn in record["turns"][:n_turns]:
        if turn["action"] == "place":
            board.push(Move.from_json(turn["placements"]))
    return board


@pytest.fixture(scope="module")
def record() -> dict[str, Any]:
    return play_record(seed=3, n_turns=30)


@pytest.fixture(scope="module")
def mid_game(record: dict[str, Any]) -> Board:
    return replay(record)


def all_kinds_board() -> Board:
    """Row = colour, column = shape: every row a colour line, every column a shape line."""
    return Board.from_placements([(int(t.color), int(t.shape), t) for t in ALL_TILES])


def parse_svg(svg: str) -> ET.Element:
    root = ET.fromstring(svg)
    assert root.tag == SVG_NS + "svg"
    return root


def with_class(root: ET.Element, css_class: str) -> list[ET.Element]:
    return [e for e in root.iter() if e.get("class") == css_class]


def tile_cells(root: ET.Element, css_class: str = "tile") -> set[tuple[int, int, str]]:
    return {
        (int(e.get("data-row", "")), int(e.get("data-col", "")), e.get("data-tile", ""))
        for e in with_class(root, css_class)
    }


def board_cells(board: Board) -> set[tuple[int, int, str]]:
    return {(r, c, t.text()) for r, c, t in board.placements()}


# ---------------------------------------------------------------------- SVG
def test_svg_has_one_tile_element_per_tile(mid_game: Board) -> None:
    svg = board_svg(mid_game)
    assert svg.startswith('<svg xmlns="http://www.w3.org/2000/svg"')
    root = parse_svg(svg)
    tiles = with_class(root, "tile")
    assert len(tiles) == len(mid_game) > 20
    assert tile_cells(root) == board_cells(mid_game)
    assert float(root.get("width", "0")) > 0 and root.get("viewBox")


def test_every_colour_and_shape_is_drawn() -> None:
    board = all_kinds_board()
    root = parse_svg(board_svg(board))
    drawings: dict[Shape, set[str]] = {s: set() for s in Shape}
    for element in with_class(root, "tile"):
        tile = Tile.from_text(element.get("data-tile", ""))
        shape_group = element.findall(SVG_NS + "g")[0]  # the tile's face, after its title and square
        markup = ET.tostring(shape_group, encoding="unicode")
        assert SVG_COLORS[tile.color] in markup
        # Colours are the only difference between tiles of one shape.
        drawings[tile.shape].add(markup.replace(SVG_COLORS[tile.color], "COLOUR"))
    assert all(len(d) == 1 for d in drawings.values())
    assert len({d.pop() for d in drawings.values()}) == 6  # six different shapes

    def outline_points(shape: Shape) -> int:
        element = next(
            e for e in with_class(root, "tile") if e.get("data-tile", "").endswith("csdlxb"[shape])
        )
        path = element.find(f"{SVG_NS}g/{SVG_NS}path")
        assert path is not None
        return len(re.findall(r"[ML]", path.get("d", "")))

    assert outline_points(Shape.DIAMOND) == 4
    assert outline_points(Shape.STAR4) == 8
    assert outline_points(Shape.STAR8) == 16
    clover = next(e for e in with_class(root, "tile") if e.get("data-tile") == "Gl")
    assert len(clover.findall(f".//{SVG_NS}circle")) == 5
    assert len(set(SVG_COLORS.values())) == 6 and set(SVG_COLORS) == set(Color)


def test_highlight_of_a_played_move(mid_game: Board) -> None:
    last = mid_game.peek()
    root = parse_svg(board_svg(mid_game, highlight=last))
    rings = with_class(root, "highlight-cell")
    assert {(int(e.get("data-row", "")), int(e.get("data-col", ""))) for e in rings} == {
        (r, c) for r, c, _ in last.placements
    }
    assert not with_class(root, "proposed-tile")
    assert len(with_class(root, "tile")) == len(mid_game)


def test_highlight_of_a_proposed_move_draws_it_faded() -> None:
    board = Board("Rc@0,0 Rs@0,1")
    proposal = board.legal_moves(parse_tiles("Rd Rl")).best()
    assert proposal is not None
    for highlight in (proposal, list(proposal.placements)):
        root = parse_svg(board_svg(board, highlight=highlight))
        assert len(with_class(root, "tile")) == 2
        assert tile_cells(root, "proposed-tile") == {(r, c, t.text()) for r, c, t in proposal.placements}
        assert len(with_class(root, "highlight-cell")) == len(proposal)
    # With the legal cells shown, those under the proposed tiles are left unmarked.
    root = parse_svg(board_svg(board, highlight=proposal, show_legal_cells=True))
    marked = {
        (int(e.get("data-row", "")), int(e.get("data-col", ""))) for e in with_class(root, "legal-cell")
    }
    covered = {(r, c) for r, c, _ in proposal.placements}
    assert marked and not marked & covered
    assert len(marked) + len(covered) == len(board.legal_tile_masks().coords)


def test_highlight_that_contradicts_the_board_is_refused() -> None:
    board = Board("Rc@0,0 Rs@0,1")
    with pytest.raises(ValueError, match=r"\(0, 1\)"):
        board_svg(board, highlight=Move.from_text("Bs@0,1"))


def test_legal_cells_are_marked_and_dead_cells_told_apart(mid_game: Board) -> None:
    coords, masks = mid_game.legal_tile_masks()
    root = parse_svg(board_svg(mid_game, show_legal_cells=True))
    legal = with_class(root, "legal-cell")
    dead = with_class(root, "dead-cell")
    n_dead = int((masks == 0).sum())
    assert len(dead) == n_dead > 0
    assert len(legal) == len(coords) - n_dead > 0
    marked = {(int(e.get("data-row", "")), int(e.get("data-col", ""))) for e in legal + dead}
    assert marked == {(int(r), int(c)) for r, c in coords.tolist()}
    by_cell = {(int(r), int(c)): int(m) for (r, c), m in zip(coords.tolist(), masks.tolist())}
    for element in legal:
        cell = (int(element.get("data-row", "")), int(element.get("data-col", "")))
        count = element.find(SVG_NS + "text")
        assert count is not None and count.text == str(by_cell[cell].bit_count())
    assert len(with_class(root, "tile")) == len(mid_game)
    assert not with_class(parse_svg(board_svg(mid_game)), "legal-cell")


def test_coordinates_on_the_edges(mid_game: Board) -> None:
    bounds = mid_game.bounds()
    assert bounds is not None
    r0, r1, c0, c1 = bounds
    root = parse_svg(board_svg(mid_game, show_legal_cells=True))
    (labels,) = with_class(root, "coordinates")
    texts = [t.text for t in labels]
    # One row/column beyond the tiles on each side holds legal cells.
    for r in range(r0 - 1, r1 + 2):
        assert texts.count(str(r)) >= 2  # left and right (and maybe as a column too)
    for c in range(c0 - 1, c1 + 2):
        assert texts.count(str(c)) >= 2  # top and bottom
    assert not with_class(parse_svg(board_svg(mid_game, coordinates=False)), "coordinates")


def test_far_from_the_origin_and_empty_boards() -> None:
    far = Board("Rc@-1000000,2000000 Rs@-1000000,2000001 Rd@-999999,2000001")
    root = parse_svg(board_svg(far, show_legal_cells=True, cell_size=20))
    assert tile_cells(root) == board_cells(far)
    (labels,) = with_class(root, "coordinates")
    assert "-1000000" in [t.text for t in labels]

    empty = parse_svg(board_svg(Board()))
    assert not with_class(empty, "tile")
    opening = parse_svg(board_svg(Board(), show_legal_cells=True))
    (cell,) = with_class(opening, "legal-cell")
    assert (cell.get("data-row"), cell.get("data-col")) == ("0", "0")
    assert cell.find(SVG_NS + "text") is not None and cell.find(SVG_NS + "text").text == "36"  # type: ignore[union-attr]


def test_hand_is_drawn_under_the_board() -> None:
    hand = parse_tiles("Rc Rc Bx Pb")
    root = parse_svg(board_svg(Board("Yc@0,0"), hand=hand))
    assert [e.get("data-tile") for e in with_class(root, "hand-tile")] == ["Rc", "Rc", "Bx", "Pb"]
    assert len(with_class(root, "tile")) == 1


def test_bad_cell_size_is_refused() -> None:
    with pytest.raises(ValueError):
        board_svg(Board("Rc@0,0"), cell_size=0)


def test_board_methods_delegate(mid_game: Board) -> None:
    assert mid_game._repr_svg_() == board_svg(mid_game)
    assert mid_game.svg(cell_size=30, show_legal_cells=True) == board_svg(
        mid_game, cell_size=30, show_legal_cells=True
    )
    assert mid_game.ansi() == board_ansi(mid_game)
    assert str(mid_game) == board_text(mid_game)


# ------------------------------------------------------------ text and ANSI
CELL = 3  # both grids give every cell three columns


def grid_cell(line: str, label_width: int, j: int) -> str:
    return line[label_width + j * CELL : label_width + (j + 1) * CELL]


def test_text_view_shows_every_tile_where_it_is(mid_game: Board) -> None:
    text = board_text(mid_game)
    bounds = mid_game.bounds()
    assert bounds is not None
    r0, r1, c0, c1 = bounds
    lines = text.splitlines()
    assert len(lines) == r1 - r0 + 2
    label_width = max(len(str(r0)), len(str(r1)))
    header = lines[0]
    for j in range(c1 - c0 + 1):
        assert grid_cell(header, label_width, j).strip() == str(c0 + j)
    on_board = {(r, c): t for r, c, t in mid_game.placements()}
    for i, line in enumerate(lines[1:]):
        assert line[:label_width].strip() == str(r0 + i)
        for j in range(c1 - c0 + 1):
            tile = on_board.get((r0 + i, c0 + j))
            assert grid_cell(line, label_width, j) == (f" {tile.text()}" if tile else "  .")
    assert board_text(Board()) == "(empty board)"


def test_text_view_far_from_the_origin_labels_some_columns() -> None:
    board = Board("Rc@5,-1000000 Rs@5,-999999 Rd@5,-999998 Rl@5,-999997")
    header, row = board_text(board).splitlines()
    # No room for every number: every third column is labelled, from its cell's start.
    assert "-999999" not in header
    assert header.index("-1000000") == 1 and header.index("-999997") == 1 + 3 * CELL
    assert row.split() == ["5", "Rc", "Rs", "Rd", "Rl"]


def test_ansi_view_shows_every_tile_in_its_colour(mid_game: Board) -> None:
    bounds = mid_game.bounds()
    assert bounds is not None
    r0, r1, c0, c1 = bounds
    label_width = max(len(str(r0)), len(str(r1)))
    lines = board_ansi(mid_game).splitlines()
    assert len(lines) == r1 - r0 + 2
    on_board = {(r, c): t for r, c, t in mid_game.placements()}
    for i, line in enumerate(lines[1:]):
        cells = line[label_width:].split("\x1b[0m")[:-1]  # every cell ends with a reset
        assert len(cells) == c1 - c0 + 1
        for j, cell in enumerate(cells):
            tile = on_board.get((r0 + i, c0 + j))
            if tile is None:
                assert strip_ansi(cell) == " · "
            else:
                assert strip_ansi(cell) == f" {ANSI_SYMBOLS[tile.shape]} "
                assert f"38;5;{ANSI_COLORS[tile.color]}m" in cell
    plain = strip_ansi(board_ansi(mid_game))
    assert sum(plain.count(s) for s in ANSI_SYMBOLS.values()) == len(mid_game)
    assert board_ansi(Board()) == "(empty board)"


def test_ansi_highlight(mid_game: Board) -> None:
    last = mid_game.peek()
    view = board_ansi(mid_game, highlight=last)
    assert view.count("48;5;242") == len(last)
    assert board_ansi(mid_game).count("48;5;242") == 0


# ----------------------------------------------------------- render command
def run_render(
    argv: list[str], stdin: bytes, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> tuple[int, str, str]:
    parser = argparse.ArgumentParser(prog="qwirkle_core")
    register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["render", *argv])
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
    status = args.handler(args)
    out, err = capsys.readouterr()
    return status, out, err


def test_render_position(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], mid_game: Board
) -> None:
    position = {"board": mid_game.to_json(), "hand": [[0, 0], [4, 5]]}
    status, out, err = run_render([], json.dumps(position).encode(), monkeypatch, capsys)
    assert (status, err) == (0, "")
    root = parse_svg(out)
    assert tile_cells(root) == board_cells(mid_game)
    assert [e.get("data-tile") for e in with_class(root, "hand-tile")] == ["Rc", "Bb"]

    status, out, _ = run_render(["--format", "text"], json.dumps(position).encode(), monkeypatch, capsys)
    assert status == 0 and out == board_text(mid_game) + "\nhand: Rc Bb\n"
    status, out, _ = run_render(
        ["--highlight", "Rc@100,100", "--legal"], json.dumps({"board": []}).encode(), monkeypatch, capsys
    )
    assert status == 0 and len(with_class(parse_svg(out), "proposed-tile")) == 1


def test_render_record(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    record: dict[str, Any],
    tmp_path: Path,
) -> None:
    data = json.dumps(record).encode()
    status, out, _ = run_render(["--highlight-last", "--legal"], data, monkeypatch, capsys)
    assert status == 0
    root = parse_svg(out)
    final = replay(record)
    assert tile_cells(root) == board_cells(final)
    last = next(t for t in reversed(record["turns"]) if t["action"] == "place")
    assert {
        (int(e.get("data-row", "")), int(e.get("data-col", ""))) for e in with_class(root, "highlight-cell")
    } == {(p[0], p[1]) for p in last["placements"]}
    assert with_class(root, "legal-cell")

    for n in (0, 1, 7):
        output = tmp_path / f"turn{n}.svg"
        status, out, _ = run_render(["--turn", str(n), "--output", str(output)], data, monkeypatch, capsys)
        assert (status, out) == (0, "")
        assert tile_cells(parse_svg(output.read_text(encoding="utf-8"))) == board_cells(replay(record, n))
        umask = os.umask(0)
        os.umask(umask)
        assert output.stat().st_mode & 0o777 == 0o666 & ~umask  # a picture, not a private temporary file

    input_file = tmp_path / "games.jsonl"
    input_file.write_text(json.dumps(play_record(1, 4)) + "\n" + json.dumps(record) + "\n")
    status, out, _ = run_render(
        ["--input", str(input_file), "--game", "1", "--format", "ansi"], b"", monkeypatch, capsys
    )
    assert status == 0 and out == board_ansi(final) + "\n"


def test_record_with_exchanges_replays(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    record = play_record(seed=11, n_turns=4)
    record["turns"].insert(2, {"player": 0, "hand": [], "action": "exchange", "tiles": [[0, 0]]})
    record["turns"].insert(3, {"player": 1, "action": "pass"})
    status, out, _ = run_render(["--format", "text"], json.dumps(record).encode(), monkeypatch, capsys)
    assert status == 0 and out == board_text(replay(record)) + "\n"


def bad_inputs() -> list[tuple[list[str], bytes]]:
    record = play_record(seed=2, n_turns=3)
    illegal = json.loads(json.dumps(record))
    illegal["turns"][1]["placements"] = [[0, 0, 1, 1]]  # on a taken cell
    return [
        ([], b""),
        ([], b"not json"),
        ([], b"\xff\xfe"),
        ([], b"[" * 100_000 + b"]" * 100_000),
        ([], b"[1, 2]"),
        ([], b'{"nothing": 1}'),
        ([], b'{"board": [[0, 0, 0, 0], [0, 1, 1, 1]]}'),  # red circle beside orange square
        ([], b'{"board": [[0, 0, 9, 0]]}'),
        ([], b'{"board": [[0, 0, 0, 0]], "hand": [[0, 0], [0, 0], [0, 0]]}'),  # 4 red circles
        ([], json.dumps(illegal).encode()),
        ([], json.dumps({**record, "format": "qwirkle-record/9"}).encode()),
        ([], json.dumps({**record, "turns": [{"action": "dance"}]}).encode()),
        ([], json.dumps({**record, "turns": 5}).encode()),
        (["--turn", "99"], json.dumps(record).encode()),
        (["--turn", "1"], b'{"board": []}'),
        (["--highlight-last"], b'{"board": [[0, 0, 0, 0]]}'),
        (["--highlight", "Rc@0,0"], b'{"board": [[0, 0, 1, 1]]}'),
        (["--highlight", "nonsense"], b'{"board": []}'),
        (["--format", "text", "--legal"], b'{"board": []}'),
        (["--format", "text", "--highlight-last"], json.dumps(record).encode()),
        (["--input", "/nonexistent/position.json"], b""),
        (["--output", "/nonexistent/dir/out.svg"], b'{"board": []}'),
        ([], b'{"board": []}\n{"board": []}\n'),
        (["--game", "5"], b'{"board": []}\n{"board": []}\n'),
        (["--cell-size", "-3"], b'{"board": []}'),
    ]


@pytest.mark.parametrize("argv", [[], ["--game", "0"]])
def test_a_document_over_many_lines_is_judged_whole(
    argv: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A pretty-printed position reads as one document (not as JSON lines, whose first
    line would be "{"), and a syntax error in it is named as such."""
    position = {"board": [[0, 0, 0, 0], [0, 1, 0, 1]], "hand": [[0, 2]]}
    status, out, _ = run_render(["--format", "text", *argv], json.dumps(position, indent=2).encode(), monkeypatch, capsys)
    assert status == 0 and out
    broken = b'{\n  "board": [[0, 0, 0, 0] [0, 1, 0, 1]],\n  "hand": []\n}\n'  # a comma missing
    status, _, err = run_render(["--format", "text", *argv], broken, monkeypatch, capsys)
    assert status == 2 and err.count("\n") == 1
    assert "not valid JSON" in err and "line 2 column" in err, err


def test_a_json_lines_file_with_a_damaged_first_line_renders_the_line_chosen(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    text = b'{"board": [[0, 0, 0, 0]\n{"board": [[0, 0, 0, 0]], "hand": []}\n'
    status, out, err = run_render(["--format", "text", "--game", "1"], text, monkeypatch, capsys)
    assert status == 0 and out, err


@pytest.mark.parametrize(("argv", "stdin"), bad_inputs())
def test_bad_input_exits_2_with_one_line(
    argv: list[str], stdin: bytes, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = run_render(argv, stdin, monkeypatch, capsys)
    assert status == 2
    assert out == ""
    assert err.count("\n") == 1 and err.endswith("\n") and "Traceback" not in err
    assert err.startswith("qwirkle-core: error: ")


@pytest.mark.process
def test_python_dash_m_render(tmp_path: Path, record: dict[str, Any]) -> None:
    """The command as users run it, through the package's command line."""
    done = subprocess.run(
        [sys.executable, "-m", "qwirkle_core", "render", "--highlight-last"],
        input=json.dumps(record).encode(),
        capture_output=True,
        timeout=120,
        cwd=ROOT,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert tile_cells(parse_svg(done.stdout.decode())) == board_cells(replay(record))
    bad = subprocess.run(
        [sys.executable, "-m", "qwirkle_core", "render"],
        input=b"{",
        capture_output=True,
        timeout=120,
        cwd=ROOT,
        check=False,
    )
    assert bad.returncode == 2 and bad.stderr.count(b"\n") == 1 and b"Traceback" not in bad.stderr


def test_the_module_s_own_entry_keeps_the_one_line_contract(capsys: pytest.CaptureFixture[str]) -> None:
    from qwirkle_core.cli import render as render_command

    with pytest.raises(SystemExit) as ended:
        render_command.main(["--bogus"])
    assert ended.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unrecognized arguments: --bogus" in err
