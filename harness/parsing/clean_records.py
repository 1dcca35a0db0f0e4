"""Reading clean GraphRAG records with one regex (a shortcut past the general reader).

Most answers are clean: every record is `("entity"<|>NAME<|>TYPE<|>DESCRIPTION)` or
`("relationship"<|>SOURCE<|>TARGET<|>DESCRIPTION<|>STRENGTH)`, values quoted or bare, with no
stray quotes, brackets, bold or delimiters inside. For those, one compiled regex reads a record
(or a whole answer) without the general reader's per-field clean-up. The pattern accepts only
values the general reader would leave exactly as they are, so both paths return the same records
and the same issues (tests/parsing checks that they agree).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

_EDGE_EXTRA = " \t'“”‘’「」『』«»`„*_"

# Group layout of RECORD (0-based in m.groups()): entity values 0-5 (quoted or bare, three
# values), entity counter 6, relationship values 7-12, relationship strength 13.

# a clean record as the fast path reads it: kind, a, b, description, strength, note
CleanRecord = tuple[str, str, str, str, float | None, str | None]


@dataclass(frozen=True, slots=True)
class CleanRecordPatterns:
    record: re.Pattern[str]  # one record, for fullmatch
    document: re.Pattern[str] | None  # one record plus the separators after it, for match


@lru_cache(maxsize=64)
def clean_record_patterns(td: str, rd: str) -> CleanRecordPatterns:
    t = re.escape(td)
    # Values may not hold the tuple or record delimiter's characters (the general reader splits
    # on them), quotes, angle brackets or newlines.
    bad = "".join(sorted(set(td + rd + '"<>\n')))
    edge = "".join(sorted(set(bad + _EDGE_EXTRA)))
    inner = f"[^{re.escape(bad)}]"
    end = f"[^{re.escape(edge)}]"
    value = f"{end}(?:{inner}*{end})?"
    v = f'(?:"({value})"|({value}))'
    strength = r"(10(?:\.0+)?|\d(?:\.\d+)?)"
    record = (
        rf'\("(?:entity"{t}{v}{t}{v}{t}{v}(?:{t}(\d{{1,4}}))?'
        rf'|relationship"{t}{v}{t}{v}{t}{v}(?:{t}{strength})?)\)'
    )
    document = None
    if rd and rd.strip():
        sep = re.escape(rd)
        document = re.compile(rf"[ \t\n]*({record})[ \t\n]*(?:(?:{sep}[ \t\n]*)+|\Z)")
    return CleanRecordPatterns(re.compile(record), document)


def _plain_last(desc: str) -> bool:
    """A description in the last field, before the closing ')', that the general reader's closer
    stripping (fields.strip_closer) leaves alone: balanced parentheses, no closer-like end."""
    return desc.count("(") == desc.count(")") and desc[-1] not in "）]"


# The `type: ignore`s below: a matched alternative's groups are never None, which mypy cannot
# see; a helper to narrow them would cost a call per value on the hottest path.
def read_clean_record(g: tuple[str | None, ...], o: int) -> CleanRecord | None:
    """The record behind a match's groups, laid out as RECORD's from index `o` on; None when the
    general reader might read it differently (see _plain_last)."""
    if g[o] is not None or g[o + 1] is not None:
        a = g[o] if g[o] is not None else g[o + 1]
        b = g[o + 2] if g[o + 2] is not None else g[o + 3]
        desc = g[o + 4] if g[o + 4] is not None else g[o + 5]
        if g[o + 6] is not None:  # ("entity"<|>..<|>..<|>..<|>3): a counter; the description is not last
            return "entity", a, b, desc, None, "extra-field"  # type: ignore[return-value]
        if not _plain_last(desc):  # type: ignore[arg-type]
            return None
        return "entity", a, b, desc, None, None  # type: ignore[return-value]
    a = g[o + 7] if g[o + 7] is not None else g[o + 8]
    b = g[o + 9] if g[o + 9] is not None else g[o + 10]
    desc = g[o + 11] if g[o + 11] is not None else g[o + 12]
    if g[o + 13] is not None:
        return "relationship", a, b, desc, float(g[o + 13]), None  # type: ignore[arg-type,return-value]
    if not _plain_last(desc):  # type: ignore[arg-type]
        return None
    return "relationship", a, b, desc, None, "strength-missing"  # type: ignore[return-value]
