"""Triples written one (or a few) per line: LlamaIndex's `(subject, predicate, object)` and
Text2KGBench's `predicate(subject, object)`.

`read_lines` walks the answer line by line, handing each line to a format's line reader, and
reports what is not a triple: prose before, between and after the triples (`preamble`,
`interleaved-prose`, `closing-note`), "Note:" paragraphs (`note-paragraph`) and answers that say
there is nothing to extract (`no-triples`). Every line that holds a triple the reader cannot read
is reported as dropped, with the reason's code.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from enum import Enum

from harness.model import CompletionStatus
from harness.parsing.issues_log import IssueLog
from harness.parsing.triples import Triple, TripleSink, is_note, says_nothing, split_parts, strip_decoration, unquote

# LlamaIndex's default_parse_triplets_fn drops a triple whose part is longer than this (in UTF-8 bytes).
LLAMAINDEX_MAX_BYTES = 128
# "Triplet 1: (" / "Test Output: director(": a short label before the first triple of a line.
_LABEL = re.compile(r"^[^\W\d][\w ]{0,30}:\s*")
_SEPARATORS = re.compile(r"[\s,;]*")
# `predicate(`: a name written straight against its parenthesis, as Text2KGBench's prompts do.
_CALL = re.compile(r"[^\W\d][\w.:\-]*\(")
_RECORD_TAG = re.compile(r"^[\"'“]?(?:entity|relationship|relation|content_keywords)[\"'”]?$", re.I)


class Line(Enum):
    """What a line reader found on a line."""

    PROSE = "prose"  # no triple: left to read_lines to report
    TRIPLES = "triples"  # one or more triples, read or dropped
    CUT = "cut"  # the line's last triple is not closed (an answer cut off, if it is the last line)


LineReader = Callable[[str, TripleSink, IssueLog], Line]


def read_lines(text: str, sink: TripleSink, log: IssueLog, read_line: LineReader) -> CompletionStatus:
    """Read every line with `read_line`; report the prose around the triples. The answer is
    complete unless its last triple is cut off."""
    lines = text.split("\n")
    kinds: list[Line | None] = []  # None: blank
    in_note = False
    for line in lines:
        if not line.strip():
            kinds.append(None)
            in_note = False
            continue
        if in_note or is_note(line):
            in_note = True
            log.note("note-paragraph", line)
            kinds.append(None)
            continue
        kinds.append(read_line(line, sink, log))
    triple_at = [i for i, kind in enumerate(kinds) if kind in (Line.TRIPLES, Line.CUT)]
    prose = [i for i, kind in enumerate(kinds) if kind is Line.PROSE]
    if not triple_at:
        if says_nothing(text):
            log.note("no-triples", text)
        return "present" if says_nothing(text) else "missing"
    first, last = triple_at[0], triple_at[-1]
    before = [lines[i] for i in prose if i < first]
    between = [lines[i] for i in prose if first < i < last]
    after = [lines[i] for i in prose if i > last]
    if before:
        log.note("preamble", "\n".join(before))
    if between:
        log.note("interleaved-prose", "\n".join(between))
    if after:
        log.note("closing-note", "\n".join(after))
    return "missing" if kinds[last] is Line.CUT and not after else "present"


def _body(line: str, log: IssueLog) -> str:
    """The line without numbering, bullets (noted) and a short label such as `Triplet 1:`."""
    body, decorated = strip_decoration(line)
    if decorated:
        log.note("markdown-decoration", line)
    label = _LABEL.match(body)
    if label is not None and label.end() < len(body) and (body[label.end()] == "(" or _CALL.match(body, label.end())):
        body = body[label.end():]
    return body


def _llamaindex_reads(line: str) -> tuple[str, str, str] | None:
    """The triple LlamaIndex's default_parse_triplets_fn takes from this line (the first `(` to
    the first `)`, split on every comma, three parts of at most 128 bytes), quotes stripped as it
    strips them; None when it skips the line. Its capitalisation is not applied: only to compare."""
    if "(" not in line or ")" not in line or line.index(")") < line.index("("):
        return None
    tokens = line[line.index("(") + 1 : line.index(")")].split(",")
    if len(tokens) != 3 or any(len(t.encode("utf-8")) > LLAMAINDEX_MAX_BYTES for t in tokens):
        return None
    parts = tuple(t.strip() for t in tokens)
    if not all(parts):
        return None
    return tuple(p.strip('"') for p in parts)  # type: ignore[return-value]


def read_parenthesised(line: str, sink: TripleSink, log: IssueLog) -> Line:
    """LlamaIndex's `(subject, predicate, object)`, numbered, bulleted or labelled, parts quoted
    or not; several triples on one line are all read. A part that holds commas must be quoted
    (or bracketed): otherwise which commas separate the parts is ambiguous and the line is dropped
    (`triple-parts`), as it is when it has fewer than three parts."""
    body = _body(line, log)
    if not body.startswith("("):
        return Line.PROSE
    first_parts, _end = split_parts(body[1:], ",", ")")
    if _RECORD_TAG.match(first_parts[0].strip()):
        return Line.PROSE  # a GraphRAG record written with commas: not a triple
    pos = 0
    kept: list[Triple] = []
    cut = False
    while pos < len(body) and body[pos] == "(":
        parts, end = split_parts(body[pos + 1 :], ",", ")")
        raw = body[pos : pos + 1 + end] if end >= 0 else body[pos:]
        if end < 0:
            cut = True
            log.note("record-closer", raw, "A triple was not closed by ')'; it was read up to the end of the line.")
        if len(parts) == 3:
            triple = Triple(parts[0], parts[1], parts[2])
            if sink.keep(triple, raw, log):
                kept.append(triple)
        else:
            sink.drop("triple-parts", raw, log, _parts_message(len(parts), 3, "subject, predicate and object"))
        if end < 0:
            break
        pos += 1 + end
        pos = _SEPARATORS.match(body, pos).end()  # type: ignore[union-attr]
    _compare_with_llamaindex(line, kept, log)
    return Line.CUT if cut else Line.TRIPLES


def _compare_with_llamaindex(line: str, kept: list[Triple], log: IssueLog) -> None:
    """Note the triples read here that LlamaIndex's own parser would have lost or read otherwise."""
    if not kept:
        return
    first = kept[0]
    ours = (unquote(first.subject), unquote(first.predicate), unquote(first.object))
    theirs = _llamaindex_reads(line)
    if theirs is None:
        log.note("triple-recovered", line, "LlamaIndex's parser would drop this triple (commas or brackets inside a part, a part over 128 bytes, or no closing ')'); it was read.")
    elif tuple(p.strip("'“”").strip() for p in theirs) != ours:
        log.note("triple-recovered", line, "LlamaIndex's parser would split this triple differently (quotes or brackets it does not read); it was read as a person sees it.")
    if len(kept) > 1:
        log.note("triple-recovered", line, "LlamaIndex's parser reads only the first triple of a line; all were read.")


