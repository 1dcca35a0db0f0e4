"""What commands read from their arguments: FILE or `-`, and option values parsed and checked.

A value that does not parse is an InputError naming the option (one line, exit 2).
"""

from __future__ import annotations

import math
import re
import sys
from pathlib import Path

from ..errors import InputError


def read_input(source: str, *, limit: int | None = None) -> str:
    """Text of FILE, or standard input for `-`; unreadable input is exit 2."""
    if source == "-":
        data = sys.stdin.buffer.read()
        name = "<stdin>"
    else:
        from ..inputfiles import MAX_INPUT_BYTES, read_bytes

        data = read_bytes(Path(source), limit=limit or MAX_INPUT_BYTES)  # regular files of bounded size only
        name = source
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{name}: not UTF-8 text (byte {exc.start})") from None


def parse_shard(text: str | None) -> tuple[int, int] | None:
    """`--shard i/n` (1-based: 1/4 … 4/4) -> (i, n); anything else is bad input."""
    if text is None:
        return None
    found = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", text)
    if not found:
        raise InputError(f"--shard: '{text}' is not i/n (for example 1/4)")
    index, count = int(found.group(1)), int(found.group(2))
    if count < 1 or not 1 <= index <= count:
        raise InputError(f"--shard: '{text}' needs 1 <= i <= n")
    return index, count


def budget(value: float | None) -> float | None:
    """`--budget`: dollars per 1,000 chunks, a finite number >= 0."""
    if value is not None and not (math.isfinite(value) and value >= 0):
        raise InputError(f"--budget: {value} is not a number of dollars >= 0")
    return value


def record_mode(given: str | None, command: str) -> str:
    """`--record-mode` (else the command's default: llm.record_modes), checked against the known modes."""
    from ..llm.record_modes import RECORD_MODES, default_record_mode

    mode = given or default_record_mode(command)
    if mode not in RECORD_MODES:
        raise InputError(f"--record-mode: '{mode}' is not one of {', '.join(RECORD_MODES)}")
    return mode


def check_format(fmt: str) -> None:
    """`--format`: auto or a registered output format."""
    from ..formats import AUTO, format_names, is_format

    if fmt != AUTO and not is_format(fmt):
        raise InputError(f"--format: '{fmt}' is not one of {', '.join((AUTO, *format_names()))}")


def entity_type_list(value: str | None) -> list[str] | None:
    """`--entity-types a,b,c` of `harness score`; given but empty is bad input."""
    if value is None:
        return None
    types = [t.strip() for t in value.split(",") if t.strip()]
    if not types:
        raise InputError("--entity-types: give the types comma-separated, e.g. person,organization,geo")
    return types


def split_list(value: str | None) -> list[str] | None:
    """A comma-separated value as its items, empty items dropped (None: not given)."""
    if value is None:
        return None
    return [part.strip() for part in value.split(",") if part.strip()]


def comma_list(option: str, value: str | None) -> list[str] | None:
    """A comma-separated option as its items (None: not given); given but empty is bad input."""
    if value is None:
        return None
    items = [item.strip() for item in value.split(",") if item.strip()]
    if not items:
        raise InputError(f"{option}: give the values comma-separated, e.g. {option} PERSON,PLACE")
    return items


def unescape(value: str | None) -> str | None:
    """Let delimiters be typed on a command line: `\\n` stands for a newline."""
    return None if value is None else value.replace("\\n", "\n").replace("\\t", "\t")
