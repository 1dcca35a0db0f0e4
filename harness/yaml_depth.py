"""The nesting depth of YAML text, bounded by the harness itself before any parser reads it.

libyaml stops flow nesting deeper than 1000 with its own error, and its scanner reads ahead (up to
1024 characters of a possible key) before the parser hands over the events the harness bounds the
depth with: `[` * 1001 ended with libyaml's wording, not ours. So the depth is also bounded here,
on the text, in one linear pass that follows PyYAML's scanner as far as nesting goes (flow
brackets outside scalars and comments; block collections from indentation and the `- `, `? ` and
`key: ` indicators, and indentless sequences; the single-pair mappings `[a: b]` makes) and skips
everything else. For valid YAML it finds the depth a parser nests to, and the line where the
level beyond the limit opens; it never counts deeper than PyYAML's parser nests the same text.
"""

from __future__ import annotations

import re

# Every line break the YAML reader knows, made "\n" (one character each, so positions still match).
_BREAKS = {ord("\r"): "\n", 0x85: "\n", 0x2028: "\n", 0x2029: "\n"}
# Spaces, comments and line breaks between tokens (tabs too, as libyaml allows them there).
_SKIP = re.compile(r"(?:[ \t]*(?:#[^\n]*)?\n)*[ \t]*(?:#[^\n]*)?")
# One run of a plain scalar without blanks; `:` ends it only before a blank (in flow context also
# before a flow indicator), and in flow context the flow indicators end it.
_PLAIN_BLOCK = re.compile(r"(?:[^ \t\n:]|:(?=[^ \t\n]))+")
_PLAIN_FLOW = re.compile(r"(?:[^ \t\n:,?\[\]{}]|:(?=[^ \t\n,\[\]{}]))+")
_BLANKS = re.compile(r"[ \t\n]*")
_DOUBLE = re.compile(r'[^"\\]*(?:\\.[^"\\]*)*"?', re.DOTALL)
_SINGLE = re.compile(r"[^']*(?:''[^']*)*'?")
_ANCHOR = re.compile(r"[0-9A-Za-z_-]*")
_TAG_BLOCK = re.compile(r"[^ \t\n]*")
_TAG_FLOW = re.compile(r"[^ \t\n,\[\]{}]*")
_BLOCK_HEADER = re.compile(r"[^\n]*\n?")
_TO_LINE_END = re.compile(r"[^\n]*")
_LEADING_SPACES = re.compile(r"[ \n]*")
_SPACES = re.compile(r" *")
# What may come before a block collection's first token on its line (see _depth_bound).
_LINE_OPENING = re.compile(r"^[ \t]*(?:[-?:][ \t]+)*", re.MULTILINE)
_SIMPLE_KEY_CHARS = 1024  # a key and its `:` are on one line and at most this far apart


def line_deeper_than(text: str, limit: int) -> int | None:
    """The 1-based line where nesting first goes deeper than `limit` levels, or None.

    The depth is what parsing the text nests to: every block or flow mapping and sequence counts,
    including those a compact `- - a` or `- k: v` opens on one line, an indentless `- ` sequence
    under a key, and the single-pair mapping of `[k: v]`. Brackets in quoted scalars, comments,
    block scalars and block-context plain scalars (`key: a[b`) do not count.
    """
    if limit >= len(text):  # every level takes at least one character
        return None
    work = text.translate(_BREAKS) if ("\r" in text or "\x85" in text or "\u2028" in text or "\u2029" in text) else text
    if _depth_bound(work) <= limit:
        return None
    where = _first_too_deep(work, limit)
    if where is None:
        return None
    # lines as the YAML reader counts them: "\r\n" is one line break
    return work.count("\n", 0, where) - text.count("\r\n", 0, where) + 1


def _depth_bound(work: str) -> int:
    """A quick upper bound on what _first_too_deep counts, so most files skip the full scan.

    Block collections nest at strictly increasing columns (each with at most one indentless
    sequence besides), and one starts either at a line's first token or just after a run of
    `- `, `? ` and `: ` that begins the line: no further right than the longest such run.
    Each flow level takes a `[` or a `{`, and a flow sequence holds at most one open pair.
    """
    widest = max(map(len, _LINE_OPENING.findall(work)), default=0)
    return 2 * (widest + 1) + 2 * work.count("[") + work.count("{")


