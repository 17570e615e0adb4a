"""Seconds given as an argument (a time limit, a move time, a timeout): one test for
all of them, so that each caller only names its argument in its own error."""

from __future__ import annotations

import math

import numpy as np


def as_seconds(value: object) -> float | None:
    """``value`` as a float, when it is an int, a float or a numpy integer or float
    (not a bool, Python's or numpy's) above 0 and finite; else None.  An int too large
    for a float is None too: ``math.isfinite`` and ``float`` raise OverflowError on it,
    which must not escape as a crash.  The result is a plain float whatever was given,
    so that it reaches a kernel, a clock and a JSON reply as one."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        return None
    try:
        seconds = float(value)
    except OverflowError:  # an int past the floats
        return None
    return seconds if math.isfinite(seconds) and seconds > 0 else None
