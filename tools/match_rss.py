#!/usr/bin/env python3
"""Peak RSS of `yomi serve --stdio` while it plays one long `match.run` without a transcript.

Usage: tools/match_rss.py YOMI_BIN [GAMES]   (default 20000 games of example/rps)
Samples the server's VmRSS at every line it sends (progress events) and prints it before, at its
peak, and after the reply.
"""
import json, subprocess, sys

def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) // 1024

def main():
    binary = sys.argv[1]
    games = int(sys.argv[2]) if len(sys.argv) > 2 else 20000
    server = subprocess.Popen([binary, "serve", "--stdio"], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    before = rss_mb(server.pid)
    run = {"id": 1, "op": "match.run", "game": "rps", "seed": 1, "games": games,
           "seats": [{"bot": "example/rps"}, {"bot": "example/rps", "preset": "reader"}]}
    server.stdin.write(json.dumps(run) + "\n")
    server.stdin.flush()
    peak = before
    while True:
        line = server.stdout.readline()
        peak = max(peak, rss_mb(server.pid))
        if not line or json.loads(line).get("id") == 1:
            break
    print(f"{games} games: RSS before {before} MB, peak {peak} MB, after {rss_mb(server.pid)} MB")
    server.stdin.close()
    server.wait()

main()