def _first_too_deep(work: str, limit: int) -> int | None:
    """The position where nesting first goes beyond `limit` (every line break already "\\n")."""
    n = len(work)
    pos = 1 if work.startswith("\ufeff") else 0
    line_start = pos
    # block collections: the column each starts at, whether it is a mapping, and whether an
    # indentless sequence (`key:` then `- ` at the key's column) is open in it
    columns: list[int] = []
    mappings: list[bool] = []
    indentless: list[bool] = []
    # flow collections: whether each is a sequence, whether a single-pair mapping is open in
    # it, and the deepest level reached inside it
    sequences: list[bool] = []
    pairs: list[bool] = []
    peaks: list[int] = []
    # possible simple key per flow level: [position, deepest level reached inside it]
    keys: dict[int, list[int]] = {}
    depth = 0
    allow_key = True
    while True:
        end = _SKIP.match(work, pos).end()  # type: ignore[union-attr]
        if end != pos:
            newline = work.rfind("\n", pos, end)
            if newline >= 0:
                line_start = newline + 1
                if not sequences:
                    allow_key = True
            pos = end
        if pos >= n:
            return None
        flow = len(sequences)
        column = pos - line_start
        char = work[pos]
        after = work[pos + 1] if pos + 1 < n else "\n"
        if not flow:
            while columns and columns[-1] > column:
                columns.pop()
                mappings.pop()
                depth -= 1 + indentless.pop()
            if columns and indentless[-1] and columns[-1] == column and not (char == "-" and after in " \t\n"):
                indentless[-1] = False
                depth -= 1
        if column == 0 and char in "-." and _is_marker(work, pos):
            depth -= len(columns) + sum(indentless)
            del columns[:], mappings[:], indentless[:]
            keys.pop(flow, None)
            allow_key = False
            pos += 3
            continue
        if column == 0 and char == "%":
            depth -= len(columns) + sum(indentless)
            del columns[:], mappings[:], indentless[:]
            keys.pop(flow, None)
            allow_key = False
            pos = _TO_LINE_END.match(work, pos).end()  # type: ignore[union-attr]
            continue
        if char in "[{":
            if allow_key:
                keys[flow] = [pos, depth]
            depth += 1
            if depth > limit:
                return pos
            sequences.append(char == "[")
            pairs.append(False)
            peaks.append(depth)
            allow_key = True
            pos += 1
        elif char in "]}":
            keys.pop(flow, None)
            if sequences:
                sequences.pop()
                peak = peaks.pop()
                depth -= 1 + pairs.pop()
                if peaks and peak > peaks[-1]:
                    peaks[-1] = peak
                key = keys.get(flow - 1)
                if key is not None and peak > key[1]:
                    key[1] = peak
            allow_key = False
            pos += 1
        elif char == ",":
            allow_key = flow > 0  # (a `,` outside flow collections is an error anyway)
            keys.pop(flow, None)
            if pairs and pairs[-1]:
                pairs[-1] = False
                depth -= 1
            pos += 1
        elif char == "-" and after in " \t\n":
            if not flow and allow_key:  # elsewhere PyYAML refuses a block entry
                if not columns or column > columns[-1]:
                    columns.append(column)
                    mappings.append(False)
                    indentless.append(False)
                    depth += 1
                elif mappings[-1] and column == columns[-1] and not indentless[-1]:
                    indentless[-1] = True
                    depth += 1
                if depth > limit:
                    return pos
            allow_key = allow_key or flow > 0  # (PyYAML stops at a refused one)
            keys.pop(flow, None)
            pos += 1
        elif char == "?" and (flow or after in " \t\n"):
            if not flow:
                if allow_key and (not columns or column > columns[-1]):  # elsewhere PyYAML refuses a key
                    columns.append(column)
                    mappings.append(True)
                    indentless.append(False)
                    depth += 1
            elif sequences[-1] and not pairs[-1]:
                pairs[-1] = True
                depth += 1
                peaks[-1] = max(peaks[-1], depth)
            if depth > limit:
                return pos
            allow_key = allow_key and not flow
            keys.pop(flow, None)
            pos += 1
        elif char == ":" and (flow or after in " \t\n"):
            key = keys.pop(flow, None)
            if key is not None and (pos - key[0] > _SIMPLE_KEY_CHARS or work.find("\n", key[0], pos) >= 0):
                key = None  # stale: the scanner no longer takes it for a key
            opened = False
            if key is not None:
                if not flow:
                    key_column = key[0] - line_start
                    if not columns or key_column > columns[-1]:
                        columns.append(key_column)
                        mappings.append(True)
                        indentless.append(False)
                        opened = True
                elif sequences[-1] and not pairs[-1]:
                    pairs[-1] = True
                    opened = True
                if opened:
                    depth += 1
                    # the new mapping holds the key, so everything inside the key is a level deeper
                    if max(depth, key[1] + 1) > limit:
                        return key[0]
                    if flow:
                        peaks[-1] = max(peaks[-1], depth, key[1] + 1)
                allow_key = False
            else:
                if not flow and allow_key and (not columns or column > columns[-1]):
                    columns.append(column)
                    mappings.append(True)
                    indentless.append(False)
                    depth += 1
                    if depth > limit:
                        return pos
                allow_key = allow_key and not flow
            pos += 1
        elif char in "*&":
            if allow_key:
                keys[flow] = [pos, depth]
            allow_key = False
            pos = _ANCHOR.match(work, pos + 1).end()  # type: ignore[union-attr]
        elif char == "!":
            if allow_key:
                keys[flow] = [pos, depth]
            allow_key = False
            pos = (_TAG_FLOW if flow else _TAG_BLOCK).match(work, pos + 1).end()  # type: ignore[union-attr]
        elif char in "|>" and not flow:
            allow_key = True
            keys.pop(flow, None)
            pos, line_start = _skip_block_scalar(work, pos + 1, columns[-1] if columns else -1)
        elif char == '"' or char == "'":
            if allow_key:
                keys[flow] = [pos, depth]
            allow_key = False
            end = (_DOUBLE if char == '"' else _SINGLE).match(work, pos + 1).end()  # type: ignore[union-attr]
            newline = work.rfind("\n", pos, end)
            if newline >= 0:
                line_start = newline + 1
            pos = end
        elif char not in "-?:,[]{}#&*!|>'\"%@`" or (after not in " \t\n" and (char == "-" or (not flow and char in "?:"))):
            if allow_key:
                keys[flow] = [pos, depth]
            allow_key = False
            pos, line_start, broke = _skip_plain(work, pos, line_start, flow > 0, (columns[-1] if columns else -1) + 1)
            if broke:
                allow_key = True
        else:
            allow_key = False
            pos += 1  # a character no token starts with: the parser stops here


