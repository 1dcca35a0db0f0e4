"""Fast reading of clean GraphRAG records.

Most answers are clean: every record is `("entity"<|>NAME<|>TYPE<|>DESCRIPTION)` or
`("relationship"<|>SOURCE<|>TARGET<|>DESCRIPTION<|>STRENGTH)` with values either all quoted or all
bare, and no stray quotes, brackets, bold or delimiters inside. For those, one compiled regex
reads a record (or a whole answer) without the general reader's per-field clean-up. The patterns
accept only values the general reader would leave exactly as they are, so both paths return the
same records and the same issues (tests/parsing checks the two agree).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache


@dataclass(frozen=True, slots=True)
class Shape:
    """One accepted record shape."""

    kind: str  # "entity" or "relationship"
    first: int  # index of its first value group
    strength: bool  # relationship with a numeric strength as the last field
    counter: bool  # entity followed by a numeric counter field (note: extra-field)
    note: str | None  # the non-dropping issue code the general reader would record
    last_is_description: bool  # description is the last field (subject to closer stripping)


@dataclass(frozen=True, slots=True)
class FastPatterns:
    record: re.Pattern[str]
    document: re.Pattern[str] | None
    shapes: dict[str, Shape]


_EDGE_EXTRA = " \t'“”‘’「」『』«»`„*_"


@lru_cache(maxsize=64)
def fast_patterns(td: str, rd: str) -> FastPatterns:
    t = re.escape(td)
    bad = "".join(sorted(set(td + '"<>\n')))
    edge = "".join(sorted(set(bad + _EDGE_EXTRA)))
    inner = f"[^{re.escape(bad)}]"
    end = f"[^{re.escape(edge)}]"
    bare = f"({end}(?:{inner}*{end})?)"
    quoted = f'"{bare}"'
    strength = r"(10(?:\.0+)?|\d(?:\.\d+)?)"
    counter = r"(\d{1,4})"
    forms: list[tuple[str, str, bool, bool, str | None, bool]] = []
    for v in (quoted, bare):
        forms += [
            ("entity", rf'\("entity"{t}{v}{t}{v}{t}{v}\)', False, False, None, True),
            ("relationship", rf'\("relationship"{t}{v}{t}{v}{t}{v}{t}{strength}\)', True, False, None, False),
            ("relationship", rf'\("relationship"{t}{v}{t}{v}{t}{v}\)', False, False, "strength-missing", True),
            ("entity", rf'\("entity"{t}{v}{t}{v}{t}{v}{t}{counter}\)', False, True, "extra-field", False),
        ]
    alternatives = []
    shapes: dict[str, Shape] = {}
    group = 1
    for i, (kind, body, has_strength, has_counter, note, last_desc) in enumerate(forms):
        name = f"s{i}"
        alternatives.append(f"(?P<{name}>{body})")
        shapes[name] = Shape(kind, group + 1, has_strength, has_counter, note, last_desc)
        group += 1 + re.compile(body).groups
    alternation = "|".join(alternatives)
    document = None
    if rd and rd.strip():
        document = re.compile(rf"[ \t\n]*(?:{alternation})[ \t\n]*(?:{re.escape(rd)}|\Z)")
    return FastPatterns(re.compile(alternation), document, shapes)


def read(m: re.Match[str], shape: Shape) -> tuple[str, str, str, float | None] | None:
    """(first, second, description, strength) of a matched record, or None when the general
    reader would treat it differently (an unbalanced ')' that it strips from a last field)."""
    i = shape.first
    a, b, desc = m.group(i, i + 1, i + 2)
    if shape.last_is_description and desc.count("(") < desc.count(")"):
        return None
    strength = float(m.group(i + 3)) if shape.strength else None
    return a, b, desc, strength
