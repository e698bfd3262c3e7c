"""The client against the protocol's schema (protocol/schema.json, `yomi schema`): every operation
and error code of the server has its method and its exception family here, and every event its
entry in EVENTS. No server needed."""
import inspect
import json
from pathlib import Path

import pytest

from yomi_client.errors import _BY_CODE
from yomi_client.operations import EVENTS, OPERATION_METHODS, MatchFollower, Operations

SCHEMA = json.loads((Path(__file__).resolve().parents[3] / "protocol" / "schema.json").read_text())


def definition(ref: str) -> dict:
    """The schema a `#/$defs/...` reference points at."""
    node = SCHEMA
    for part in ref.removeprefix("#/").split("/"):
        node = node[part]
    return node


class Recorder(Operations):
    """Records the request a method sends instead of sending it."""

    def request(self, op, **params):
        self.sent = (op, params)
        return None


def params_of(op: str) -> dict:
    return definition(SCHEMA["operations"][op]["params"]["$ref"])


@pytest.mark.parametrize("op", sorted(SCHEMA["operations"]))
def test_every_operation_has_a_method_that_sends_it_with_its_fields(op):
    assert op in OPERATION_METHODS, f"the schema's `{op}` has no method in OPERATION_METHODS"
    names = OPERATION_METHODS[op]
    names = names if isinstance(names, tuple) else (names,)
    schema = params_of(op)
    required = schema.get("required", [])
    reachable = set()
    for name in names:
        method = getattr(Recorder(), name)
        signature = inspect.signature(method).parameters
        # A dummy for each argument the method needs; a spec dict carries the spec's required fields.
        args = {arg: ({field: f"<{field}>" for field in required} if arg == "spec" else f"<{arg}>")
                for arg, p in signature.items() if p.default is inspect.Parameter.empty}
        recorder = method.__self__
        method(**args)
        sent_op, sent = recorder.sent
        assert sent_op == op, name
        missing = [field for field in required if field not in sent]
        assert not missing, f"{op}: required {missing} not sent by {name}"
        reachable |= set(schema.get("properties", {})) if "spec" in signature else set(signature)
    # Every field the server reads can be given: as an argument of one of the operation's
    # methods, or inside the spec dict.
    unreachable = set(schema.get("properties", {})) - reachable
    assert not unreachable, f"{op}: {sorted(unreachable)} cannot be given to {names}"


def test_no_method_names_an_operation_the_schema_lacks():
    assert set(OPERATION_METHODS) <= set(SCHEMA["operations"])


def test_every_error_code_has_its_family():
    missing = [code for code in SCHEMA["errors"] if code not in _BY_CODE]
    assert not missing, f"error codes without an exception family: {missing}"


@pytest.mark.parametrize("event", sorted(SCHEMA["events"]))
def test_every_event_is_known_with_its_fields(event):
    assert event in EVENTS, f"the schema's event `{event}` is not in EVENTS"
    payload = definition(SCHEMA["events"][event]["$ref"])
    assert sorted(EVENTS[event]) == sorted(payload["properties"]), event
    # The fields the match helpers read are always there.
    required = set(payload.get("required", []))
    assert required >= {"match"} & set(EVENTS[event]), event


def test_no_event_is_known_that_the_schema_lacks():
    assert set(EVENTS) <= set(SCHEMA["events"])


def test_the_match_helpers_follow_every_match_event_and_only_those():
    follower = MatchFollower()
    assert follower.mine({"event": "match.started", "match": "m1", "header": {}})
    for event, fields in sorted(EVENTS.items()):
        line = {"event": event, **{field: "m1" for field in fields}}
        assert follower.mine(line) == ("match" in fields), event
    assert not follower.mine({"event": "match.shiny", "match": "m1"})
