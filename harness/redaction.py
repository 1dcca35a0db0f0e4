"""Credential redaction: a key's value, whatever its shape, never reaches disk or screen.

Pattern scans (`sk-...`, `Bearer ...`) miss keys of other shapes (an Azure key is 32 hex
digits), so the harness also looks for the exact value of every key it knows (harness/known_keys.py
says which), and for the ways an endpoint or a file could carry it: base64 (alone, or inside a
longer blob such as `Basic dXNlcjpLRVk=`, with or without padding, standard or URL-safe),
URL-encoded (either case of hex digits), JSON-escaped (once, or twice when a body holding JSON is
itself stored as a JSON string; every character as `\\uXXXX` too), HTML- and XML-escaped, and hex.
A message that cuts a value short (`value[:40]`) still gives a key away, so the key's first
`PREFIX_MIN` characters and whatever follows of it are redacted too.
"""

from __future__ import annotations

import base64
import functools
import html
import json
import os
import re
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import quote, quote_plus

REDACTED = "[REDACTED]"
DEFAULT_KEY_ENVS = ("OPENAI_API_KEY", "AZURE_OPENAI_API_KEY")
# Shorter values ("ollama", "none", "x") are placeholders local servers accept, not secrets;
# redacting them would rewrite ordinary model text.
MIN_SECRET_LENGTH = 8
PREFIX_MIN = 16  # a key cut short is still redacted from this many of its first characters
_PREFIX_DEPTH = 240  # how much of a long key's tail the prefix pattern follows (the regex nests per character)
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


@functools.lru_cache(maxsize=64)
def _secret_forms(secret: str) -> frozenset[str]:
    """The value and its common encodings, as they could appear in text written to disk; computed
    once per value (hence frozen, shared by every caller): a recording run learns the same key for every
    case and every request (a few keys in all), and deriving its encodings is not free."""
    if len(secret) < MIN_SECRET_LENGTH or secret in REDACTED:  # redacting must not redact its own mark
        return frozenset()
    raw = secret.encode("utf-8", "replace")
    units = secret.encode("utf-16-be", "surrogatepass")
    every_unit = [int.from_bytes(units[i:i + 2], "big") for i in range(0, len(units), 2)]
    url_forms = {quote(secret, safe=""), quote_plus(secret, safe="")}
    encoded = {
        secret,
        "".join(f"\\u{unit:04x}" for unit in every_unit),  # every character escaped
        "".join(f"\\u{unit:04X}" for unit in every_unit),
        *url_forms,
        *(re.sub(r"%[0-9A-F]{2}", lambda m: m.group(0).lower(), form) for form in url_forms),
        html.escape(secret),
        html.escape(secret, quote=False),
        html.escape(secret, quote=False).replace('"', "&quot;"),  # XML attributes (ElementTree)
        raw.hex(),
        raw.hex().upper(),
        *_base64_fragments(raw),
    }
    # each as written inside a JSON string, and inside JSON text stored as a JSON string
    once = {json.dumps(form, ensure_ascii=ascii)[1:-1] for form in encoded for ascii in (True, False)}
    twice = {json.dumps(form)[1:-1] for form in once}
    return frozenset(form for form in encoded | once | twice if form)


def _prefix_pattern(secret: str) -> str | None:
    """A regex for the secret's first PREFIX_MIN characters and as many of the following ones as
    are there (nested optional groups: the longest prefix present is taken)."""
    if len(secret) <= PREFIX_MIN or secret in REDACTED:
        return None
    tail = ""
    for char in reversed(secret[PREFIX_MIN:PREFIX_MIN + _PREFIX_DEPTH]):
        tail = f"(?:{re.escape(char)}{tail})?"
    return re.escape(secret[:PREFIX_MIN]) + tail


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
def _pattern_of(forms: frozenset[str], secrets: frozenset[str]) -> re.Pattern[str]:
    """One pattern for all `forms`, longest first, so an escaped form wins over the bare value it
    contains, then the secrets' prefixes (cached: every case of a recording run builds a redactor
    for the same keys)."""
    ordered = sorted(forms, key=lambda f: (-len(f), f))
    prefixes = sorted(p for p in map(_prefix_pattern, secrets) if p is not None)
    return re.compile("|".join([*(re.escape(f) for f in ordered), *prefixes]))


@functools.lru_cache(maxsize=64)
def _forms_by_first(forms: frozenset[str]) -> dict[str, tuple[str, ...]]:
    """The forms by their first character (where a text cut in two may end with a form's beginning)."""
    grouped: dict[str, list[str]] = {}
    for form in forms:
        grouped.setdefault(form[0], []).append(form)
    return {first: tuple(group) for first, group in grouped.items()}


def _partial_tail(text: str, forms: frozenset[str]) -> int:
    """The length of the longest end of `text` that is a proper beginning of a form (0: none)."""
    by_first = _forms_by_first(forms)
    longest = max(map(len, forms)) - 1
    for start in range(max(0, len(text) - longest), len(text)):
        group = by_first.get(text[start])
        if group is not None:
            tail = text[start:]
            if any(len(form) > len(tail) and form.startswith(tail) for form in group):
                return len(tail)
    return 0


class Redactor:
    """Replaces every form of a set of secrets with `[REDACTED]`; learns more as it goes."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self._forms: frozenset[str] = frozenset()
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
            self._pattern = _pattern_of(self._forms, frozenset(s for s in self._secrets if _secret_forms(s)))

    def __bool__(self) -> bool:
        return self._pattern is not None

    def redact(self, text: str) -> str:
        if self._pattern is None:
            return text
        return self._pattern.sub(REDACTED, text)

    def redact_head(self, text: str) -> tuple[str, str]:
        """`text` redacted, but for a tail the next piece of a stream may complete into a secret
        (or into a longer form of one): (the redacted head, the tail held back, not redacted).
        The head is final: no match crosses the cut. At the end of the stream, redact the tail."""
        if self._pattern is None:
            return text, ""
        parts: list[str] = []
        last = 0
        for match in self._pattern.finditer(text):
            if match.end() == len(text):  # a match at the very end may grow with the next piece
                return "".join(parts) + text[last:match.start()], text[match.start():]
            parts += [text[last:match.start()], REDACTED]
            last = match.end()
        rest = text[last:]
        held = _partial_tail(rest, self._forms)
        parts.append(rest[:len(rest) - held])
        return "".join(parts), rest[len(rest) - held:]

    def find(self, text: str) -> list[re.Match[str]]:
        """Every place a form of a secret occurs (for audits)."""
        return [] if self._pattern is None else list(self._pattern.finditer(text))

    def redact_data(self, value: object) -> object:
        """A copy of JSON-like data with every string (keys too) redacted; no recursion."""
        if self._pattern is None:
            return value
        root: list[object] = [value]
        stack: list[tuple[list[object] | dict[object, object], Any]] = [(root, 0)]  # the slot: an index or a key
        while stack:
            parent, slot = stack.pop()
            item = parent[slot]
            if isinstance(item, str):
                parent[slot] = self.redact(item)
            elif isinstance(item, dict):
                copy = {self.redact(k) if isinstance(k, str) else k: v for k, v in item.items()}
                parent[slot] = copy
                stack.extend((copy, k) for k in copy)
            elif isinstance(item, list):
                copy_list = list(item)
                parent[slot] = copy_list
                stack.extend((copy_list, i) for i in range(len(copy_list)))
        return root[0]
