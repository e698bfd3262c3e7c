"""PROTOCOL.md's `cancel` example, run as written against the real binary: its request must still
be running well after it started (a cancel after a second stops it), and the replies must be the
ones the example shows."""
import json
import subprocess
import time

from conftest import ROOT, within


def cancel_example():
    """The request lines and the reply lines of the JSON block in PROTOCOL.md's `cancel` section
    (event lines, shortened with `...` there, are neither)."""
    text = (ROOT / "PROTOCOL.md").read_text()
    section = text[text.index("### `cancel`"):]
    block = section[section.index("```json\n") + len("```json\n"):]
    block = block[:block.index("```")]
    lines = [line for line in block.splitlines() if not line.startswith('{"event"')]
    messages = [json.loads(line) for line in lines]
    return [m for m in messages if "op" in m], [m for m in messages if "ok" in m]


def test_the_cancel_example_runs_long_enough_to_cancel_and_answers_as_shown(binary):
    requests, shown = cancel_example()
    long_one, cancel, cancel_all = requests
    assert cancel == {"id": "c", "op": "cancel", "request": long_one["id"]}
    child = subprocess.Popen([binary, "serve", "--stdio"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True)
    assert child.stdin is not None and child.stdout is not None

    def send(message):
        child.stdin.write(json.dumps(message) + "\n")
        child.stdin.flush()

    def replies(ids):
        """Reads until a reply to each of `ids` came; returns them and how many games had ended."""
        got, games = {}, 0
        while set(got) != set(ids):
            message = json.loads(child.stdout.readline())
            if message.get("event") == "match.progress":
                games = message["game"]
            elif message.get("id") in ids:
                got[message["id"]] = message
        return got, games

    try:
        send(long_one)
        while json.loads(child.stdout.readline()).get("event") != "match.started":
            pass
        time.sleep(1.0)  # five times the 0.2 s after which a cancel found the old example done
        send(cancel)
        got, games = within(60, replies, {long_one["id"], cancel["id"]})
        send(cancel_all)
        got.update(within(60, replies, {cancel_all["id"]})[0])
    finally:
        child.stdin.close()
        child.wait(timeout=30)
    assert sorted(got.values(), key=json.dumps) == sorted(shown, key=json.dumps)
    assert 0 < games < long_one["games"]