def read_call(line: str, sink: TripleSink, log: IssueLog) -> Line:
    """Text2KGBench's `predicate(subject, object)`, several on a line if separated by commas or
    semicolons, arguments quoted or not (a quoted argument may hold commas). A call without
    exactly two arguments is dropped (`triple-parts`)."""
    body = _body(line, log)
    call = _CALL.match(body)
    if call is None:
        return Line.PROSE
    first_parts, first_end = split_parts(body[call.end():], ",", ")")
    if len(first_parts) < 2 and first_end < 0:
        return Line.PROSE  # `word(` with no argument list: prose
    pos = 0
    cut = False
    while call is not None:
        predicate = body[call.start() : call.end() - 1]
        parts, end = split_parts(body[call.end():], ",", ")")
        raw = body[call.start() : call.end() + end] if end >= 0 else body[call.start():]
        if end < 0:
            cut = True
            log.note("record-closer", raw, "A triple was not closed by ')'; it was read up to the end of the line.")
        if len(parts) == 2:
            sink.keep(Triple(parts[0], predicate, parts[1]), raw, log)
        else:
            sink.drop("triple-parts", raw, log, _parts_message(len(parts), 2, "subject and object"))
        if end < 0:
            break
        pos = _SEPARATORS.match(body, call.end() + end).end()  # type: ignore[union-attr]
        call = _CALL.match(body, pos)
    return Line.CUT if cut else Line.TRIPLES


def _parts_message(count: int, wanted: int, expected: str) -> str:
    if count < wanted:
        return f"The triple has {count} part(s), too few for {expected}; it was dropped."
    return (f"The triple has {count} parts: which commas separate {expected} is ambiguous "
            "(a part holding a comma must be quoted); it was dropped.")
