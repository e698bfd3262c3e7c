"""A 52-card deck as a 0/1 vector: index = suit × 13 + rank, suits and ranks in the order each
game's encoding names."""
from __future__ import annotations

from typing import Iterable, Sequence

import numpy as np


class Deck:
    def __init__(self, ranks: Sequence[str], suits: Sequence[str]):
        self.ranks = [r.upper() for r in ranks]
        self.suits = [s.upper() for s in suits]

    def index(self, card: str) -> int:
        """The card's index; a clear error for a string that is not one of this deck's cards."""
        if isinstance(card, str) and len(card) >= 2:
            rank, suit = card[:-1].upper(), card[-1].upper()
            if rank in self.ranks and suit in self.suits:
                return self.suits.index(suit) * 13 + self.ranks.index(rank)
        raise ValueError(f"{card!r} is not a card (ranks {''.join(self.ranks)}, suits {''.join(self.suits)})")

    def card(self, index: int, lower_suit: bool = False) -> str:
        suit = self.suits[index // 13]
        return self.ranks[index % 13] + (suit.lower() if lower_suit else suit)

    def vector(self, cards: Iterable[str]) -> np.ndarray:
        out = np.zeros(52, np.float32)
        for card in cards:
            out[self.index(card)] = 1.0
        return out
