"""What GraphRAG's own simple parser (v3) keeps from an answer, for comparison.

Split on the record and completion delimiters, strip one '(' and ')' around each record, split
on the tuple delimiter, keep "entity" records with at least 4 fields and "relationship" records
with at least 5, weight float() or 1.0. Used by `audit_cache` to show what a strict pipeline
would have lost.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_PARENS = re.compile(r"^\(|\)$")


@dataclass(frozen=True, slots=True)
class NaiveCounts:
    entities: int
    relationships: int
    weight_fallbacks: int  # relationships whose weight was not a number (GraphRAG uses 1.0)


def naive_graphrag_counts(
    text: str, tuple_delimiter: str = "<|>", record_delimiter: str = "##", completion_delimiter: str = "<|COMPLETE|>"
) -> NaiveCounts:
    entities = relationships = fallbacks = 0
    for chunk in text.split(completion_delimiter) if completion_delimiter else [text]:
        for raw in chunk.split(record_delimiter) if record_delimiter else [chunk]:
            attrs = _PARENS.sub("", raw.strip()).split(tuple_delimiter)
            if attrs[0] == '"entity"' and len(attrs) >= 4:
                entities += 1
            elif attrs[0] == '"relationship"' and len(attrs) >= 5:
                relationships += 1
                try:
                    float(attrs[-1])
                except ValueError:
                    fallbacks += 1
    return NaiveCounts(entities, relationships, fallbacks)
