"""What both clients share about reaching a server: the token to introduce themselves with,
the environment a spawned `yomi serve --stdio` runs in, and the `hello` that carries the token."""
from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Dict, List, Optional

CLIENT_NAME = "yomi_client (python)"


def token_or_env(token: Optional[str]) -> Optional[str]:
    """The token given, else `$YOMI_TOKEN` when it is set and not empty, else None."""
    if token is not None:
        return token
    return os.environ.get("YOMI_TOKEN") or None


def hello_params(token: str) -> dict:
    """The `hello` a client sends first when it has a token (PROTOCOL.md, "hello")."""
    return {"protocol": 1, "client": CLIENT_NAME, "token": token}


def default_binary() -> str:
    """The server to spawn when none is named: `$YOMI_BIN`, else the release build of the yomi
    checkout the program runs in (`target/release/yomi` in the working directory or the nearest
    parent that has one), else `yomi` on PATH. Raises FileNotFoundError saying all three when
    there is none, rather than the bare "No such file" of running a missing `yomi`."""
    named = os.environ.get("YOMI_BIN")
    if named:
        return named
    cwd = Path.cwd()
    for directory in (cwd, *cwd.parents):
        built = directory / "target" / "release" / "yomi"
        if built.is_file() and os.access(built, os.X_OK):
            return str(built)
    on_path = shutil.which("yomi")
    if on_path:
        return on_path
    raise FileNotFoundError(
        "no yomi server to start: set YOMI_BIN to its path, run from a yomi checkout after "
        "`cargo build --release` (target/release/yomi), or put `yomi` on PATH")


def serve_command(binary: Optional[str], args: Optional[List[str]]) -> List[str]:
    """`yomi serve --stdio ARGS` for `binary` (None: `default_binary()`)."""
    return [binary or default_binary(), "serve", "--stdio", *(args or [])]


def quiet_env() -> Dict[str, str]:
    """The environment for a spawned server: its stderr is the user's, so unless the user chose a
    log level (YOMI_LOG or RUST_LOG), it says only warnings and errors, not its "loaded ..." lines."""
    env = dict(os.environ)
    if not env.get("YOMI_LOG") and not env.get("RUST_LOG"):
        env["YOMI_LOG"] = "warn"
    return env
