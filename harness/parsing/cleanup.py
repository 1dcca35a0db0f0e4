"""Text clean-up applied before any format is parsed: reasoning blocks, code fences, line ends."""

from __future__ import annotations

import re
from bisect import bisect_left

from harness.parsing.issues_log import IssueLog

# One pass with a literal first character is cheaper than several substring tests.
_ANY_THINK_TAG = re.compile(r"</?(?:think|THINK|Think|thinking|Thinking|THINKING|reasoning|Reasoning|REASONING)>")
_THINK_TAG = re.compile(r"<(/?)(think|thinking|reasoning)>", re.I)
_THINK_OPEN = re.compile(r"<(?:think|thinking|reasoning)>", re.I)
_THINK_CLOSE = re.compile(r"</(?:think|thinking|reasoning)>", re.I)
# A fence line: ``` or ~~~ with an optional info string. Also fences glued to content.
_FENCE = re.compile(r"^[ \t]*(?:```+|~~~+)[ \t]*[A-Za-z0-9_+\-]*[ \t]*$\n?", re.M)
_FENCE_ANY = re.compile(r"```+[A-Za-z0-9_+\-]*")
_REFUSAL = re.compile(
    r"^\W*(?:I(?:'m| am)? (?:sorry|unable|not able|cannot|can't|can not|apologi[sz]e)"
    r"|(?:sorry|unfortunately)\b"
    r"|as an ai\b"
    r"|抱歉|对不起|很抱歉|我无法|我不能)",
    re.I,
)


def normalise(text: str) -> str:
    """Line ends and byte-order mark; nothing a parser could disagree with."""
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def strip_think(text: str, log: IssueLog) -> tuple[str, str]:
    """Remove reasoning blocks; returns (text, removed reasoning)."""
    if _ANY_THINK_TAG.search(text) is None:
        return text, ""
    removed: list[str] = []
    text = _remove_think_blocks(text, removed)
    if removed:
        log.note("think-block", removed[0])
    close = _THINK_CLOSE.search(text)
    if close:  # a closing tag without an opening one: everything before it was reasoning
        removed.append(text[: close.end()])
        log.note("think-block", text[: close.end()])
        text = text[close.end() :]
    opened = _THINK_OPEN.search(text)
    if opened:  # never closed (truncated reasoning)
        removed.append(text[opened.start() :])
        log.note("think-unclosed", text[opened.start() :])
        text = text[: opened.start()]
    return text, "\n".join(removed)


def _remove_think_blocks(text: str, removed: list[str]) -> str:
    """Replace each <name>...</name> block (the nearest closer of the same name, any letter case)
    by a newline, appending the blocks to `removed`. One scan for the tags and a binary search
    per opening tag: linear in the text, where a lazy `<think>.*?</think>` pattern rescans to the
    end for every unclosed opening tag."""
    opens: list[tuple[int, int, str]] = []
    closes: dict[str, list[tuple[int, int]]] = {}
    for m in _THINK_TAG.finditer(text):
        name = m.group(2).lower()
        if m.group(1):
            closes.setdefault(name, []).append((m.start(), m.end()))
        else:
            opens.append((m.start(), m.end(), name))
    if not opens or not closes:
        return text
    parts: list[str] = []
    pos = 0
    for start, end, name in opens:
        if start < pos:
            continue  # inside a block already removed
        ends = closes.get(name)
        if not ends:
            continue
        k = bisect_left(ends, (end, end))
        if k == len(ends):
            continue  # never closed: left for the unclosed-tag rule
        close_end = ends[k][1]
        parts.append(text[pos:start])
        parts.append("\n")
        removed.append(text[start:close_end])
        pos = close_end
    if not removed:
        return text
    parts.append(text[pos:])
    return "".join(parts)


def strip_fences(text: str, log: IssueLog) -> str:
    if "`" not in text and "~" not in text:  # single characters: the fastest test
        return text
    if "```" not in text and "~~~" not in text:
        return text
    new = _FENCE.sub("", text)
    if "```" in new:
        new = _FENCE_ANY.sub("\n", new)
    if new != text:
        log.note("fence-stripped", text[:80])
    return new


def fill_placeholders(text: str, td: str, rd: str, cd: str, log: IssueLog) -> str:
    """A model that copies the template's `{tuple_delimiter}` (or record/completion) placeholders
    literally instead of the delimiters themselves."""
    if "{" not in text or "_delimiter}" not in text:
        return text
    new = text.replace("{tuple_delimiter}", td).replace("{record_delimiter}", rd).replace("{completion_delimiter}", cd)
    if new != text:
        log.note("delimiter-inferred", text[:80], "Delimiter placeholders were copied from the prompt; read as the delimiters.")
    return new


def is_refusal(text: str) -> bool:
    """A short answer that opens with an apology or an inability statement."""
    return bool(_REFUSAL.match(text)) and len(text) < 1500


def clean(text: str, log: IssueLog) -> tuple[str, str]:
    """Normalise, drop reasoning blocks and fences. Returns (clean text, removed reasoning)."""
    text = normalise(text)
    text, reasoning = strip_think(text, log)
    text = strip_fences(text, log)
    return text, reasoning
