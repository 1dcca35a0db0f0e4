"""The values handed between the stages of `harness audit-cache`: one cached model call as a
layout read it (CacheEntry), and what the audit concluded about it (EntryAudit)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# The kinds of cached call the audit tells apart. `query` entries carry a sub-kind (map, reduce,
# drift, rate, local, global, basic, keywords, ...) in EntryAudit.query_kind.
CALL_KINDS: tuple[str, ...] = (
    "extraction", "continuation", "loop", "summary", "report", "claims", "embedding", "query", "unknown",
)

# The engines and versions whose cache layouts and extraction parsers are modelled
# (harness.cache_audit.layouts, harness.cache_audit.engines).
ENGINES: tuple[str, ...] = ("graphrag-0.x", "graphrag-1.x", "graphrag-2.x", "graphrag-3.x", "lightrag")


@dataclass(slots=True)
class CacheEntry:
    """One cached call. `answer` is the model's text (None for an embedding or when the layout
    holds none); `request` is the prompt text when the cache stored it (the last user message);
    `hints` are lower-case names that say what the call was (cache folder, file-name prefix,
    LightRAG mode and cache_type)."""

    id: str
    engine: str  # one of ENGINES
    layout: str  # how the entry was stored, e.g. "graphrag-0.x json (result, input, parameters)"
    answer: str | None
    request: str | None = None
    conversation: str | None = None  # the first user message of the call's conversation (GraphRAG 0.x-2.x)
    model: str | None = None
    # the call's model parameters (`model`, temperature, max_tokens ...) as canonical JSON: with
    # the messages, what GraphRAG's cache key hashes, so two runs of one chunk under other models
    # or settings are other conversations (None when not stored)
    parameters: str | None = None
    hints: tuple[str, ...] = ()
    cache_type: str | None = None  # LightRAG's own cache_type, when stored
    mode: str | None = None  # LightRAG's mode (default, local, global, hybrid, naive, mix)
    embedding: bool = False  # the entry holds vectors, not text
    vectors: int = 0
    dimensions: int = 0
    # what the entry itself proves about the engine version that wrote it (GraphRAG 0.x: "0.1-0.2.0
    # (no history stored)"); None when it proves nothing
    version_evidence: str | None = None
    # the tokens the endpoint reported for the call, when the cache stored its response's `usage`
    # (GraphRAG 0.9-3.x); None when it did not (0.x text results, LightRAG). `harness estimate`
    # reads them; the audit does not
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    latency_s: float | None = None  # the call's duration, when stored (GraphRAG 3.x `metrics`)


@dataclass(slots=True)
class EngineCounts:
    """What an engine's own extraction parser keeps from one answer."""

    entities: int
    relationships: int
    weight_fallbacks: int | None  # relationships given weight 1.0 by the fallback; None: no weight field


@dataclass(slots=True)
class EngineReading:
    """What an engine's extraction parser keeps from a text, and why it lost the records it read
    nothing from (reason -> records): EngineCounts with the reasons (engines.graphrag_reading)."""

    entities: int = 0
    relationships: int = 0
    weight_fallbacks: int = 0
    lost: dict[str, int] = field(default_factory=dict)

    def lose(self, reason: str, records: int = 1) -> None:
        self.lost[reason] = self.lost.get(reason, 0) + records

    def counts(self) -> EngineCounts:
        return EngineCounts(self.entities, self.relationships, self.weight_fallbacks)


@dataclass(slots=True)
class EntryAudit:
    """One row of the audit: the entry's kind, whether its kind's parser read it (`parsed_ok`),
    what its content breaks of the prompt's rules (`content`), what the engine's parser did to it
    (`findings`), and, for extraction answers, the engine's count against ours. Three separate
    things: a report with 4 findings where the prompt asks 5-10 is parsed, with a content finding."""

    id: str
    engine: str
    layout: str
    kind: str
    model: str | None
    kind_source: str  # what decided the kind: "cache_type", "request", "folder", "answer shape", ...
    query_kind: str | None = None
    parsed_ok: bool = True  # our kind's parser read the answer: no parse problem (content findings aside)
    problems: list[str] = field(default_factory=list)  # what kept our kind's parser from reading the answer cleanly
    content: list[str] = field(default_factory=list)  # read, but breaks the prompt's rules (findings count, word limit ...)
    findings: list[str] = field(default_factory=list)  # what the engine's parser did to it (lost records, weights, loop misread)
    parsed: dict[str, Any] = field(default_factory=dict)  # kind-specific figures (entities, words, points ...)
    engine_parser: str | None = None
    engine_entities: int | None = None
    engine_relationships: int | None = None
    engine_weight_fallbacks: int | None = None
    recovered_entities: int | None = None
    recovered_relationships: int | None = None
    # records GraphRAG loses where it glues this answer and its gleanings into one text before
    # parsing (set on the first answer of a conversation; None when not modelled)
    seam_lost: int | None = None

    @property
    def flagged(self) -> bool:
        """Worth a look: a parse problem, a content finding or an engine finding."""
        return bool(self.problems or self.content or self.findings)

    @property
    def lost_silently(self) -> int | None:
        """Records we recover that the engine's parser dropped (entities plus relationships)."""
        if self.engine_entities is None or self.recovered_entities is None:
            return None
        return max(0, (self.recovered_entities or 0) - self.engine_entities) + max(
            0, (self.recovered_relationships or 0) - (self.engine_relationships or 0)
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "engine": self.engine,
            "layout": self.layout,
            "kind": self.kind,
            "query_kind": self.query_kind,
            "kind_source": self.kind_source,
            "model": self.model,
            "parsed_ok": self.parsed_ok,
            "problems": list(self.problems),
            "content_findings": list(self.content),
            "findings": list(self.findings),
            "parsed": dict(self.parsed),
            "engine_parser": self.engine_parser,
            "engine_kept": None if self.engine_entities is None else {
                "entities": self.engine_entities, "relationships": self.engine_relationships,
            },
            "recovered": None if self.recovered_entities is None else {
                "entities": self.recovered_entities, "relationships": self.recovered_relationships,
            },
            "lost_silently": self.lost_silently,
            "seam_lost": self.seam_lost,
            "weight_fallbacks": self.engine_weight_fallbacks,
        }
