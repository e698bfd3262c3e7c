"""A tabular agent learning seven-card stud against the fuzzy bluffing player, through the
Gymnasium environment: `python rl_stud.py [--steps 300] [--seed 1] [--address HOST:PORT]`
(default: starts `yomi serve --stdio` itself: $YOMI_BIN, else the checkout's
target/release/yomi, else `yomi` on PATH). Needs the `rl` extra.

A few hundred steps learn nothing much; they show the loop: observations and masks in, slots out,
the score of each deal as the reward at its end (1 win, 0.5 draw, 0 loss)."""
import argparse
from collections import defaultdict

import numpy as np

from yomi_client.envs import YomiEnv


def state(features, mask):
    """A small table key: whether own cards pair, and whether there is a bet to answer."""
    ranks = (features["hole"] + features["up"]).reshape(4, 13).sum(axis=0)
    return bool(ranks.max() >= 2), bool(mask[1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--epsilon", type=float, default=0.2)
    parser.add_argument("--address", help="HOST:PORT of a running `yomi serve --tcp`")
    args = parser.parse_args()
    address = None
    if args.address:
        host, port = args.address.rsplit(":", 1)
        address = (host, int(port))

    env = YomiEnv("stud", ["agent", {"bot": "stud/fuzzy", "preset": "adaptive"}], address=address)
    rng = np.random.default_rng(args.seed)
    # (state, slot) -> mean return seen; untried pairs start at the best score, so each is tried.
    value = defaultdict(lambda: 1.0)
    visits = defaultdict(int)
    returns = []
    obs, _ = env.reset(seed=args.seed)
    taken = []
    for _ in range(args.steps):
        key, legal = state(obs["observation"], obs["action_mask"]), np.flatnonzero(obs["action_mask"])
        if rng.random() < args.epsilon:
            slot = int(rng.choice(legal))
        else:
            slot = int(max(legal, key=lambda a: (value[key, a], -a)))
        taken.append((key, slot))
        obs, reward, terminated, truncated, _ = env.step(slot)
        if terminated or truncated:
            for pair in taken:  # every-visit Monte Carlo: the deal's score is each choice's return
                visits[pair] += 1
                value[pair] = reward if visits[pair] == 1 else value[pair] + (reward - value[pair]) / visits[pair]
            returns.append(reward)
            taken = []
            obs, _ = env.reset()
    env.close()
    if not returns:
        raise SystemExit(f"no deal finished in {args.steps} steps: give more --steps")
    half = returns[len(returns) // 2:]
    print(f"{args.steps} steps, {len(returns)} deals against stud/fuzzy (adaptive): "
          f"mean reward {np.mean(returns):.3f}, over the last {len(half)} deals {np.mean(half):.3f}; "
          f"{len(visits)} (state, action) pairs in the table")


if __name__ == "__main__":
    main()
