"""Build a small GraphRAG project with a real LLM cache, written by an installed GraphRAG release.

Run it with the harness's Python; it runs `graphrag index` of another Python (a scratch
virtualenv: GraphRAG is never a dependency of the harness) against a canned OpenAI-compatible
server started here on 127.0.0.1, so the cache under `cache/` is the engine's own, in its own
layout and under its own keys:

    .venv/bin/python scripts/capture_graphrag_cache.py --python /work/scratch/gr-conv-3.3.0/bin/python \\
        --version 3.3.0 --out tests/fixtures/engine_captures/graphrag-3.3.0-cache

Two indexing runs, as a user's project grows: the first over `harbour.txt` and `cooperative.txt`
with `gpt-4o-mini`, the second after adding `rivers.txt` and switching the settings to `gpt-4o`.
Versions whose cache key holds the model (0.x-2.x) answer every text unit again with gpt-4o;
3.x's key holds only the messages, so its second run reuses the first run's answers and calls
gpt-4o for the new text units only. `max_gleanings: 2`; the loop check is answered "go on" for
about half of the text units (with the yes word the prompt asks for), so the cache holds first
answers, continuations and loop answers of both shapes.

The server's answers are records in GraphRAG's format made from the text unit (its capitalised
names; gpt-4o names more of them than gpt-4o-mini), one extra record per continuation, a
one-sentence summary for description summaries, and 8-dimensional vectors for embeddings. The
output folder keeps the settings, prompt, inputs, the cache and the text units table; nothing
else of the index.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
INPUTS = REPO_ROOT / "tests" / "fixtures" / "engine_captures" / "graphrag-3.1.2-chunks" / "input"
FIRST_INPUTS = ("harbour.txt", "cooperative.txt")
MODELS = ("gpt-4o-mini", "gpt-4o")
ENTITY_TYPES = ["organization", "person", "geo"]

# Only {entity_types} and {input_text}, delimiters written out (3.x fills nothing else, and the
# older versions send what they do not fill as written); no braces (0.x doubles them).
PROMPT = (
    "-Goal-\n"
    "Identify all entities of types [{entity_types}] in the text and the relationships among them.\n"
    'Format each entity as ("entity"<|><name><|><type><|><description>)\n'
    'Format each relationship as ("relationship"<|><source><|><target><|><description><|><strength>)\n'
    "Use ## between records and end with <|COMPLETE|>\n"
    "\n"
    "Text: {input_text}\n"
    "Output:\n"
)

_API = "  api_key: ${GRAPHRAG_API_KEY}\n  api_base: ${GRAPHRAG_API_BASE}\n"
SETTINGS = {
    3: """# GraphRAG 3.x layout (as `graphrag init` 3.3.0 writes it, cut to what extraction reads)
workflows: [load_input_documents, create_base_text_units, extract_graph]
completion_models:
  default_completion_model:
    model_provider: openai
    model: MODEL
    api_key: ${GRAPHRAG_API_KEY}
    api_base: ${GRAPHRAG_API_BASE}
embedding_models:
  default_embedding_model:
    model_provider: openai
    model: text-embedding-3-small
    api_key: ${GRAPHRAG_API_KEY}
    api_base: ${GRAPHRAG_API_BASE}
input_storage:
  type: file
  base_dir: "input"
input:
  type: text
chunking:
  type: tokens
  size: 60
  overlap: 12
output_storage:
  type: file
  base_dir: "output"
cache:
  type: json
  storage:
    type: file
    base_dir: "cache"
extract_graph:
  prompt: "prompts/extract_graph.txt"
  entity_types: [organization,person,geo]
  max_gleanings: 2
""",
    2: """# GraphRAG 2.x layout (as `graphrag init` 2.7.0 writes it, cut to what extraction reads)
workflows: [load_input_documents, create_base_text_units, extract_graph]
models:
  default_chat_model:
    type: openai_chat
    model: MODEL
    api_key: ${GRAPHRAG_API_KEY}
    api_base: ${GRAPHRAG_API_BASE}
    max_retries: 1
  default_embedding_model:
    type: openai_embedding
    model: text-embedding-3-small
    api_key: ${GRAPHRAG_API_KEY}
    api_base: ${GRAPHRAG_API_BASE}
    max_retries: 1
input:
  storage:
    type: file
    base_dir: "input"
  file_type: text
chunks:
  size: 60
  overlap: 12
  group_by_columns: [id]
output:
  type: file
  base_dir: "output"
cache:
  type: file
  base_dir: "cache"
extract_graph:
  model_id: default_chat_model
  prompt: "prompts/extract_graph.txt"
  entity_types: [organization,person,geo]
  max_gleanings: 2
""",
    0: """# GraphRAG 0.x layout (as `graphrag init` 0.5.0 writes it, cut to what extraction reads)
encoding_model: cl100k_base
llm:
  type: openai_chat
  model: MODEL
  api_key: ${GRAPHRAG_API_KEY}
  api_base: ${GRAPHRAG_API_BASE}
  max_retries: 1
