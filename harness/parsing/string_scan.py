"""Where a left-to-right scan of JSON-like model text is inside a quoted string, the one rule
the scanners over broken JSON share (json_pieces cuts members, json_output measures what a cut-off
answer still owes): a backslash escapes the next character, and the string's own quote closes it.
Which quotes may open a string is each scanner's own rule."""

from __future__ import annotations


class StringScan:
    """`quote`: the quote of the string the scan is in ("" outside one); `open(q)` enters a
    string, `step(ch)` reads one character inside it."""

    __slots__ = ("quote", "_escaped")

    def __init__(self) -> None:
        self.quote = ""
        self._escaped = False

    def open(self, quote: str) -> None:
        self.quote = quote

    def step(self, ch: str) -> None:
        if self._escaped:
            self._escaped = False
        elif ch == "\\":
            self._escaped = True
        elif ch == self.quote:
            self.quote = ""
