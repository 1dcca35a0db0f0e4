"""Golden files compared by meaning, not bytes: a cosmetic change passes, a real one fails with a
short, readable account of what changed.

`differences(name, golden, replayed)` chooses by the file's name:

- `.json`: parsed and compared by value. Key order, spacing, escaping and number spelling (`0.5`,
  `0.50`, `5e-1`; `1` and `1.0`) do not matter; `true` is not `1`. A difference is one line per
  JSON path, `variants.tuned.metrics.f1: 0.61 -> 0.58`. Lists are aligned (difflib) first, so an
  inserted item reads as one `+` line rather than every later item changed; a list item that is an
  object with a `label`, `name`, `id` or `case_id` is named by it (`bars[tuned]`).
- `.jsonl`: each line a JSON value as above, rows named `[variant/case_id]` when they have those keys
  (`[tuned/c1].score.f1: 0.5 -> 0.4`), else by their line number; a missing or extra row is one line.
- `.html`: parsed with `html.parser` into lines, one per element (`body > figure#plot-metrics >
  img [alt="..." src="..."]`) and one per text (`... > td.num | 0.61 · 0.58`), then diffed line by
  line (unified diff). Cosmetic, hence not compared: attribute order and quoting, character
  references against the characters (`&#x27;` and `'`), whitespace between elements, runs of
  whitespace inside text and attribute values, the order of `class` words, and the formatting of
  CSS (inside `<style>` and `style="..."`: comments, whitespace, the last `;` of a block). Text
  inside `<pre>` is kept exactly. Everything else - tag names and nesting, every attribute and its
  value, the text - is meaning: a changed number, a renamed heading, a removed section fails.
- `.xml` (junit.xml): parsed with `xml.etree` into the same kind of lines (tag, attributes sorted
  by name, text and tail stripped).
- anything else (report.md, tuning .md and .yaml): lines, with trailing whitespace and trailing
  blank lines ignored.

Differences are listed most important first (`importance`): verdicts and exit codes, then changed
numbers, then everything else, in the file's own order within each rank; and cut to `max_lines`.
"""

from __future__ import annotations

import difflib
import json
import math
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from html.parser import HTMLParser
from typing import Any

MAX_LINES = 40
MAX_WIDTH = 200
MISSING = object()  # a key or row one side lacks


@dataclass(frozen=True)
class Change:
    """One difference between the golden and the replayed value at `path`."""

    path: str
    old: Any = MISSING
    new: Any = MISSING

    def __str__(self) -> str:
        return f"{self.path}: {_shown(self.old)} -> {_shown(self.new)}"


# ---------------------------------------------------------------------------------------- values

_VERDICT_KEYS = re.compile(r"(^|[._\[])(exit_code|status|verdict|passed|ok|outcome|gate|decision|failures|errors)(\]|$)")


