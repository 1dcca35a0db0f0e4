"""Which engine version wrote a cache, decided over all the entries of one cache folder (one
index run writes one folder with one version), where a single entry cannot say it: GraphRAG
1.x against 2.x with fnllm, and GraphRAG 0.x that does or does not parse relationship weights.

GraphRAG 0.1 to 0.3.1 read a weight with `float(x) if isinstance(x, numbers.Number) else 1.0`
(every weight 1.0); 0.3.2 (graph_extractor.py, "try: weight = float(...)") to 0.5.x parse it and
still write the 0.x layout; 0.9 already writes fnllm's layout and is read as 1.x. A 0.x entry
proves an old version when it stores no `history` (0.1-0.2.0) or escapes non-ASCII text (before
0.3.0); nothing stored tells 0.3.0-0.3.1 from 0.3.2-0.5.x, so the audit then says what it
assumed and which option changes it. Pure: entries in, engine names settled and notes out."""

from __future__ import annotations

from collections import defaultdict

from harness.cache_audit.entry import CacheEntry

OLD_WEIGHTS = "graphrag-0.x"  # 0.1 to 0.3.1: every weight 1.0
PARSED_WEIGHTS = "graphrag-1.x"  # the parser of 0.3.2 to 1.x: float(), 1.0 on failure


def cache_root(entry_id: str) -> str:
    """The cache folder an entry's workflow folder sits in (`a/cache` of `a/cache/extract_graph/chat_x_v2`)."""
    return entry_id.rsplit("/", 2)[0] if entry_id.count("/") >= 2 else ""


def settle_fnllm_versions(entries: list[CacheEntry]) -> None:
    """GraphRAG 1.x and 2.x with fnllm store entries alike; 2.x names two workflow folders
    differently (extract_graph, extract_claims). An entry read as 1.x whose cache folder also
    holds a 2.x entry is 2.x."""
    roots = {cache_root(e.id) for e in entries if e.engine == "graphrag-2.x"}
    for entry in entries:
        if entry.engine == "graphrag-1.x" and cache_root(entry.id) in roots:
            entry.engine = "graphrag-2.x"
            entry.layout = entry.layout.replace("graphrag-1.x", "graphrag-2.x", 1)


def graphrag_0x_notes(entries: list[CacheEntry]) -> dict[str, str]:
    """Per cache folder holding GraphRAG 0.x entries, how their weights are read and why: what
    the cache proves, or the assumption (0.1-0.3.1) with the option for 0.3.2-0.5.x."""
    evidence: dict[str, list[str]] = defaultdict(list)
    for entry in entries:
        if entry.engine == OLD_WEIGHTS:
            proof = evidence[cache_root(entry.id)]
            if entry.version_evidence and entry.version_evidence not in proof:
                proof.append(entry.version_evidence)
    notes: dict[str, str] = {}
    for root, proof in evidence.items():
        if proof:
            notes[root] = (f"GraphRAG 0.x cache written by GraphRAG {proof[0]}: weights read as 0.1-0.3.1 read them "
                           "(every weight 1.0)")
        else:
            notes[root] = ("GraphRAG 0.x cache; GraphRAG stores no version, and nothing in it tells 0.1-0.3.1 from "
                           "0.3.2-0.5.x: assumed 0.1-0.3.1 (every weight read as 1.0); if 0.3.2 or later wrote it "
                           f"(weights parsed), audit with --engine {PARSED_WEIGHTS}")
    return notes
