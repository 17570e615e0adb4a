"""Statistics over a self-play dataset, drawn as a picture.

    python examples/dataset_stats.py [DIR] [--games 20000] [--svg stats.svg]

Reads the Parquet dataset in DIR (written by ``python -m qwirkle_core selfplay --out DIR``),
or first writes one of ``--games`` greedy two-player games into a temporary directory.
Prints the first player's advantage (the seat that opens wins how often), the score
distribution of each seat and the length of the games, all computed on the games tables'
columns with pyarrow and numpy (no game is replayed, no turn read), one chunk at a time
into histograms, so that memory does not grow with the dataset (10 million games too);
and draws them as an SVG: the scores by seat and the game lengths.  The picture goes to
``--svg``, else beside the dataset.  Reads ``qwirkle-dataset/3`` directories (their
``winners`` and ``opener`` columns).

Needs the scale extra: pip install '.[scale]'.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
from tqdm import tqdm  # a dependency of qwirkle_core: progress on stderr

try:
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    from qwirkle_core.datasets import chunk_files, write_dataset
except ImportError:
    print("this example needs the scale extra (pyarrow, dask): pip install '.[scale]'", file=sys.stderr)
    sys.exit(2)

SEAT_COLOURS = ["#3b82c4", "#e8743b", "#3a9a5b", "#9b59b6", "#c0392b", "#7f8c8d"]
MAX_SCORE = 2000  # histogram bins of final scores (a score past it is counted in the last)
MAX_TURNS = 2000


class Statistics:
    """Running counts over the games tables, a chunk at a time: histograms of the scores by
    seat, of the opening seat's score and of the game lengths, the opener's wins and the
    ends.  Its size does not grow with the games, so any dataset fits in memory."""

    def __init__(self) -> None:
        self.players = 0
        self.games = 0
        self.turns = 0
        self.scores = np.zeros((0, MAX_SCORE + 1), np.int64)  # [seat, score]: games
        self.opener_scores = np.zeros(MAX_SCORE + 1, np.int64)
        self.lengths = np.zeros(MAX_TURNS + 1, np.int64)
        self.opener_wins = 0
        self.decided = 0
        self.ends: dict[str, int] = {}

    def add(self, games) -> None:  # type: ignore[no-untyped-def]
        """Count one chunk's games table (the columns scores, winners, opener, end, turns)."""
        players = int(games.column("players")[0].as_py())
        if not self.players:
            self.players = players
            self.scores = np.zeros((players, MAX_SCORE + 1), np.int64)
        scores = np.minimum(pc.list_flatten(games.column("scores")).to_numpy().reshape(-1, players), MAX_SCORE)
        opener = games.column("opener").to_numpy().astype(np.int64)
        winners = games.column("winners")
        alone = pc.list_value_length(winners).to_numpy() == 1
        first_winner = pc.list_element(winners, 0).to_numpy()
        for seat in range(players):
            self.scores[seat] += np.bincount(scores[:, seat], minlength=MAX_SCORE + 1)
        self.opener_scores += np.bincount(scores[np.arange(len(opener)), opener], minlength=MAX_SCORE + 1)
        turns = games.column("turns").to_numpy().astype(np.int64)
        self.lengths += np.bincount(np.minimum(turns, MAX_TURNS), minlength=MAX_TURNS + 1)
        self.opener_wins += int((alone & (first_winner == opener)).sum())
        self.decided += int(alone.sum())
        self.games += games.num_rows
        self.turns += int(turns.sum())
        for row in pc.value_counts(games.column("end").cast("string")).to_pylist():
            self.ends[row["values"]] = self.ends.get(row["values"], 0) + row["counts"]


def shown(bar: tqdm) -> Callable[[int, int], None]:
    """A progress callback (games done, games in all) that moves ``bar``."""

    def progress(done: int, total: int) -> None:
        bar.total = total
        bar.update(done - bar.n)

    return progress


def read_statistics(root: Path, progress) -> Statistics:  # type: ignore[no-untyped-def]
    """The statistics of the dataset at ``root``, reading only the games tables' columns
    they need, one chunk at a time."""
    stats = Statistics()
    paths = chunk_files(root, "games")
    total = sum(pq.read_metadata(path).num_rows for path in paths)  # (file footers only)
    for path in paths:
        stats.add(pq.read_table(path, columns=["players", "scores", "winners", "opener", "end", "turns"]))
        progress(stats.games, total)
    return stats


def mean(histogram: np.ndarray) -> float:  # type: ignore[type-arg]
    return float((histogram * np.arange(len(histogram))).sum() / max(histogram.sum(), 1))


def percentile(histogram: np.ndarray, q: float) -> int:  # type: ignore[type-arg]
    """The smallest value with at least q % of the counts at or below it."""
    return int(np.searchsorted(np.cumsum(histogram), q / 100 * histogram.sum()))


