"""Test-wide settings.

The tests check the compiled kernels: a kernel's first call compiles before it runs
(``QWIRKLE_CORE_BACKGROUND_COMPILE=0``) instead of running as plain Python while it
compiles in the background, in this process and in every process a test starts.  The
tests of the background compilation (``tests/test_jit.py``) turn it on themselves.
"""

import os

os.environ.setdefault("QWIRKLE_CORE_BACKGROUND_COMPILE", "0")