embeddings:
  llm:
    type: openai_embedding
    model: text-embedding-3-small
    api_key: ${GRAPHRAG_API_KEY}
    api_base: ${GRAPHRAG_API_BASE}
    max_retries: 1
input:
  type: file
  file_type: text
  base_dir: "input"
  file_encoding: utf-8
  file_pattern: ".*\\\\.txt$$"
chunks:
  size: 60
  overlap: 12
  group_by_columns: [id]
cache:
  type: file
  base_dir: "cache"
storage:
  type: file
  base_dir: "output"
entity_extraction:
  prompt: "prompts/entity_extraction.txt"
  entity_types: [organization,person,geo]
  max_gleanings: 2
""",
}
# 1.x: the 0.x layout, and its config resolves the vector store's path (a `vector_store` it must have)
SETTINGS[1] = SETTINGS[0].replace("GraphRAG 0.x layout (as `graphrag init` 0.5.0", "GraphRAG 1.x layout (as `graphrag init` 1.2.0").replace(
    "embeddings:\n", "embeddings:\n  vector_store:\n    type: lancedb\n    db_uri: output/lancedb\n"
    "    container_name: default\n    overwrite: true\n", 1)
PROMPT_FILE = {3: "prompts/extract_graph.txt", 2: "prompts/extract_graph.txt", 1: "prompts/entity_extraction.txt",
               0: "prompts/entity_extraction.txt"}
KEEP_OUTPUT = ("text_units.parquet", "create_final_text_units.parquet")

_NAME = re.compile(r"[A-ZÀ-Þ][\w'’-]+(?: (?:de |la |du )?[A-ZÀ-Þ][\w'’-]+)*")


# --------------------------------------------------------------------------- the canned server


def _unit(first: str) -> str:
    """The text unit inside the first extraction prompt."""
    return first.split("Text: ", 1)[-1].rsplit("\nOutput:", 1)[0]


_SMALL = {"THE", "A", "AN", "IN", "ON", "AT", "LA", "LE", "LES", "DE", "DU", "ET", "IT", "HE", "SHE", "THEY"}


def _names(text: str) -> list[str]:
    """The text's capitalised names (function words at a sentence's start left out), in order."""
    seen: dict[str, None] = {}
    for match in _NAME.finditer(text):
        words = match.group(0).upper().split(" ")
        while words and words[0] in _SMALL:
            words = words[1:]
        if words:
            seen.setdefault(" ".join(words), None)
    return list(seen) or [text.split()[0].upper() if text.split() else "UNIT"]


def _first_answer(text: str, model: str) -> str:
    names = _names(text)[: 3 if model == "gpt-4o" else 2]
    types = ["ORGANIZATION", "PERSON", "GEO"]
    records = [f'("entity"<|>{name}<|>{types[i % 3]}<|>{name.title()} is named in the text ({model})'
               ")" for i, name in enumerate(names)]
    if len(names) >= 2:
        records.append(f'("relationship"<|>{names[0]}<|>{names[1]}<|>{names[0].title()} and {names[1].title()} '
                       f'appear together<|>{5 if model == "gpt-4o-mini" else 8})')
    return "\n##\n".join(records) + "\n<|COMPLETE|>"


def _goes_on(text: str) -> bool:
    return int(hashlib.md5(text.encode("utf-8")).hexdigest(), 16) % 2 == 0


def answer(messages: list[dict[str, Any]], model: str) -> str:
    users = [m.get("content") or "" for m in messages if m.get("role") == "user"]
    first, last = users[0], users[-1]
    if "Text: " not in first:  # a description summary (or another prompt): one sentence
        return "A party of the text, named in several of its passages."
    unit = _unit(first)
    if "Answer Y" in last or "answer Y" in last or "YES" in last:  # the loop check
        yes, no = ("YES", "NO") if "YES" in last else ("Y", "N")
        return yes if _goes_on(unit) else no
    if len(users) > 1:  # a continuation: the next name the first answer left out, if any
        round_ = sum(1 for u in users[1:] if "missed" in u and "Answer" not in u)
        names = _names(unit)[(3 if model == "gpt-4o" else 2) + round_ - 1:]
        name = names[0] if names else f"EXTRA {round_}"
        return f'("entity"<|>{name}<|>PERSON<|>{name.title()}, found on gleaning {round_} ({model}))\n<|COMPLETE|>'
    return _first_answer(unit, model)


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass

    def do_POST(self) -> None:  # noqa: N802
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
        model = body.get("model", "model")
        if self.path.rstrip("/").endswith("/embeddings"):
            texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
            data = [{"object": "embedding", "index": i,
                     "embedding": [((int(hashlib.md5(str(t).encode()).hexdigest(), 16) >> k) & 1) * 0.5 for k in range(8)]}
                    for i, t in enumerate(texts)]
            payload: dict[str, Any] = {"object": "list", "data": data, "model": model,
                                       "usage": {"prompt_tokens": 8, "total_tokens": 8}}
        else:
            text = answer(body.get("messages", []), model)
            self.server.calls += 1  # type: ignore[attr-defined]
            digest = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()[:12]
            prompt_tokens = sum(len(str(m.get("content", ""))) for m in body.get("messages", [])) // 4
            payload = {"id": f"chatcmpl-{digest}", "object": "chat.completion", "created": 1764288000, "model": model,
                       "choices": [{"index": 0, "finish_reason": "stop",
                                    "message": {"role": "assistant", "content": text}}],
                       "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": len(text) // 4,
                                 "total_tokens": prompt_tokens + len(text) // 4}}
        data = json.dumps(payload).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


# --------------------------------------------------------------------------- the runs


# 0.x's `graphrag index` command does not start under the click and typer pip installs today
# ("Secondary flag is not valid for non-boolean flag"): its own steps, from graphrag/cli/index.py
_INDEX_V0 = """
import asyncio, sys
from pathlib import Path
import graphrag.api as api
from graphrag.config.load_config import load_config
from graphrag.config.resolve_path import resolve_paths
config = load_config(Path(sys.argv[1]), None)
resolve_paths(config, "run")
outputs = asyncio.run(api.build_index(config=config, run_id="run", is_resume_run=False, memory_profile=False))
sys.exit(1 if any(o.errors for o in outputs) else 0)
"""


def _index(python: str, major: int, root: Path, env: dict[str, str]) -> None:
    if major == 0:
        argv = [python, "-c", _INDEX_V0, str(root)]
    else:
        argv = [str(Path(python).parent / "graphrag"), "index", "--root", str(root)]
    done = subprocess.run(argv, env=env, cwd=root, capture_output=True, text=True, timeout=1800)
    if done.returncode != 0:
        print(done.stdout[-3000:], done.stderr[-3000:])
        print(f"graphrag index exited {done.returncode} (the cache written before it is kept)")


def capture(python: str, version: str, out: Path) -> None:
    major = int(version.split(".")[0])
    family = min(major, 3)
    ThreadingHTTPServer.request_queue_size = 256  # the default 5 refuses GraphRAG's concurrent calls (a unit lost)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.calls = 0  # type: ignore[attr-defined]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/v1"
    tiktoken = Path(tempfile.mkdtemp(prefix="capture-tiktoken-"))
    subprocess.run([str(REPO_ROOT / ".venv" / "bin" / "python"), "-c",
                    "from harness.llm.tokens import seed_cache; seed_cache()"],
                   env={**os.environ, "TIKTOKEN_CACHE_DIR": str(tiktoken)}, check=True)
    env = {**os.environ, "GRAPHRAG_API_KEY": "sk-capture", "GRAPHRAG_API_BASE": base,
           "TIKTOKEN_CACHE_DIR": str(tiktoken), "OPENAI_API_KEY": "sk-capture"}
    with tempfile.TemporaryDirectory(prefix="capture-graphrag-cache-") as work:
        root = Path(os.environ.get("CAPTURE_WORK") or work)  # CAPTURE_WORK: keep the project (its logs) there
        root.mkdir(parents=True, exist_ok=True)
        (root / "input").mkdir()
        (root / "prompts").mkdir()
        (root / PROMPT_FILE[family]).write_text(PROMPT, encoding="utf-8")
        for name in FIRST_INPUTS:
            shutil.copyfile(INPUTS / name, root / "input" / name)
        for step, model in enumerate(MODELS):
            if step:
                for path in sorted(INPUTS.iterdir()):
                    shutil.copyfile(path, root / "input" / path.name)
            (root / "settings.yaml").write_text(SETTINGS[family].replace("MODEL", model), encoding="utf-8")
            before = server.calls  # type: ignore[attr-defined]
            _index(python, major, root, env)
            print(f"{model}: {server.calls - before} chat calls")  # type: ignore[attr-defined]
        server.shutdown()
        if out.exists():
            shutil.rmtree(out)
        out.mkdir(parents=True)
        for name in ("settings.yaml", "prompts", "input", "cache"):
            source = root / name
            (shutil.copytree if source.is_dir() else shutil.copyfile)(source, out / name)
        for table in (p for p in (root / "output").rglob("*") if p.name in KEEP_OUTPUT):
            (out / "output").mkdir(exist_ok=True)
            shutil.copyfile(table, out / "output" / table.name)
    shutil.rmtree(tiktoken, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", required=True, help="the scratch virtualenv's Python, with graphrag installed")
    parser.add_argument("--version", required=True, help="the GraphRAG version installed there (e.g. 3.3.0)")
    parser.add_argument("--out", required=True, type=Path, help="the fixture folder to write (replaced)")
    args = parser.parse_args()
    capture(args.python, args.version, args.out)


if __name__ == "__main__":
    main()
