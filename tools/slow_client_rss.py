#!/usr/bin/env python3
"""RSS of `yomi serve` over time while one hostile client misbehaves (issue 16, slow clients).

Usage: tools/slow_client_rss.py YOMI_BIN {never-reads|trickles|no-newline} [SECONDS] [-- SERVE FLAGS]
Prints the server's RSS (KiB) every 5 s. `never-reads` floods `catalog` requests and reads
nothing (run it with `--write-timeout 0` to see the outbox bound alone); `trickles` sends one
byte per second; `no-newline` sends a line without its newline and then nothing.
"""
import socket, subprocess, sys, time

def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        return next(int(l.split()[1]) for l in f if l.startswith("VmRSS:"))

def main():
    binary, case = sys.argv[1], sys.argv[2]
    rest = sys.argv[3:]
    seconds = int(rest.pop(0)) if rest and rest[0] != "--" else 60
    flags = rest[1:] if rest and rest[0] == "--" else []
    server = subprocess.Popen([binary, "serve", "--tcp", "127.0.0.1:0", *flags],
                              stderr=subprocess.PIPE, text=True, env={"YOMI_LOG": "info"})
    line = server.stderr.readline()
    while "listening on" not in line:
        line = server.stderr.readline()
    port = int(line.strip().rsplit(":", 1)[1])
    client = socket.create_connection(("127.0.0.1", port))
    client.setblocking(False)
    print(f"case {case}: start RSS {rss_kib(server.pid)} KiB")
    start = last = time.time()
    request = b'{"id":1,"op":"catalog"}\n' * 50
    trickle = iter(b'{"id":1,"op":"ping"}' * 1000)
    if case == "no-newline":
        client.send(b'{"id":1,"op":"ping"}')
    while time.time() - start < seconds:
        try:
            if case == "never-reads":
                client.send(request)
            elif case == "trickles":
                client.send(bytes([next(trickle)]))
                time.sleep(1)
            else:
                time.sleep(0.2)
        except BlockingIOError:
            time.sleep(0.01)
        except OSError as e:
            print(f"{time.time() - start:5.1f} s: the server closed the connection ({e})")
            case = "closed"
        if time.time() - last >= 5:
            last = time.time()
            print(f"{last - start:5.1f} s: RSS {rss_kib(server.pid)} KiB")
    server.terminate()
    server.wait(20)

main()
