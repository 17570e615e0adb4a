"""Build the documentation site: the guides (docs/*.md, the README, the changelog) and
the API reference of every public module, from the docstrings, with pdoc.

    .venv/bin/pip install -e '.[docs,scale,rl,web]'     # once: pdoc, and the optional modules' extras
    .venv/bin/python docs/build.py [--out site]

Needs the ``docs`` extra and, for the reference of the optional modules, every other
one; run by a Python without them (``python docs/build.py`` outside the virtual
environment) it says so, and which command to run instead, in one line and exits with
status 2.  Every warning is an error
(a docstring pdoc cannot read, a module that fails to import, a guide link to a page
that does not exist), so CI (.ci/test.sh) fails on a broken site.
"""

from __future__ import annotations

import argparse
import html
import re
import shutil
import sys
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"

# The guides, in the order of the navigation bar: (source, page, title).
GUIDES = [
    (DOCS / "index.md", "index.html", "Documentation"),
    (ROOT / "README.md", "README.html", "README"),
    (DOCS / "rules.md", "rules.html", "Rules and conventions"),
    (DOCS / "api.md", "api.html", "API tour"),
    (DOCS / "cli.md", "cli.html", "Command line"),
    (DOCS / "engine.md", "engine.html", "Engine protocol"),
    (DOCS / "board.md", "board.html", "Analysis board"),
    (DOCS / "datasets.md", "datasets.html", "Self-play datasets"),
    (DOCS / "envs.md", "envs.html", "Environments for learning agents"),
    (DOCS / "performance.md", "performance.html", "Performance"),
    (DOCS / "strength.md", "strength.html", "Bot strength"),
    (DOCS / "internals.md", "internals.html", "How it works"),
    (DOCS / "development.md", "development.html", "Development"),
    (ROOT / "CHANGELOG.md", "CHANGELOG.html", "Changes"),
]
PAGE_OF = {src.resolve(): page for src, page, _ in GUIDES}

INSTALL = "pip install -e '.[docs,scale,rl,web]'"


def _missing(what: str) -> SystemExit:
    """Exit with status 2 and one line on stderr naming what to install (and, run by
    another Python than the repository's .venv, the command to run instead)."""
    venv = ROOT / ".venv"
    if (venv / "bin" / "python").exists() and Path(sys.prefix).resolve() != venv.resolve():
        hint = f"run it with the virtual environment's Python: .venv/bin/python docs/build.py (after .venv/bin/{INSTALL})"
    else:
        hint = f"the documentation build needs every extra: {INSTALL}"
    print(f"docs/build.py: {what} for {sys.executable}; {hint}", file=sys.stderr)
    return SystemExit(2)

STYLE = """
body { font-family: system-ui, sans-serif; max-width: 56rem; margin: 0 auto; padding: 0 1rem 3rem;
       line-height: 1.5; color: #222; }
nav { display: flex; flex-wrap: wrap; gap: .3rem 1.1rem; padding: .8rem 0; border-bottom: 1px solid #ddd;
      margin-bottom: 1rem; }
nav a { white-space: nowrap; }
pre { background: #f6f6f6; padding: .6rem; overflow-x: auto; }
code { background: #f6f6f6; padding: 0 .2rem; }
table { border-collapse: collapse; } td, th { border: 1px solid #ddd; padding: .2rem .5rem; }
img { max-width: 100%; }
"""


def _nav() -> str:
    links = [f'<a href="{page}">{html.escape(title)}</a>' for _, page, title in GUIDES]
    links.append(f'<a href="{REFERENCE}qwirkle_core.html">API reference</a>')
    return "<nav>" + "".join(links) + "</nav>"


REFERENCE = "api/"  # a guide's link into the API reference: api/qwirkle_core.html, ...


