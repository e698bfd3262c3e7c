"""Starts a real `yomi serve --tcp` for the tests ($YOMI_BIN, else the workspace's release build)."""
import os
import re
import subprocess
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
    """(host, port) of a running server."""
    log_path = tmp_path_factory.mktemp("yomi") / "yomi.log"
    with open(log_path, "w") as log:
        child = subprocess.Popen([binary, "serve", "--tcp", "127.0.0.1:0"], stdin=subprocess.DEVNULL,
                                 stdout=subprocess.DEVNULL, stderr=log)
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
