"""Every long command talks: a tqdm bar on a terminal, a plain progress line every few
seconds on stderr anywhere else (qwirkle_core._progress), and stdout only the results."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from qwirkle_core._progress import INTERVAL_SETTING, Progress, pick_mode
from qwirkle_core.warmup import GROUPS

ROOT = Path(__file__).resolve().parent.parent
LINE = re.compile(r"^(?P<desc>[\w:. -]+): (?P<done>\d+)/(?P<total>\d+) (?P<unit>[\w-]+) \((?P<pct>\d+) %\), ")


class Lines(io.StringIO):
    """A stream that is not a terminal and says when a line has arrived."""

    def __init__(self, tty: bool = False) -> None:
        super().__init__()
        self.tty = tty
        self.arrived = threading.Event()

    def isatty(self) -> bool:
        return self.tty

    def write(self, text: str) -> int:
        n = super().write(text)
        self.arrived.set()
        return n

    def lines(self) -> list[str]:
        return [line for line in self.getvalue().splitlines() if line.strip()]


def wait_for_lines(stream: Lines, count: int) -> None:
    """Until ``count`` lines have arrived (a generous deadline: a hang fails, a slow
    machine does not)."""
    for _ in range(2000):
        if len(stream.lines()) >= count:
            return
        stream.arrived.clear()
        stream.arrived.wait(0.05)


def test_off_a_terminal_a_line_arrives_every_interval_whether_or_not_the_count_moves() -> None:
    stream = Lines()
    bar = Progress("job", total=10, unit="games", stream=stream, interval=0.02)
    assert bar.mode == "lines"
    wait_for_lines(stream, 2)  # nothing done yet: it still says so, and how long it has waited
    bar.set(4)
    bar.status("chunk 1")
    before = len(stream.lines())
    wait_for_lines(stream, before + 2)
    bar.close()
    bar.close()  # twice is fine
    lines = stream.lines()
    assert len(lines) >= 5
    assert all(LINE.match(line) for line in lines), lines
    assert lines[0].startswith("job: 0/10 games (0 %), ")
    assert lines[-1].startswith("job: 4/10 games (40 %), ") and lines[-1].endswith("chunk 1")
    closed = len(lines)
    stream.arrived.clear()
    assert not stream.arrived.wait(0.1) and len(stream.lines()) == closed  # closed: no more lines


def test_the_last_line_is_left_out_after_a_failure_and_counts_can_be_unknown() -> None:
    stream = Lines()
    with pytest.raises(KeyError), Progress("job", stream=stream, interval=60) as bar:
        bar.update(3)
        raise KeyError("x")
    assert stream.lines() == []  # the error says it all
    with Progress("job", unit="turns", stream=stream, interval=60) as bar:
        bar.update(3)
        bar.update(2)
    assert stream.lines()[-1].startswith("job: 5 turns, ")


def test_on_a_terminal_a_tqdm_bar_and_results_on_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    stream = Lines(tty=True)
    assert pick_mode("auto", stream) == "bar" and pick_mode("auto", Lines()) == "lines"
    assert pick_mode("always", Lines()) == "bar" and pick_mode("never", stream) == "off"
    with Progress("job", total=50, unit="games", stream=stream) as bar:
        bar.set(10)
        bar.print("a result")
        bar.write("a note")
        bar.set(50)
    assert capsys.readouterr().out == "a result\n"
    text = stream.getvalue()
    assert "50/50" in text and "a note" in text
    off = Lines()
    with Progress("job", total=5, stream=off, mode="off") as bar:
        bar.set(5)
    assert off.getvalue() == ""


def progress_lines(stderr: str, desc: str) -> list[re.Match[str]]:
    return [m for m in map(LINE.match, stderr.splitlines()) if m and m["desc"] == desc]


@pytest.mark.process
def test_check_and_selfplay_out_talk_on_a_pipe(tmp_path: Path) -> None:
    """``selfplay --out`` and ``check`` with stderr to a pipe (not a terminal): progress
    lines on stderr, as often as $QWIRKLE_CORE_PROGRESS_INTERVAL says, the count never
    going back, the last one at 100 %; stdout holds only the results."""
    pytest.importorskip("pyarrow", reason="datasets need the scale extra")
    env = dict(os.environ, **{INTERVAL_SETTING: "0.2"})
    data = str(tmp_path / "ds")
    command = [sys.executable, "-m", "qwirkle_core"]
    runs = {
        "selfplay": [*command, "selfplay", "--games", "600", "--chunk-size", "200", "--out", data],
        "check": [*command, "check", data],
    }
    for name, argv in runs.items():
        proc = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=600, check=False)
        assert proc.returncode == 0, proc.stderr
        found = progress_lines(proc.stderr, f"qwirkle-core: {name}")
        assert found, proc.stderr
        counts = [int(m["done"]) for m in found]
        assert counts == sorted(counts) and counts[-1] == 600 and found[-1]["pct"] == "100"
        assert {m["total"] for m in found} == {"600"} and {m["unit"] for m in found} == {"games"}
        assert "qwirkle-core:" not in proc.stdout  # stdout: the results only
    assert "every game replays" in proc.stdout


@pytest.mark.process
def test_warmup_talks_on_a_pipe() -> None:
    env = dict(os.environ, **{INTERVAL_SETTING: "0.2"})
    proc = subprocess.run(
        [sys.executable, "-m", "qwirkle_core", "warmup", "--jobs", "2"],
        capture_output=True, text=True, env=env, timeout=600, check=False,
    )
    assert proc.returncode == 0, proc.stderr
    groups = [line for line in proc.stderr.splitlines() if re.match(r"^  \w+: [\d.]+ s", line)]
    assert len(groups) == len(GROUPS), proc.stderr  # one line per group as it finishes
    found = progress_lines(proc.stderr, "qwirkle-core: warmup")
    assert found and all(m["unit"] == "groups" for m in found), proc.stderr  # the groups still running, meanwhile
    assert proc.stdout.splitlines()[-1].startswith("cache: ")
