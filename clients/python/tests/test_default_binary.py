"""Which server `Client.spawn` starts when none is named: `$YOMI_BIN`, else the yomi checkout's
release build found from the working directory, else `yomi` on PATH, else a clear error."""
import pytest

from yomi_client import Client
from yomi_client.transport import default_binary

from conftest import ROOT


BUILT = ROOT / "target" / "release" / "yomi"


def test_yomi_bin_comes_first(monkeypatch):
    monkeypatch.setenv("YOMI_BIN", "/opt/yomi/bin/yomi")
    monkeypatch.chdir(ROOT)
    assert default_binary() == "/opt/yomi/bin/yomi"


def test_inside_a_checkout_its_release_build_is_found_from_any_directory(monkeypatch):
    if not BUILT.exists():
        pytest.skip(f"this checkout has no release build at {BUILT}")
    monkeypatch.delenv("YOMI_BIN", raising=False)
    monkeypatch.setenv("PATH", "")
    for directory in (ROOT, ROOT / "clients" / "python" / "examples"):
        monkeypatch.chdir(directory)
        assert default_binary() == str(BUILT)
    with Client.spawn() as yomi:  # and it is a server that answers
        assert yomi.ping() == {"pong": True}


def test_outside_a_checkout_path_is_searched_and_nothing_found_says_what_to_do(monkeypatch, tmp_path):
    monkeypatch.delenv("YOMI_BIN", raising=False)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", str(BUILT.parent))
    if BUILT.exists():
        assert default_binary() == str(BUILT)
    monkeypatch.setenv("PATH", "")
    with pytest.raises(FileNotFoundError, match="set YOMI_BIN.*cargo build --release.*PATH"):
        Client.spawn()
