"""The screen side of the one redaction (known_keys): stdout, stderr and the harness's log records.

A key reaches the screen by many paths: the CLI's error printer, a warning about an endpoint's
error text, a progress line quoting a batch's status, a `--json` document, a path the user typed.
Rather than each remembering to scrub, `scrubbed_std_streams` puts a `ScrubbedStream` in front of
`sys.stdout` and `sys.stderr` while a command runs, and `ScrubbedRecords` scrubs each record of a
`harness` logger before any handler (pytest's capture, a CI log collector) sees it.
"""

from __future__ import annotations

import contextlib
import logging
import sys
from collections.abc import Iterable, Iterator
from typing import Any, TextIO

from . import known_keys


class ScrubbedStream:
    """A text stream that writes to `inner` what it is given, every known key redacted.

    A write may end with the beginning of a key the next write completes (`print` writes the text
    and the newline apart; a key may be written in pieces): that tail is held until the next write
    or `flush`. Bytes are refused, as by any text stream; there is no `buffer` to write around it."""

    def __init__(self, inner: TextIO) -> None:
        self._inner = inner
        self._held = ""

    @property
    def inner(self) -> TextIO:
        return self._inner

    @property
    def encoding(self) -> str | None:
        return getattr(self._inner, "encoding", None)

    @property
    def errors(self) -> str | None:
        return getattr(self._inner, "errors", None)

    def write(self, text: str) -> int:
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        known = known_keys.redactor()
        if not known:
            if self._held:
                self._inner.write(self._held)
                self._held = ""
            if text:
                self._inner.write(text)
            return len(text)
        head, self._held = known.redact_head(self._held + text)
        if head:
            self._inner.write(head)
        return len(text)

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        if self._held:
            self._inner.write(known_keys.scrub(self._held))
            self._held = ""
        self._inner.flush()

    def isatty(self) -> bool:
        return bool(getattr(self._inner, "isatty", lambda: False)())

    def fileno(self) -> int:
        return self._inner.fileno()

    def writable(self) -> bool:
        return True

    def __getattr__(self, name: str) -> Any:
        if name == "buffer":  # writing bytes underneath would skip the redaction
            raise AttributeError(name)
        return getattr(self._inner, name)


class ScrubbedRecords(logging.Filter):
    """Scrubs a log record's message (arguments merged in) before any handler formats it."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        scrubbed = known_keys.scrub(message)
        if scrubbed != message:
            record.msg, record.args = scrubbed, None
        return True


def scrubbed_logger(name: str) -> logging.Logger:
    """`logging.getLogger(name)` with its records scrubbed (a filter on the logger itself: records
    of a child logger do not pass their parent's filters)."""
    logger = logging.getLogger(name)
    if not any(isinstance(f, ScrubbedRecords) for f in logger.filters):
        logger.addFilter(ScrubbedRecords())
    return logger


@contextlib.contextmanager
def scrubbed_std_streams() -> Iterator[None]:
    """`sys.stdout` and `sys.stderr` scrubbed while the block runs (already scrubbed: left as is)."""
    saved = sys.stdout, sys.stderr
    wrapped = [stream if isinstance(stream, ScrubbedStream) else ScrubbedStream(stream) for stream in saved]
    sys.stdout, sys.stderr = wrapped
    try:
        yield
    finally:
        for stream in wrapped:
            with contextlib.suppress(Exception):
                stream.flush()
        sys.stdout, sys.stderr = saved
