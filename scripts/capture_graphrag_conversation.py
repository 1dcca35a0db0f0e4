"""Capture what a real GraphRAG version sends in its graph-extraction conversation.

Run it with the harness's Python; it drives an installed GraphRAG in another Python (a scratch
virtualenv: GraphRAG is never a dependency of the harness) against the harness's local
OpenAI-compatible test server (tests/support/fake_server.py), with scripted answers:

    .venv/bin/python scripts/capture_graphrag_conversation.py \\
        --python /work/scratch/gr-conv-1.2.0/bin/python \\
        --out tests/fixtures/engine_captures/graphrag-1.2.0

It writes `requests.json` (the bodies GraphRAG sent when its loop check was answered to go on,
then to stop) and `loop_reading.json` (for each probed loop answer, whether GraphRAG asked for
another gleaning). The same file, run by the scratch Python with `drive`, is the engine side: it
builds that version's own configuration (so the prompt file is read as the engine reads it) and
calls its own extraction operation; nothing of GraphRAG's code is copied here.

The prompt file is written with CRLF line endings on purpose: whether `\\r\\n` reaches the
model is part of what is captured.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]

# What the scenario sends: a small GraphRAG-style prompt (CRLF), one chunk, two entity types.
# Only {entity_types} and {input_text}, delimiters written out: GraphRAG 3.x fills nothing else
# (its stock prompt writes them literally), and 0.x-2.x ignore the delimiters they would fill.
# `{{` and `}}`: `str.format` (0.9 and later) sends one brace, 0.1-0.5's `str.replace` two.
PROMPT_LINES = [
    "-Goal-",
    "Identify all entities of types [{entity_types}] in the text and the relationships among them.",
    'Format each entity as ("entity"<|><name><|><type><|><description>)',
    'Format each relationship as ("relationship"<|><source><|><target><|><description><|><strength>)',
    "Use ## between records and end with <|COMPLETE|>; never answer in JSON such as {{\"entity\": ...}}",
    "",
    "Text: {input_text}",
    "Output:",
]
PROMPT_TEXT = "\r\n".join(PROMPT_LINES) + "\r\n"
CHUNK = "Alice Moreau founded Acme Robotics in Lyon in 2019. Bob Tran joined Acme Robotics as its first engineer."
ENTITY_TYPES = ["organization", "person"]
MAX_GLEANINGS = 2

FIRST = ('("entity"<|>ALICE MOREAU<|>PERSON<|>Alice Moreau founded Acme Robotics)\n##\n'
         '("entity"<|>ACME ROBOTICS<|>ORGANIZATION<|>A robotics company founded in Lyon)\n##\n'
         '("relationship"<|>ALICE MOREAU<|>ACME ROBOTICS<|>Alice Moreau founded Acme Robotics<|>9)\n<|COMPLETE|>')
CONTINUATIONS = [
    '("entity"<|>BOB TRAN<|>PERSON<|>Bob Tran is the first engineer of Acme Robotics)\n<|COMPLETE|>',
    '("relationship"<|>BOB TRAN<|>ACME ROBOTICS<|>Bob Tran joined Acme Robotics<|>7)\n<|COMPLETE|>',
]
# loop answers probed: does this version ask for another gleaning after each?
PROBES = ["Y", "YES", "y", "yes", "Y\n", " Y", "Y.", "Yes", "N", "NO"]


def scenarios_for(version: str) -> dict[str, dict[str, str]]:
    """Each conversation of the run: its chunk and the loop answer it gets. They run in one engine
    call (one text unit each) and are told apart by their chunk."""
    yes = "YES" if version.startswith("0.") or version.startswith("1.0") else "Y"
    out = {"continue": {"chunk": CHUNK, "loop_answer": yes},
           "stop": {"chunk": CHUNK.replace("2019", "2020"), "loop_answer": "N"}}
    for index, probe in enumerate(PROBES):
        out[f"probe-{index}"] = {"chunk": f"Probe {index}. {CHUNK}", "loop_answer": probe}
    return out


def answer_for(body: dict[str, Any], by_chunk: dict[str, str]) -> str:
    """The scripted answer: by the number of user messages so far (extraction, then continue and
    loop check alternating), as tests/support/fake_server.Script does; the loop answer by chunk."""
    users = [m.get("content", "") for m in body.get("messages", []) if m.get("role") == "user"]
    asked = len(users) - 1
    if asked == 0:
        return FIRST
    if asked % 2 == 1:
        index = asked // 2
        return CONTINUATIONS[index] if index < len(CONTINUATIONS) else ""
    chunk = max((c for c in by_chunk if c in users[0]), key=len)  # "Probe 3. <CHUNK>" also holds CHUNK
    return by_chunk[chunk]


# --------------------------------------------------------------------------- harness side


def run_engine(python: str, scenarios: dict[str, dict[str, str]], workdir: Path) -> list[dict[str, Any]]:
    """The request bodies one run of the engine sent, in order."""
    sys.path.insert(0, str(REPO_ROOT))
    from harness.llm.tokens import seed_cache
    from tests.support.fake_server import FakeOpenAIServer

    by_chunk = {s["chunk"]: s["loop_answer"] for s in scenarios.values()}
    chunks = workdir / "chunks.json"
    chunks.write_text(json.dumps(list(by_chunk)), encoding="utf-8")
    # the engine's tiktoken reads the encodings the harness ships (offline: no download)
    env = {**os.environ, "TIKTOKEN_CACHE_DIR": str(seed_cache())}
    with FakeOpenAIServer(lambda body: answer_for(body, by_chunk)) as server:
        done = subprocess.run([python, __file__, "drive", "--base-url", server.base_url, "--root", str(workdir)],
                              capture_output=True, text=True, timeout=1800, env=env)
        if "Traceback" in done.stderr:
            print(done.stderr[-4000:], file=sys.stderr)
        if done.returncode != 0:
            raise SystemExit(f"the engine failed (exit {done.returncode}):\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
        return [request["body"] for request in server.requests if isinstance(request.get("body"), dict)]


def engine_version(python: str) -> str:
    code = "import importlib.metadata as m; print(m.version('graphrag'))"
    return subprocess.run([python, "-c", code], capture_output=True, text=True, check=True).stdout.strip()


def capture(python: str, out: Path) -> None:
    version = engine_version(python)
    scenarios = scenarios_for(version)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "prompt.txt").write_bytes(PROMPT_TEXT.encode("utf-8"))
        bodies = run_engine(python, scenarios, root)

    def sent(chunk: str) -> list[dict[str, Any]]:
        """The bodies of the conversation whose first user message holds exactly this chunk."""
        def chunk_of(body: dict[str, Any]) -> str | None:
            first = next((m.get("content", "") for m in body["messages"] if m.get("role") == "user"), "")
            found = [s["chunk"] for s in scenarios.values() if s["chunk"] in first]
            return max(found, key=len) if found else None  # "Probe 3. <CHUNK>" also holds CHUNK
        return [b for b in bodies if chunk_of(b) == chunk]

    captured = {name: sent(s["chunk"]) for name, s in scenarios.items()}
    reading = {s["loop_answer"]: len(captured[name]) > 3  # a second continuation followed the check
               for name, s in scenarios.items() if name.startswith("probe-")}
    requests = {
        "engine": f"graphrag-{version}",
        "max_gleanings": MAX_GLEANINGS,
        "entity_types": ENTITY_TYPES,
        "prompt_file_crlf": PROMPT_TEXT,
        "answers": {"first": FIRST, "continuations": CONTINUATIONS},
        "scenarios": {name: {**scenarios[name], "requests": captured[name]} for name in ("continue", "stop")},
    }
    (out / "requests.json").write_text(json.dumps(requests, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    (out / "loop_reading.json").write_text(
        json.dumps({"engine": f"graphrag-{version}", "continues_after": reading}, indent=2, ensure_ascii=False) + "\n",
        encoding="utf-8")
    print(f"graphrag {version}: {len(bodies)} requests; loop reading {reading}")
    print(f"captured {datetime.date.today().isoformat()} into {out}")


# --------------------------------------------------------------------------- engine side


def _version() -> tuple[int, int]:
    import importlib.metadata

    major, minor = importlib.metadata.version("graphrag").split(".")[:2]
    return int(major), int(minor)


def _extraction_settings(root: Path) -> dict[str, Any]:
    """The extraction step's prompt and gleanings: the scenario's (prompt.txt, MAX_GLEANINGS), or
    what `drive.json` in the root says (scripts/capture_real_answers.py: the version's stock prompt,
    `"prompt": null`, and its own number of gleanings)."""
    options = json.loads((root / "drive.json").read_text(encoding="utf-8")) if (root / "drive.json").exists() else {}
    prompt = options.get("prompt", "prompt.txt")
    settings: dict[str, Any] = {"max_gleanings": options.get("max_gleanings", MAX_GLEANINGS),
                                "entity_types": options.get("entity_types", ENTITY_TYPES)}
    if prompt is not None:
        settings["prompt"] = prompt if _version() < (3, 0) else str(root / prompt)
    return settings


async def _drive_v0_v1(base_url: str, root: Path) -> None:
    """0.5-1.x: `create_graphrag_config`, the config's resolved strategy, `run_graph_intelligence`."""
    from graphrag.config.create_graphrag_config import create_graphrag_config

    llm = {"api_key": "sk-capture", "type": "openai_chat", "model": "gpt-4o-mini", "api_base": base_url, "max_retries": 0}
    if _version() < (1, 0):
        llm["proxy"] = base_url  # 0.9.0's load_llm gives the public OpenAI client `base_url=config.proxy`, not api_base
    config = create_graphrag_config({
        "llm": llm,
        # the step's own `llm:` too: 0.9.0 does not carry the root's `proxy` into the step's settings
        "entity_extraction": {**_extraction_settings(root), "llm": llm},
    }, str(root))
    extraction = config.entity_extraction
    strategy = extraction.resolved_strategy(str(root), config.encoding_model)
    major, minor = _version()
    if (major, minor) >= (1, 0):
        from graphrag.callbacks.noop_workflow_callbacks import NoopWorkflowCallbacks
        from graphrag.index.operations.extract_entities.graph_intelligence_strategy import run_graph_intelligence
        from graphrag.index.operations.extract_entities.typing import Document
        callbacks: Any = NoopWorkflowCallbacks()
    else:
        from datashaper import NoopVerbCallbacks
        from graphrag.index.operations.extract_entities.strategies.graph_intelligence import run_graph_intelligence
        from graphrag.index.operations.extract_entities.strategies.typing import Document
        callbacks = NoopVerbCallbacks()
    docs = [Document(text=chunk, id=str(i)) for i, chunk in enumerate(_chunks(root))]
    await run_graph_intelligence(docs, extraction.entity_types, callbacks, None, strategy)


