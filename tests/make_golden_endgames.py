"""Write tests/data/golden_endgames.txt.gz: the naive minimax's answer (every move of the
player to move with its exact value) for each endgame that tests/test_endgame.py asks
it about, in each of the suite's three runs (JIT on, bounds-checked, JIT off: they
sample different positions).  See tests/golden_endgames.py for the format.

Run from the repository root after a change that makes the endgame tests ask about
other positions (they still pass without it, solving the new positions naively, only
slower): ``.venv/bin/python tests/make_golden_endgames.py`` (a few minutes: the three
runs side by side).  The values come from tests/naive_endgame.py alone; the library
only chooses the positions, as the tests do.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.golden_endgames import GOLDEN, parse_line, write_golden

HEADER = """\
# The naive minimax's answers (tests/naive_endgame.py) for the endgames that
# tests/test_endgame.py asks about: written by tests/make_golden_endgames.py, read by
# tests/golden_endgames.py (which gives the format).  One position a line:
# <board> | <mover's hand> | <other's hand> | <move>=<value> ...
"""

# The three runs' settings, as .ci/test.sh sets them, as far as the tests read them.
# (NUMBA_BOUNDSCHECK only makes the tests sample as the bounds-checked run does: numba's
# cache ignores it, so the kernels come from the ordinary cache, unchecked.)
RUNS = {"jit": {}, "bounds": {"NUMBA_BOUNDSCHECK": "1"}, "nojit": {"NUMBA_DISABLE_JIT": "1"}}


def main() -> None:
    with tempfile.TemporaryDirectory() as record:
        procs = []
        for name, settings in RUNS.items():
            env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_DISABLE_JIT", "NUMBA_BOUNDSCHECK")}
            env.update(settings, QWIRKLE_RECORD_NAIVE_ENDGAMES=record, PYTHONHASHSEED="0")
            command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_endgame.py", "-m", "not reference"]
            print(f"[{name}] {' '.join(command[1:])}", flush=True)
            output = open(Path(record) / f"pytest-{name}.log", "w")  # noqa: SIM115 (closed below)
            procs.append((name, output, subprocess.Popen(command, cwd=ROOT, env=env, stdout=output, stderr=subprocess.STDOUT)))
        for name, output, proc in procs:
            code = proc.wait()
            output.close()
            if code != 0:
                print(Path(output.name).read_text()[-3000:])
                sys.exit(f"[{name}] the endgame tests failed: fix them first")
        lines: dict[tuple[str, str, str], str] = {}
        for path in sorted(Path(record).glob("naive-*.txt")):
            for line in path.read_text().splitlines():
                key, _ = parse_line(line)
                assert lines.get(key, line) == line, f"two answers for one position: {key}"
                lines[key] = line
    write_golden([lines[key] for key in sorted(lines)], HEADER)
    print(f"{GOLDEN.relative_to(ROOT)}: {len(lines)} positions, {GOLDEN.stat().st_size:,} bytes")


if __name__ == "__main__":
    main()
