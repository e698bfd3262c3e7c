#!/usr/bin/env python3
"""How often `yomi fit` recovers a known personality: the recovery rate of issue 41's synthetic
populations, over more draws than CI affords (tests/tests/fit.rs runs five small ones).

Usage: tools/fit_recovery.py YOMI_BIN [--draws 20] [--games 2000] [--seed 1000]
           [--game sevens] [--bot sevens/dvalue] [--truth temperature=2] [--seats 3]
           [--mixture temperature=1,3]

Each draw plays GAMES seeded games with every seat the bot at the true options, records them as if
people had played (`records import`), fits the true options' names (`fit --fit NAMES --json`) and
counts whether each option's 95 % interval holds its true value and whether the fitted options
beat the uniform baseline and every shipped preset on the held-out plays. Prints one JSON line a
draw (with the fit's replays, in all and by phase) and a summary: the recovery rate with its Wilson 95 % interval, and the fit's median time.

With `--mixture OPTION=V1,V2` (instead of `--truth`) a draw is two populations in one record set:
half the games at OPTION=V1 (seed SEED), half at OPTION=V2 (seed SEED + 100000), both imported
into the same set, then OPTION fitted. No single value is the truth, so a draw reports where the
fit lands (between the two, and which of them its interval holds) and the held-out comparison.
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


def with_options(bot, options):
    """`bot` with `options` added: after its own options (`--bot` may fix some), else after `:`."""
    return f"{bot},{options}" if ":" in bot else f"{bot}:{options}"


def populations(args):
    """The true options of each population with its games: one, or the mixture's two halves."""
    if not args.mixture:
        return [(args.truth, args.games)]
    name, values = args.mixture.split("=", 1)
    low, high = values.split(",")
    half = args.games // 2
    return [(f"{name}={low}", half), (f"{name}={high}", args.games - half)]


def draw(args, seed):
    pops = populations(args)
    names = [kv.split("=", 1)[0] for kv in pops[0][0].split(",")]
    with tempfile.TemporaryDirectory() as data:
        for k, (truth, games) in enumerate(pops):
            transcript = str(Path(data) / f"match{k}.jsonl")
            run(args.yomi, data, "match", "--game", args.game,
                *sum([["--bot", with_options(args.bot, truth)]] * args.seats, []),
                "--games", str(games), "--seed", str(seed + 100000 * k),
                "--transcript", transcript)
            run(args.yomi, data, "records", "import", "syn", transcript)
        started = time.monotonic()
        report = json.loads(run(args.yomi, data, "fit", args.bot, "--records", "syn",
                                "--fit", ",".join(names), "--json"))
        seconds = time.monotonic() - started
    held = report["held_out_log_likelihood"]
    rivals = [held["uniform"], *held["presets"].values()]
    out = {"seed": seed, "fitted": {f["name"]: [f["value"], f["ci95"]] for f in report["fitted"]},
           "leads_held_out": all(held["fitted"] > r for r in rivals),
           "seconds": round(seconds, 1), "evaluations": report["evaluations"],
           "evaluations_by_phase": report["evaluations_by_phase"]}
    truths = [dict(kv.split("=", 1) for kv in truth.split(",")) for truth, _ in pops]
    for fitted in report["fitted"]:
        lo, hi = fitted["ci95"]
        values = [float(t[fitted["name"]]) for t in truths]
        if args.mixture:
            out["between"] = min(values) <= fitted["value"] <= max(values)
            out["interval_holds"] = [v for v in values if lo <= v <= hi]
        else:
            out.setdefault("covered", {})[fitted["name"]] = lo <= values[0] <= hi
    return out


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
    parser.add_argument("--mixture", help="OPTION=V1,V2: half the games at each value")
    args = parser.parse_args()
    draws = []
    for i in range(args.draws):
        draws.append(draw(args, args.seed + i))
        print(json.dumps(draws[-1]), flush=True)
    leads = sum(d["leads_held_out"] for d in draws)
    seconds = statistics.median(d["seconds"] for d in draws)
    if args.mixture:
        print(json.dumps({
            "bot": args.bot, "mixture": args.mixture, "games": args.games, "draws": len(draws),
            "fitted": [v[0] for d in draws for v in d["fitted"].values()],
            "between": sum(d["between"] for d in draws),
            "interval_holds_a_truth": sum(bool(d["interval_holds"]) for d in draws),
            "fitted_leads_held_out": leads, "median_fit_seconds": seconds,
        }))
        return
    checks = [hit for d in draws for hit in d["covered"].values()]
    print(json.dumps({
        "bot": with_options(args.bot, args.truth), "games": args.games, "draws": len(draws),
        "recovered": sum(checks), "of": len(checks),
        "rate": round(sum(checks) / len(checks), 3), "rate_ci95": wilson(sum(checks), len(checks)),
        "fitted_leads_held_out": leads,
        "median_fit_seconds": seconds,
    }))


if __name__ == "__main__":
    main()
