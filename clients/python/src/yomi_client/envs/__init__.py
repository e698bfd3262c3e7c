"""Reinforcement-learning environments for every game yomi serves (the `rl` extra:
`pip install 'yomi-client[rl]'`).

- `YomiEnv`: Gymnasium, one `"agent"` seat against yomi's bots.
- `YomiAECEnv`: PettingZoo AEC, every `"agent"` seat an agent, yomi's bots in the others.
- `YomiParallelEnv`: PettingZoo parallel, for the simultaneous games (battle, rps): every agent
  acts at once each step.

    from yomi_client.envs import YomiEnv
    env = YomiEnv("stud", ["agent", {"bot": "stud/fuzzy", "preset": "adaptive"}])
    obs, info = env.reset(seed=1)

The Gymnasium one is registered too: `gymnasium.make("yomi/Yomi-v0", game=..., seats=...)`.
Each game's observation encoding and action slots are documented in its module under
`yomi_client.envs.encodings`.
"""
import gymnasium

from .aec_env import YomiAECEnv
from .encodings import ENCODINGS, encoding_for
from .gym_env import YomiEnv
from .parallel_env import YomiParallelEnv

gymnasium.register(id="yomi/Yomi-v0", entry_point="yomi_client.envs.gym_env:YomiEnv")

__all__ = ["YomiEnv", "YomiAECEnv", "YomiParallelEnv", "ENCODINGS", "encoding_for"]
