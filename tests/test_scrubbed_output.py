"""The screen side of the one redaction: stdout, stderr and the harness's log records."""

from __future__ import annotations

import io
import logging
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.scrubbed_output import ScrubbedRecords, ScrubbedStream, scrubbed_logger, scrubbed_std_streams

KEY = "sk-screen-" + "Pq7Rt2Yu5Io8As3Df6Gh"


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)


def test_print_writes_a_key_and_its_newline_apart_and_neither_shows_it():
    inner = io.StringIO()
    stream = ScrubbedStream(inner)
    print(f"harness: model call failed: {KEY}", file=stream)
    print(KEY[:12], end="", file=stream)  # a key written in two pieces
    print(KEY[12:], file=stream)
    stream.flush()
    assert inner.getvalue() == "harness: model call failed: [REDACTED]\n[REDACTED]\n"


@given(cuts=st.lists(st.integers(min_value=0, max_value=120), max_size=10))
def test_however_a_line_is_cut_into_writes_the_key_never_reaches_the_stream(cuts: list[int]):
    text = f"error {KEY} then {KEY[:20]} cut short, and {KEY}"
    points = sorted({0, len(text), *(c % (len(text) + 1) for c in cuts)})
    inner = io.StringIO()
    stream = ScrubbedStream(inner)
    for a, b in zip(points, points[1:]):
        stream.write(text[a:b])
    stream.flush()
    assert KEY[:16] not in inner.getvalue()
    assert inner.getvalue() == "error [REDACTED] then [REDACTED] cut short, and [REDACTED]"


def test_the_stream_is_text_only_with_no_buffer_to_write_around_it():
    stream = ScrubbedStream(io.StringIO())
    with pytest.raises(TypeError):
        stream.write(b"bytes")  # type: ignore[arg-type]
    assert not hasattr(stream, "buffer")
    assert stream.writable() and not stream.isatty()


def test_a_warning_of_a_harness_logger_is_scrubbed_before_any_handler_formats_it():
    logger = scrubbed_logger("harness.test-scrubbed")
    assert scrubbed_logger("harness.test-scrubbed") is logger and len(
        [f for f in logger.filters if isinstance(f, ScrubbedRecords)]) == 1
    seen: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            seen.append(self.format(record))

    handler = Keep()
    logger.addHandler(handler)
    try:
        logger.warning("harness: %s; waiting %.3g s before attempt %d", f"HTTP 500: bad key {KEY}", 6.0, 2)
    finally:
        logger.removeHandler(handler)
    assert seen == ["harness: HTTP 500: bad key [REDACTED]; waiting 6 s before attempt 2"]


def test_std_streams_are_wrapped_while_the_block_runs_and_restored_after():
    saved = sys.stdout, sys.stderr
    with scrubbed_std_streams():
        assert isinstance(sys.stdout, ScrubbedStream) and isinstance(sys.stderr, ScrubbedStream)
        with scrubbed_std_streams():  # nested: not wrapped twice
            assert not isinstance(sys.stdout.inner, ScrubbedStream)
    assert (sys.stdout, sys.stderr) == saved
