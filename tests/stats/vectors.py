#!/usr/bin/env python3
"""Test vectors for yomi's tournament statistics, computed with the Python standard library alone
from the published formulas (fishtest's LLRcalc and stat_util; M. Van den Bergh, "Comments on
normalized Elo", sections 4.1 and 4.2, and "Support of the MLE of a multinomial", proposition
1.1), so the Rust implementation in host/src/tournament/stats.rs is checked against a second,
independent one.

Prints a JSON list; CI compares it with tests/stats/vectors.json, which the Rust tests read:

    python3 tests/stats/vectors.py > tests/stats/vectors.json   # regenerate
"""
import json
import math
import random

NELO_PER_T = 800 / math.log(10)
Z95 = 1.959963984540054


def pdf_of(counts):
    """Outcome i of k is worth i/(k-1); an outcome never seen counts 0.001."""
    regular = [c if c else 1e-3 for c in counts]
    n = sum(regular)
    return n, [(i / (len(counts) - 1), c / n) for i, c in enumerate(regular)]


def moments(pdf):
    mu = sum(a * p for a, p in pdf)
    return mu, sum(p * (a - mu) ** 2 for a, p in pdf)


def root(f, low, high):
    """f falls from + to - on (low, high): its zero by bisection."""
    for _ in range(300):
        mid = (low + high) / 2
        if f(mid) > 0:
            low = mid
        else:
            high = mid
    return (low + high) / 2


def secular(pdf):
    values = [a for a, _ in pdf]
    lo, hi = min(values), max(values)
    assert lo < 0 < hi
    return root(lambda x: sum(p * a / (1 + x * a) for a, p in pdf), -1 / hi + 1e-9, -1 / lo - 1e-9)


def mle_mean(pdf, s):
    shifted = [(a - s, p) for a, p in pdf]
    x = secular(shifted)
    return [p / (1 + x * d) for d, p in shifted]


def mle_t(pdf, ref, t):
    fit = [1 / len(pdf)] * len(pdf)
    for _ in range(10):
        mu, var = moments([(a, q) for (a, _), q in zip(pdf, fit)])
        sigma = math.sqrt(var)
        phi = [(a - ref - t * sigma * (1 + ((mu - a) / sigma) ** 2) / 2, p) for a, p in pdf]
        x = secular(phi)
        new = [p / (1 + x * d) for d, p in phi]
        change = max(abs(u - v) for u, v in zip(new, fit))
        fit = new
        if change < 1e-9:
            break
    return fit


def llr(pdf, n, q0, q1):
    return n * sum(p * (math.log(b) - math.log(a)) for (_, p), a, b in zip(pdf, q0, q1))


def logistic_elo(s):
    if not 0 < s < 1:
        return None
    return -400 * math.log10(1 / s - 1)


def vector(counts, elo0, elo1):
    n, pdf = pdf_of(counts)
    mu, var = moments(pdf)
    se = math.sqrt(var / n)
    low, high = mu - Z95 * se, mu + Z95 * se
    games = 2 if len(counts) == 5 else 1
    sigma = math.sqrt(games * var)
    nelo = lambda s: (s - 0.5) / sigma * NELO_PER_T
    score = lambda e: 1 / (1 + 10 ** (-e / 400))
    t = lambda e: e / NELO_PER_T * math.sqrt(games)
    return {
        "counts": counts,
        "elo0": elo0,
        "elo1": elo1,
        "score": mu,
        "elo": logistic_elo(mu),
        "elo_ci95": [logistic_elo(low), logistic_elo(high)],
        "nelo": nelo(mu),
        "nelo_ci95": [nelo(low), nelo(high)],
        "los": 0.5 * (1 + math.erf((mu - 0.5) / se / math.sqrt(2))),
        "llr_logistic": llr(pdf, n, mle_mean(pdf, score(elo0)), mle_mean(pdf, score(elo1))),
        "llr_normalized": llr(pdf, n, mle_t(pdf, 0.5, t(elo0)), mle_t(pdf, 0.5, t(elo1))),
    }


def main():
    cases = [
        ([1000, 9000, 20000, 10000, 1100], 0.0, 2.0),
        ([12, 80, 160, 85, 11], -1.75, 0.25),
        ([0, 3, 10, 4, 0], 0.0, 5.0),
        ([0, 0, 0, 0, 7], 0.0, 10.0),
        ([5, 0, 0, 0, 0], -10.0, 0.0),
        ([1, 0, 0, 0, 1], 0.0, 5.0),
        ([300, 2000, 350], 0.0, 5.0),
        ([10, 5, 30], -5.0, 5.0),
        ([0, 10, 0], 0.0, 5.0),
        ([4, 0, 6], 0.0, 20.0),
    ]
    rng = random.Random(42)
    for _ in range(20):
        k = rng.choice([3, 5])
        counts = [rng.randrange(0, 400) for _ in range(k)]
        elo0 = rng.choice([-5.0, 0.0, 0.5, 2.0])
        cases.append((counts, elo0, elo0 + rng.choice([2.0, 5.0, 10.0, 50.0])))
    print(json.dumps([vector(*c) for c in cases], indent=1))


if __name__ == "__main__":
    main()
