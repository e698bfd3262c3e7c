"""The yomi server an environment talks to: one given by the caller, a TCP address, or a
`yomi serve --stdio` child process of its own (the default, of the binary `Client.spawn` finds, so
environments never share a connection and each one's match ids and seeds stay its own)."""
from __future__ import annotations

from typing import Callable, Optional, Tuple

from ..client import Client


def connect(client: Optional[Client] = None, address: Optional[Tuple[str, int]] = None,
            binary: Optional[str] = None) -> Tuple[Client, Callable[[], None]]:
    """The client and how to release it: a given client is the caller's to close."""
    if sum(x is not None for x in (client, address, binary)) > 1:
        raise ValueError("give at most one of client, address and binary")
    if client is not None:
        return client, lambda: None
    if address is not None:
        own = Client.tcp(*address)
    else:
        own = Client.spawn(binary)
    return own, own.close
