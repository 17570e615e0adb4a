"""The documentation: every public name has a docstring, the docs stand alone."""

from __future__ import annotations

import importlib
import inspect
import os
import pkgutil
import re
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

import qwirkle_core

ROOT = Path(__file__).resolve().parent.parent


def public_modules() -> Iterator[str]:
    """qwirkle_core and every submodule whose dotted name has no part starting with _."""
    yield "qwirkle_core"
    for info in pkgutil.walk_packages(qwirkle_core.__path__, "qwirkle_core."):
        if not any(part.startswith("_") for part in info.name.split(".")):
            yield info.name


def public_names(module: object) -> Iterator[tuple[str, object]]:
    """The module's public names (``__all__`` when it has one, else every name without
    a leading underscore defined in it), and the public methods and properties of its
    classes."""
    names = getattr(module, "__all__", None)
    for name, value in vars(module).items():
        if name.startswith("_") or (names is not None and name not in names):
            continue
        if not (inspect.isfunction(value) or inspect.isclass(value)):
            continue
        if getattr(value, "__module__", None) != module.__name__:  # type: ignore[attr-defined]
            continue
        yield name, value
        if inspect.isclass(value):
            for attr, member in vars(value).items():
                if attr.startswith("_"):
                    continue
                if isinstance(member, (classmethod, staticmethod)):
                    member = member.__func__
                if inspect.isfunction(member) or isinstance(member, property):
                    yield f"{name}.{attr}", member


def test_every_public_name_has_a_docstring() -> None:
    missing = []
    for module_name in public_modules():
        try:
            module = importlib.import_module(module_name)
        except (ImportError, qwirkle_core.QwirkleError) as exc:
            # A module of an optional extra (scale, rl) that is not installed here; CI
            # (.ci/test.sh) installs every extra, so it checks them all.
            if "pip install" in str(exc) or isinstance(exc, ImportError):
                continue
            raise
        if not (module.__doc__ or "").strip():
            missing.append(module_name)
        for name, value in public_names(module):
            if not (inspect.getdoc(value) or "").strip():
                missing.append(f"{module_name}.{name}")
    assert not missing, "no docstring: " + ", ".join(missing)


def test_the_repository_never_points_outside_itself() -> None:
    pattern = re.compile(r"\.\./shared|/work/shared|shared/RULES")
    skip = {".venv", ".git", "site", "build", "dist", "__pycache__", ".mypy_cache", ".ruff_cache", ".hypothesis"}
    offenders = []
    for folder, dirs, files in os.walk(ROOT):
        dirs[:] = [d for d in dirs if d not in skip and not d.startswith(".numba") and not d.endswith(".egg-info")]
        for name in files:
            path = Path(folder, name)
            if (
                path.suffix in {".py", ".md", ".toml", ".sh", ".in", ".txt", ".cfg"}
                and name != "test_docs.py"
                and pattern.search(path.read_text(encoding="utf-8", errors="replace"))
            ):
                offenders.append(str(path.relative_to(ROOT)))
    assert not offenders


def test_docs_links_resolve() -> None:
    """Every relative link in README.md and docs/*.md names a file of the repository
    (or, from docs/, a page of the API reference, which docs/build.py checks)."""
    broken = []
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text(encoding="utf-8")):
            if "://" in target or (page.parent.name == "docs" and target.startswith("api/")):
                continue
            if not (page.parent / target).exists():
                broken.append(f"{page.relative_to(ROOT)}: {target}")
    assert not broken


# ------------------------------------------------------------------ the snippets
# Every fenced block of README.md and docs/*.md: a doctest (```python with >>>, run by
# pytest --doctest-glob='*.md' in CI), a shell block (```sh, ```bash, ```console) or a
# python block without >>>, run below, or text that is no code (```text, ```json).
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^(?P<indent> *)```(?P<lang>[\w-]*)[^\n]*\n(?P<body>.*?)^(?P=indent)```", re.MULTILINE | re.DOTALL)
SHELL = {"sh", "bash", "console"}
NOT_CODE = {"text", "json"}
# Shell blocks that are not run, by a piece of their text: what they would do instead.
NOT_RUN = {
    "python3 -m venv .venv": "sets up a machine (a virtual environment) and runs every check: minutes",
    "pip install": "installs packages (setup), then builds the site (CI builds it)",
    "--games 1000000": "a million games, a local Dask cluster and a remote scheduler: minutes",
    "bash .ci/": "the checks themselves (minutes): CI runs .ci/test.sh, which runs this test",
    "QWIRKLE_FUZZ=long": "the fuzz suites for minutes; their short run is part of every test run",
    "benchmarks": "every benchmark timed (minutes); [jit] runs each once",
    "docs/build.py": "the site; [docs] of .ci/test.sh builds it, warnings as errors",
    "tests/test_docs.py": "this very test, and the doctests that [jit] of .ci/test.sh runs",
    "qwirkle-core serve": "serves until Ctrl-C; tests/test_web_browser.py starts it and drives its page",
    "tests/test_web_browser.py": "the browser tests (a server and headless Chromium); [procs] of .ci/test.sh runs them",
    "board_screenshots.py": "a server and a headless Chromium (seconds); tests/test_web_browser.py drives the same page",
    "qwirkle-core warmup": "[warmup] of .ci/test.sh runs it, and tests/test_progress.py on a pipe (its output is the "
    "machine's: times and the cache's path)",
}
# Console blocks whose output is an example of the machine's (times, paths), not compared.
OUTPUT_VARIES: dict[str, str] = {}


