"""Ctrl-C and SIGTERM end every command with status 130 and 143 and no traceback, at
any moment of its life: while it imports numpy and numba (a second or more on a busy
machine), while it waits for input, and while it plays games on every core.

No test here relies on a sleep being long enough: each waits for something the process
shows (its signal handlers in /proc, a file growing), with a deadline, and then signals
it after a delay that may be any length."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numba
import pytest

from .signals import popen_taking_sigint, wait_for_signal_handling

pytestmark = pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc/PID/status")

COMMANDS = {
    "moves": ["moves"],  # waits for its input
    "engine": ["engine"],
    "selfplay": ["selfplay", "--games", "100000000", "--progress", "never"],
}
STATUS = {signal.SIGINT: 130, signal.SIGTERM: 143}


def _start(args: list[str], **kwargs: object) -> subprocess.Popen[bytes]:
    return popen_taking_sigint(
        [sys.executable, "-m", "qwirkle_core", *args],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kwargs,
    )


@pytest.mark.process
@pytest.mark.parametrize("delay", [0.0, 0.05, 0.3])
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_signal_at_start_up_or_later_ends_with_its_status(command: str, signum: int, delay: float) -> None:
    """The handlers are in place before the heavy imports begin; the signal lands in the
    imports, in the command's set-up or in its work, depending on the machine's load."""
    proc = _start(COMMANDS[command])
    try:
        wait_for_signal_handling(proc)
        time.sleep(delay)  # any length: every moment must end the same way
        proc.send_signal(signum)
        _, err = proc.communicate(timeout=300)
    finally:
        proc.kill()
    assert proc.returncode == STATUS[signum], err
    assert b"Traceback" not in err and b"SystemError" not in err, err


@pytest.mark.slow
@pytest.mark.skipif(numba.config.DISABLE_JIT, reason="needs games fast enough to interrupt mid-run")
def test_sigint_during_parallel_selfplay_exits_130(tmp_path: Path) -> None:
    """Used to end in SystemError: ... returned a result with an exception set (a
    KeyboardInterrupt inside a parallel kernel).  The signal is sent once games are
    being written, so it lands in the games whatever the machine's load."""
    path = tmp_path / "games.jsonl"
    proc = _start([*COMMANDS["selfplay"], "--record", str(path)])
    try:
        deadline = time.monotonic() + 600
        while (not path.exists() or path.stat().st_size == 0) and time.monotonic() < deadline:
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=900)  # the batch in flight ends first
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    assert b"SystemError" not in err and b"Traceback" not in err, err


def _cpu_seconds(pid: int) -> float:
    """The CPU time process ``pid`` has used (all its threads), from /proc."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime


@pytest.mark.process
@pytest.mark.skipif(numba.config.DISABLE_JIT, reason="needs the simulation's parallel kernel")
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_during_a_simulation_ends_the_engine_with_its_status(signum: int) -> None:
    """The signal lands in the simulation's parallel kernel, which numba reports as a
    SystemError wrapped twice: the engine used to answer "internal error" and run on.
    The signal is sent once the engine has spent a CPU-second in the simulation."""
    proc = _start(["engine"])
    try:
        assert proc.stdin is not None and proc.stdout is not None
        # A short simulation first: its kernels are then loaded.
        proc.stdin.write(b'{"cmd": "new", "seed": 5}\n{"cmd": "sim", "plies": 1, "iterations": 128}\n')
        proc.stdin.flush()
        assert b'"ok"' in proc.stdout.readline() and b'"ok"' in proc.stdout.readline()
        began = _cpu_seconds(proc.pid)
        proc.stdin.write(b'{"cmd": "sim", "plies": "end", "iterations": 10000000}\n')
        proc.stdin.flush()
        deadline = time.monotonic() + 120
        while _cpu_seconds(proc.pid) < began + 1.0 and time.monotonic() < deadline:
            assert proc.poll() is None
            time.sleep(0.05)
        proc.send_signal(signum)
        out, err = proc.communicate(timeout=300)
    finally:
        proc.kill()
    assert proc.returncode == STATUS[signum], (out, err)
    assert b"internal error" not in out and b"SystemError" not in out + err and b"Traceback" not in err, (out, err)
