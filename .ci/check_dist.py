"""Check what the sdist and the wheel carry (.ci/package.sh runs it).

The sdist: every file git tracks (the package, its tests and their data, the
benchmarks, examples, docs and CI scripts), so that its tests run after unpacking.
The wheel: the package with its ``py.typed`` marker, and nothing of the tests.

Usage: python .ci/check_dist.py DIST_DIR   (the folder ``python -m build`` wrote)
"""

from __future__ import annotations

import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path


def main(dist: Path) -> int:
    (sdist,) = dist.glob("*.tar.gz")
    (wheel,) = dist.glob("*.whl")
    problems = []

    with tarfile.open(sdist) as archive:
        # Names inside are "qwirkle_core-VERSION/PATH".
        in_sdist = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    tracked = subprocess.run(["git", "ls-files"], check=True, capture_output=True, text=True).stdout.split()
    tracked = [path for path in tracked if Path(path).exists()]  # a file deleted but not yet committed
    missing = sorted(set(tracked) - in_sdist - {".gitignore"})
    if missing:
        problems.append(f"the sdist lacks {len(missing)} tracked files: {', '.join(missing[:10])}")

    with zipfile.ZipFile(wheel) as archive:
        in_wheel = archive.namelist()
    top = {name.split("/", 1)[0] for name in in_wheel}
    unexpected = sorted(t for t in top if t != "qwirkle_core" and not t.endswith(".dist-info"))
    if unexpected:
        problems.append(f"the wheel holds more than the package: {', '.join(unexpected)}")
    if "qwirkle_core/py.typed" not in in_wheel:
        problems.append("the wheel has no qwirkle_core/py.typed")
    package = sorted(p for p in tracked if p.startswith("qwirkle_core/"))
    lacking = [p for p in package if p not in in_wheel]
    if lacking:
        problems.append(f"the wheel lacks {', '.join(lacking[:10])}")
    for problem in problems:
        print(f"check_dist: {problem}")
    if problems:
        return 1
    print(f"check_dist: {sdist.name}: {len(in_sdist)} files, every tracked one; "
          f"{wheel.name}: {len(in_wheel)} files, the package and py.typed, no tests")
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1])))
