"""The kernels' types and the layouts of the arrays they pass each other, defined here
once: a move row, an action row, a game's meta, a turn's log row, and how a game ends.

The board state's own layout (``st``, slots S_*) is described in ``_state``; the game's
numbers (HAND_SIZE, N_KINDS, ...) are in ``_constants``.  tests/test_layouts.py checks
that the layouts below agree with each other and with their readers."""

from __future__ import annotations

from typing import Any

import numpy.typing as npt

# Kernel signatures use these: numba types the values itself, and mypy cannot follow
# numpy-scalar arithmetic inside a kernel body, so kernel scalars are left open.
KInt = Any  # an integer scalar inside a kernel (Python int or a numpy integer)
KArray = npt.NDArray[Any]

# A move row: one row of a move table (int32[n, OUT_COLS], written by
# ``_movegen.generate``); ``_state``'s judge and push read a move in these slots too.
COL_N = 0  # number of tiles placed (1..6)
COL_SCORE = 1
COL_ROWS = 2  # rows of the placed tiles, slots COL_N.. unused
COL_COLS = 8
COL_KINDS = 14  # kinds, -1 in unused slots
OUT_COLS = 20

# An action row (int64[ACTION_COLS]): the slots of a move row, then the action's type.
# A place is its move; an exchange lists its tiles in the kind slots; a pass has none.
A_N = COL_N
A_SCORE = COL_SCORE
A_ROWS = COL_ROWS
A_COLS = COL_COLS
A_KINDS = COL_KINDS
A_TYPE = OUT_COLS
ACTION_COLS = A_TYPE + 1
PLACE = 0
EXCHANGE = 1
PASS = 2

# A game's meta (int64[N_META]): its scalars.  Slots 0..5 are unused (the board state
# holds the tiles' box and where it lies).
M_BOARD_TILES = 6
M_BAG = 7  # tiles in the bag
M_PLAYER = 8  # seat to move
M_PLAYERS = 9
M_OPENING = 10  # tiles the opening must place (the opener's largest group); 0 after it
M_OVER = 11  # 1 once the game has ended
M_TURNS = 12  # turns played
M_WENT_OUT = 13  # seat that emptied their hand and took the bonus, or -1
M_END = 14  # how the game ended (END_*), END_NONE while it goes on
N_META = 15

# How a game ends (meta[M_END]).
END_NONE = 0
END_OUT = 1  # a player emptied their hand (the bag was empty): +6 for them
END_BLOCKED = 2  # the bag is empty and no player can place
END_DEAD = 3  # tiles are left in the bag, but none of the bag or the hands fits anywhere
END_RUNAWAY = 4  # not a rule: the game loop stopped at _batch.MAX_TURNS (the caller raises)

# A turn's log row (int32[LOG_COLS]): one per turn, enough to write a game record.
L_PLAYER = 0
L_TYPE = 1  # PLACE, EXCHANGE or PASS
L_N = 2  # tiles placed or exchanged
L_SCORE = 3  # points of the placement, bonus not included
L_HAND_SIZE = 4
L_HAND = 5  # the hand before the action (6 slots)
L_ROWS = 11  # 6 slots each: where the tiles were placed ...
L_COLS = 17
L_KINDS = 23  # ... and the tiles placed or exchanged
L_DRAWN_N = 29
L_DRAWN = 30  # the tiles drawn after the action (6 slots)
LOG_COLS = 36
