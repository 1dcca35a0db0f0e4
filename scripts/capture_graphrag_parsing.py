"""Capture what a real GraphRAG version's own parser keeps from tricky extraction conversations.

Run with the Python of a scratch environment that has that GraphRAG installed (GraphRAG is never a
dependency of the harness):

    /work/scratch/gr-conv-3.3.0/bin/python scripts/capture_graphrag_parsing.py \\
        tests/fixtures/engine_parsing/graphrag-3.3.0.json

or, for the conversations of a file of real answers (scripts/capture_real_answers.py), read by
each version's parser:

    /work/scratch/gr-conv-1.2.0/bin/python scripts/capture_graphrag_parsing.py \
        tests/fixtures/engine_parsing/real-smollm2/graphrag-1.2.0.json \
        --answers tests/fixtures/engine_parsing/real-smollm2/answers-graphrag-1.2.0.json

Each conversation's answers are glued as `GraphExtractor._process_document` glues them
(`results += response`), then read by the version's own `_process_result` (3.x: data frames of
records) or `_process_results` (0.4-2.x: a networkx graph; entity-record nodes are those with a
type). The committed output is what tests/scoring/test_engine_reading.py compares the harness's
model of that parser (harness/cache_audit/engines.py) with.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.metadata
import json
from pathlib import Path
from typing import Any

# the answers: a clean one, records separated by blank lines instead of `##`, relationships with
# four fields (no weight), and a gleaning glued after `<|COMPLETE|>` (the seam)
CONVERSATIONS: dict[str, list[str]] = {
    "clean": [
        '("entity"<|>ANA RUIZ<|>PERSON<|>Mayor of Lowbridge)\n##\n("entity"<|>LOWBRIDGE<|>GEO<|>A town)\n##\n'
        '("relationship"<|>ANA RUIZ<|>LOWBRIDGE<|>Ana Ruiz is mayor of Lowbridge<|>8)\n<|COMPLETE|>',
    ],
    "blank-lines": [
        '("entity"<|>ANA RUIZ<|>PERSON<|>Mayor of Lowbridge)\n\n("entity"<|>LOWBRIDGE<|>GEO<|>A town)\n\n'
        '("entity"<|>KESTREL TRUST<|>ORGANIZATION<|>A charity)\n\n'
        '("relationship"<|>ANA RUIZ<|>LOWBRIDGE<|>Ana Ruiz is mayor of Lowbridge<|>8)\n<|COMPLETE|>',
    ],
    "four-field-relationships": [
        '("entity"<|>ARN<|>GEO<|>A river)\n##\n("entity"<|>MILLBROOK<|>GEO<|>A town)\n##\n'
        '("relationship"<|>ARN<|>MILLBROOK<|>The Arn flooded Millbrook)\n##\n'
        '("relationship"<|>MILLBROOK<|>ARN<|>Millbrook lies on the Arn)\n<|COMPLETE|>',
    ],
    "seam": [
        '("entity"<|>TOMAS BERG<|>PERSON<|>Pie contest winner)\n<|COMPLETE|>',
        '("entity"<|>IDA MOSS<|>PERSON<|>A chef who judged)\n##\n("entity"<|>OAKFIELD FAIR<|>EVENT<|>A fair)\n'
        '##\n("relationship"<|>IDA MOSS<|>OAKFIELD FAIR<|>Ida Moss judged at the fair<|>6)\n<|COMPLETE|>',
    ],
    # a small model repeating itself: the same entity twice (once in another case), a relationship
    # both ways and again in a gleaning (0.x-2.x read into one undirected graph, 3.x into rows)
    "repeats": [
        '("entity"<|>ARN<|>GEO<|>A river)\n##\n("entity"<|>Arn<|>GEO<|>The river Arn)\n##\n'
        '("entity"<|>MILLBROOK<|>GEO<|>A town)\n##\n("relationship"<|>ARN<|>MILLBROOK<|>The Arn flows past<|>5)\n##\n'
        '("relationship"<|>MILLBROOK<|>ARN<|>Millbrook lies on the Arn<|>4)\n<|COMPLETE|>',
        '##\n("entity"<|>MILLBROOK<|>GEO<|>A market town)\n##\n'
        '("relationship"<|>ARN<|>MILLBROOK<|>The Arn floods Millbrook<|>7)\n<|COMPLETE|>',
    ],
}


def _read_3x(text: str) -> dict[str, object]:
    from graphrag.index.operations.extract_graph.graph_extractor import GraphExtractor

    extractor = GraphExtractor.__new__(GraphExtractor)
    entities, relationships = extractor._process_result(text, "0", "<|>", "##")
    return {"entities": sorted(entities["title"].tolist()) if len(entities) else [],
            "relationships": sorted(f"{s} -> {t}" for s, t in zip(relationships["source"], relationships["target"]))}


def _graph_extractor() -> Any:
    """0.4-2.x's GraphExtractor, wherever the version keeps it."""
    try:  # 2.x
        from graphrag.index.operations.extract_graph.graph_extractor import GraphExtractor
    except ImportError:
        try:  # 1.x
            from graphrag.index.operations.extract_entities.graph_extractor import GraphExtractor
        except ImportError:  # 0.4-0.9
            from graphrag.index.graph.extractors.graph.graph_extractor import GraphExtractor
    return GraphExtractor


def _read_2x(text: str) -> dict[str, object]:
    GraphExtractor = _graph_extractor()

    extractor = GraphExtractor.__new__(GraphExtractor)
    extractor._join_descriptions = True
    graph = asyncio.run(extractor._process_results({0: text}, "<|>", "##"))
    return {"entities": sorted(n for n, d in graph.nodes(data=True) if d.get("type")),
            "relationships": sorted(f"{s} -> {t}" for s, t in graph.edges())}


def main(out: str, answers_file: str | None = None) -> None:
    version = importlib.metadata.version("graphrag")
    read = _read_3x if int(version.split(".")[0]) >= 3 else _read_2x
    header: dict[str, Any] = {"graphrag": version}
    if answers_file is None:
        conversations: dict[str, dict[str, Any]] = {name: {"answers": a} for name, a in CONVERSATIONS.items()}
    else:  # real answers: keep where they came from, and which request each answer replied to
        source = json.loads(Path(answers_file).read_text(encoding="utf-8"))
        header.update({"answers_from": Path(answers_file).name, "engine_that_asked": source["engine"],
                       "model": source["model"], "server": source["server"], "date": source["date"]})
        conversations = {name: {"answers": c["answers"],
                                "requests": [r["request"] for r in c["exchanges"] if r["kind"] != "loop"]}
                         for name, c in source["conversations"].items()}
    # the answers glued as _process_document glues them (`results += response`)
    captured = {name: {**c, "kept": read("".join(c["answers"]))} for name, c in conversations.items()}
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    Path(out).write_text(json.dumps({**header, "conversations": captured}, indent=1, ensure_ascii=False) + "\n",
                         encoding="utf-8")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", help="the JSON file to write")
    parser.add_argument("--answers", help="a file of real answers (scripts/capture_real_answers.py) to read instead")
    args = parser.parse_args()
    main(args.out, args.answers)