def _is_marker(work: str, pos: int) -> bool:
    """Whether a document marker (`---` or `...` then a blank) starts at `pos`."""
    return (work.startswith("---", pos) or work.startswith("...", pos)) and (pos + 3 >= len(work) or work[pos + 3] in " \t\n")


def _skip_plain(work: str, pos: int, line_start: int, flow: bool, indent: int) -> tuple[int, int, bool]:
    """Past a plain scalar, which may go on over lines: (position, line start, whether a line
    break came after its last text, so that a key may start next)."""
    run = _PLAIN_FLOW if flow else _PLAIN_BLOCK
    n = len(work)
    broke = False
    while pos < n and work[pos] != "#":
        match = run.match(work, pos)
        if match is None:
            break
        broke = False
        pos = match.end()
        end = _BLANKS.match(work, pos).end()  # type: ignore[union-attr]
        if end == pos:
            break
        newline = work.rfind("\n", pos, end)
        pos = end
        if newline >= 0:
            broke = True
            line_start = newline + 1
            if pos == line_start and _is_marker(work, pos):
                break
        if pos >= n or work[pos] == "#" or (not flow and pos - line_start < indent):
            break
    return pos, line_start, broke


def _skip_block_scalar(work: str, pos: int, indent: int) -> tuple[int, int]:
    """Past a literal or folded block scalar whose indicator is just before `pos`, nested in a
    block collection at column `indent`: (position, line start) of its first line that is less
    indented than its content."""
    n = len(work)
    increment = 0
    for char in work[pos:pos + 2]:  # the indicators: chomping and indentation, in either order
        if char.isdigit():
            increment = int(char)
        elif char not in "+-":
            break
    pos = _BLOCK_HEADER.match(work, pos).end()  # type: ignore[union-attr]  # to the next line
    line_start = pos
    content = max(indent + 1, 1)
    if increment:
        content += increment - 1
    else:
        # as wide as the first line with text, or the widest empty line before it
        end = _LEADING_SPACES.match(work, pos).end()  # type: ignore[union-attr]
        widest = 0
        start = pos
        while True:
            newline = work.find("\n", start, end)
            widest = max(widest, (end if newline < 0 else newline) - start)
            if newline < 0:
                break
            start = newline + 1
        content = max(content, widest)
    while True:
        # past empty lines and up to `content` spaces of the next line
        pos = min(_SPACES.match(work, pos).end(), line_start + content)  # type: ignore[union-attr]
        if pos < n and work[pos] == "\n":
            pos += 1
            line_start = pos
            continue
        if pos >= n or pos - line_start != content:
            return pos, line_start
        newline = work.find("\n", pos)
        if newline < 0:
            return n, line_start
        pos = newline + 1
        line_start = pos
