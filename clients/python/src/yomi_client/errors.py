"""Errors carrying the protocol's stable codes (PROTOCOL.md, "Errors").

Every failed request raises a `YomiError` whose `code` is the protocol's code; its class tells
the family, so callers can catch what they can act on.
"""
from __future__ import annotations

from typing import Any, Optional


class YomiError(Exception):
    """A request failed: `code` is stable API, `message` is for people."""

    def __init__(self, code: str, message: str, request_id: Any = None):
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.request_id = request_id


class RequestError(YomiError):
    """The request itself was unreadable or malformed, or a bot cannot use it: every bot refuses an
    observation or `legal` list that does not fit its game with `invalid_params` (PROTOCOL.md, "Bad
    observations"), so this one class catches every bad-observation error; a bot asked for a
    policy it does not give answers `no_policy`."""


class NotFound(YomiError):
    """It names an agent, bot, game, preset, method, plugin or record that does not exist."""


class InvalidOption(YomiError):
    """An option value, or an ambiguous bot name, that cannot be accepted."""


class BotFailure(YomiError):
    """The bot failed on a request it could read: it errored, panicked, crashed, timed out or
    played illegally."""


class ConnectionClosed(YomiError):
    """The server or a client seat went away."""


class Cancelled(YomiError):
    """The request was stopped by a `cancel` of this session."""


class Refused(YomiError):
    """Not allowed now: a forbidden path, a conflicting state, a plugin that does not load, a
    limit reached, or a missing or wrong token."""


_FAMILIES = {
    RequestError: ["malformed_json", "invalid_request", "line_too_long", "unknown_op", "invalid_params",
                   "no_policy"],
    NotFound: ["unknown_agent", "unknown_bot", "unknown_game", "unknown_preset", "unknown_method", "unknown_plugin", "not_found"],
    InvalidOption: ["invalid_option", "ambiguous_bot"],
    BotFailure: ["bot_error", "plugin_panic", "timeout", "crashed", "illegal_action"],
    Cancelled: ["cancelled"],
    ConnectionClosed: ["disconnected"],
    Refused: ["forbidden", "conflict", "plugin_load", "limit_exceeded", "unauthorized"],
    YomiError: ["internal"],  # something failed inside the server: no family to act on
}
_BY_CODE = {code: cls for cls, codes in _FAMILIES.items() for code in codes}


def error_from_reply(reply: dict) -> YomiError:
    """The exception for a failed reply; `internal` and unknown codes (from a newer server) are
    plain `YomiError`."""
    error: dict = reply.get("error") or {}
    code: str = error.get("code", "internal")
    cls = _BY_CODE.get(code, YomiError)
    return cls(code, error.get("message", ""), reply.get("id"))


def closed(detail: Optional[str] = None) -> ConnectionClosed:
    return ConnectionClosed("disconnected", detail or "the connection closed before the reply")
