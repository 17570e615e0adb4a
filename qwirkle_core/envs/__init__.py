"""Environments for learning agents, on the game loop's kernels.

- :mod:`qwirkle_core.envs.encoding`: the one action encoding (a turn as sub-steps in
  a fixed ``Discrete`` space) and the legal next sub-steps of a position.
- :class:`VectorQwirkle`: N games stepped by one numba kernel call; its opponents are
  the built-in bots (inside the kernels) or the search bots ``"sim"`` and ``"endgame"``
  (played in Python between the kernel calls, ``opponent_movetime`` seconds a move).
- ``qwirkle_core.envs.pettingzoo``, ``qwirkle_core.envs.gymnasium`` and
  ``qwirkle_core.envs.openspiel``: the frameworks' interfaces (the ``rl`` extra:
  ``pip install '.[rl]'``); importing this package needs only numpy and numba.

Where gymnasium is installed, importing this package registers ``Qwirkle-v0``
(``QwirkleVsBot``: 2 players against the greedy bot; ``gymnasium.make("Qwirkle-v0",
players=4, opponents="random")`` changes them), so ``gymnasium.make`` finds it, as it
does ``gymnasium.make("qwirkle_core.envs:Qwirkle-v0")`` without the import.
"""

from __future__ import annotations

from .encoding import DEFAULT_WINDOW, action_count, legal_substeps
from .vector import VectorQwirkle

__all__ = ["DEFAULT_WINDOW", "GYMNASIUM_ID", "VectorQwirkle", "action_count", "legal_substeps"]

GYMNASIUM_ID = "Qwirkle-v0"


def _register_gymnasium() -> None:
    """Register GYMNASIUM_ID with gymnasium, where it is installed (once: a second
    registration of an id only warns, but an importer may reload this package)."""
    try:
        from gymnasium.envs.registration import register, registry
    except ImportError:  # no rl extra: the package works without gymnasium
        return
    if GYMNASIUM_ID not in registry:
        # No max_episode_steps: the env truncates a game itself (MAX_TURNS turns).
        register(
            id=GYMNASIUM_ID,
            entry_point="qwirkle_core.envs.gymnasium:QwirkleVsBot",
            vector_entry_point="qwirkle_core.envs.gymnasium:QwirkleVectorVsBot",
            kwargs={"players": 2, "opponents": "greedy"},
        )


_register_gymnasium()
