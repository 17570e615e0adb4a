"""Every script in examples/ runs as it is (with small arguments, to stay quick); the
long ones say how far they are on stderr (a plain line every few seconds off a
terminal, and a last one at 100 %), the results go to stdout."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.slow  # each example is a fresh process

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def run(script: str, *args: str, progress: str | None = None, cwd: Path | None = None) -> str:
    """The script's stdout; with ``progress``, its stderr (a pipe) must end the progress
    lines of that name at 100 %, and its stdout hold none of them."""
    proc = subprocess.run(
        [sys.executable, str(EXAMPLES / script), *args], capture_output=True, text=True, timeout=600, check=False,
        cwd=cwd,
    )
    assert proc.returncode == 0, proc.stderr
    if progress is not None:
        lines = [line for line in proc.stderr.splitlines() if line.startswith(f"{progress}: ")]
        # The library's progress lines, or tqdm's (the examples that use tqdm itself, not
        # the library's private qwirkle_core._progress).
        done = rf"{re.escape(progress)}: ((\d+)/\2 [\w-]+ \(100 %\)|100%\|.*\| (\d+)/\3 )"
        assert lines and re.match(done, lines[-1]), proc.stderr
        assert f"{progress}: " not in proc.stdout
    return proc.stdout


def test_every_example_is_tested() -> None:
    scripts = {p.name for p in EXAMPLES.glob("*.py")}
    assert scripts == {
        "demo.py", "analyse_position.py", "engine_client.py", "tournament.py", "monte_carlo_bot.py",
        "dataset_stats.py", "train_vector_policy.py", "openspiel_ismcts_vs_greedy.py", "maskable_ppo.py",
    }


def test_demo() -> None:
    out = run("demo.py")
    assert "legal moves" in out and "Best moves:" in out


def test_analyse_position() -> None:
    out = run("analyse_position.py", "--seed", "4", "--turns", "20")
    assert "legal moves" in out and "best moves" in out and "planes for machine learning: (49, 24, 24)" in out


def test_engine_client() -> None:
    out = run("engine_client.py", "--seed", "2", "--players", "2")
    assert "final scores" in out and "per round trip" in out


def test_tournament(tmp_path: Path) -> None:
    svg = tmp_path / "t.svg"
    out = run("tournament.py", "--games", "10", "--out", str(svg), progress="tournament")
    assert "greedy vs heuristic" in out
    root = ET.parse(svg).getroot()
    assert len([e for e in root.iter() if e.tag.endswith("polyline")]) == 3
    before = os.path.getmtime(EXAMPLES / "tournament.svg") if (EXAMPLES / "tournament.svg").exists() else None
    out = run("tournament.py", "--games", "2", cwd=tmp_path)  # no --out: the current directory
    assert "written to tournament.svg" in out and (tmp_path / "tournament.svg").exists()
    after = os.path.getmtime(EXAMPLES / "tournament.svg") if (EXAMPLES / "tournament.svg").exists() else None
    assert before == after  # examples/ untouched


@pytest.mark.skipif("NUMBA_DISABLE_JIT" in __import__("os").environ, reason="rollouts are too slow without the JIT")
def test_monte_carlo_bot() -> None:
    out = run("monte_carlo_bot.py", "--games", "2", "--candidates", "3", "--worlds", "2", "--rollouts", "2",
              progress="monte_carlo_bot")
    assert "monte-carlo won" in out


def test_dataset_stats(tmp_path: Path) -> None:
    pytest.importorskip("pyarrow", reason="the example needs the scale extra: pip install -e '.[scale]'")
    from qwirkle_core.datasets import read_tables, write_dataset

    write_dataset(tmp_path / "ds", 6, 2, ["greedy", "random"], seed=3, chunk_size=4)
    svg = tmp_path / "stats.svg"
    out = run("dataset_stats.py", str(tmp_path / "ds"), "--svg", str(svg), progress="dataset_stats: reading")
    assert "6 games" in out and "the opening seat wins" in out and "game length" in out
    games, _ = read_tables(tmp_path / "ds")  # the histograms' figures, against the columns themselves
    scores = np.array(games.column("scores").to_pylist())
    assert f"seat 1: mean score {scores[:, 1].mean():.1f}," in out
    lengths = games.column("turns").to_pylist()
    assert f"shortest {min(lengths)}, longest {max(lengths)}" in out
    root = ET.parse(svg).getroot()
    assert len([e for e in root.iter() if e.tag.endswith("polyline")]) == 4  # 2 seats, the opener, lengths
    # Writes its own, into a temporary directory.
    out = run("dataset_stats.py", "--games", "3", progress="dataset_stats: writing")
    assert "wrote 3 greedy games" in out and str(Path.cwd()) not in out.split("picture: ")[1]


@pytest.mark.skipif("NUMBA_DISABLE_JIT" in __import__("os").environ, reason="training steps many games: too slow without the JIT")
def test_train_vector_policy() -> None:
    out = run("train_vector_policy.py", "--updates", "2", "--envs", "16", "--steps", "50", "--games", "8",
              progress="train_vector_policy: training")
    for line in ("untrained policy vs random bot", "untrained policy vs greedy bot", "trained policy vs greedy bot"):
        assert line in out
    assert "8 games: 4 mirrored deals, 95 % intervals" in out
    # The win rates' intervals (Wilson's) lie within [0, 1] and have a width, even at 0 %.
    rates = re.findall(r"won ([\d.]+)% \(([\d.]+)% to ([\d.]+)%\)", out)
    assert len(rates) == 4 and all(float(lo) <= float(p) <= float(hi) <= 100 and float(lo) < float(hi) for p, lo, hi in rates)


@pytest.mark.skipif("NUMBA_DISABLE_JIT" in __import__("os").environ, reason="searches play whole games: too slow without the JIT")
def test_openspiel_ismcts_vs_greedy() -> None:
    pytest.importorskip("pyspiel", reason="the rl extra (pip install '.[rl]') is not installed")
    out = run("openspiel_ismcts_vs_greedy.py", "--games", "1", "--simulations", "2", "--rollouts", "2",
              progress="openspiel_ismcts_vs_greedy")
    assert "ISMCTS won" in out


@pytest.mark.skipif("NUMBA_DISABLE_JIT" in __import__("os").environ, reason="games of sub-steps: too slow without the JIT")
def test_maskable_ppo() -> None:
    pytest.importorskip("gymnasium", reason="the rl extra (pip install '.[rl]') is not installed")
    try:
        import sb3_contrib  # noqa: F401
    except ImportError:  # the example says what it needs and exits with status 2
        proc = subprocess.run(
            [sys.executable, str(EXAMPLES / "maskable_ppo.py")], capture_output=True, text=True, timeout=600, check=False
        )
        assert proc.returncode == 2 and "needs sb3-contrib" in proc.stderr
        return
    out = run("maskable_ppo.py", "--steps", "64", "--n-steps", "64", "--games", "1")
    assert "steps/s" in out and "win rate against random" in out
