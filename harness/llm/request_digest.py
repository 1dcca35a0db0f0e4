"""What identifies a request: a sha256 of its canonical JSON body.

Volatile fields (`user`, `metadata`, `store`) are left out and keys sorted, so a cassette keeps
matching when they change, and an edited prompt misses instead of replaying another prompt's
answer. The runner, the client, the cassette store and vcrpy's matcher all hash with `body_hash`.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from ..text import scrub_surrogates

VOLATILE_BODY_FIELDS = frozenset({"user", "metadata", "store"})


def canonical_body(body: bytes | str | None) -> Any:
    """The request body with volatile fields removed; non-JSON bodies are kept as text."""
    if body is None:
        return None
    text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return text
    if isinstance(data, dict):
        data = {key: value for key, value in data.items() if key not in VOLATILE_BODY_FIELDS}
    return data


def dump_json(data: Any, **options: Any) -> str:
    """JSON text that UTF-8 can hold: lone surrogates (from "\\ud800" escapes) become U+FFFD."""
    return scrub_surrogates(json.dumps(data, ensure_ascii=False, **options))


def body_hash(body: bytes | str | None) -> str:
    """The hash a request body is matched by."""
    return canonical_hash(body, canonical_body(body))


def canonical_hash(body: bytes | str | None, canonical: Any) -> str:
    """`body_hash(body)` for a caller that already holds `canonical_body(body)` (read once)."""
    try:
        text = dump_json(canonical, sort_keys=True, separators=(",", ":"))
    except RecursionError:  # nested too deeply to canonicalise: hash the text as it is
        text = body.decode("utf-8", "replace") if isinstance(body, bytes) else scrub_surrogates(str(body))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _plain_json(value: Any, depth: int = 0) -> bool:
    """True when `value` reads back from JSON as itself: str keys, JSON scalars, lists, dicts."""
    if isinstance(value, str) or value is None or type(value) in (int, float, bool):
        return True
    if depth > 64:
        return False
    if isinstance(value, dict):
        return all(type(k) is str and _plain_json(v, depth + 1) for k, v in value.items())
    if isinstance(value, list):
        return all(_plain_json(v, depth + 1) for v in value)
    return False


def request_hash(payload: dict[str, Any]) -> str:
    """The hash a payload is matched by once the client has sent it as JSON.

    That is `body_hash(json.dumps(payload))`; a payload of plain JSON values reads back as
    itself, so it is hashed without writing and reading it again (one dump instead of three)."""
    if isinstance(payload, dict) and _plain_json(payload):
        data = {key: value for key, value in payload.items() if key not in VOLATILE_BODY_FIELDS}
        canonical = dump_json(data, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(canonical.encode("utf-8")).hexdigest()
    return body_hash(json.dumps(payload))
