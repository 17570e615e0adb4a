"""Environments for learning agents, on the game loop's kernels.

- :mod:`qwirkle_core.envs.encoding`: the one action encoding (a turn as sub-steps in
  a fixed ``Discrete`` space) and the legal next sub-steps of a position.
- :class:`VectorQwirkle`: N games stepped by one numba kernel call.
- ``qwirkle_core.envs.pettingzoo``, ``qwirkle_core.envs.gymnasium`` and
  ``qwirkle_core.envs.openspiel``: the frameworks' interfaces (the ``rl`` extra:
  ``pip install '.[rl]'``); importing this package needs only numpy and numba.
"""

from __future__ import annotations

from .encoding import DEFAULT_WINDOW, action_count, legal_substeps
from .vector import VectorQwirkle

__all__ = ["DEFAULT_WINDOW", "VectorQwirkle", "action_count", "legal_substeps"]
