"""GraphRAG glues an extraction answer and its gleanings into one text before parsing
(`results += response.output` in `_process_document`, every version), so the first record of a
gleaning that follows `<|COMPLETE|>` (as the prompt asks every answer to end) is read as
`<|COMPLETE|>("entity"<|>...` and dropped. The audit reads each cached answer on its own; this
module puts the answers of one conversation back together (0.x to 2.x store the conversation's
first prompt; 3.x does not, so its seams are not modelled) and counts what the seams cost.
A conversation is known as GraphRAG's cache key knows its calls: by its first prompt and the
model and parameters it was sent with, so a cache holding two runs of the same chunks (two models,
or one model with other settings) holds two conversations per chunk, not one with two beginnings.
Pure: audited rows and their entries in, `seam_lost` set on the first answer of each
conversation."""

from __future__ import annotations

import re
from collections import defaultdict

from harness.cache_audit.graphrag_parser import SEAM, graphrag_reading
from harness.cache_audit.entry import CacheEntry, EntryAudit

_ROUND = re.compile(r"continuation-(\d+)")


def _round(entry: CacheEntry, kind: str) -> int:
    """0 for the first answer, n + 1 for `extract-continuation-n`."""
    if kind == "extraction":
        return 0
    for hint in entry.hints:
        match = _ROUND.search(hint)
        if match:
            return int(match.group(1)) + 1
    return 1


def count_seams(pairs: list[tuple[CacheEntry, EntryAudit]]) -> None:
    """Set `seam_lost` (and a finding) on the first answer of every GraphRAG conversation whose
    extraction and gleanings are all cached."""
    groups: dict[tuple[str, str, str | None, str | None], list[tuple[int, CacheEntry, EntryAudit]]] = defaultdict(list)
    for entry, row in pairs:
        if entry.engine == "lightrag" or entry.conversation is None or row.kind not in ("extraction", "continuation"):
            continue
        key = (entry.engine, entry.conversation, entry.parameters, None if entry.parameters else entry.model)
        groups[key].append((_round(entry, row.kind), entry, row))
    for (engine, *_), members in groups.items():
        members.sort(key=lambda m: m[0])
        if len(members) < 2 or members[0][0] != 0 or [m[0] for m in members] != list(range(len(members))):
            continue  # not the whole conversation: the first answer or a gleaning is not cached
        # the records read glued after <|COMPLETE|> once the answers are joined, beyond those each
        # answer already holds (counts would also take a name a gleaning repeats, which the
        # undirected graph of 0.x-2.x merges, for a loss)
        glued = graphrag_reading("".join(m[1].answer or "" for m in members), engine).lost.get(SEAM, 0)
        alone = sum(graphrag_reading(m[1].answer or "", engine).lost.get(SEAM, 0) for m in members)
        lost = glued - alone
        first = members[0][2]
        first.seam_lost = max(0, lost)
        if lost > 0:
            first.findings.append(f"seam-lost: {lost} record(s) {engine} drops where it glues this answer and its "
                                  f"{len(members) - 1} gleaning(s) together")
