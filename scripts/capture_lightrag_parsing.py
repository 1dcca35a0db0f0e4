"""Capture the graph a real LightRAG release builds from extraction conversations.

Run with the Python of a scratch environment holding that release (LightRAG is never a
dependency of the harness), with TIKTOKEN_CACHE_DIR holding o200k_base:

    TIKTOKEN_CACHE_DIR=/work/scratch/li-tiktoken /work/scratch/lightrag-1.4.6/bin/python \\
        scripts/capture_lightrag_parsing.py tests/fixtures/engine_parsing/lightrag-1.4.6.json

Each conversation is one short document inserted with `LightRAG.ainsert` into a fresh working
folder, in a process of its own (a second insert in one process finds nothing to do in 1.5.7),
with a scripted LLM: the first extraction call gets the conversation's first answer, each
gleaning call the next one (the completion delimiter alone when there is none), the 1.4.6
if-loop question "yes" while answers remain, else "no"; `entity_extract_max_gleaning` one less than
the answers (at least 1; 1.4.8 and later make one at most), the LLM cache off, a fake
8-dimensional embedding. LightRAG parses, gleans and merges as it does for
a user; the graph it stored (graph_chunk_entity_relation.graphml) is written per conversation:
entities (name, type, description parts split at `<SEP>`) and relationships (the two names,
description parts, keywords, weight). `summarised` says whether a description summary call was
made (the answers are written so that none is). Beside it, `kept`: per answer, the records
LightRAG's own handlers keep from that answer alone (entity names, `source -> target`), read by
1.4.8+'s module-level `_process_extraction_result`, or for 1.4.6, whose reader is a closure
inside `extract_entities`, split here as it splits and passed to its own
`_handle_single_entity_extraction` / `_handle_single_relationship_extraction`. Compared with the harness's model of the parser
(harness/cache_audit/lightrag_parser.py) in tests/cache_audit/test_lightrag_parser.py.
`--answers FILE` reads the conversations of a file of real answers (scripts/capture_real_answers.py)
instead, keeping where they came from and the request each answer replied to.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import subprocess
import sys
import tempfile
from importlib.metadata import version
from pathlib import Path
from typing import Any

DOCUMENT = "Mara Lind pilots the ferry Kestrel into Port Ysolde every dawn, guided by Tomas Berg. ({name})"

LEGACY: dict[str, list[str]] = {
    "clean": ['("entity"<|>"Mara Lind"<|>"person"<|>"A harbour pilot")##\n("entity"<|>"Kestrel"<|>"vessel"<|>"A ferry")##\n'
              '("relationship"<|>"Mara Lind"<|>"Kestrel"<|>"She pilots it"<|>"piloting"<|>8)<|COMPLETE|>'],
    "blank-lines": ['("entity"<|>"Mara Lind"<|>"person"<|>"A pilot")\n\n("entity"<|>"Kestrel"<|>"vessel"<|>"A ferry")\n\n'
                    '("relationship"<|>"Mara Lind"<|>"Kestrel"<|>"She pilots it"<|>"piloting"<|>8)\n<|COMPLETE|>'],
    "four-fields-and-fence": ['```\n("entity"<|>"Mara Lind"<|>"person"<|>"A pilot")##\n'
                              '("relationship"<|>"Mara Lind"<|>"Kestrel"<|>"She pilots it")##\n'
                              '("entity"<|>""<|>"vessel"<|>"nameless")##\n```<|COMPLETE|>',
                              '("entity"<|>"Tomas Berg"<|>"person"<|>"A guide")<|COMPLETE|>'],
    "rules": [
        '("entity"<|>"Mara Lind"<|>"person"<|>"A harbour pilot")##\n'
        '("entity"<|>"Mara Lind"<|>"captain"<|>"Steers ferries")##\n'
        '("entity"<|>"Mara Lind"<|>"captain"<|>"Knows the harbour")##\n'
        '("entity"<|>"Kestrel"<|>"vessel"<|>"")##\n'
        '("entity"<|>"Gull"<|>("vessel<|>"A boat")##\n'
        '(entity<|>"Port Ysolde"<|>"harbour"<|>"A port")##\n'
        '("entity"<|>"Tomas Berg"<|><|>"person"<|>"A guide")##\n'
        '("relationship"<|>"Mara Lind"<|>"Mara Lind"<|>"Self"<|>"self"<|>1)##\n'
        '("relationship"<|>"Kestrel"<|>"Mara Lind"<|>"Carries its pilot"<|>"crew, ferry"<|>2)##\n'
        '("relationship"<|>"Mara Lind"<|>"Kestrel"<|>"Pilots the ferry"<|>"piloting，crew"<|>high)##\n'
        '("relationship"<|>"Tomas Berg"<|>"Port Ysolde"<|>"Guides ships in"<|>"guiding"<|>3)##\n'
        'Note: ("entity"<|>"Oslo"<|>"harbour"<|>"A city")\n<|COMPLETE|>',
    ],
    "gleaning": [
        '("entity"<|>"Mara Lind"<|>"person"<|>"A pilot")##\n'
        '("relationship"<|>"Mara Lind"<|>"Kestrel"<|>"Pilots it"<|>"piloting"<|>8)<|COMPLETE|>',
        '("entity"<|>"Mara Lind"<|>"captain"<|>"A harbour pilot of long standing")##\n'
        '("entity"<|>"Kestrel"<|>"vessel"<|>"A ferry")##\n'
        '("relationship"<|>"Kestrel"<|>"Mara Lind"<|>"Is piloted by her"<|>"crew"<|>1)<|COMPLETE|>',
    ],
}

LINES: dict[str, list[str]] = {
    "clean": [
        "entity<|#|>Mara Lind<|#|>person<|#|>A harbour pilot\n"
        "entity<|#|>Kestrel<|#|>vessel<|#|>A ferry\n"
        "relation<|#|>Mara Lind<|#|>Kestrel<|#|>piloting<|#|>Mara Lind pilots the Kestrel\n<|COMPLETE|>",
    ],
    "run-together": ["entity<|#|>Mara Lind<|#|>person<|#|>A pilot<|#|>entity<|#|>Kestrel<|#|>vessel<|#|>A ferry"
                     "<|#|>relation<|#|>Mara Lind<|#|>Kestrel<|#|>piloting<|#|>She pilots it\n<|COMPLETE|>"],
    "corrupt-delimiters": ["entity<|#|>Mara Lind<|person<|#|>A pilot\nentity<#>Kestrel<#>vessel<#>A ferry\n"
                           "relation<|#|>Mara Lind<|#|>Kestrel<|#|>piloting<|#|>She pilots it\n<|COMPLETE|>"],
    "bad-fields": ["entity<|#|>Mara Lind<|#|>person\nentity<|#|>Kestrel<|#|>ves/sel<|#|>A ferry\n"
                   "relation<|#|>Kestrel<|#|>Kestrel<|#|>self<|#|>Same ends\n"
                   "relationship<|#|>Mara Lind<|#|>Port Ysolde<|#|>docking<|#|>She docks there<|#|>9\n"
                   "entity<|#|>Port Ysolde<|#|>harbour<|#|>A port\n<|COMPLETE|>",
                   "```\nentity<|#|>Tomas Berg<|#|>person<|#|>A guide\n```\n<|COMPLETE|>"],
    "rules": [
        "entity<|#|>Mara Lind<|#|>Person<|#|>A harbour pilot<|#|>entity<|#|>Gull<|#|>vessel<|#|>A boat\n"
        "entity<|#|>Kestrel<|#|>Vessel Type<|#|>A ferry<|#|>relation<|#|>Kestrel<|#|>Gull<|#|>convoy<|#|>They sail together\n"
        "entity<|#>Port Ysolde<|#|>harbour, city<|#|>A port\n"
        "entity<|#|>\"Tomas Berg\"<|#|>person<|#|>\n"
        "entity<|#|>Oslo<|#|>harbour<|#|>A city<|#|>extra\n"
        "entity<|#|>12<|#|>number<|#|>A number\n"
        "entity<|#|>Lena<|#|>per/son<|#|>A cook\n"
        "relation<|#|>Mara Lind<|#|>Mara Lind<|#|>self<|#|>Self\n"
        "relation<|#|>Kestrel<|#|>Mara Lind<|#|>crew<|#|>Carries its pilot\n"
        "relation<|#|>Mara Lind<|#|>Kestrel<|#|>piloting，crew<|#|>Pilots the ferry\n"
        "relation<|#|>Mara Lind<|#|>Port Ysolde<|#|>docking<|#|>\n"
        "relationship<|#|>Tomas Berg<|#|>Port Ysolde<|#|>guiding<|#|>Guides ships in\n"
        "entity<|#|>Vera<|#|>Oslo<|#|>founding<|#|>Vera founded Oslo\n"
        "<|COMPLETE|>",
    ],
    "gleaning": [
        "entity<|#|>Mara Lind<|#|>person<|#|>A pilot\n"
        "relation<|#|>Mara Lind<|#|>Kestrel<|#|>piloting<|#|>Pilots it\n<|COMPLETE|>",
        "entity<|#|>Mara Lind<|#|>captain<|#|>A harbour pilot of long standing\n"
        "entity<|#|>Kestrel<|#|>vessel<|#|>A ferry\n"
        "relation<|#|>Mara Lind<|#|>Kestrel<|#|>piloting<|#|>Short\n"
        "relation<|#|>Kestrel<|#|>Mara Lind<|#|>crew<|#|>Is piloted by her every dawn\n<|COMPLETE|>",
    ],
}


async def _handler(function: Any, attrs: list[str]) -> dict[str, Any] | None:
    """The release's handler on one record's fields (1.4.8+ take a timestamp)."""
    import inspect

    if "timestamp" in inspect.signature(function).parameters:
        return await function(attrs, "chunk-0", 0, "input.txt")
    return await function(attrs, "chunk-0", "input.txt")


async def kept_records(answer: str) -> dict[str, list[str]]:
    """The records LightRAG's own reader keeps from one answer, before any merging."""
    import inspect
    import re

    from lightrag import operate
    from lightrag.prompt import PROMPTS
    from lightrag.utils import remove_think_tags, split_string_by_multi_markers

    answer = remove_think_tags(answer)  # as use_llm_func_with_cache hands it on
    if inspect.isfunction(getattr(operate, "_process_extraction_result", None)):
        options = {"timestamp": 0} if "timestamp" in inspect.signature(operate._process_extraction_result).parameters else {}
        nodes, edges = await operate._process_extraction_result(answer, "chunk-0", file_path="input.txt", **options)
        return {"entities": [n["entity_name"] for records in nodes.values() for n in records],
                "relationships": [f"{e['src_id']} -> {e['tgt_id']}" for records in edges.values() for e in records]}
    entities: list[str] = []
    relationships: list[str] = []
    for record in split_string_by_multi_markers(answer, [PROMPTS["DEFAULT_RECORD_DELIMITER"],
                                                         PROMPTS["DEFAULT_COMPLETION_DELIMITER"]]):
        found = re.search(r"\((.*)\)", record)
        if found is None:
            continue
        attrs = split_string_by_multi_markers(found.group(1), [PROMPTS["DEFAULT_TUPLE_DELIMITER"]])
        entity = await _handler(operate._handle_single_entity_extraction, attrs)
        if entity is not None:
            entities.append(entity["entity_name"])
            continue
        relation = await _handler(operate._handle_single_relationship_extraction, attrs)
        if relation is not None:
            relationships.append(f"{relation['src_id']} -> {relation['tgt_id']}")
    return {"entities": entities, "relationships": relationships}