def importance(change: Change) -> int:
    """0 for a verdict (exit code, status, pass/fail), 1 for a changed number, 2 for the rest."""
    if _VERDICT_KEYS.search(change.path):
        return 0
    if _is_number(change.old) and _is_number(change.new):
        return 1
    return 2


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _shown(value: Any, width: int = 60) -> str:
    """A value as a short JSON text: `(absent)` for a missing one, long ones cut in the middle."""
    if value is MISSING:
        return "(absent)"
    if isinstance(value, (dict, list)) and value:
        summary = f"{{{len(value)} keys}}" if isinstance(value, dict) else f"[{len(value)} items]"
        text = json.dumps(value, ensure_ascii=False, sort_keys=True)
        return text if len(text) <= width else summary
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= width else text[: width // 2 - 3] + " [...] " + text[-(width // 2 - 3):]


def _same(old: Any, new: Any) -> bool:
    """Equal as JSON values: numbers by value (not their spelling), booleans are not numbers."""
    if isinstance(old, bool) or isinstance(new, bool):
        return type(old) is type(new) and old == new
    if _is_number(old) and _is_number(new):
        return old == new or (isinstance(old, float) and isinstance(new, float) and math.isnan(old) and math.isnan(new))
    if isinstance(old, dict) and isinstance(new, dict):
        return old.keys() == new.keys() and all(_same(old[key], new[key]) for key in old)
    if isinstance(old, list) and isinstance(new, list):
        return len(old) == len(new) and all(_same(a, b) for a, b in zip(old, new))
    return type(old) is type(new) and old == new


_NAMING_KEYS = ("label", "name", "id", "case_id")


def _item_name(item: Any, index: int) -> str:
    if isinstance(item, dict):
        for key in _NAMING_KEYS:
            if isinstance(item.get(key), str) and item[key]:
                return f"[{item[key]}]"
    return f"[{index}]"


def _join(path: str, key: str) -> str:
    if key.startswith("["):
        return path + key
    return f"{path}.{key}" if path else key


def value_changes(old: Any, new: Any, path: str = "") -> Iterator[Change]:
    """The changes from `old` to `new` (parsed JSON), leaf by leaf, in document order."""
    if _same(old, new):
        return
    if isinstance(old, dict) and isinstance(new, dict):
        for key in list(old) + [key for key in new if key not in old]:
            yield from value_changes(old.get(key, MISSING), new.get(key, MISSING), _join(path, str(key)))
        return
    if isinstance(old, list) and isinstance(new, list):
        yield from _list_changes(old, new, path)
        return
    yield Change(path or "(whole file)", old, new)


def _list_changes(old: list[Any], new: list[Any], path: str) -> Iterator[Change]:
    """Lists aligned on their items' canonical text: kept items are skipped, replaced runs of the
    same length compared item by item, the rest reported as removed or added items."""
    canon = [json.dumps(item, sort_keys=True) for item in old], [json.dumps(item, sort_keys=True) for item in new]
    matcher = difflib.SequenceMatcher(None, canon[0], canon[1], autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        if tag == "replace" and i2 - i1 == j2 - j1:
            for i, j in zip(range(i1, i2), range(j1, j2)):
                yield from value_changes(old[i], new[j], path + _item_name(old[i], i))
            continue
        for i in range(i1, i2):
            yield Change(path + _item_name(old[i], i), old[i], MISSING)
        for j in range(j1, j2):
            yield Change(path + _item_name(new[j], j), MISSING, new[j])


# ------------------------------------------------------------------------------------------ JSON


def json_changes(expected: str, actual: str) -> list[Change] | None:
    """Changes between two JSON texts, or None when either is not JSON."""
    try:
        return list(value_changes(json.loads(expected), json.loads(actual)))
    except ValueError:
        return None


def _rows(text: str) -> dict[str, Any]:
    """A JSONL file's rows by name: `[variant/case_id]` (then `#2`... when repeated), else `[line n]`."""
    rows: dict[str, Any] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        row = json.loads(line)
        name = f"[line {number}]"
        if isinstance(row, dict) and "case_id" in row:
            name = f"[{row.get('variant', '')}/{row['case_id']}]" if "variant" in row else f"[{row['case_id']}]"
        base, repeat = name, 2
        while name in rows:
            name, repeat = f"{base[:-1]}#{repeat}]", repeat + 1
        rows[name] = row
    return rows


def jsonl_changes(expected: str, actual: str) -> list[Change] | None:
    try:
        old, new = _rows(expected), _rows(actual)
    except ValueError:
        return None
    changes: list[Change] = []
    for name in list(old) + [name for name in new if name not in old]:
        if name not in new or name not in old:
            changes.append(Change(name, old.get(name, MISSING), new.get(name, MISSING)))
        else:
            changes.extend(value_changes(old[name], new[name], name))
    if not changes and list(old) != list(new):
        changes.append(Change("(row order)", list(old)[:5], list(new)[:5]))
    return changes


# ------------------------------------------------------------------------------------------ HTML

_VOID = frozenset("area base br col embed hr img input link meta param source track wbr".split())
_SPACE = re.compile(r"\s+")


def fold(text: str) -> str:
    """Runs of whitespace as one space, none at either end."""
    return _SPACE.sub(" ", text).strip()


def normal_css(css: str) -> str:
    """CSS with its formatting taken out: comments, whitespace runs and around punctuation, a block's last `;`."""
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    css = re.sub(r"\s*([{};,>])\s*", r"\1", fold(css))
    css = re.sub(r":\s+", ":", css)
    return css.replace(";}", "}").rstrip(";")


def _attribute(name: str, value: str | None) -> str:
    value = "" if value is None else value  # `<details open>` and `<details open="">` alike
    if name == "class":
        return " ".join(sorted(value.split()))
    if name == "style":
        return normal_css(value)
    return fold(value)


class _Flattener(HTMLParser):
    """An HTML document as lines: `path [attributes]` per element, `path | text` per text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[str] = []
        self.stack: list[str] = []  # the path's steps
        self.tags: list[str] = []
        self.text: list[str] = []

    def _flush(self) -> None:
        text = "".join(self.text)
        self.text = []
        inside = self.tags[-1] if self.tags else ""
        if inside == "style":
            text = normal_css(text)
        elif inside not in ("pre", "textarea"):
            text = fold(text)
        if text.strip():  # a line per text: <pre>'s line breaks written as \\n
            self.lines.append(f"{' > '.join(self.stack)} | {text}".replace("\n", "\\n"))

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._flush()
        values = {name: _attribute(name, value) for name, value in attrs}
        step = tag + (f"#{values['id']}" if values.get("id") else "")
        step += "".join(f".{word}" for word in values.get("class", "").split())
        rest = " ".join(f'{name}="{value}"' for name, value in sorted(values.items()) if name not in ("id", "class"))
        self.lines.append(" > ".join([*self.stack, step]) + (f" [{rest}]" if rest else ""))
        if tag not in _VOID:
            self.stack.append(step)
            self.tags.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in _VOID:
            self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        self._flush()
        if tag in self.tags:  # closes what it closes, and any element left open inside it
            while self.tags:
                self.stack.pop()
                if self.tags.pop() == tag:
                    break

    def handle_data(self, data: str) -> None:
        self.text.append(data)

    def handle_decl(self, decl: str) -> None:
        self._flush()
        self.lines.append(f"<!{fold(decl).lower()}>")  # `<!DOCTYPE html>` and `<!doctype html>` alike

    def handle_comment(self, data: str) -> None:  # comments are not shown, hence not meaning
        self._flush()


def html_lines(text: str) -> list[str]:
    """`text` (HTML) as normalised lines: equal lists mean equal structure, attributes and text."""
    parser = _Flattener()
    parser.feed(text)
    parser.close()
    parser._flush()
    return parser.lines


# ------------------------------------------------------------------------------------ XML, text


def _escaped(text: str) -> str:
    return text.strip().replace("\n", "\\n")


def xml_lines(text: str) -> list[str]:
    """`text` (XML) as lines: `path [attributes]` per element, `path | text` for text and tails."""
    lines: list[str] = []

    def walk(element: ET.Element, parents: list[str]) -> None:
        step = element.tag + (f"[name={element.get('name')}]" if element.get("name") is not None else "")
        path = [*parents, step]
        rest = " ".join(f'{name}="{value}"' for name, value in sorted(element.attrib.items()) if name != "name")
        lines.append(" > ".join(path) + (f" [{rest}]" if rest else ""))
        if element.text and element.text.strip():
            lines.append(f"{' > '.join(path)} | {_escaped(element.text)}")
        for child in element:
            walk(child, path)
            if child.tail and child.tail.strip():
                lines.append(f"{' > '.join(path)} | {_escaped(child.tail)}")

    walk(ET.fromstring(text.encode("utf-8")), [])
    return lines


def text_lines(text: str) -> list[str]:
    """Lines without trailing whitespace, and without trailing blank lines."""
    lines = [line.rstrip() for line in text.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    return lines


# ------------------------------------------------------------------------------------ reporting


def _crop(line: str, partner: str, width: int) -> str:
    """`line` cut to `width` characters around where it first differs from `partner`."""
    if len(line) <= width:
        return line
    head = width // 4  # a line starts with its path or row
    same = next((i for i, (a, b) in enumerate(zip(line, partner)) if i and a != b), min(len(line), len(partner)))
    start = max(head, same - width // 3) if partner else head
    end = start + width - head
    return line[:head] + (" [...] " if start > head else "") + line[start:end] + (" [...]" if end < len(line) else "")


def line_diff(old: list[str], new: list[str], *, max_lines: int = MAX_LINES, width: int = MAX_WIDTH) -> list[str]:
    """The changed lines only (`-` golden, `+` replay, with one line of context), cropped."""
    lines = [line for line in difflib.unified_diff(old, new, lineterm="", n=1) if not line.startswith(("---", "+++"))]
    partners = [""] * len(lines)
    for i in range(len(lines) - 1):
        if lines[i].startswith("-") and lines[i + 1].startswith("+"):
            partners[i], partners[i + 1] = lines[i + 1], lines[i]
    shown = [_crop(line, partner, width) for line, partner in zip(lines, partners)][:max_lines]
    if len(lines) > max_lines:
        shown.append(f"[... {len(lines) - max_lines} more diff lines]")
    return shown


def change_lines(changes: list[Change], *, max_lines: int = MAX_LINES, width: int = MAX_WIDTH) -> list[str]:
    """Changes as `path: old -> new` lines, most important first, cut to `max_lines`."""
    ordered = sorted(changes, key=importance)  # stable: the file's order within a rank
    shown = [_crop(str(change), "", width) for change in ordered[:max_lines]]
    if len(ordered) > max_lines:
        shown.append(f"[... {len(ordered) - max_lines} more changes]")
    return shown


_LINES_OF: dict[str, Callable[[str], list[str]]] = {".html": html_lines, ".htm": html_lines, ".xml": xml_lines}


def differences(name: str, expected: str, actual: str, *, max_lines: int = MAX_LINES) -> list[str]:
    """What differs in meaning between the golden `expected` and the replayed `actual` text of
    file `name`: readable lines (empty when they mean the same)."""
    if name.endswith((".json", ".jsonl")):
        changes = (jsonl_changes if name.endswith(".jsonl") else json_changes)(expected, actual)
        if changes is not None:
            return change_lines(changes, max_lines=max_lines)
        if expected == actual:
            return []  # neither side parses, identically: nothing to say
    to_lines = next((lines for suffix, lines in _LINES_OF.items() if name.endswith(suffix)), text_lines)
    try:
        old, new = to_lines(expected), to_lines(actual)
    except ET.ParseError as exc:  # a broken XML file: its text, and why it does not parse
        old, new = text_lines(expected), text_lines(actual) + [f"(not XML: {exc})"]
    return [] if old == new else line_diff(old, new, max_lines=max_lines)
