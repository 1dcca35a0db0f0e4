"""Reading files the user (or an earlier run) gave us, without trusting them.

Every file a command reads goes through `read_bytes` (`read_text`): only regular files (a FIFO
would block, `/dev/zero` never ends, a folder or socket is no file), at most a documented number
of bytes per kind of file (the `MAX_*` below, listed in docs/files.md), strict UTF-8 unless an
importer's settings name another encoding. JSON goes through one policy, `loads` (`parse_json`,
`load_json` for files): nesting at most MAX_JSON_DEPTH, integers at most MAX_JSON_INT_DIGITS
digits; model answers, which are read as far as they can be, take `answer_int` instead. JSON
Lines are split on "\n" only (`jsonl_lines`: U+2028 is text inside a JSON string, not a line
break), CSV through `csv_rows` (fields as long as the file). So a hostile file is one InputError
naming it, never a hang, a MemoryError, a RecursionError or a library's ValueError.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import re
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .errors import InputError

MIB = 1024 * 1024
# Suites, gold files, prompt templates, chunks: far above any real one, far below trouble.
MAX_INPUT_BYTES = 16 * MIB
# results.jsonl of a big run holds every raw answer; summaries and baselines are smaller.
MAX_RUN_FILE_BYTES = 1024 * MIB
# Deepest JSON nesting accepted; results rows nest about 8 levels.
MAX_JSON_DEPTH = 200
# Longest JSON integer accepted, in digits: Python's own int-string limit (4300 by default, and
# settable as low as 640) must never be what refuses a file, or its wording would be the message.
MAX_JSON_INT_DIGITS = 640


class UnreadableFile(InputError):
    """A file `read_bytes` refuses: the message is "<path>: <detail>"; `reason` says why in a few
    words, for callers that skip and count ("not found", "a folder", "not a regular file", "too
    large", "unreadable"); `detail` is the message without the path, for callers that add their own."""

    def __init__(self, shown: str, detail: str, reason: str) -> None:
        super().__init__(f"{shown}: {detail}")
        self.detail = detail
        self.reason = reason


def read_bytes(path: Path, *, limit: int = MAX_INPUT_BYTES, what: str = "file") -> bytes:
    """The bytes of a regular file of at most `limit` bytes; anything else is an UnreadableFile."""
    shown = shown_path(path)
    try:
        # O_NONBLOCK: opening a FIFO for reading must not wait for a writer.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise UnreadableFile(shown, f"{what} not found", "not found") from None
    except IsADirectoryError:
        raise UnreadableFile(shown, f"is a folder, not a {what}", "a folder") from None
    except ValueError:  # an embedded NUL byte
        raise UnreadableFile(shown, "not a valid file name", "unreadable") from None
    except OSError as exc:
        if _special(path):  # a socket cannot even be opened (ENXIO)
            raise UnreadableFile(shown, f"not a regular file (a device, pipe or socket cannot be a {what})",
                                 "not a regular file") from None
        raise UnreadableFile(shown, f"cannot read it ({exc.strerror or exc})", "unreadable") from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise UnreadableFile(shown, f"is a folder, not a {what}", "a folder")
        if not stat.S_ISREG(info.st_mode):
            raise UnreadableFile(shown, f"not a regular file (a device, pipe or socket cannot be a {what})",
                                 "not a regular file")
        if info.st_size > limit:
            raise UnreadableFile(shown, f"{what} of {info.st_size} bytes is larger than the {limit} byte limit",
                                 "too large")
        chunks: list[bytes] = []
        size = 0
        while True:  # st_size can lie (files growing, /proc): stop at the limit regardless
            block = os.read(fd, min(MIB, limit + 1 - size))
            if not block:
                break
            chunks.append(block)
            size += len(block)
            if size > limit:
                raise UnreadableFile(shown, f"{what} is larger than the {limit} byte limit", "too large")
        return b"".join(chunks)
    except OSError as exc:
        raise UnreadableFile(shown, f"cannot read it ({exc.strerror or exc})", "unreadable") from None
    finally:
        os.close(fd)


def _special(path: Path) -> bool:
    """Whether `path` is there and neither a regular file nor a folder."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def read_text(path: Path, *, limit: int = MAX_INPUT_BYTES, what: str = "file", encoding: str | None = None) -> str:
    """A regular file's text, strictly UTF-8 (a BOM is dropped); with `encoding` (an importer's
    settings may name one: GraphRAG's `input.encoding`), strictly in that codec, as Python's `open`
    decodes it (a UTF-8 BOM kept), without its newline translation (`universal_newlines`)."""
    data = read_bytes(path, limit=limit, what=what)
    if encoding is None:
        return decode_utf8(data, shown_path(path))
    try:
        return data.decode(encoding)
    except LookupError:
        raise InputError(f"{shown_path(path)}: unknown text encoding {encoding!r}") from None
    except UnicodeDecodeError as exc:
        raise InputError(f"{shown_path(path)}: not {encoding} text (byte {exc.start})") from None


def universal_newlines(text: str) -> str:
    """Text as a file opened in text mode reads it: "\r\n" and a lone "\r" become "\n"."""
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def decode_utf8(data: bytes, name: str) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"{name}: not UTF-8 text (byte {exc.start})") from None


_JSON_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)  # a string with its escapes, unrolled: linear
_JSON_BRACKET = re.compile(r"[\[\]{}]")


def json_depth_exceeds(text: str, limit: int = MAX_JSON_DEPTH) -> bool:
    """Whether brackets outside strings nest deeper than `limit` (a linear pre-scan).

    The scan is deliberately simple: it only has to bound what `json.loads` will recurse into,
    and strings are the one place brackets do not nest. Strings are skipped by a regular
    expression and only brackets are visited in Python, so a cassette of megabytes of answer text
    costs little more than its brackets.
    """
    depth = 0
    position = 0
    string = _JSON_STRING.search(text)
    for bracket in _JSON_BRACKET.finditer(text):
        at = bracket.start()
        while string is not None and string.end() <= at:
            string = _JSON_STRING.search(text, max(string.end(), position))
        if string is not None and string.start() < at:
            continue  # inside a string
        position = at
        if bracket.group() in "[{":
            depth += 1
            if depth > limit:
                return True
        else:
            depth -= 1
    return False


class JsonRefused(ValueError):
    """JSON the policy refuses (nested too deep, an integer too long); the message is ours, `depth`
    says whether nesting was the reason."""

    def __init__(self, message: str, *, depth: bool) -> None:
        super().__init__(message)
        self.depth = depth


def loads(text: str | bytes, *, limit: int = MAX_JSON_DEPTH) -> Any:
    """`json.loads` under the harness's JSON policy: nesting at most `limit` levels, integers at most
    MAX_JSON_INT_DIGITS digits (JsonRefused); a text that is not JSON is a ValueError, as from json."""
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode("utf-8")  # UnicodeDecodeError is a ValueError too
    if json_depth_exceeds(text, limit):  # always: a shortcut by size would make the cost jump at its threshold
        raise JsonRefused(f"JSON nested deeper than {limit} levels", depth=True)
    try:
        return json.loads(text, parse_int=_parse_int)
    except _LongInteger:
        raise JsonRefused(f"JSON number longer than {MAX_JSON_INT_DIGITS} digits", depth=False) from None
    except RecursionError:  # defence in depth: the pre-scan should have caught it
        raise JsonRefused(f"JSON nested deeper than {limit} levels", depth=True) from None


def parse_json(text: str, name: str, *, limit: int = MAX_JSON_DEPTH) -> Any:
    """`loads`; every failure is an InputError starting with `name`."""
    try:
        return loads(text, limit=limit)
    except JsonRefused as exc:
        raise InputError(f"{name}: {exc}") from None
    except json.JSONDecodeError as exc:
        raise InputError(f"{name}: not JSON (line {exc.lineno}, column {exc.colno})") from None
    except ValueError:  # not UTF-8
        raise InputError(f"{name}: not JSON (not UTF-8 text)") from None


class _LongInteger(Exception):
    """A JSON integer longer than MAX_JSON_INT_DIGITS (not a ValueError: json must not wrap it)."""


def _parse_int(digits: str) -> int:
    if len(digits.lstrip("-")) > MAX_JSON_INT_DIGITS:
        raise _LongInteger
    return int(digits)


def answer_int(digits: str) -> int | float:
    """A JSON integer of a model's answer: as an int up to MAX_JSON_INT_DIGITS digits, beyond that as
    the float it rounds to (infinity for most): an answer is read as far as it can be, and a number
    no record needs that long must not lose the records around it (or raise Python's int limit)."""
    if len(digits.lstrip("-")) > MAX_JSON_INT_DIGITS:
        return float(digits)
    return int(digits)


def answer_decoder() -> json.JSONDecoder:
    """A decoder for model answers (`raw_decode` finds JSON inside prose) with `answer_int`."""
    return json.JSONDecoder(parse_int=answer_int)


def jsonl_lines(text: str) -> Iterator[tuple[int, str]]:
    """(line number, line) of JSON Lines text, split on "\n" only (a "\r" before it dropped).

    `str.splitlines` also breaks at U+2028, U+2029, U+0085 and \x0b-\x0c, \x1c-\x1e, which JSON
    allows raw inside a string (the first three) or refuses there (the rest, named on their own
    line); a valid JSON Lines file holds its rows one per "\n"."""
    for number, line in enumerate(text.split("\n"), 1):
        yield number, line[:-1] if line.endswith("\r") else line


def csv_rows(text: str, name: str) -> list[dict[str, str]]:
    """The rows of CSV text with a header (`csv.DictReader`), fields as long as the text: the csv
    module's own bound (128 KiB) is no bound of the harness, whose bound is the file's size."""
    with _csv_fields(text, name):
        return list(csv.DictReader(io.StringIO(text, newline="")))


def csv_table(text: str, name: str, delimiter: str = ",") -> list[list[str]]:
    """The rows of CSV text as lists of cells (`csv.reader`), fields as long as the text."""
    with _csv_fields(text, name):
        return list(csv.reader(io.StringIO(text, newline=""), delimiter=delimiter))


@contextlib.contextmanager
def _csv_fields(text: str, name: str) -> Iterator[None]:
    """The csv module's field limit raised to the text's length while it is read (put back after:
    it is the process's), and its errors as InputError naming `name`."""
    previous = csv.field_size_limit()
    try:
        csv.field_size_limit(max(previous, len(text) + 1))
        yield
    except csv.Error as exc:
        raise InputError(f"{name}: not CSV ({str(exc)[:80]})") from None
    finally:
        csv.field_size_limit(previous)


def load_json(path: Path, *, limit: int = MAX_RUN_FILE_BYTES, what: str = "JSON file") -> Any:
    """A JSON file read through `read_text` and `parse_json`."""
    return parse_json(read_text(path, limit=limit, what=what), shown_path(path))


def shown_path(path: Path | str) -> str:
    """A path as printed in a one-line message: never thousands of characters, never a NUL."""
    text = str(path).replace("\x00", "\\0")
    return text if len(text) <= 200 else text[:120] + "..." + text[-60:]
