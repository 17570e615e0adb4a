"""The JSON command line, as other programs use it: in a subprocess."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from qwirkle_core import Board, parse_tiles

# Every test here starts the command line in a fresh process: left out by .ci/quick.sh.
pytestmark = pytest.mark.process


def run(args: list[str], stdin: bytes | str) -> subprocess.CompletedProcess[bytes]:
    data = stdin.encode() if isinstance(stdin, str) else stdin
    return subprocess.run(
        [sys.executable, "-m", "qwirkle_core", *args], check=False, input=data, capture_output=True, timeout=120
    )


def test_moves_answers_in_the_callers_coordinates() -> None:
    position = {"board": [[500, -7, 0, 0], [500, -6, 0, 1]], "hand": [[0, 2], [4, 0]]}
    proc = run(["moves"], json.dumps(position))
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)
    board = Board.from_json(position["board"])
    want = board.legal_moves(parse_tiles("Rd Bc")).to_json()
    assert got == {"moves": want}
    assert {"placements": [[500, -5, 0, 2]], "score": 3} in got["moves"]


def test_jsonl_answers_every_line_in_order() -> None:
    lines = [
        {"board": [], "hand": [[0, 0], [0, 1]]},
        "not json",
        {"board": [[0, 0, 0, 0]], "hand": [[0, 1]]},
        {"board": [[0, 0, 0, 0]], "hand": [[0, 1]] * 7},
    ]
    text = "\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n"
    proc = run(["moves", "--jsonl"], text)
    assert proc.returncode == 2
    out = [json.loads(line) for line in proc.stdout.decode().splitlines()]
    assert len(out) == 4
    assert len(out[0]["moves"]) == 4 and "error" in out[1] and len(out[2]["moves"]) == 4
    assert "at most 6" in out[3]["error"]


def test_jsonl_all_good_exits_0() -> None:
    text = json.dumps({"board": [], "hand": [[1, 1]]}) + "\n"
    proc = run(["moves", "--jsonl"], text * 3)
    assert proc.returncode == 0 and len(proc.stdout.splitlines()) == 3


BAD_INPUTS = {
    "not json": b"{board",
    "not utf-8": b"\xff\xfe{}",
    "not an object": b"[1, 2]",
    "missing hand": b'{"board": []}',
    "boolean as integer": b'{"board": [[0, 0, true, 0]], "hand": []}',
    "float as integer": b'{"board": [[0, 0.0, 0, 0]], "hand": []}',
    "colour out of range": b'{"board": [[0, 0, 6, 0]], "hand": []}',
    "coordinate out of range": b'{"board": [[0, 99999999999999999999, 0, 0]], "hand": []}',
    "short placement": b'{"board": [[0, 0, 0]], "hand": []}',
    "hand of seven": b'{"board": [], "hand": [[0,0],[0,1],[0,2],[0,3],[0,4],[0,5],[1,0]]}',
    "invalid line": b'{"board": [[0, 0, 0, 0], [0, 1, 1, 1]], "hand": []}',
    "two tiles on a cell": b'{"board": [[0, 0, 0, 0], [0, 0, 0, 1]], "hand": []}',
    "not connected": b'{"board": [[0, 0, 0, 0], [9, 9, 0, 1]], "hand": []}',
    "four copies": b'{"board": [[0, 0, 0, 0]], "hand": [[0, 0], [0, 0], [0, 0]]}',
    "deep nesting": b"[" * 100_000,
    "NaN": b'{"board": [[NaN, 0, 0, 0]], "hand": []}',
    "empty input": b"",
}


# Every bad input is tried in-process below (test_in_process_bad_input); in a fresh
# process (about 2 s each, mostly loading the kernels), a few that reach different
# layers: the JSON parser's depth, empty input, a value out of range, a broken rule.
IN_A_PROCESS = ["deep nesting", "empty input", "coordinate out of range", "invalid line"]


@pytest.mark.parametrize("name", IN_A_PROCESS)
def test_bad_input_exits_2_with_one_line(name: str) -> None:
    proc = run(["moves"], BAD_INPUTS[name])
    assert proc.returncode == 2, (name, proc.stdout, proc.stderr)
    err = proc.stderr.decode()
    assert err.count("\n") == 1 and "Traceback" not in err and err.startswith("qwirkle-core: error: "), err
    assert proc.stdout == b""


def test_help_lists_the_commands() -> None:
    proc = run(["--help"], b"")
    assert proc.returncode == 0 and b"moves" in proc.stdout


@pytest.mark.parametrize("args", [[], ["bogus"], ["moves", "--nope"]])
def test_usage_errors_exit_2_with_one_line(args: list[str]) -> None:
    proc = run(args, b"")
    assert proc.returncode == 2 and proc.stderr.decode().count("\n") == 1


# --- the same contract in-process (fast, and measured by coverage) ---------------
def _main(monkeypatch: pytest.MonkeyPatch, args: list[str], data: bytes) -> int:
    import io

    from qwirkle_core import cli

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    return cli.main(args)


def test_in_process_moves_and_jsonl(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    position = json.dumps({"board": [[0, 0, 0, 0]], "hand": [[0, 1]]})
    assert _main(monkeypatch, ["moves"], position.encode()) == 0
    assert len(json.loads(capsys.readouterr().out)["moves"]) == 4
    assert _main(monkeypatch, ["moves", "--jsonl"], (position + "\n[]\n").encode()) == 2
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2 and "error" in json.loads(lines[1])


@pytest.mark.parametrize("name", sorted(BAD_INPUTS))
def test_in_process_bad_input(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    assert _main(monkeypatch, ["moves"], BAD_INPUTS[name]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.startswith("qwirkle-core: error: ") and captured.err.count("\n") == 1


def test_in_process_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    from qwirkle_core import cli

    with pytest.raises(SystemExit) as exc:
        cli.main([])
    assert exc.value.code == 2 and capsys.readouterr().err.count("\n") == 1


def test_version_and_program_name() -> None:
    from qwirkle_core import __version__
    from qwirkle_core.cli import program_name

    proc = subprocess.run([sys.executable, "-m", "qwirkle_core", "--version"], capture_output=True, text=True, check=False)
    assert proc.returncode == 0 and proc.stdout.strip() == f"python -m qwirkle_core {__version__}"
    assert program_name("/usr/local/bin/qwirkle-core") == "qwirkle-core"
    assert program_name("/x/qwirkle_core/__main__.py") == "python -m qwirkle_core"


def test_every_command_writes_one_error_prefix() -> None:
    """moves, selfplay, render and a usage error all start with the same prefix."""
    runs = [
        (["moves"], b"[]"),
        (["selfplay", "--games", "0"], b""),
        (["render"], b"{"),
        (["moves", "--no-such-option"], b""),
    ]
    for args, stdin in runs:
        proc = subprocess.run(
            [sys.executable, "-m", "qwirkle_core", *args], input=stdin, capture_output=True, check=False
        )
        err = proc.stderr.decode()
        assert proc.returncode == 2 and err.startswith("qwirkle-core: error: ") and err.count("\n") == 1, (args, err)
