"""What both clients share about reaching a server: the token to introduce themselves with,
the environment a spawned `yomi serve --stdio` runs in, and the `hello` that carries the token."""
from __future__ import annotations

import os
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


def serve_command(binary: str, args: Optional[List[str]]) -> List[str]:
    return [binary, "serve", "--stdio", *(args or [])]


def quiet_env() -> Dict[str, str]:
    """The environment for a spawned server: its stderr is the user's, so unless the user chose a
    log level (YOMI_LOG or RUST_LOG), it says only warnings and errors, not its "loaded ..." lines."""
    env = dict(os.environ)
    if not env.get("YOMI_LOG") and not env.get("RUST_LOG"):
        env["YOMI_LOG"] = "warn"
    return env
