"""Credential redaction: the configured API key's value, whatever its shape, never reaches disk.

Pattern scans (`sk-...`, `Bearer ...`) miss keys of other shapes (an Azure key is 32 hex
digits), so the harness also looks for the exact value of every key it is configured with,
and for the ways an endpoint could echo it: base64 (alone, or inside a longer blob such as
`Basic dXNlcjpLRVk=`), URL-encoded, and JSON-escaped (once, or twice when a body holding
JSON is itself stored as a JSON string).
"""

from __future__ import annotations

import base64
import functools
import json
import os
import re
from collections.abc import Iterable, Mapping
from urllib.parse import quote, quote_plus

REDACTED = "[REDACTED]"
DEFAULT_KEY_ENVS = ("OPENAI_API_KEY", "AZURE_OPENAI_API_KEY")
# Shorter values ("ollama", "none", "x") are placeholders local servers accept, not secrets;
# redacting them would rewrite ordinary model text.
MIN_SECRET_LENGTH = 8
CREDENTIAL_HEADERS = ("authorization", "api-key", "x-api-key")


def _base64_fragments(raw: bytes) -> set[str]:
    """The base64 text that encodes `raw` wherever it sits in a longer blob.

    Base64 packs 3 bytes into 4 characters, so `raw` starts at one of three bit offsets;
    for each, keep only the characters made of `raw`'s bits alone."""
    fragments: set[str] = set()
    for lead in range(3):
        encoded = base64.b64encode(b"\0" * lead + raw).decode("ascii").rstrip("=")
        start = -(-8 * lead // 6)  # ceil: the first character free of the leading bytes
        end = (8 * (lead + len(raw))) // 6  # the last character holding only raw's bits
        fragment = encoded[start:end]
        if len(fragment) >= MIN_SECRET_LENGTH:
            fragments.add(fragment)
            fragments.add(fragment.replace("+", "-").replace("/", "_"))  # base64url
    return fragments


def secret_forms(secret: str) -> set[str]:
    """The value and its common encodings, as they could appear in text written to disk."""
    return set(_secret_forms(secret))


@functools.lru_cache(maxsize=64)
def _secret_forms(secret: str) -> frozenset[str]:
    """`secret_forms`, computed once per value: a recording run learns the same key for every
    case and every request (a few keys in all), and deriving its encodings is not free."""
    if len(secret) < MIN_SECRET_LENGTH:
        return frozenset()
    raw = secret.encode("utf-8", "replace")
    escaped = json.dumps(secret)[1:-1]
    forms = {
        secret,
        escaped,
        json.dumps(secret, ensure_ascii=False)[1:-1],
        json.dumps(escaped)[1:-1],  # JSON text inside a JSON string
        quote(secret, safe=""),
        quote_plus(secret, safe=""),
    }
    forms |= _base64_fragments(raw)
    return frozenset(form for form in forms if form)


def configured_secrets(key_envs: Iterable[str] = (), environ: Mapping[str, str] | None = None) -> list[str]:
    """The values of the default key variables and of `key_envs` (a suite's `api_key_env`)."""
    env = os.environ if environ is None else environ
    names = dict.fromkeys([*DEFAULT_KEY_ENVS, *key_envs])
    return [value for name in names if (value := env.get(name, "").strip())]


def header_secrets(headers: Mapping[str, object]) -> list[str]:
    """The credentials a request carries (`Authorization: Bearer KEY`, `api-key: KEY`)."""
    found = []
    for name, value in headers.items():
        if name.lower() not in CREDENTIAL_HEADERS:
            continue
        for item in value if isinstance(value, (list, tuple)) else [value]:
            text = str(item).strip()
            scheme, _, token = text.partition(" ")
            found.append(token.strip() if scheme.lower() in ("bearer", "basic") and token else text)
    return found


@functools.lru_cache(maxsize=64)
def _pattern_of(forms: frozenset[str]) -> re.Pattern[str]:
    """One pattern for all `forms`, longest first, so an escaped form wins over the bare value it
    contains (cached: every case of a recording run builds a redactor for the same keys)."""
    ordered = sorted(forms, key=lambda f: (-len(f), f))
    return re.compile("|".join(re.escape(f) for f in ordered))


class Redactor:
    """Replaces every form of a set of secrets with `[REDACTED]`; learns more as it goes."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self._forms: set[str] = set()
        self._secrets: set[str] = set()  # the values learnt so far (each adds its forms once)
        self._pattern: re.Pattern[str] | None = None
        self.add(secrets)

    def add(self, secrets: Iterable[str]) -> None:
        unseen = [s for s in secrets if s not in self._secrets]
        if not unseen:
            return
        self._secrets.update(unseen)
        new = set().union(*(_secret_forms(s) for s in unseen)) - self._forms
        if new:
            self._forms |= new
            self._pattern = _pattern_of(frozenset(self._forms))

    def __bool__(self) -> bool:
        return self._pattern is not None

    def redact(self, text: str) -> str:
        if self._pattern is None:
            return text
        return self._pattern.sub(REDACTED, text)

    def find(self, text: str) -> list[re.Match[str]]:
        """Every place a form of a secret occurs (for audits)."""
        return [] if self._pattern is None else list(self._pattern.finditer(text))

    def redact_data(self, value: object) -> object:
        """A copy of JSON-like data with every string (keys too) redacted; no recursion."""
        if self._pattern is None:
            return value
        root: list[object] = [value]
        stack: list[tuple[list | dict, object]] = [(root, 0)]
        while stack:
            parent, slot = stack.pop()
            item = parent[slot]  # type: ignore[index]
            if isinstance(item, str):
                parent[slot] = self.redact(item)  # type: ignore[index]
            elif isinstance(item, dict):
                copy = {self.redact(k) if isinstance(k, str) else k: v for k, v in item.items()}
                parent[slot] = copy  # type: ignore[index]
                stack.extend((copy, k) for k in copy)
            elif isinstance(item, list):
                copy_list = list(item)
                parent[slot] = copy_list  # type: ignore[index]
                stack.extend((copy_list, i) for i in range(len(copy_list)))
        return root[0]
