"""sb3-contrib's MaskablePPO on the Gymnasium env QwirkleVsBot (one agent against a bot).

    pip install '.[rl]' sb3-contrib     # sb3-contrib brings torch (not an extra of ours)
    .venv/bin/python examples/maskable_ppo.py [--steps 2048] [--opponent random] [--games 10]

``MaskablePPO("MlpPolicy", env)`` reads the legal sub-steps from ``env.action_masks()``
(bool[36,902]) at every step, so the agent only ever plays legal sub-steps; the flat
int16 observation goes to the MLP as floats.  The script trains for ``--steps`` sub-steps,
prints the steps per second of training, then plays ``--games`` seeded games (the same
seeds before and after training) with the deterministic masked policy and prints the
win rate against the bot.  It shows the plumbing: a few thousand steps of PPO are far
too few to learn Qwirkle (``train_vector_policy.py`` trains a tiny policy on the vector
env much faster).  Without sb3-contrib it says so and exits with status 2.

Measured (the defaults; sb3-contrib 2.9.2, torch 2.14.1, under ``nice`` on a shared
2-core machine): 2,048 sub-steps in 138 CPU seconds (233 s wall), about 15 steps per CPU
second.  The env is not what is slow (about 1.5 ms a step, bots' turns included): the
policy's 36,902-way masked categorical and its backward pass are.  Over the 10 seeded
games the untrained (deterministic) policy won 10 and the trained one 3: noise, at this
length of training.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

try:
    from sb3_contrib import MaskablePPO
except ImportError:
    print("this example needs sb3-contrib (and torch): pip install sb3-contrib", file=sys.stderr)
    sys.exit(2)

from tqdm import tqdm  # a dependency of qwirkle_core: progress on stderr

from qwirkle_core.envs.gymnasium import QwirkleVsBot


def win_rate(model: Any, opponent: str, games: int, seed: int, label: str) -> float:
    env = QwirkleVsBot(players=2, opponents=opponent)
    wins = 0.0
    bar = tqdm(desc=f"maskable_ppo: {label}", total=games, unit="games", file=sys.stderr)
    for g in range(games):
        obs, _ = env.reset(seed=seed + g)
        done, info = False, {}
        while not done:
            action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
            obs, _, terminated, truncated, info = env.step(int(action))
            done = terminated or truncated
        mine, theirs = info["final_scores"]
        wins += 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0
        bar.update(1)
    bar.close()
    return wins / games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=2048, help="sub-steps of training")
    parser.add_argument("--n-steps", type=int, default=512, help="sub-steps per PPO rollout")
    parser.add_argument("--opponent", default="random", help="the bot: random, greedy, ...")
    parser.add_argument("--games", type=int, default=10, help="seeded games for the win rate")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    env = QwirkleVsBot(players=2, opponents=args.opponent)
    model = MaskablePPO("MlpPolicy", env, n_steps=args.n_steps, batch_size=64, seed=args.seed, verbose=0)
    before = win_rate(model, args.opponent, args.games, seed=10_000, label="games before training")
    bar = tqdm(desc="maskable_ppo: training", total=args.steps, unit="sub-steps", file=sys.stderr)

    def tick(_locals: Any, _globals: Any) -> bool:  # called by learn() at every sub-step
        bar.update(min(model.num_timesteps, args.steps) - bar.n)
        return True  # (False would stop the training)

    wall, cpu = time.perf_counter(), time.process_time()
    model.learn(total_timesteps=args.steps, callback=tick)
    bar.close()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    steps = model.num_timesteps
    print(f"trained {steps} sub-steps in {wall:.1f} s ({steps / wall:.0f} steps/s; {cpu:.1f} CPU seconds)")
    after = win_rate(model, args.opponent, args.games, seed=10_000, label="games after training")
    print(f"win rate against {args.opponent} over {args.games} seeded games: {before:.1%} before, {after:.1%} after")


if __name__ == "__main__":
    main()
