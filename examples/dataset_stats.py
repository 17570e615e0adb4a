"""Statistics over a self-play dataset, drawn as a picture.

    python examples/dataset_stats.py [DIR] [--games 20000] [--svg stats.svg]

Reads the Parquet dataset in DIR (written by ``python -m qwirkle_core selfplay --out DIR``),
or first writes one of ``--games`` greedy two-player games into a temporary directory.
Prints the first player's advantage (the seat that opens wins how often), the score
distribution of each seat and the length of the games, all computed on the columns with
pyarrow and numpy (no game is replayed), and draws them as an SVG: the scores by seat
and the game lengths.  The picture goes to ``--svg``, else beside the dataset.

Needs the scale extra: pip install '.[scale]'.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np

try:
    import pyarrow.compute as pc

    from qwirkle_core._progress import Progress
    from qwirkle_core.datasets import read_tables, write_dataset
except ImportError:
    print("this example needs the scale extra (pyarrow, dask): pip install '.[scale]'", file=sys.stderr)
    sys.exit(2)

SEAT_COLOURS = ["#3b82c4", "#e8743b", "#3a9a5b", "#9b59b6", "#c0392b", "#7f8c8d"]


def statistics(games, turns) -> dict:  # type: ignore[no-untyped-def]
    """Per game: scores by seat, the seat that opened, the winner(s), turns."""
    players = int(games.column("players")[0].as_py())
    scores = pc.list_flatten(games.column("scores")).to_numpy().reshape(-1, players).astype(np.int64)
    first_rows = pc.equal(turns.column("turn"), 0)
    opener = turns.filter(first_rows).column("player").to_numpy().astype(np.int64)
    at_top = scores == scores.max(axis=1, keepdims=True)
    alone = at_top.sum(axis=1) == 1
    opener_won = alone & at_top[np.arange(len(opener)), opener]
    return {
        "players": players,
        "scores": scores,
        "opener": opener,
        "opener_wins": float(opener_won.mean()),
        "decided": float(alone.mean()),
        "turns": games.column("turns").to_numpy().astype(np.int64),
        "ends": pc.value_counts(games.column("end").cast("string")).to_pylist(),
    }


def polyline_panel(x0: int, y0: int, w: int, h: int, series: list[tuple[str, str, np.ndarray]],
                   bins: np.ndarray, title: str, label: str) -> list[str]:
    """One panel of an SVG: the share of values per bin, one line per series."""
    counts = [np.histogram(values, bins=bins)[0] / max(len(values), 1) for _, _, values in series]
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
    step = float(bins[1] - bins[0])
    for i, ((name, colour, values), c) in enumerate(zip(series, counts)):
        points = " ".join(f"{x(b + step / 2):.1f},{y(f):.1f}" for b, f in zip(bins[:-1], c))
        parts.append(f'<polyline points="{points}" fill="none" stroke="{colour}" stroke-width="2"/>')
        parts.append(
            f'<text x="{x0 + w}" y="{y0 + 14 * i}" text-anchor="end" fill="{colour}">'
            f"{name}: mean {float(values.mean()):.1f}</text>"
        )
    return parts


def draw_svg(stats: dict, path: Path) -> None:  # type: ignore[type-arg]
    width, height = 900, 340
    scores, turns = stats["scores"], stats["turns"]
    score_bins = np.arange(0, int(scores.max()) + 20, 10)
    seats = [(f"seat {p}", SEAT_COLOURS[p % 6], scores[:, p]) for p in range(stats["players"])]
    opened = [("opening seat", "#222222", scores[np.arange(len(scores)), stats["opener"]])]
    turn_bins = np.arange(int(turns.min()) // 5 * 5, int(turns.max()) + 10, 5)
    parts = [
        (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
         'font-family="sans-serif" font-size="12">'),
        f'<rect width="{width}" height="{height}" fill="white"/>',
        *polyline_panel(40, 50, 500, 220, seats + opened, score_bins,
                        f"final scores ({len(scores)} games; opener wins {100 * stats['opener_wins']:.1f} %)",
                        "final score"),
        *polyline_panel(600, 50, 260, 220, [("games", "#555555", turns)], turn_bins, "game length", "turns"),
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
        with Progress("dataset_stats: writing", total=args.games, unit="games") as bar:  # stderr
            summary = write_dataset(root, args.games, 2, ["greedy"], seed=args.seed, progress=bar)
        print(f"wrote {args.games} greedy games to {root} ({summary.games_per_second:,.0f} games/s)")
    else:
        root = Path(args.dataset)
    with Progress("dataset_stats: reading", unit="games") as bar:
        games, turns = read_tables(root, progress=bar)
    stats = statistics(games, turns)
    print(f"{games.num_rows} games, {turns.num_rows} turns, {stats['players']} players")
    print(f"the opening seat wins {100 * stats['opener_wins']:.1f} % of the games "
          f"({100 * stats['decided']:.1f} % have a single winner)")
    for p in range(stats["players"]):
        s = stats["scores"][:, p]
        q = np.percentile(s, [10, 50, 90])
        print(f"seat {p}: mean score {s.mean():.1f}, 10/50/90th percentiles {q[0]:.0f}/{q[1]:.0f}/{q[2]:.0f}")
    t = stats["turns"]
    print(f"game length: mean {t.mean():.1f} turns, shortest {t.min()}, longest {t.max()}")
    print("ended: " + ", ".join(f"{e['values']} {e['counts']}" for e in stats["ends"]))
    svg = Path(args.svg) if args.svg else root.parent / f"{root.name}-stats.svg"
    draw_svg(stats, svg)
    print(f"picture: {svg}")


if __name__ == "__main__":
    main()
