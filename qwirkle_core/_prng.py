"""The one random-number generator of games and bots, shared by Python and numba.

The Python ``Game`` and the numba self-play loop must deal, mix the bag and break
ties identically for the same seed, so both call these same kernels.  The generator
is xoshiro128** (Blackman and Vigna): four 32-bit words of state, kept in an int64
array.  Every intermediate value stays below 2**63, and 32-bit products are split into
16-bit halves, so the numbers are the same with numba's JIT on or off (numpy scalars
would wrap differently from Python ints, and numba's int64 overflow is not Python's).

A seed is any integer in [0, 2**64); a *stream* number gives independent generators
from one seed: stream 0 is the game (deal and exchanges), stream 1 + seat the bot of
that seat.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from ._ints import int_value
from ._jit import helper, kernel
from ._layout import KArray, KInt
from .errors import show

MASK32 = 0xFFFFFFFF
SEED_LIMIT = 1 << 64
STATE_WORDS = 4
GAME_STREAM = 0


def bot_stream(seat: int) -> int:
    """The stream number of the bot that plays ``seat``."""
    return 1 + seat


@helper
def mul32(a: int, b: int) -> int:
    """``a * b mod 2**32`` for a, b < 2**32, without any product reaching 2**63."""
    low = a * (b & 0xFFFF)
    high = ((a * (b >> 16)) & 0xFFFF) << 16
    return (low + high) & MASK32


@helper
def rotl32(x: int, k: int) -> int:
    return ((x << k) | (x >> (32 - k))) & MASK32


@helper
def fmix32(h: int) -> int:
    """murmur3's finaliser: a bijection of 32-bit words that mixes every bit."""
    h ^= h >> 16
    h = mul32(h, 0x85EBCA6B)
    h ^= h >> 13
    h = mul32(h, 0xC2B2AE35)
    h ^= h >> 16
    return h


@kernel
def seed_state(state: KArray, seed_low: KInt, seed_high: KInt, stream: KInt) -> None:
    """Fill ``state`` (int64[4]) from a 64-bit seed given as two 32-bit words."""
    x = seed_low & MASK32
    y = fmix32((seed_high & MASK32) ^ mul32((stream + 1) & MASK32, 0x27D4EB2F))
    nonzero = 0
    for i in range(STATE_WORDS):
        x = (x + 0x9E3779B9) & MASK32
        word = fmix32(x ^ fmix32((y + i) & MASK32))
        state[i] = word
        nonzero |= word
    if nonzero == 0:  # the all-zero state is xoshiro's one fixed point
        state[0] = 1


@kernel
def next_u32(state: KArray) -> KInt:
    """The next 32-bit output of xoshiro128**."""
    s0 = state[0]
    s1 = state[1]
    s2 = state[2]
    s3 = state[3]
    result = mul32(rotl32((s1 * 5) & MASK32, 7), 9)
    t = (s1 << 9) & MASK32
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = rotl32(s3, 11)
    state[0] = s0
    state[1] = s1
    state[2] = s2
    state[3] = s3
    return result


@kernel
def below(state: KArray, n: KInt) -> KInt:
    """A uniform integer in [0, n) for 1 <= n < 2**32 (rejection, so no modulo bias)."""
    limit = ((1 << 32) // n) * n
    while True:
        x = next_u32(state)
        if x < limit:
            return x % n


def new_state(seed: int, stream: int) -> npt.NDArray[np.int64]:
    """A fresh generator for ``seed`` (0 <= seed < 2**64) and ``stream``."""
    number = int_value(seed)  # read once: the number checked is the number used
    if number is None:
        raise TypeError(f"a seed is an integer, got {show(seed)}")
    if not 0 <= number < SEED_LIMIT:
        raise ValueError(f"a seed is an integer in [0, 2**64), got {show(number)}")
    seed = number
    state = np.zeros(STATE_WORDS, np.int64)
    seed_state(state, seed & MASK32, seed >> 32, stream)
    return state


def seed_words(seeds: Sequence[int]) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """The (low, high) 32-bit words of each seed, as the kernels take them."""
    low = np.array([s & MASK32 for s in seeds], np.int64)
    high = np.array([(s >> 32) & MASK32 for s in seeds], np.int64)
    return low, high


def state_text(state: npt.NDArray[np.int64]) -> str:
    """32 hex digits, for the position string."""
    return "".join(f"{int(w):08x}" for w in state)


def state_from_text(text: str) -> npt.NDArray[np.int64]:
    if len(text) != 8 * STATE_WORDS:
        raise ValueError(f"a generator state is {8 * STATE_WORDS} hex digits, got {text!r}")
    words = [int(text[8 * i : 8 * i + 8], 16) for i in range(STATE_WORDS)]
    if not any(words):
        raise ValueError("the all-zero generator state is not valid")
    return np.array(words, np.int64)