def capture_one(answers: list[str], name: str) -> dict[str, Any]:
    """One conversation through LightRAG.ainsert in this process: the graph it stored."""
    import networkx as nx
    import numpy as np
    from lightrag import LightRAG
    from lightrag.prompt import PROMPTS
    from lightrag.utils import EmbeddingFunc

    document = DOCUMENT.format(name=name)
    loop_prompt = PROMPTS.get("entity_if_loop_extraction")
    state = {"summarised": False}

    async def llm(prompt: str, system_prompt: str | None = None, history_messages: list | None = None,
                  **kwargs: Any) -> str:
        history = list(history_messages or [])
        first_user = next((m["content"] for m in history if m["role"] == "user"), prompt)
        if document not in first_user and document not in (system_prompt or ""):
            state["summarised"] = True
            return "summary"
        asked = sum(1 for m in history if m["role"] == "assistant")
        if loop_prompt is not None and prompt == loop_prompt:
            return "yes" if asked < len(answers) else "no"
        return answers[asked] if asked < len(answers) else "<|COMPLETE|>"

    async def embed(texts: list[str]) -> np.ndarray:
        return np.array([[float((hash(t) >> i) & 1) for i in range(8)] for t in texts])

    async def run() -> dict[str, Any]:
        workdir = Path(tempfile.mkdtemp(prefix="lr-parse-"))
        try:
            rag = LightRAG(working_dir=str(workdir), llm_model_func=llm, entity_extract_max_gleaning=max(1, len(answers) - 1),
                           enable_llm_cache=False, enable_llm_cache_for_entity_extract=False,
                           embedding_func=EmbeddingFunc(embedding_dim=8, max_token_size=8192, func=embed))
            await rag.initialize_storages()
            try:
                from lightrag.kg.shared_storage import initialize_pipeline_status
                await initialize_pipeline_status()
            except ImportError:
                pass
            await rag.ainsert(document, file_paths=["input.txt"])
            await rag.finalize_storages()
            stored = next(workdir.rglob("graph_chunk_entity_relation.graphml"), None)
            # no graph stored: the document failed (1.4.9's merge raises on a relation without description)
            graph = nx.Graph() if stored is None else nx.read_graphml(stored)
        finally:
            shutil.rmtree(workdir, ignore_errors=True)
        return {
            "entities": [{"name": n, "type": d.get("entity_type", ""),
                          "description": sorted({p for p in str(d.get("description", "")).split("<SEP>") if p})}
                         for n, d in graph.nodes(data=True)],
            "relationships": [{"source": s, "target": t,
                               "description": sorted({p for p in str(d.get("description", "")).split("<SEP>") if p}),
                               "keywords": str(d.get("keywords", "")), "weight": float(d.get("weight", 1.0))}
                              for s, t, d in graph.edges(data=True)],
            "summarised": state["summarised"],
            **({"failed": True} if stored is None else {}),
        }

    return asyncio.run(run())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out")
    parser.add_argument("--answers", help="a file of real answers (scripts/capture_real_answers.py) to read instead")
    parser.add_argument("--one", nargs=2, metavar=("NAME", "ANSWERS_JSON"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:  # the child process: one conversation, its graph as JSON on stdout
        name, answers = args.one[0], json.loads(args.one[1])
        sys.stdout.write("\n@@GRAPH@@" + json.dumps(capture_one(answers, name), ensure_ascii=False) + "\n")
        return
    release = version("lightrag-hku")
    from lightrag.prompt import PROMPTS

    numbers = tuple(int(p) for p in release.split("."))
    parser_name = "lightrag<=1.4.7" if numbers < (1, 4, 8) else "lightrag>=1.4.8" if numbers < (1, 5) else "lightrag>=1.5"
    header: dict[str, Any] = {"lightrag": release, "parser": parser_name}
    conversations: dict[str, dict[str, Any]] = {
        name: {"answers": a} for name, a in (LINES if "entity_extraction_user_prompt" in PROMPTS else LEGACY).items()}
    if args.answers:
        sys.path.insert(0, str(Path(__file__).parent))
        from capture_graphrag_parsing import real_answers

        found, conversations = real_answers(args.answers)
        header.update(found)
    captured = {}
    for name, conversation in conversations.items():
        done = subprocess.run([sys.executable, __file__, args.out, "--one", name, json.dumps(conversation["answers"])],
                              capture_output=True, text=True, check=True)
        graph = json.loads(done.stdout.rsplit("\n@@GRAPH@@", 1)[1])
        kept = [asyncio.run(kept_records(answer)) for answer in conversation["answers"]]
        captured[name] = {**conversation, "kept": kept, "graph": graph}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps({**header, "conversations": captured}, indent=1,
                                         ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
