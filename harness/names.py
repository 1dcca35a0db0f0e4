"""Names that become file or folder names: case ids, suite and variant names, run ids.

One rule for all of them, checked with `fullmatch` semantics (`\\A...\\Z`, not `$`, which lets a
trailing newline through): a letter or digit, then letters, digits, '.', '_' and '-', at most 128
characters. So a name can never be `..`, hold a `/`, start a hidden file, or exceed what a file
system takes (ENAMETOOLONG), wherever it comes from: a suite file, a flag, or a summary.json.
"""

from __future__ import annotations

import re

from .errors import InputError

MAX_NAME = 128
CASE_ID = re.compile(r"\A[A-Za-z0-9][A-Za-z0-9._-]{0,%d}\Z" % (MAX_NAME - 1))
NAME_RULE = f"letters, digits, '.', '_' and '-', starting with a letter or digit, at most {MAX_NAME} characters"


def is_safe_name(value: object) -> bool:
    return isinstance(value, str) and CASE_ID.match(value) is not None


def shown(value: object, limit: int = 40) -> str:
    """A value for a one-line message: quoted, escaped, and cut when long."""
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}… ({len(value) if isinstance(value, str) else '?'} characters)"


def check_name(value: object, where: str, what: str) -> str:
    """`value` if it is a safe name, else InputError('<where>: <what> <value> is not ...')."""
    if not is_safe_name(value):
        raise InputError(f"{where}: {what} {shown(value)} is not a valid name ({NAME_RULE})")
    return value  # type: ignore[return-value]


def safe_name(text: str, fallback: str = "case") -> str:
    """`text` made into a name this rule accepts (`fallback` when nothing of it is left).

    Names in other scripts are transliterated (`北京会议` -> `BeiJingHuiYi`, `Москва` -> `Moskva`)
    so that they stay recognisable: ids name cassette files and folders, which the suite schema
    keeps to ASCII letters, digits, `.`, `_` and `-`.
    """
    from anyascii import anyascii

    name = re.sub(r"[^A-Za-z0-9._-]+", "-", anyascii(text)).strip("-._")[:100]
    if not is_safe_name(name):
        name = fallback
    return name
