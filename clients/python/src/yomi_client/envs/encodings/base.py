"""What every game's encoding provides: a fixed action space, and a decision turned into numbers.

An encoding names a fixed list of action slots for its game (`Discrete(n_actions)`); for each
decision, `actions` says which JSON action each slot stands for (None: not legal now), which gives
both the action mask and the action a slot index sends. `features` turns the JSON observation
into arrays of `features_space`, a `gymnasium.spaces.Dict` of float32 `Box`es.
"""
from __future__ import annotations

from collections import OrderedDict
from typing import Any, Dict, List, Optional, Tuple, cast

import numpy as np
from gymnasium import spaces


class Encoding:
    game: str = ""
    n_actions: int = 0
    seat_option: Optional[str] = None  # the game option that counts the seats, if one does

    def __init__(self, game_options: Dict[str, Any]):
        self.game_options = game_options
        self._space: Optional[spaces.Dict] = None  # features_space, kept once a flat encoding needs it

    def features_space(self) -> spaces.Dict:
        raise NotImplementedError

    def features(self, observation: Any) -> Dict[str, np.ndarray]:
        raise NotImplementedError

    def actions(self, observation: Any, legal: list) -> List[Optional[Any]]:
        raise NotImplementedError

    def observation_space(self, flat: bool = False) -> spaces.Dict:
        """`{"observation": features, "action_mask": 0/1 per action slot}` (PettingZoo's layout);
        `flat`: the features as one float32 vector, in the order the encoding lists them."""
        features = self.features_space()
        return layout({
            "observation": spaces.flatten_space(features) if flat else features,
            "action_mask": spaces.Box(0, 1, (self.n_actions,), np.int8),
        })

    def encode(self, observation: Any, legal: list, flat: bool = False) -> Dict[str, Any]:
        """The observation and mask of a decision; raises when no legal action has a slot."""
        mask = np.array([a is not None for a in self.actions(observation, legal)], np.int8)
        if legal and not mask.any():
            raise ValueError(f"{self.game}: none of the legal actions {legal} has an action slot")
        return {"observation": self._shaped(self.features(observation), flat), "action_mask": mask}

    def blank(self, flat: bool = False) -> Dict[str, Any]:
        """The observation of a seat that has not been asked anything yet: zeros."""
        zeros = {k: np.zeros(cast(spaces.Box, s).shape, cast(spaces.Box, s).dtype)
                 for k, s in self.features_space().items()}
        return {"observation": self._shaped(zeros, flat), "action_mask": np.zeros(self.n_actions, np.int8)}

    def _shaped(self, features: Dict[str, np.ndarray], flat: bool) -> Any:
        if not flat:
            return features
        if self._space is None:
            self._space = self.features_space()
        return spaces.flatten(self._space, features)


def layout(features: Dict[str, spaces.Space]) -> spaces.Dict:
    """The features in the order written, which a flattened observation follows (an OrderedDict:
    `spaces.Dict` sorts the keys of a plain dict)."""
    return spaces.Dict(OrderedDict(features))


def box(low: float, high: float, shape: Tuple[int, ...] = ()) -> spaces.Box:
    return spaces.Box(np.float32(low), np.float32(high), shape if shape else (1,), np.float32)


def scalar(value: float) -> np.ndarray:
    return np.array([value], np.float32)


def one_hot(index: Optional[int], size: int) -> np.ndarray:
    out = np.zeros(size, np.float32)
    if index is not None:
        out[index] = 1.0
    return out


def rotate(values: list, seat: int) -> list:
    """Per-seat values with the observing seat first, then the seats after it in order."""
    return values[seat:] + values[:seat]


def need(observation: Any, key: str, game: str) -> Any:
    """A field of the observation, or a clear error naming it."""
    if not isinstance(observation, dict) or key not in observation:
        raise ValueError(f"{game} observation without `{key}`: {observation!r}"[:300])
    return observation[key]
