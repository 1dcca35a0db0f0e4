"""Cleaning single field values: quotes, bold, record closers, strengths."""

from __future__ import annotations

import math

import re
from typing import Any, Literal

_OPEN_CLOSE = {'"': '"', "'": "'", "“": "”", "‘": "’", "「": "」", "『": "』", "«": "»", "`": "`", "„": "“"}
_QUOTES = frozenset('"\'“”‘’「」『』«»`„')
_DECOR_EDGE = frozenset('"\'“”‘’「」『』«»`„*_ ')
# The inside of a placeholder like <entity_name>, once surrounding whitespace is stripped. (The
# former single pattern `^<\s*[A-Za-z_ ]+\s*>$` backtracked cubically on a run of spaces.)
_PLACEHOLDER_CORE = re.compile(r"[A-Za-z_ ]+")
_STRENGTH_LOOSE = re.compile(r"(-?\d+(?:\.\d+)?)\s*(?:/\s*(\d+(?:\.\d+)?))?")

StrengthStatus = Literal["ok", "repaired", "placeholder", "invalid", "missing"]


def clean_value(raw: str) -> tuple[str, bool]:
    """Strip whitespace, surrounding quotes and bold. Returns (value, stray) where `stray` is
    True when something unbalanced (a lone quote, bold on one side) had to be removed.
    Balanced quotes are the legacy GraphRAG style and are not an issue."""
    s = raw.strip()
    if not s:
        return s, False
    first, last = s[0], s[-1]
    if first not in _DECOR_EDGE and last not in _DECOR_EDGE:
        return s, False
    if first == '"' and last == '"' and len(s) >= 2:  # the legacy quoted style: fast path
        inner = s[1:-1].strip()
        if not inner or (inner[0] not in _DECOR_EDGE and inner[-1] not in _DECOR_EDGE):
            return inner, False
    stray = False
    for _ in range(3):
        before = s
        if s.startswith("**") and s.endswith("**") and len(s) >= 4:
            s = s[2:-2].strip()
        elif s.startswith("**"):
            s, stray = s[2:].strip(), True
        elif s.endswith("**"):
            s, stray = s[:-2].strip(), True
        if len(s) >= 2 and s[0] in _OPEN_CLOSE and s[-1] == _OPEN_CLOSE[s[0]]:
            s = s[1:-1].strip()
        elif s and s[0] in _QUOTES and s.count(s[0]) == 1 and s[0] not in "'‘’":
            s, stray = s[1:].strip(), True
        elif s and s[-1] in _QUOTES and s.count(s[-1]) == 1 and s[-1] not in "'‘’":
            s, stray = s[:-1].strip(), True
        if s == before:
            break
    return s, stray


def strip_closer(s: str) -> tuple[str, str]:
    """Remove a record closer from the end of the last field: ')', '>', '）', ']' and bold or
    quotes around them, but only when unbalanced inside the field (so 'Foo (Bar)' survives).
    Returns (field, closer) where closer is '' when nothing was removed."""
    t = s.rstrip()
    closer = ""
    quoted = t[:1] in '"“'
    for _ in range(4):
        if not t:
            break
        last = t[-1]
        if quoted and last in ")）>]" and len(t) > 2 and t[-2] in '"”':
            t, closer = t[:-1].rstrip(), closer + last  # "value") : the ')' closes the record
        elif last == ")" and t.count(")") > t.count("("):
            t, closer = t[:-1].rstrip(), closer + ")"
        elif last == "）" and t.count("）") > t.count("（"):
            t, closer = t[:-1].rstrip(), closer + "）"
        elif last == ">" and t.count(">") > t.count("<"):
            t, closer = t[:-1].rstrip(), closer + ">"
        elif last == "]" and t.count("]") > t.count("["):
            t, closer = t[:-1].rstrip(), closer + "]"
        elif last == "*" and t.endswith("**") and t.count("**") % 2 == 1:
            t, closer = t[:-2].rstrip(), closer + "**"
        elif last in ",;" and not closer and len(t) > 1 and t[-2] in ")）>]":
            t = t[:-1].rstrip()  # ("entity"<|>...), : punctuation after the closer
        else:
            break
    return t, closer


def _finite(value: float) -> float:
    """`value`, unless it is no number a strength can be: nan, inf, or a 5,000-digit number that
    rounds to inf (ValueError, read as not a number)."""
    if not math.isfinite(value):
        raise ValueError(value)
    return value


def parse_strength(raw: str) -> tuple[float | None, StrengthStatus]:
    """Read a relationship strength from whatever a model wrote in that position."""
    s = raw.strip()
    if not s:
        return None, "missing"
    try:
        return _finite(float(s)), "ok"
    except ValueError:
        pass
    bare = s.strip("\"'“”*`()[]<>）（ \t\n.,;")
    try:
        return _finite(float(bare)), "repaired"
    except ValueError:
        pass
    if is_placeholder(s) or "strength" in s.lower():
        return None, "placeholder"
    m = _STRENGTH_LOOSE.search(s)
    if m is None or m.start() > 3:
        return None, "invalid"
    value = float(m.group(1))
    if m.group(2):
        denominator = float(m.group(2))
        if denominator not in (0.0, 10.0):
            value = value / denominator * 10.0
    if not math.isfinite(value):
        return None, "invalid"
    return value, "repaired"


def is_placeholder(value: str) -> bool:
    """A value copied from the prompt template, like <entity_name> (letters, underscores and
    spaces between angle brackets)."""
    if value.endswith("\n"):
        value = value[:-1]
    if len(value) < 3 or value[0] != "<" or value[-1] != ">":
        return False
    inner = value[1:-1]
    core = inner.strip()
    if not core:
        return " " in inner
    return _PLACEHOLDER_CORE.fullmatch(core) is not None


def json_number(value: Any) -> float | None:
    """A JSON value read as a number, as the query phase reads a score (`int(element["score"])`): a
    number or a numeric string; None for anything else (a boolean is no number)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip())
        except ValueError:
            return None
    return None