def _fix_links(markdown: str, source: Path, out: Path) -> str:
    """Point links to other guides at their pages, and check that every relative link
    resolves (a warning, hence an error, otherwise); a link into the API reference
    (``api/...html``, a page of the site, not of the repository) must name a page
    pdoc wrote into ``out``."""

    def fix(m: re.Match[str]) -> str:
        text, target = m.group(1), m.group(2)
        if "://" in target or target.startswith(("#", "mailto:")):
            return m.group(0)
        if target.startswith(REFERENCE):
            if not (out / target.partition("#")[0]).exists():
                warnings.warn(f"{source.relative_to(ROOT)}: no page {target!r} in the API reference", stacklevel=1)
            return m.group(0)
        path, _, anchor = target.partition("#")
        resolved = (source.parent / path).resolve()
        if resolved in PAGE_OF:
            new = PAGE_OF[resolved] + (f"#{anchor}" if anchor else "")
            return f"[{text}]({new})"
        if not resolved.exists():
            warnings.warn(f"{source.relative_to(ROOT)}: broken link {target!r}", stacklevel=1)
        return f"[{text}]({resolved.relative_to(ROOT).as_posix()})"

    return re.sub(r"\[([^\]]*)\]\(([^)\s]+)\)", fix, markdown)


def public_modules() -> list[str]:
    """qwirkle_core and every submodule without a leading underscore in its name."""
    import pkgutil

    import qwirkle_core

    names = ["qwirkle_core"] + [m.name for m in pkgutil.walk_packages(qwirkle_core.__path__, "qwirkle_core.")]
    return [n for n in names if not any(part.startswith("_") for part in n.split("."))]


def _resolve_named_tuple_annotations() -> None:
    """A NamedTuple's generated ``__new__`` keeps its fields' annotations as strings
    (``from __future__ import annotations``) but lives in a namespace where the names
    they use (``npt``) do not exist, so pdoc cannot evaluate them.  Give it the
    evaluated ones."""
    import importlib
    import typing

    for name in public_modules():
        try:
            module = importlib.import_module(name)
        except ImportError as exc:  # an extra not installed: one clear line, status 2
            raise _missing(f"cannot import {name} ({exc})") from None
        except Exception as exc:  # noqa: BLE001 - one clear line instead of a traceback
            raise SystemExit(f"docs/build.py: cannot import {name}: {exc!r}") from None
        for value in vars(module).values():
            if isinstance(value, type) and issubclass(value, tuple) and hasattr(value, "_fields"):
                value.__new__.__annotations__.update(typing.get_type_hints(value))


def build(out: Path) -> None:
    """Write the site to ``out`` (replacing it)."""
    try:
        import pdoc
        import pdoc.render
        from pdoc.render_helpers import to_html
    except ImportError as exc:
        raise _missing(f"pdoc is not installed ({exc})") from None

    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _resolve_named_tuple_annotations()
        pdoc.render.configure(docformat="restructuredtext", show_source=True, search=True)
        # pdoc walks a package's submodules itself, except where __all__ leaves them
        # out (qwirkle_core's): name the package's modules, not theirs.
        pdoc.pdoc(*[m for m in public_modules() if m.count(".") <= 1], output_directory=out / "api")
        for source, page, title in GUIDES:
            body = to_html(_fix_links(source.read_text(encoding="utf-8"), source, out))
            (out / page).write_text(
                "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                f"<title>{html.escape(title)} - qwirkle_core</title><style>{STYLE}</style></head>"
                f"<body>{_nav()}<main>{body}</main></body></html>\n",
                encoding="utf-8",
            )
    # The README's pictures, and the analysis board's (docs/images/, which the README
    # names from the root and docs/board.md from docs/).
    (out / "examples").mkdir()
    shutil.copy(ROOT / "examples" / "board.png", out / "examples" / "board.png")
    for where in (out / "images", out / "docs" / "images"):
        shutil.copytree(DOCS / "images", where)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "site", help="output directory (default site/)")
    args = parser.parse_args()
    build(args.out)
    print(f"documentation written to {args.out / 'index.html'}")


if __name__ == "__main__":
    main()
