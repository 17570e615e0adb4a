"""For tests that interrupt a child process with SIGINT."""

from __future__ import annotations

import signal
import subprocess
import time
from typing import Any


def popen_taking_sigint(args: list[str], **kwargs: Any) -> subprocess.Popen[Any]:
    """``subprocess.Popen``, with the child starting with SIGINT at its default, so that
    Python in it turns SIGINT into KeyboardInterrupt.  A shell without job control
    starts background commands with SIGINT ignored and children inherit that, so a
    test run started that way would see the child ignore the signal.  A signal with a
    handler is reset to its default in a new program, so the handler is set here for
    the moment of starting it (tests run on the main thread)."""
    saved = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        return subprocess.Popen(args, **kwargs)
    finally:
        signal.signal(signal.SIGINT, saved)


def catches_sigterm(pid: int) -> bool:
    """Whether process ``pid`` has a handler for SIGTERM: Python sets none of its own, so
    this is the moment the command line installed its handling (``qwirkle_core.cli``,
    before it imports numpy and numba)."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("SigCgt:"):
                    return bool(int(line.split()[1], 16) >> (signal.SIGTERM - 1) & 1)
    except (FileNotFoundError, ProcessLookupError):
        pass
    return False


def wait_for_signal_handling(proc: subprocess.Popen[Any], timeout: float = 120) -> None:
    """Poll (with a deadline, not a fixed sleep) until ``proc`` handles SIGTERM."""
    deadline = time.monotonic() + timeout
    while not catches_sigterm(proc.pid):
        if proc.poll() is not None:
            raise AssertionError(f"the process ended first, status {proc.returncode}")
        if time.monotonic() > deadline:
            raise AssertionError("the process never installed its signal handlers")
        time.sleep(0.001)
