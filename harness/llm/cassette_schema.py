"""The shape of a cassette file, checked once when it is loaded.

A cassette is a file anyone can edit or break (a merge conflict, a truncated copy, a hand
fix). vcrpy and its httpx stubs trust what they load and fail deep inside with a TypeError
or KeyError; `validate_cassette` instead rejects anything they could not replay, naming
the place (`interactions[2].response.status.code: not a whole number`), and returns the
interactions in exactly the shape they expect. Replayed answers are chat completions, so
the response body is also held to what the client reads of one.
"""

from __future__ import annotations

import json
import math
from typing import Any
from urllib.parse import urlsplit

from ..inputfiles import JsonRefused, loads
from ..text import scrub_surrogates

FORMAT_VERSION = 1
# What the harness keeps of a recorded call under the response's "harness" key (vcrpy keeps and
# ignores it): the call's latency as measured when it was recorded, and whether a batch answered it
RECORDED_FACTS = ("latency_s", "batch")
# Chat-completion requests and answers nest a handful of levels (messages, content parts,
# a JSON schema); much deeper is damage, and would overflow the stack of json and vcrpy.
MAX_DEPTH = 64
# Nesting read before the schema names the place that is too deep; deeper still is refused unread
# (far below what the interpreter's JSON decoder recurses to).
SCAN_DEPTH = 400


class CorruptCassette(ValueError):
    """The cassette cannot be replayed; the message names the place and the problem."""


def nesting_depth(value: Any, limit: int = MAX_DEPTH) -> int:
    """How deeply lists and dicts nest in `value` (iteratively, a level at a time; stops counting
    past `limit`). Only containers are visited: a cassette's many strings cost nothing."""
    level = [value] if isinstance(value, (dict, list)) else []
    depth = 0
    while level:
        depth += 1
        if depth > limit:
            return depth
        below: list[Any] = []
        for item in level:
            children = item.values() if isinstance(item, dict) else item
            below.extend([child for child in children if isinstance(child, (dict, list))])
        level = below
    return depth


def _need(condition: bool, place: str, problem: str) -> None:
    if not condition:
        raise CorruptCassette(f"{place}: {problem}")


def _headers(value: Any, place: str) -> dict[str, list[str]]:
    if value is None:
        return {}
    _need(isinstance(value, dict), place, "not an object of header names")
    headers: dict[str, list[str]] = {}
    for name, values in value.items():
        items = values if isinstance(values, list) else [values]
        # HTTP headers are ASCII: httpx refuses anything else when it rebuilds the response
        ok = name.isascii() and bool(items) and all(isinstance(v, str) and v.isascii() for v in items)
        _need(ok, f"{place}.{name}", "not ASCII text or a non-empty list of it")
        headers[name] = items
    return headers


def _body_text(body: Any, place: str) -> str | None:
    """A stored body as the text that was sent or received: JSON bodies are stored parsed."""
    return _body(body, place)[0]


# `_body`'s second value when only the text is known (a body stored as text, or one whose writing
# replaced surrogates): a reader parses the text
UNPARSED: Any = object()


def _body(body: Any, place: str) -> tuple[str | None, Any]:
    """(`_body_text`, the JSON value the text reads back as when that is known without reading it:
    a body stored parsed whose text needed no surrogate replaced; else UNPARSED)."""
    if body is None or isinstance(body, str):
        return (None if body is None else scrub_surrogates(body)), UNPARSED
    _need(isinstance(body, dict) and set(body) == {"json"}, place, 'neither text nor {"json": ...}')
    written = json.dumps(body["json"], ensure_ascii=False)
    text = scrub_surrogates(written)
    return text, (body["json"] if text is written else UNPARSED)


def check_completion_body(text: str | None, place: str) -> None:
    """What the client reads of an answer must have the types it expects."""
    _need(text is not None, place, "no response body")
    try:  # the JSON policy: nesting (the same bound as below, whatever the interpreter recurses to), integers
        data = loads(text, limit=SCAN_DEPTH)  # type: ignore[arg-type]
    except JsonRefused as exc:
        problem = f"nested deeper than {MAX_DEPTH} levels" if exc.depth else str(exc).removeprefix("JSON ")
        raise CorruptCassette(f"{place}: {problem}") from None
    except ValueError:
        raise CorruptCassette(f"{place}: not JSON") from None
    _check_completion(data, place)


def _check_completion(data: Any, place: str) -> None:
    """`check_completion_body` on the answer's JSON value, already read."""
    _need(isinstance(data, dict), place, "not a JSON object")
    _need(nesting_depth(data) <= MAX_DEPTH, place, f"nested deeper than {MAX_DEPTH} levels")
    choices = data.get("choices")
    _need(choices is None or isinstance(choices, list), f"{place}.choices", "not a list")
    for i, choice in enumerate(choices or []):
        _need(isinstance(choice, dict), f"{place}.choices[{i}]", "not an object")
        message = choice.get("message")
        _need(message is None or isinstance(message, dict), f"{place}.choices[{i}].message", "not an object")
    usage = data.get("usage")
    _need(usage is None or isinstance(usage, dict), f"{place}.usage", "not an object")
    for field, count in (usage or {}).items():
        if field in ("prompt_tokens", "completion_tokens", "total_tokens"):
            ok = count is None or (isinstance(count, int) and not isinstance(count, bool) and count >= 0)
            _need(ok, f"{place}.usage.{field}", "not a whole number")