async def _drive_v2(base_url: str, root: Path) -> None:
    """2.x: `create_graphrag_config`, the resolved strategy for the default chat model, `run_graph_intelligence`."""
    from graphrag.config.create_graphrag_config import create_graphrag_config
    from graphrag.index.operations.extract_graph.graph_intelligence_strategy import run_graph_intelligence
    from graphrag.index.operations.extract_graph.typing import Document

    model = {"api_key": "sk-capture", "type": "openai_chat", "model": "gpt-4o-mini", "api_base": base_url,
             "max_retries": 1, "encoding_model": "cl100k_base"}
    config = create_graphrag_config({
        "models": {"default_chat_model": model,
                   "default_embedding_model": {**model, "type": "openai_embedding", "model": "text-embedding-3-small"}},
        "extract_graph": _extraction_settings(root),
    }, str(root))
    extraction = config.extract_graph
    strategy = extraction.resolved_strategy(str(root), config.get_language_model_config(extraction.model_id))
    docs = [Document(text=chunk, id=str(i)) for i, chunk in enumerate(_chunks(root))]
    await run_graph_intelligence(docs, extraction.entity_types, None, strategy)


async def _drive_v3(base_url: str, root: Path) -> None:
    """3.x: `load_config` of a settings.yaml, the config's completion model and resolved prompts,
    and the `extract_graph` operation."""
    import pandas as pd
    from graphrag.callbacks.noop_workflow_callbacks import NoopWorkflowCallbacks
    from graphrag.config.enums import AsyncType
    from graphrag.config.load_config import load_config
    from graphrag.index.operations.extract_graph.extract_graph import extract_graph
    from graphrag_llm.completion import create_completion

    model = {"model_provider": "openai", "model": "gpt-4o-mini", "api_key": "sk-capture", "api_base": base_url}
    settings = {
        "completion_models": {"default_completion_model": model},
        "embedding_models": {"default_embedding_model": {**model, "model": "text-embedding-3-small"}},
        "extract_graph": _extraction_settings(root),
    }
    (root / "settings.yaml").write_text(json.dumps(settings), encoding="utf-8")  # JSON is YAML
    config = load_config(root)
    extraction = config.extract_graph
    completion = create_completion(config.get_completion_model_config(extraction.completion_model_id))
    units = pd.DataFrame([{"id": str(i), "text": chunk} for i, chunk in enumerate(_chunks(root))])
    await extract_graph(text_units=units, callbacks=NoopWorkflowCallbacks(), text_column="text", id_column="id",
                        model=completion, prompt=extraction.resolved_prompts().extraction_prompt,
                        entity_types=extraction.entity_types, max_gleanings=extraction.max_gleanings,
                        num_threads=1, async_type=AsyncType.AsyncIO)


def _chunks(root: Path) -> list[str]:
    return json.loads((root / "chunks.json").read_text(encoding="utf-8"))


def drive(base_url: str, root: Path) -> None:
    import logging

    logging.basicConfig(level=logging.WARNING)  # the engine logs, not raises, a failed extraction
    major, _ = _version()
    runner = {0: _drive_v0_v1, 1: _drive_v0_v1, 2: _drive_v2, 3: _drive_v3}[major]
    asyncio.run(runner(base_url, root))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command")
    drive_args = sub.add_parser("drive", help="(engine side) run the installed GraphRAG against BASE_URL")
    drive_args.add_argument("--base-url", required=True)
    drive_args.add_argument("--root", required=True, type=Path)
    parser.add_argument("--python", help="the scratch virtualenv's Python, with graphrag installed")
    parser.add_argument("--out", type=Path, help="the fixture folder to write")
    args = parser.parse_args()
    if args.command == "drive":
        drive(args.base_url, args.root)
    elif args.python and args.out:
        capture(args.python, args.out)
    else:
        parser.error("give --python and --out (or the drive command)")


if __name__ == "__main__":
    main()
