"""For tests that interrupt a child process with SIGINT."""

from __future__ import annotations

import signal
import subprocess
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