def code_blocks(page: Path) -> list[tuple[str, str, int]]:
    """(language, text, line) of each fenced block of the page; a block inside a list
    item is read without the item's indent, as Markdown reads it."""
    text = page.read_text(encoding="utf-8")
    return [
        (m["lang"], textwrap.dedent(m["body"]), text.count("\n", 0, m.start()) + 1) for m in FENCE.finditer(text)
    ]


def prose_sentences(text: str) -> list[str]:
    """The sentences of a page's prose (code blocks, tables and headings left out), of
    eight words or more, whitespace collapsed."""
    text = re.sub(r"```.*?```", " ", text, flags=re.DOTALL)
    text = re.sub(r"^(\||#).*$", " ", text, flags=re.MULTILINE)
    text = re.sub(r"\s+", " ", text)
    return [s.strip() for s in re.split(r"(?<=[.!?;:])\s+", text) if len(s.split()) >= 8]


def test_the_readme_repeats_no_sentence_of_the_docs() -> None:
    """The README says each thing once and links to docs/ for the rest: a sentence of it
    found word for word in a page of docs/ is one that will drift."""
    readme = prose_sentences((ROOT / "README.md").read_text(encoding="utf-8"))
    assert len(readme) > 20  # the check reads the README's prose at all
    repeated = []
    for page in sorted((ROOT / "docs").glob("*.md")):
        doc = " ".join(prose_sentences(page.read_text(encoding="utf-8")))
        repeated += [f"{page.name}: {s}" for s in readme if s in doc]
    assert not repeated, "\n".join(repeated)


def test_every_code_block_is_run_or_marked_as_text() -> None:
    unmarked = [
        f"{page.relative_to(ROOT)}:{line}: ```{lang}"
        for page in PAGES
        for lang, _, line in code_blocks(page)
        if lang not in SHELL | NOT_CODE | {"python"}
    ]
    assert not unmarked, "mark each block ```python, ```sh or ```text: " + ", ".join(unmarked)
    assert sum(len(code_blocks(page)) for page in PAGES) > 20  # the pattern finds them


def _site_like_root(tmp: Path) -> Path:
    """A scratch directory that looks like the repository root (its top-level entries
    linked), so that snippets find examples/ and .venv but write their files here.  The
    package itself is not linked: imported through a link, its kernels would have other
    source paths, which numba's cache files them under, and every page would compile
    them all again (about 40 s each); the installed package is the same sources."""
    for entry in ROOT.iterdir():
        if entry.name not in {".git", "qwirkle_core"} and not (tmp / entry.name).exists():
            (tmp / entry.name).symlink_to(entry)
    return tmp


def _environment() -> dict[str, str]:
    # The virtual environment's commands first (qwirkle-core, python), as after the README's setup.
    env = dict(os.environ, PATH=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]))
    env.pop("PYTHONPATH", None)
    return env


def _matches(expected: list[str], actual: str) -> bool:
    """Whether ``actual`` holds each expected line's pieces between its ``...``, in order."""
    at = 0
    for line in expected:
        for piece in (p.strip(" ,") for p in line.split("...")):
            if piece:
                found = actual.find(piece, at)
                if found < 0:
                    return False
                at = found + len(piece)
    return True


def _runs_something(page: Path) -> bool:
    return any(
        (lang == "python" and ">>>" not in body) or (lang in SHELL and not any(p in body for p in NOT_RUN))
        for lang, body, _ in code_blocks(page)
    )


@pytest.mark.process
@pytest.mark.parametrize("page", [page for page in PAGES if _runs_something(page)], ids=lambda p: p.name)
def test_the_shell_and_python_blocks_run(page: Path, tmp_path: Path) -> None:
    """The page's shell blocks (but those of NOT_RUN) and its python blocks without >>>
    run, in order, in one scratch directory, with the virtual environment's commands
    first on PATH; a console block's lines after ``$ command`` are its output (``...``
    leaves a part out), compared but where OUTPUT_VARIES says why not."""
    cwd = _site_like_root(tmp_path)
    env = _environment()
    ran = 0
    for lang, body, line in code_blocks(page):
        where = f"{page.relative_to(ROOT)}:{line}"
        if lang == "python" and ">>>" not in body:
            proc = subprocess.run([sys.executable, "-c", body], cwd=cwd, env=env, capture_output=True, text=True,
                                  timeout=600, check=False)
            assert proc.returncode == 0, f"{where}: {proc.stderr}"
            ran += 1
        if lang not in SHELL or any(piece in body for piece in NOT_RUN):
            continue
        lines = body.splitlines()
        if any(text.startswith("$ ") for text in lines):  # commands and their output
            commands = [(i, text[2:]) for i, text in enumerate(lines) if text.startswith("$ ")]
            for n, (i, command) in enumerate(commands):
                end = commands[n + 1][0] if n + 1 < len(commands) else len(lines)
                proc = subprocess.run(["bash", "-o", "pipefail", "-c", command], cwd=cwd, env=env,
                                      capture_output=True, text=True, timeout=600, check=False)
                assert proc.returncode == 0, f"{where}: {command}: {proc.stderr}"
                if not any(piece in command for piece in OUTPUT_VARIES):
                    assert _matches(lines[i + 1 : end], proc.stdout), f"{where}: {command}: {proc.stdout[:2000]}"
        else:
            proc = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", body], cwd=cwd, env=env,
                                  capture_output=True, text=True, timeout=600, check=False)
            assert proc.returncode == 0, f"{where}: {proc.stderr}"
        ran += 1
    assert ran
