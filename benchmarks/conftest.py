"""Benchmarks measure compiled kernels: a kernel's first call compiles before it runs
(``QWIRKLE_CORE_BACKGROUND_COMPILE=0``) rather than running as plain Python while it
compiles in the background.  The start-up benchmarks set the setting themselves."""

import os

os.environ.setdefault("QWIRKLE_CORE_BACKGROUND_COMPILE", "0")
