"""The string rule the broken-JSON scanners share."""

from __future__ import annotations

from harness.parsing.string_scan import StringScan


def _inside(text: str, opens: str = "\"'") -> list[bool]:
    """Per character, whether the scan is inside a string after reading it."""
    scan, out = StringScan(), []
    for ch in text:
        if scan.quote:
            scan.step(ch)
        elif ch in opens:
            scan.open(ch)
        out.append(bool(scan.quote))
    return out


def test_a_backslash_escapes_the_next_character_and_only_the_own_quote_closes() -> None:
    assert _inside('a"b\\"c"d') == [False, True, True, True, True, True, False, False]
    assert _inside("'x\"y'z") == [True, True, True, True, False, False]  # a double quote inside single ones
    assert _inside('"\\\\"x') == [True, True, True, False, False]  # an escaped backslash escapes nothing more


def test_which_quotes_open_is_the_callers_rule() -> None:
    assert _inside("'a'", opens='"') == [False, False, False]
