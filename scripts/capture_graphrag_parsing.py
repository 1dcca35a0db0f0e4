"""Capture what a real GraphRAG version's own parser keeps from extraction conversations, and the
graph it builds of them.

Run with the Python of a scratch environment that has that GraphRAG installed (GraphRAG is never a
dependency of the harness):

    /work/scratch/gr-conv-3.3.0/bin/python scripts/capture_graphrag_parsing.py \\
        tests/fixtures/engine_parsing/graphrag-3.3.0.json

Each conversation's answers are glued as `GraphExtractor._process_document` glues them
(`results += response`), then read by the version's own code: 3.x `_process_result`, then the
extract_graph operation's `_merge_entities`, `_merge_relationships` and (3.0.6 on)
`filter_orphan_relationships`; 1.x-2.x `_process_results` (a networkx graph), its nodes and
`nx.to_pandas_edgelist` as the strategy turns them into tables, then `_merge_entities` and
`_merge_relationships`; 0.x `_process_results`, its nodes and edges as the graph holds them (0.1-0.4
installed with `pip install --no-deps graphrag==0.4.1 networkx`: their GraphExtractor is loaded
from its own file, `_isolated_extractor`).

Written per conversation: `kept` (entity-record names, the nodes with a type in 0.x-2.x, and
relationship pairs, sorted: the first captures' shape) and `graph` (every entity and relationship
of the version's tables in their order, with type, description parts and weight). The committed
output is what tests/scoring/test_engine_reading.py and tests/cache_audit/test_graphrag_parser.py
compare the harness's model of that parser (harness/cache_audit/graphrag_parser.py) with.
`--answers FILE` reads the conversations of a file of real answers (scripts/capture_real_answers.py)
instead, keeping where they came from and the request each answer replied to:

    /work/scratch/gr-conv-1.2.0/bin/python scripts/capture_graphrag_parsing.py \\
        tests/fixtures/engine_parsing/real-smollm2/graphrag-1.2.0.json \\
        --answers tests/fixtures/engine_parsing/real-smollm2/answers-graphrag-1.2.0.json
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import importlib.metadata
import json
from pathlib import Path
from typing import Any

# the answers: a clean one, records separated by blank lines instead of `##`, relationships with
# four fields (no weight), a gleaning glued after `<|COMPLETE|>` (the seam), and the merging
# rules: one name twice with two types, a relationship before its entities and back again,
# an HTML entity, an empty type, a self-loop, a relationship naming no entity
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
    "merging": [
        '("relationship"<|>ana ruiz<|>Kestrel Trust<|>Ana founded the trust<|>3)##\n'
        '("entity"<|>Ana Ruiz<|>person<|>Mayor of Lowbridge)##\n'
        '("entity"<|>ANA RUIZ<|>ORGANIZATION<|>Runs the council)##\n'
        '("entity"<|>Kestrel Trust<|>organization<|>A charity)##\n'
        '("relationship"<|>KESTREL TRUST<|>ANA RUIZ<|>The trust backs Ana<|>2)##\n'
        '("relationship"<|>Ana Ruiz<|>Kestrel Trust<|>Ana chairs the trust<|>4)##\n'
        '("entity"<|>Smith &amp; Sons<|><|>A firm)##\n'
        '("relationship"<|>LOWBRIDGE<|>LOWBRIDGE<|>The town council meets in town<|>1)##\n'
        '<|COMPLETE|>',
        '("entity"<|>Ana Ruiz<|>PERSON<|>Mayor of Lowbridge)##\n'
        '("relationship"<|>SMITH & SONS<|>OSLO<|>The firm trades with Oslo<|>high)##\n<|COMPLETE|>',
    ],
}


def _parts(description: Any) -> list[str]:
    """A description as its distinct non-empty parts (0.x-2.x join a set with new lines; 3.x lists)."""
    values = description if isinstance(description, list) else [description]
    return sorted({part for value in values if isinstance(value, str) for part in value.split("\n") if part})


def _number(value: Any) -> float | None:
    return None if value is None else float(value)


def _tables(entities: Any, relationships: Any) -> dict[str, list[dict[str, Any]]]:
    return {
        "entities": [{"name": row["title"], "type": row["type"], "description": _parts(row["description"])}
                     for _, row in entities.iterrows()],
        "relationships": [{"source": row["source"], "target": row["target"], "description": _parts(row["description"]),
                           "weight": _number(row["weight"])} for _, row in relationships.iterrows()],
    }


def _read_3x(text: str) -> dict[str, Any]:
    from graphrag.index.operations.extract_graph import extract_graph as operation
    from graphrag.index.operations.extract_graph.graph_extractor import GraphExtractor

    extractor = GraphExtractor.__new__(GraphExtractor)
    entities, relationships = extractor._process_result(text, "0", "<|>", "##")
    kept = {"entities": sorted(entities["title"].tolist()) if len(entities) else [],
            "relationships": sorted(f"{s} -> {t}" for s, t in zip(relationships["source"], relationships["target"]))}
    merged_e = operation._merge_entities([entities])
    merged_r = operation._merge_relationships([relationships])
    if hasattr(operation, "filter_orphan_relationships"):
        merged_r = operation.filter_orphan_relationships(merged_r, merged_e)
    return {"kept": kept, "graph": _tables(merged_e, merged_r)}


def _isolated_extractor() -> Any:
    """0.1-0.4's GraphExtractor, loaded from its own file: the package's __init__ files import the
    whole indexing engine (Azure, datashaper, ...), which `pip install --no-deps graphrag==0.4.1
    networkx` leaves out. What `_process_results` calls is real (graphrag/index/utils/string.py's
    clean_str); the rest it never touches (the LLM class, the config defaults, tiktoken) is stubbed."""
    import importlib.util
    import sys
    import types

    root = Path(importlib.util.find_spec("graphrag").origin).parent  # type: ignore[arg-type]

    def load(name: str, path: Path) -> Any:
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
        sys.modules[name] = module
        spec.loader.exec_module(module)  # type: ignore[union-attr]
        return module

    string = load("graphrag_string", root / "index" / "utils" / "string.py")
    stubs = {"graphrag.config": {}, "graphrag.config.defaults": {}, "graphrag.index.typing": {"ErrorHandlerFn": Any},
             "graphrag.index.utils": {"clean_str": string.clean_str}, "graphrag.llm": {"CompletionLLM": Any},
             "tiktoken": {}}
    for name, values in stubs.items():
        sys.modules[name] = types.SimpleNamespace(**values)  # type: ignore[assignment]
    sys.modules["graphrag.config"].defaults = sys.modules["graphrag.config.defaults"]  # type: ignore[attr-defined]
    folder = root / "index" / "graph" / "extractors" / "graph"
    package = types.ModuleType("graph_extractor_package")
    package.__path__ = [str(folder)]
    sys.modules["graph_extractor_package"] = package
    load("graph_extractor_package.prompts", folder / "prompts.py")
    return load("graph_extractor_package.graph_extractor", folder / "graph_extractor.py")


def _networkx(text: str, module: str) -> Any:
    try:
        extractor_class = importlib.import_module(module).GraphExtractor
    except ImportError:  # 0.1-0.4 installed without their dependencies
        extractor_class = _isolated_extractor().GraphExtractor
    extractor = extractor_class.__new__(extractor_class)
    extractor._join_descriptions = True
    return asyncio.run(extractor._process_results({0: text}, "<|>", "##"))


def _raised(error: Exception) -> dict[str, Any]:
    """What a version keeps from a text its parser raises on: nothing (the text unit fails)."""
    return {"kept": {"entities": [], "relationships": []}, "graph": {"entities": [], "relationships": []},
            "raises": f"{type(error).__name__}: {error}"}


def _read_networkx(text: str, version: tuple[int, ...]) -> dict[str, Any]:
    import networkx as nx

    if version >= (2, 0, 0):
        graph = _networkx(text, "graphrag.index.operations.extract_graph.graph_extractor")
        operation: Any = importlib.import_module("graphrag.index.operations.extract_graph.extract_graph")
    elif version >= (1, 0, 0):
        graph = _networkx(text, "graphrag.index.operations.extract_entities.graph_extractor")
        operation = importlib.import_module("graphrag.index.operations.extract_entities.extract_entities")
    else:
        graph = _networkx(text, "graphrag.index.graph.extractors.graph.graph_extractor")
        operation = None
    kept = {"entities": sorted(n for n, d in graph.nodes(data=True) if d.get("type")),
            "relationships": sorted(f"{s} -> {t}" for s, t in graph.edges())}
    if operation is None:  # 0.x: the graph itself goes on (graphml)
        tables = {
            "entities": [{"name": n, "type": d.get("type", ""), "description": _parts(d.get("description", ""))}
                         for n, d in graph.nodes(data=True)],
            "relationships": [{"source": s, "target": t, "description": _parts(d.get("description", "")),
                               "weight": _number(d.get("weight"))} for s, t, d in graph.edges(data=True)],
        }
        return {"kept": kept, "graph": tables}
    import pandas as pd  # 1.x and later only: 0.x installed alone has none

    entities = pd.DataFrame([{"title": n, **d} for n, d in graph.nodes(data=True)])
    relationships = nx.to_pandas_edgelist(graph)
    if len(entities):
        entities = operation._merge_entities([entities])
    if len(relationships):
        relationships = operation._merge_relationships([relationships])
    return {"kept": kept, "graph": _tables(entities, relationships)}


def real_answers(path: str) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """A file of real answers (scripts/capture_real_answers.py): where they came from, and per
    conversation its answers and the request each replied to (loop checks left out)."""
    source = json.loads(Path(path).read_text(encoding="utf-8"))
    header = {"answers_from": Path(path).name, "engine_that_asked": source["engine"], "model": source["model"],
              "server": source["server"], "date": source["date"]}
    return header, {name: {"answers": c["answers"], "requests": [r["request"] for r in c["exchanges"] if r["kind"] != "loop"]}
                    for name, c in source["conversations"].items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out")
    parser.add_argument("--answers", help="a file of real answers (scripts/capture_real_answers.py) to read instead")
    args = parser.parse_args()
    version_text = importlib.metadata.version("graphrag")
    version = tuple(int(p) for p in version_text.split(".")[:3])
    header: dict[str, Any] = {"graphrag": version_text}
    conversations: dict[str, dict[str, Any]] = {name: {"answers": a} for name, a in CONVERSATIONS.items()}
    if args.answers:
        found, conversations = real_answers(args.answers)
        header.update(found)
    captured = {}
    for name, conversation in conversations.items():
        text = "".join(conversation["answers"])  # glued as _process_document glues them
        try:
            read = _read_3x(text) if version >= (3, 0, 0) else _read_networkx(text, version)
        except KeyError as error:  # 0.1-0.4.1 on a name written again without a type
            read = _raised(error)
        captured[name] = {**conversation, **read}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps({**header, "conversations": captured}, indent=1, ensure_ascii=False) + "\n",
                              encoding="utf-8")


if __name__ == "__main__":
    main()
