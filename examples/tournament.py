"""A self-play tournament of the built-in bots, with a plot of the score distributions.

    python examples/tournament.py [--games 2000] [--out FILE.svg]

The plot goes to ``--out``; by default to ``tournament.svg`` in the current directory.
The table goes to stdout; the progress (games played of all the pairings) to stderr.

Every pairing plays the same seeded deals with the seats swapped; the whole games run
inside numba on all cores.  The plot is a plain SVG (no plotting library needed).
"""

from __future__ import annotations

import argparse
import itertools
import sys
from pathlib import Path

import numpy as np
from tqdm import tqdm  # a dependency of qwirkle_core: progress on stderr

from qwirkle_core.selfplay import selfplay

BOTS = ["random", "greedy", "heuristic"]
COLOURS = {"random": "#9a9a9a", "greedy": "#e8743b", "heuristic": "#3b82c4"}


def histogram_svg(scores: dict[str, np.ndarray], path: str) -> None:
    width, height, pad = 640, 320, 40
    top = max(int(s.max()) for s in scores.values())
    bins = np.arange(0, top + 10, 10)
    counts = {name: np.histogram(s, bins=bins)[0] / len(s) for name, s in scores.items()}
    peak = max(float(c.max()) for c in counts.values())

    def x(v: float) -> float:
        return pad + (width - 2 * pad) * v / float(bins[-1])

    def y(f: float) -> float:
        return height - pad - (height - 2 * pad) * f / peak

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="12">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<line x1="{pad}" y1="{height - pad}" x2="{width - pad}" y2="{height - pad}" stroke="black"/>',
        f'<text x="{width / 2}" y="{height - 8}" text-anchor="middle">final score</text>',
    ]
    for v in bins[::5]:
        parts.append(f'<text x="{x(v):.1f}" y="{height - pad + 14}" text-anchor="middle">{v}</text>')
    for i, (name, c) in enumerate(counts.items()):
        points = " ".join(f"{x(b + 5):.1f},{y(f):.1f}" for b, f in zip(bins[:-1], c))
        parts.append(f'<polyline points="{points}" fill="none" stroke="{COLOURS[name]}" stroke-width="2"/>')
        mean = float(scores[name].mean())
        parts.append(
            f'<text x="{width - pad}" y="{pad + 16 * i}" text-anchor="end" fill="{COLOURS[name]}">'
            f"{name}: mean {mean:.1f}</text>"
        )
    parts.append("</svg>")
    with open(path, "w", encoding="utf-8") as out:
        out.write("\n".join(parts))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000, help="games per pairing and seat order")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="tournament.svg", help="the SVG plot (default: tournament.svg here)")
    args = parser.parse_args()
    out = Path(args.out)

    all_scores: dict[str, list[np.ndarray]] = {b: [] for b in BOTS}
    pairings = list(itertools.combinations(BOTS, 2))
    bar = tqdm(desc="tournament", total=2 * len(pairings) * args.games, unit="games", file=sys.stderr)
    tqdm.write(f"{'pairing':24s} {'wins':>12s} {'mean scores':>16s} {'games/s':>9s}", file=sys.stdout)
    for a, b in pairings:
        wins = np.zeros(2, np.int64)
        means = np.zeros(2)
        rate = 0.0
        for order in ((a, b), (b, a)):
            bar.set_postfix_str(f"{order[0]} vs {order[1]}")
            base = bar.n
            result = selfplay(
                args.games, 2, list(order), seed=args.seed, progress=lambda done, base=base: bar.update(base + done - bar.n)
            )
            bar.update(base + args.games - bar.n)
            alone, _ = result.wins()
            flip = order != (a, b)
            wins += alone[::-1] if flip else alone
            means += (result.scores[:, ::-1] if flip else result.scores).mean(axis=0) / 2
            rate += args.games / result.seconds / 2
            for seat, name in enumerate(order):
                all_scores[name].append(result.scores[:, seat])
        tqdm.write(f"{a + ' vs ' + b:24s} {wins[0]:>5d} : {wins[1]:<5d} {means[0]:7.1f} {means[1]:7.1f} {rate:9.0f}", file=sys.stdout)
    bar.set_postfix_str("")
    bar.close()
    histogram_svg({k: np.concatenate(v) for k, v in all_scores.items()}, str(out))
    print(f"score distributions written to {out}")


if __name__ == "__main__":
    main()