def _request(value: Any, place: str, *, body_text: bool = True) -> dict[str, Any]:
    _need(isinstance(value, dict), place, "not an object")
    method, uri = value.get("method"), value.get("uri")
    _need(isinstance(method, str) and method.isalpha(), f"{place}.method", "not an HTTP method")
    _need(isinstance(uri, str), f"{place}.uri", "not text")
    try:
        parts = urlsplit(uri)
    except ValueError:
        raise CorruptCassette(f"{place}.uri: not a URL") from None
    _need(bool(parts.scheme and parts.netloc), f"{place}.uri", "not an absolute URL")
    return {
        "method": method,
        "uri": uri,
        "body": (_body_text if body_text else _stored_body)(value.get("body"), f"{place}.body"),
        "headers": _headers(value.get("headers"), f"{place}.headers"),
    }


def _response(value: Any, place: str) -> dict[str, Any]:
    _need(isinstance(value, dict), place, "not an object")
    status = value.get("status")
    _need(isinstance(status, dict), f"{place}.status", "missing or not an object")
    code = status.get("code")
    ok = isinstance(code, int) and not isinstance(code, bool)
    _need(ok, f"{place}.status.code", "not an HTTP status number")
    # only successes are ever recorded (cassettes.scrub_response); anything else was edited in
    _need(200 <= code <= 299, f"{place}.status.code", f"{code} is not a success")
    message = status.get("message")
    _need(message is None or (isinstance(message, str) and message.isascii()), f"{place}.status.message",
          "not ASCII text")
    body = value.get("body")
    _need(isinstance(body, dict) and "string" in body, f"{place}.body", 'missing or without "string"')
    text, data = _body(body["string"], f"{place}.body.string")
    if data is UNPARSED:
        check_completion_body(text, f"{place}.body.string")
    else:  # stored parsed: its text reads back as this value, so it is not read again
        _check_completion(data, f"{place}.body.string")
    checked: dict[str, Any] = {
        "status": {"code": code, "message": message},
        "headers": _headers(value.get("headers"), f"{place}.headers"),
        "body": {"string": (text or "").encode("utf-8")},
    }
    if "harness" in value:
        checked["harness"] = _call_facts(value["harness"], f"{place}.harness")
    return checked


def _call_facts(value: Any, place: str) -> dict[str, Any]:
    """What the harness noted of a recorded call beside vcrpy's fields (`RECORDED_FACTS`): its
    measured latency in seconds and whether the Batch API answered it. vcrpy ignores the key."""
    _need(isinstance(value, dict), place, "not an object")
    unknown = sorted(set(value) - set(RECORDED_FACTS))
    _need(not unknown, f"{place}.{unknown[0] if unknown else ''}", f"not one of {', '.join(RECORDED_FACTS)}")
    facts: dict[str, Any] = {}
    if "latency_s" in value:
        latency = value["latency_s"]
        ok = (isinstance(latency, (int, float)) and not isinstance(latency, bool)
              and math.isfinite(latency) and latency >= 0)
        _need(ok, f"{place}.latency_s", "not a number of seconds >= 0")
        facts["latency_s"] = float(latency)
    if "batch" in value:
        _need(isinstance(value["batch"], bool), f"{place}.batch", "not true or false")
        facts["batch"] = value["batch"]
    return facts


def _stored_body(body: Any, place: str) -> str | dict[str, Any] | None:
    """A request body checked as `_body_text` checks it, but kept as stored: text (surrogates
    replaced), None, or {"json": value} not yet written out."""
    if body is None or isinstance(body, str):
        return _body_text(body, place)
    _need(isinstance(body, dict) and set(body) == {"json"}, place, 'neither text nor {"json": ...}')
    return body


def validate_cassette(data: Any, *, request_text: bool = True) -> dict[str, Any]:
    """The cassette with each interaction's request and response as vcrpy replays them.

    `request_text=False`: each request body stays as stored (`_stored_body`), for a reader that
    only hashes it (the cassette store) and need not write a JSON body out as text first.
    Raises CorruptCassette naming the first place that is wrong."""
    _need(isinstance(data, dict), "top level", "not a JSON object")
    version = data.get("version", FORMAT_VERSION)
    _need(version == FORMAT_VERSION and not isinstance(version, bool), "version", f"not {FORMAT_VERSION}")
    interactions = data.get("interactions")
    _need(isinstance(interactions, list), "interactions", "missing or not a list")
    checked = []
    for i, interaction in enumerate(interactions):
        place = f"interactions[{i}]"
        _need(isinstance(interaction, dict), place, "not an object")
        _need(nesting_depth(interaction) <= MAX_DEPTH, place, f"nested deeper than {MAX_DEPTH} levels")
        checked.append({
            "request": _request(interaction.get("request"), f"{place}.request", body_text=request_text),
            "response": _response(interaction.get("response"), f"{place}.response"),
        })
    return {"version": FORMAT_VERSION, "interactions": checked}
