"""yomi client: the JSON-lines protocol of yomi (PROTOCOL.md) from Python, standard library only.

    from yomi_client import Client
    with Client.tcp("127.0.0.1", 7878) as yomi:
        agent = yomi.new_agent("battle/delta-nash", preset="human-like")

`Client` is blocking; `yomi_client.aio.AsyncClient` is the asyncio twin with the same methods.
"""
from .client import Client
from .errors import (
    BotFailure,
    Cancelled,
    ConnectionClosed,
    InvalidOption,
    NotFound,
    Refused,
    RequestError,
    YomiError,
)

__all__ = [
    "Client",
    "YomiError",
    "RequestError",
    "NotFound",
    "InvalidOption",
    "BotFailure",
    "Cancelled",
    "ConnectionClosed",
    "Refused",
]