def polyline_panel(x0: int, y0: int, w: int, h: int, series: list[tuple[str, str, np.ndarray]],
                   width: int, title: str, label: str) -> list[str]:
    """One panel of an SVG: the share of games per bin of ``width`` values, one line per
    series of histogram counts (index = value)."""
    top = max(int(np.flatnonzero(c).max()) for _, _, c in series if c.any()) + width
    low = min(int(np.flatnonzero(c).min()) for _, _, c in series if c.any()) // width * width
    bins = np.arange(low, top + width, width)
    counts = [np.add.reduceat(c[low : bins[-1]], np.arange(0, bins[-1] - low, width)) / max(c.sum(), 1)
              for _, _, c in series]
    peak = max(float(c.max()) for c in counts) or 1.0

    def x(v: float) -> float:
        return x0 + w * (v - bins[0]) / float(bins[-1] - bins[0])

    def y(f: float) -> float:
        return y0 + h - h * f / peak

    parts = [
        f'<text x="{x0 + w / 2}" y="{y0 - 10}" text-anchor="middle" font-weight="bold">{title}</text>',
        f'<line x1="{x0}" y1="{y0 + h}" x2="{x0 + w}" y2="{y0 + h}" stroke="black"/>',
        f'<text x="{x0 + w / 2}" y="{y0 + h + 32}" text-anchor="middle">{label}</text>',
    ]
    for v in bins[:: max(1, len(bins) // 6)]:
        parts.append(f'<text x="{x(v):.1f}" y="{y0 + h + 15}" text-anchor="middle">{int(v)}</text>')
    for i, ((name, colour, histogram), c) in enumerate(zip(series, counts)):
        points = " ".join(f"{x(b + width / 2):.1f},{y(f):.1f}" for b, f in zip(bins[:-1], c))
        parts.append(f'<polyline points="{points}" fill="none" stroke="{colour}" stroke-width="2"/>')
        parts.append(
            f'<text x="{x0 + w}" y="{y0 + 14 * i}" text-anchor="end" fill="{colour}">'
            f"{name}: mean {mean(histogram):.1f}</text>"
        )
    return parts


def draw_svg(stats: Statistics, path: Path) -> None:
    width, height = 900, 340
    seats = [(f"seat {p}", SEAT_COLOURS[p % 6], stats.scores[p]) for p in range(stats.players)]
    opened = [("opening seat", "#222222", stats.opener_scores)]
    wins = 100 * stats.opener_wins / max(stats.games, 1)
    parts = [
        (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
         'font-family="sans-serif" font-size="12">'),
        f'<rect width="{width}" height="{height}" fill="white"/>',
        *polyline_panel(40, 50, 500, 220, seats + opened, 10,
                        f"final scores ({stats.games} games; opener wins {wins:.1f} %)", "final score"),
        *polyline_panel(600, 50, 260, 220, [("games", "#555555", stats.lengths)], 5, "game length", "turns"),
        "</svg>",
    ]
    path.write_text("\n".join(parts), encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset", nargs="?", help="a dataset directory (default: write one to a temporary directory)")
    parser.add_argument("--games", type=int, default=20000, help="games to write when no DIR is given")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--svg", help="where to draw the picture (default: beside the dataset)")
    args = parser.parse_args()
    if args.dataset is None:
        root = Path(tempfile.mkdtemp(prefix="qwirkle-dataset-")) / "greedy"
        with tqdm(desc="dataset_stats: writing", total=args.games, unit="games", file=sys.stderr) as bar:
            summary = write_dataset(root, args.games, 2, ["greedy"], seed=args.seed, progress=shown(bar))
        print(f"wrote {args.games} greedy games to {root} ({summary.games_per_second:,.0f} games/s)")
    else:
        root = Path(args.dataset)
    with tqdm(desc="dataset_stats: reading", unit="games", file=sys.stderr) as bar:
        stats = read_statistics(root, shown(bar))
    if not stats.games:
        sys.exit(f"{root} holds no finished chunk yet")
    print(f"{stats.games} games, {stats.turns} turns, {stats.players} players")
    print(f"the opening seat wins {100 * stats.opener_wins / stats.games:.1f} % of the games "
          f"({100 * stats.decided / stats.games:.1f} % have a single winner)")
    for p in range(stats.players):
        q = [percentile(stats.scores[p], v) for v in (10, 50, 90)]
        print(f"seat {p}: mean score {mean(stats.scores[p]):.1f}, 10/50/90th percentiles {q[0]}/{q[1]}/{q[2]}")
    t = stats.lengths
    print(f"game length: mean {mean(t):.1f} turns, shortest {int(np.flatnonzero(t).min())}, "
          f"longest {int(np.flatnonzero(t).max())}")
    print("ended: " + ", ".join(f"{end} {count}" for end, count in sorted(stats.ends.items())))
    svg = Path(args.svg) if args.svg else root.parent / f"{root.name}-stats.svg"
    draw_svg(stats, svg)
    print(f"picture: {svg}")


if __name__ == "__main__":
    main()
