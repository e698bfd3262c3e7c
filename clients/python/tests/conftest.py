"""Starts a real `yomi serve --tcp` for the tests ($YOMI_BIN, else the workspace's release build)."""
import os
import re
import subprocess
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
BINARY = os.environ.get("YOMI_BIN", str(ROOT / "target" / "release" / "yomi"))


@pytest.fixture(scope="session")
def binary():
    if not Path(BINARY).exists():
        pytest.fail(f"no yomi binary at {BINARY}: run `cargo build --release` or set YOMI_BIN")
    return BINARY


@pytest.fixture(scope="session")
def server(binary, tmp_path_factory):
    """(host, port) of a running server, keeping its records in a directory of the test run's
    own (never the user's data)."""
    own = tmp_path_factory.mktemp("yomi")
    log_path = own / "yomi.log"
    with open(log_path, "w") as log:
        child = subprocess.Popen([binary, "serve", "--tcp", "127.0.0.1:0", "--data-dir", str(own / "data")],
                                 stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log)
    deadline = time.monotonic() + 30
    while True:
        found = re.search(r"listening on 127\.0\.0\.1:(\d+)", log_path.read_text())
        if found:
            break
        if child.poll() is not None or time.monotonic() > deadline:
            child.kill()
            pytest.fail(f"yomi did not start:\n{log_path.read_text()}")
        time.sleep(0.05)
    yield ("127.0.0.1", int(found.group(1)))
    child.terminate()
    child.wait(timeout=10)


def within(seconds, fn, *args):
    """Runs `fn(*args)` and returns its result, failing the test instead of hanging when it takes
    longer than `seconds` (the thread is a daemon, so a stuck read does not keep pytest alive)."""
    outcome = {}

    def run():
        try:
            outcome["value"] = fn(*args)
        except BaseException as e:  # handed to the test below
            outcome["error"] = e

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        pytest.fail(f"{getattr(fn, '__name__', fn)} did not finish within {seconds} s")
    if "error" in outcome:
        raise outcome["error"]
    return outcome.get("value")
