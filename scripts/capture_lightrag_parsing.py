"""Capture what a real LightRAG version's own parser keeps from each extraction answer.

Run with the Python of a scratch environment that has that lightrag-hku installed (LightRAG is
never a dependency of the harness):

    /work/scratch/lightrag-1.4.6/bin/python scripts/capture_lightrag_parsing.py \\
        tests/fixtures/engine_parsing/lightrag-1.4.6.json
    /work/scratch/lightrag-1.4.6/bin/python scripts/capture_lightrag_parsing.py \\
        tests/fixtures/engine_parsing/real-smollm2/lightrag-1.4.6.json \\
        --answers tests/fixtures/engine_parsing/real-smollm2/answers-lightrag-1.4.6.json

LightRAG parses each answer on its own (the first answer, then each gleaning). 1.4.8 and later:
the version's own module-level `operate._process_extraction_result` (split on new lines and the
completion delimiter, records run together split apart, `fix_tuple_delimiter_corruption`, then
`_handle_single_entity_extraction` / `_handle_single_relationship_extraction`). Up to 1.4.7 that
function is a closure inside `extract_entities`, so its split is done here as it does it
(`split_string_by_multi_markers` on the record and completion delimiters, the text inside the
outermost parentheses, split on the tuple delimiter) and each record goes to the version's own
`_handle_single_entity_extraction` and `_handle_single_relationship_extraction`. Kept per answer:
the entity names and relationship pairs as LightRAG stores them (one per record read, in order).
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.metadata
import inspect
import json
import re
from pathlib import Path
from typing import Any

# hand-written answers in the shapes models give, per record format
CONVERSATIONS_NEW: dict[str, list[str]] = {
    "clean": ["entity<|#|>Mara Lind<|#|>person<|#|>A harbour pilot\nentity<|#|>Kestrel<|#|>vessel<|#|>A ferry\n"
              "relation<|#|>Mara Lind<|#|>Kestrel<|#|>piloting<|#|>Mara Lind pilots the Kestrel\n<|COMPLETE|>"],
    "run-together": ["entity<|#|>Mara Lind<|#|>person<|#|>A pilot<|#|>entity<|#|>Kestrel<|#|>vessel<|#|>A ferry"
                     "<|#|>relation<|#|>Mara Lind<|#|>Kestrel<|#|>piloting<|#|>She pilots it\n<|COMPLETE|>"],
    "corrupt-delimiters": ["entity<|#|>Mara Lind<|person<|#|>A pilot\nentity<#>Kestrel<#>vessel<#>A ferry\n"
                           "relation<|#|>Mara Lind<|#|>Kestrel<|#|>piloting<|#|>She pilots it\n<|COMPLETE|>"],
    "bad-fields": ["entity<|#|>Mara Lind<|#|>person\nentity<|#|>Kestrel<|#|>ves/sel<|#|>A ferry\n"
                   "relation<|#|>Kestrel<|#|>Kestrel<|#|>self<|#|>Same ends\n"
                   "relationship<|#|>Mara Lind<|#|>Port Ysolde<|#|>docking<|#|>She docks there<|#|>9\n"
                   "entity<|#|>Port Ysolde<|#|>harbour<|#|>A port\n<|COMPLETE|>",
                   "```\nentity<|#|>Tomas Berg<|#|>person<|#|>A guide\n```\n<|COMPLETE|>"],
}
CONVERSATIONS_OLD: dict[str, list[str]] = {
    "clean": ['("entity"<|>"Mara Lind"<|>"person"<|>"A harbour pilot")##\n("entity"<|>"Kestrel"<|>"vessel"<|>"A ferry")##\n'
              '("relationship"<|>"Mara Lind"<|>"Kestrel"<|>"She pilots it"<|>"piloting"<|>8)<|COMPLETE|>'],
    "blank-lines": ['("entity"<|>"Mara Lind"<|>"person"<|>"A pilot")\n\n("entity"<|>"Kestrel"<|>"vessel"<|>"A ferry")\n\n'
                    '("relationship"<|>"Mara Lind"<|>"Kestrel"<|>"She pilots it"<|>"piloting"<|>8)\n<|COMPLETE|>'],
    "four-fields-and-fence": ['```\n("entity"<|>"Mara Lind"<|>"person"<|>"A pilot")##\n'
                              '("relationship"<|>"Mara Lind"<|>"Kestrel"<|>"She pilots it")##\n'
                              '("entity"<|>""<|>"vessel"<|>"nameless")##\n```<|COMPLETE|>',
                              '("entity"<|>"Tomas Berg"<|>"person"<|>"A guide")<|COMPLETE|>'],
}


async def _call(function: Any, attrs: list[str]) -> dict[str, Any] | None:
    """The version's handler on one record's fields (1.4.8+ take a timestamp)."""
    if "timestamp" in inspect.signature(function).parameters:
        return await function(attrs, "chunk-0", 0, "input.txt")
    return await function(attrs, "chunk-0", "input.txt")


async def _read_new(answer: str) -> dict[str, list[str]]:
    from lightrag import operate

    signature = inspect.signature(operate._process_extraction_result).parameters
    options: dict[str, Any] = {"timestamp": 0} if "timestamp" in signature else {}
    nodes, edges = await operate._process_extraction_result(answer, "chunk-0", file_path="input.txt", **options)
    return {"entities": [n["entity_name"] for records in nodes.values() for n in records],
            "relationships": [f"{e['src_id']} -> {e['tgt_id']}" for records in edges.values() for e in records]}


async def _read_old(answer: str) -> dict[str, list[str]]:
    from lightrag import operate
    from lightrag.prompt import PROMPTS
    from lightrag.utils import split_string_by_multi_markers

    entities: list[str] = []
    relationships: list[str] = []
    records = split_string_by_multi_markers(answer, [PROMPTS["DEFAULT_RECORD_DELIMITER"],
                                                     PROMPTS["DEFAULT_COMPLETION_DELIMITER"]])
    for record in records:
        found = re.search(r"\((.*)\)", record)
        if found is None:
            continue
        attrs = split_string_by_multi_markers(found.group(1), [PROMPTS["DEFAULT_TUPLE_DELIMITER"]])
        entity = await _call(operate._handle_single_entity_extraction, attrs)
        if entity is not None:
            entities.append(entity["entity_name"])
            continue
        relation = await _call(operate._handle_single_relationship_extraction, attrs)
        if relation is not None:
            relationships.append(f"{relation['src_id']} -> {relation['tgt_id']}")
    return {"entities": entities, "relationships": relationships}


def main(out: str, answers_file: str | None = None) -> None:
    from lightrag import operate

    version = importlib.metadata.version("lightrag-hku")
    new = inspect.isfunction(getattr(operate, "_process_extraction_result", None))
    read = _read_new if new else _read_old
    header: dict[str, Any] = {"lightrag": version, "parser": "lightrag>=1.4.8" if new else "lightrag<=1.4.7"}
    if answers_file is None:
        conversations: dict[str, dict[str, Any]] = {
            name: {"answers": a} for name, a in (CONVERSATIONS_NEW if new else CONVERSATIONS_OLD).items()}
    else:
        source = json.loads(Path(answers_file).read_text(encoding="utf-8"))
        header.update({"answers_from": Path(answers_file).name, "engine_that_asked": source["engine"],
                       "model": source["model"], "server": source["server"], "date": source["date"]})
        conversations = {name: {"answers": c["answers"],
                                "requests": [r["request"] for r in c["exchanges"] if r["kind"] != "loop"]}
                         for name, c in source["conversations"].items()}

    async def read_all() -> dict[str, Any]:
        return {name: {**c, "kept": [await read(answer) for answer in c["answers"]]} for name, c in conversations.items()}

    captured = asyncio.run(read_all())
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    Path(out).write_text(json.dumps({**header, "conversations": captured}, indent=1, ensure_ascii=False) + "\n",
                         encoding="utf-8")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", help="the JSON file to write")
    parser.add_argument("--answers", help="a file of real answers (scripts/capture_real_answers.py) to read instead")
    args = parser.parse_args()
    main(args.out, args.answers)
