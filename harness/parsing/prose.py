"""Entities and relationships written as prose or markdown lists instead of records.

They are reported, not recovered: a pipeline such as GraphRAG keeps nothing from them, so
turning them into graph elements would make a broken prompt look healthy. Each one becomes a
dropped `prose-record` issue, so the format-error rate shows what was lost.
"""

from __future__ import annotations

import re

from harness.parsing.issues_log import IssueLog

_HEADING = re.compile(
    r"^\W{0,8}(?:#+\s*)?\**\s*(?:\d+[.)]\s*)?(?:extracted\s+|identified\s+|additional\s+)?"
    r"(entit(?:y|ies)|nodes?|relationships?|relations?|edges?|实体|實體|关系|關係)[^\n]{0,30}$",
    re.I,
)
_ITEM = re.compile(r"^\s*(?:\d{1,3}[.)、]|[-*•+])\s+(\S.*)$")
_ITEM_START = frozenset("0123456789-*•+")
_ARROW = re.compile(r"\S\s*(?:->|→|-->|—>|<->|↔)\s*\S")
# `- **GAMMA** (organization): ...` or `1. **A** -> **B**: ...`: unmistakably an entity or a
# relationship written as a list item, wherever it stands (even among or after records).
_BOLD_ENTITY_ITEM = re.compile(
    r"^\s*(?:\d{1,3}[.)、]|[-*•+])\s+\*\*[^*\n]{1,80}\*\*\s*[\(（][^()（）\n]{1,40}[\)）]\s*[:：\-–—]"
)


def is_prose_record(line: str) -> bool:
    """A list item that is an entity (bold name, type in parentheses) or a relationship
    (`A -> B`): reported as a dropped `prose-record` even when records were found."""
    item = _ITEM.match(line)
    if item is None:
        return False
    return _BOLD_ENTITY_ITEM.match(line) is not None or _ARROW.search(item.group(1)) is not None


def report_prose_records(lines: list[str], log: IssueLog) -> int:
    """Drop-report list items under an Entities/Relationships heading, and `A -> B` items
    anywhere. Returns how many were reported."""
    if not any(line.lstrip()[:1] in _ITEM_START for part in lines for line in part.split("\n")):
        return 0  # no list item at all: nothing to report
    section = ""
    count = 0
    for line in lines:
        for sub in line.split("\n"):
            heading = _HEADING.match(sub) if len(sub) < 80 else None  # headings are short
            if heading and not _ITEM.match(sub):
                word = heading.group(1).lower()
                section = "relationship" if word[0] in "re关關" else "entity"
                continue
            item = _ITEM.match(sub)
            if item is None:
                stripped = sub.strip()
                if stripped.startswith(("#", "**")) or stripped.endswith((":", "：")):
                    section = ""  # another heading: the list is over
                continue
            body = item.group(1)
            if section or _ARROW.search(body):
                count += 1
                log.drop("prose-record", sub)
    return count
