"""Drive the engine from another process: start it, play a game through it, time it.

    python examples/engine_client.py [--seed 5] [--players 3]
"""

from __future__ import annotations

import argparse
import random
import time

from qwirkle_core.client import EngineClient


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--players", type=int, default=3)
    args = parser.parse_args()
    rng = random.Random(args.seed)

    with EngineClient.start() as engine:
        hello = engine.hello()
        print(f"{hello['name']} {hello['version']}, protocol {hello['protocol']}")
        state = engine.new(players=args.players, seed=args.seed)
        requests = 0
        start = time.perf_counter()
        while not state["over"]:
            # Seat 0 plays the engine's best move; the others a random legal one.
            if state["to_move"] == 0:
                action = engine.best()["action"]
            else:
                moves = engine.moves()["moves"]
                action = rng.choice(moves)["text"] if moves else engine.best()["action"]
                requests += 1
            state = engine.play(action)
            requests += 2
        elapsed = time.perf_counter() - start
        print(f"final scores {state['scores']}, winners {state['winners']}")
        print(f"{requests} requests in {elapsed:.2f} s: {elapsed / requests * 1e6:.0f} us per round trip")


if __name__ == "__main__":
    main()
