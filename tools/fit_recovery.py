#!/usr/bin/env python3
"""How often `yomi fit` recovers a known personality: the recovery rate of issue 41's synthetic
populations, over more draws than CI affords (tests/tests/fit.rs runs five small ones).

Usage: tools/fit_recovery.py YOMI_BIN [--draws 20] [--games 2000] [--seed 1000]
           [--game sevens] [--bot sevens/dvalue] [--truth temperature=2] [--seats 3]

Each draw plays GAMES seeded games with every seat the bot at the true options, records them as if
people had played (`records import`), fits the true options' names (`fit --fit NAMES --json`) and
counts whether each option's 95 % interval holds its true value and whether the fitted options
beat the uniform baseline and every shipped preset on the held-out plays. Prints one JSON line a
draw and a summary: the recovery rate with its Wilson 95 % interval, and the fit's median time.
"""
import argparse, json, math, statistics, subprocess, sys, tempfile, time
from pathlib import Path


def run(binary, data, *args):
    out = subprocess.run([binary, "--data-dir", data, *args], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"{' '.join(args[:3])}: {out.stderr.strip()}")
    return out.stdout


def wilson(hits, n, z=1.96):
    """The Wilson score interval of a proportion (what a rate of n draws can claim)."""
    if n == 0:
        return [0.0, 1.0]
    p = hits / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return [round(centre - half, 3), round(centre + half, 3)]


def draw(args, seed):
    truth = dict(kv.split("=", 1) for kv in args.truth.split(","))
    bot = f"{args.bot}:{args.truth}"
    with tempfile.TemporaryDirectory() as data:
        transcript = str(Path(data) / "match.jsonl")
        run(args.yomi, data, "match", "--game", args.game, *sum([["--bot", bot]] * args.seats, []),
            "--games", str(args.games), "--seed", str(seed), "--transcript", transcript)
        run(args.yomi, data, "records", "import", "syn", transcript)
        started = time.monotonic()
        report = json.loads(run(args.yomi, data, "fit", args.bot, "--records", "syn",
                                "--fit", ",".join(truth), "--json"))
        seconds = time.monotonic() - started
    covered = {}
    for fitted in report["fitted"]:
        lo, hi = fitted["ci95"]
        covered[fitted["name"]] = lo <= float(truth[fitted["name"]]) <= hi
    held = report["held_out_log_likelihood"]
    rivals = [held["uniform"], *held["presets"].values()]
    return {"seed": seed, "fitted": {f["name"]: [f["value"], f["ci95"]] for f in report["fitted"]},
            "covered": covered, "leads_held_out": all(held["fitted"] > r for r in rivals),
            "seconds": round(seconds, 1)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("yomi")
    parser.add_argument("--draws", type=int, default=20)
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1000)
    parser.add_argument("--game", default="sevens")
    parser.add_argument("--bot", default="sevens/dvalue")
    parser.add_argument("--truth", default="temperature=2")
    parser.add_argument("--seats", type=int, default=3)
    args = parser.parse_args()
    draws = []
    for i in range(args.draws):
        draws.append(draw(args, args.seed + i))
        print(json.dumps(draws[-1]), flush=True)
    checks = [hit for d in draws for hit in d["covered"].values()]
    leads = sum(d["leads_held_out"] for d in draws)
    print(json.dumps({
        "bot": f"{args.bot}:{args.truth}", "games": args.games, "draws": len(draws),
        "recovered": sum(checks), "of": len(checks),
        "rate": round(sum(checks) / len(checks), 3), "rate_ci95": wilson(sum(checks), len(checks)),
        "fitted_leads_held_out": leads,
        "median_fit_seconds": statistics.median(d["seconds"] for d in draws),
    }))


if __name__ == "__main__":
    main()
