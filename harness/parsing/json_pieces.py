"""Broken JSON repaired a piece at a time, so the work grows with the text, not its square.

json_repair mends what models break (missing quotes and commas, single quotes, comments, cut-off
ends), but some of its repairs look ahead through the rest of the text: an unquoted key makes it
search to the end for a character that is not there, once per key, so a 96 KB answer of unquoted
keys took 102 s. Here json_repair is only ever given at most `piece` characters: a longer array
or object is cut into its members (by a scan that knows strings and nesting), consecutive members
are repaired in groups of at most `piece` characters, and the results are put back together; a
member longer than `piece` is itself cut the same way. Each group costs at most a constant (of
`piece`), and there are about length / `piece` groups per level of nesting, so the whole costs
the length times the nesting depth (which the caller bounds).

A text of at most `piece` characters is repaired whole, exactly as before.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import json_repair

from .string_scan import StringScan

_OPENERS = "{["
_CLOSERS = "}]"
_VALUE_START = "[{,:"


def repair_value(text: str, piece: int) -> Any:
    """The value json_repair reads from `text`, repaired in pieces of at most `piece` characters
    when it is longer; None when nothing can be read."""
    if len(text) <= piece:
        return _whole(text)
    start = _skip_space(text, 0)
    if start >= len(text) or text[start] not in _OPENERS:
        return _leaf(text)
    return _container(text, start, piece)


def _whole(text: str) -> Any:
    try:
        return json_repair.loads(text)
    except Exception:  # json_repair is third-party and model output is hostile
        return None


def _leaf(text: str) -> Any:
    """A long value that holds no container: valid JSON or nothing (never json_repair whole)."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def _skip_space(text: str, i: int) -> int:
    while i < len(text) and text[i] in " \t\r\n":
        i += 1
    return i


def _members(text: str, start: int) -> Iterator[str]:
    """The members of the container opening at `start`, as text: split at its top-level commas,
    and where one member closes and the next opens with no comma between them; up to its closer,
    or to the end of a container that is never closed. Strings in double quotes, and in single
    quotes where a value starts, are skipped whole."""
    depth = 0
    scan = StringScan()
    closed_member = False  # a member just ended with a closer at the top level
    last = ""  # the last character outside strings and spaces
    begin = start + 1
    i = begin
    n = len(text)
    while i < n:
        ch = text[i]
        if scan.quote:
            scan.step(ch)
            if not scan.quote:  # the string's closing quote
                last = ch
        elif ch == '"' or (ch == "'" and (last in _VALUE_START or not last.strip())):
            scan.open(ch)
        elif ch in _OPENERS:
            if depth == 0 and closed_member:  # `{...} {...}`: a comma is missing
                yield text[begin:i]
                begin = i
            depth += 1
            closed_member = False
            last = ch
        elif ch in _CLOSERS:
            if depth == 0:  # the container's own closer
                yield text[begin:i]
                return
            depth -= 1
            closed_member = depth == 0
            last = ch
        elif ch == "," and depth == 0:
            yield text[begin:i]
            begin = i + 1
            closed_member = False
            last = ch
        elif ch not in " \t\r\n":
            closed_member = False
            last = ch
        i += 1
    yield text[begin:]


def _groups(members: list[str], piece: int) -> Iterator[list[str]]:
    """Consecutive members in groups whose text stays within `piece` (a longer member alone)."""
    group: list[str] = []
    size = 0
    for member in members:
        if group and size + len(member) + 1 > piece:
            yield group
            group, size = [], 0
        group.append(member)
        size += len(member) + 1
    if group:
        yield group


def _container(text: str, start: int, piece: int) -> Any:
    is_object = text[start] == "{"
    members = [m for m in _members(text, start) if m.strip()]
    if is_object:
        merged: dict[Any, Any] = {}
        for group in _groups(members, piece):
            if len(group) == 1 and len(group[0]) + 2 > piece:
                merged.update(_long_pair(group[0], piece))
                continue
            value = _whole("{" + ",".join(group) + "}")
            if isinstance(value, dict):
                merged.update(value)
        return merged
    items: list[Any] = []
    for group in _groups(members, piece):
        if len(group) == 1 and len(group[0]) + 2 > piece:
            value = repair_value(group[0], piece)
            if value not in (None, ""):
                items.append(value)
            continue
        value = _whole("[" + ",".join(group) + "]")
        if isinstance(value, list):
            items.extend(value)
    return items


def _long_pair(member: str, piece: int) -> dict[Any, Any]:
    """One `key: value` member longer than `piece`: the key read as written, the value repaired
    in pieces."""
    colon = _top_level_colon(member)
    if colon < 0:
        return {}
    key = member[:colon].strip().strip("\"'")
    value = repair_value(member[colon + 1:], piece)
    return {key: value} if key and value is not None else {}


def _top_level_colon(member: str) -> int:
    scan = StringScan()
    for i, ch in enumerate(member):
        if scan.quote:
            scan.step(ch)
        elif ch in "\"'":
            scan.open(ch)
        elif ch == ":":
            return i
        elif ch in _OPENERS:
            return -1
    return -1
