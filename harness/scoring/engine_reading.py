"""What the engine a suite names would keep from a case's answers, next to what the harness
recovers: the run's side of the audit's engine model (harness.cache_audit.engines), never a second
model of the engine's parser.

GraphRAG glues the first answer and its gleanings into one text before parsing
(`results += response` in `_process_document`, every version, 3.x included), so the answers are
read glued: a gleaning's first record after `<|COMPLETE|>` is lost as the engine loses it. GraphRAG
3.x reads with its constant delimiters (`<|>`, `##`, `<|COMPLETE|>`); earlier versions with the
delimiters the prompt was filled with. LightRAG reads each answer on its own (as the audit does).
Pure: rounds and the recovered graph in, an EngineRead out.
"""

from __future__ import annotations

from collections import Counter

from ..cache_audit.engines import (
    COMPLETION, GRAPHRAG_RECORD, GRAPHRAG_TUPLE, engine_parser, graphrag_reading, lightrag_counts,
    lightrag_legacy_counts, parser_of_version,
)
from ..model import EngineRead, ExtractedGraph, Round


def read_as_engine(engine: str, rounds: list[Round], graph: ExtractedGraph, delimiters: dict[str, str]) -> EngineRead:
    """The engine's reading of one case's answers (loop checks left out). `delimiters`: the
    variant's tuple, record and completion delimiters (runner.variant_delimiters)."""
    parser = parser_of_version(engine)
    if parser is None:  # the suite's `engine:` is validated at load; kept total for rows read back
        raise ValueError(f"engine '{engine}' is not modelled")
    answers = [r.output for r in rounds if r.kind != "loop"]
    tuple_d = delimiters.get("tuple_delimiter", GRAPHRAG_TUPLE)
    record_d = delimiters.get("record_delimiter", GRAPHRAG_RECORD)
    completion_d = delimiters.get("completion_delimiter", COMPLETION)
    reasons: Counter[str] = Counter()
    if parser.startswith("graphrag"):
        if parser == "graphrag-3.x":  # 3.x splits on its constants, whatever the prompt says
            tuple_d, record_d, completion_d = GRAPHRAG_TUPLE, GRAPHRAG_RECORD, COMPLETION
        reading = graphrag_reading("".join(answers), parser, tuple_d, record_d, completion_d)
        entities, relationships = reading.entities, reading.relationships
        reasons.update(reading.lost)
    else:
        entities = relationships = 0
        for answer in answers:
            name, count = engine_parser("lightrag", answer) if parser == "lightrag" else (parser, None)
            if count is None:
                count = ((lambda text: lightrag_counts(text, tuple_d, completion_d)) if name == "lightrag>=1.4.8"
                         else (lambda text: lightrag_legacy_counts(text, tuple_d, record_d, completion_d)))
            kept = count(answer)
            entities += kept.entities
            relationships += kept.relationships
    recovered_e, recovered_r = len(graph.entities), len(graph.relationships)
    lost = max(0, recovered_e - entities) + max(0, recovered_r - relationships)
    if lost and not reasons:
        reasons[f"not read by {parser}'s parser"] = lost
    return EngineRead(engine=engine, parser=parser, entities=entities, relationships=relationships,
                      recovered_entities=recovered_e, recovered_relationships=recovered_r, lost=lost,
                      reasons=dict(sorted(reasons.items())))


def describe(read: EngineRead) -> str:
    """One line: `engine keeps N entities / M relationships, harness recovers ..., lost by the
    engine: K (reasons)`."""
    line = (f"{read.engine} keeps {read.entities} entities / {read.relationships} relationships, harness recovers "
            f"{read.recovered_entities} / {read.recovered_relationships}, lost by the engine: {read.lost}")
    if read.reasons:
        line += " (" + "; ".join(f"{n} {why}" for why, n in read.reasons.items()) + ")"
    return line
