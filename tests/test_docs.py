"""The documentation: every public name has a docstring, the docs stand alone."""

from __future__ import annotations

import importlib
import inspect
import os
import pkgutil
import re
from collections.abc import Iterator
from pathlib import Path

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
    """Every relative link in README.md and docs/*.md names a file of the repository."""
    broken = []
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text(encoding="utf-8")):
            if "://" in target:
                continue
            if not (page.parent / target).exists():
                broken.append(f"{page.relative_to(ROOT)}: {target}")
    assert not broken
