"""Capture a real local model's answers to a real engine version's extraction conversation.

Run it with the harness's Python; it drives an installed GraphRAG or LightRAG in another Python (a
scratch virtualenv: engines are never dependencies of the harness) against a recording proxy
(tests/support/fake_server.py, whose answers come from a real model: a llama.cpp server at LLM):

    .venv/bin/python scripts/capture_real_answers.py graphrag --python /work/scratch/gr-conv-2.7.0/bin/python \\
        --llm http://127.0.0.1:18427 --model SmolLM2-135M-Instruct.Q4_1 \\
        --out tests/fixtures/engine_parsing/real-smollm2/answers-graphrag-2.7.0.json
    .venv/bin/python scripts/capture_real_answers.py lightrag --python /work/scratch/lightrag-1.4.6/bin/python ...

The engine runs its own extraction step (GraphRAG: scripts/capture_graphrag_conversation.py's
`drive` with the version's stock prompt; LightRAG: `LightRAG.ainsert` with its stock PROMPTS) on the
CHUNKS below, so every request of the conversation (first answer, continuations, loop checks) is
the version's own and every answer is the model's. The proxy forwards each request as sent, except
that `max_tokens` is capped (`--max-tokens`, 600 by default) and `logit_bias` is dropped (its token ids are OpenAI
tokenizer ids, meaningless to another model's vocabulary); an answer cut at the cap is passed on
with finish_reason "length", as a server would.

The output holds, per chunk, the exchanges in order: the request body's hash
(harness.llm.request_digest.body_hash), the round kind (extract, continue, loop: by place, as both
engines alternate them), the answer and its finish reason; and `answers`: the extraction and
continuation answers the engine glues or parses (loop answers left out).
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
import urllib.request
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
MAX_TOKENS = 600
MAX_GLEANINGS = 2
# GraphRAG's default entity types (every version's settings default)
GRAPHRAG_ENTITY_TYPES = ["organization", "person", "geo", "event"]
CHUNKS = [
    "The harbour authority of Port Meridian approved the new container terminal on Tuesday after a "
    "two-year review. Director Amara Okafor said the terminal would be operated by Kestrel Logistics, "
    "a company founded in Rotterdam in 1998, and financed by the Meridian Infrastructure Fund.",
    "Kestrel Logistics will hire 400 dock workers from the city. The union, led by Tomas Varga, signed "
    "an agreement with the company that guarantees training for apprentices. Construction starts in "
    "March and the first ships are expected to berth in the autumn of next year.",
    "Critics, including the environmental group Blue Estuary, warned that dredging the channel could "
    "harm the salt marshes north of the port. Okafor replied that the authority had commissioned an "
    "independent study from the University of Lindgren.",
    "La coopérative laitière de Saint-Brieuc, dirigée par Hélène Morvan, a signé un contrat avec "
    "la chaîne Biocoop. Le lait sera transporté à Rennes par la société Transports Le Goff.",
]


# --------------------------------------------------------------------------- harness side


def _forward(llm: str, body: dict[str, Any], cap: int) -> tuple[str, str]:
    """The model's answer to one request and its finish reason."""
    sent = {key: value for key, value in body.items() if key not in ("logit_bias", "stream", "stream_options")}
    limit = sent.get("max_tokens") or sent.get("max_completion_tokens") or cap
    sent.pop("max_completion_tokens", None)
    sent["max_tokens"] = min(int(limit), cap)
    request = urllib.request.Request(f"{llm.rstrip('/')}/v1/chat/completions", json.dumps(sent).encode("utf-8"),
                                     {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=1800) as response:
        data = json.load(response)
    choice = data["choices"][0]
    return choice["message"].get("content") or "", choice.get("finish_reason") or "stop"


def _chunk_of(body: dict[str, Any]) -> int | None:
    text = "\n".join(str(m.get("content", "")) for m in body.get("messages", []))
    found = [i for i, chunk in enumerate(CHUNKS) if chunk in text]
    return found[0] if len(found) == 1 else None


def record(engine: str, python: str, llm: str, model: str, out: Path, prompt: Path | None, gleanings: int,
           cap: int = MAX_TOKENS) -> None:
    sys.path.insert(0, str(REPO_ROOT))
    from harness.llm.request_digest import body_hash
    from harness.llm.tokens import seed_cache
    from tests.support.fake_server import FakeOpenAIServer, Stopped

    exchanges: list[dict[str, Any]] = []

    def answer(body: dict[str, Any]) -> str:
        text, finish = _forward(llm, body, cap)
        exchanges.append({"body": body, "answer": text, "finish_reason": finish})
        return Stopped(text, finish)

    env = {**os.environ, "TIKTOKEN_CACHE_DIR": str(seed_cache()), "OMP_WAIT_POLICY": "PASSIVE"}
    with tempfile.TemporaryDirectory() as tmp, FakeOpenAIServer(answer) as server:
        root = Path(tmp)
        (root / "chunks.json").write_text(json.dumps(CHUNKS), encoding="utf-8")
        (root / "gleanings.json").write_text(json.dumps(gleanings), encoding="utf-8")
        if prompt is not None:
            (root / "prompt.txt").write_bytes(prompt.read_bytes())
        if engine == "graphrag":
            (root / "drive.json").write_text(json.dumps({"prompt": None if prompt is None else "prompt.txt",
                                                         "max_gleanings": gleanings,
                                                         "entity_types": GRAPHRAG_ENTITY_TYPES}), encoding="utf-8")
            command = [python, str(REPO_ROOT / "scripts" / "capture_graphrag_conversation.py"), "drive",
                       "--base-url", server.base_url, "--root", str(root)]
        else:
            command = [python, __file__, "drive-lightrag", "--base-url", server.base_url, "--root", str(root)]
        done = subprocess.run(command, capture_output=True, text=True, timeout=7200, env=env, cwd=tmp)
        if done.returncode != 0:
            raise SystemExit(f"the engine failed (exit {done.returncode}):\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    version = subprocess.run([python, "-c", "import importlib.metadata as m, sys; print(m.version(sys.argv[1]))",
                              "graphrag" if engine == "graphrag" else "lightrag-hku"],
                             capture_output=True, text=True, check=True).stdout.strip()
    conversations: dict[str, Any] = {}
    for index, chunk in enumerate(CHUNKS):
        mine = [e for e in exchanges if _chunk_of(e["body"]) == index]
        rounds = [{"request": body_hash(json.dumps(e["body"])), "kind": _kind(i), "answer": e["answer"],
                   "finish_reason": e["finish_reason"]} for i, e in enumerate(mine)]
        conversations[f"chunk-{index}"] = {
            "chunk": chunk, "exchanges": rounds,
            "answers": [r["answer"] for r in rounds if r["kind"] != "loop"]}
    other = sum(1 for e in exchanges if _chunk_of(e["body"]) is None)
    captured = {
        "engine": f"{engine}-{version}", "model": model, "server": f"llama.cpp server (xllamacpp) at {llm}",
        "date": datetime.date.today().isoformat(), "max_tokens": cap, "max_gleanings": gleanings,
        "prompt": "the version's stock prompt" if prompt is None else prompt.read_text(encoding="utf-8"),
        "note": "real model answers to the engine's own requests; logit_bias dropped, max_tokens capped",
        "other_requests": other, "conversations": conversations}
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(captured, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{engine} {version}: {len(exchanges)} requests ({other} not extraction), "
          f"{sum(len(c['exchanges']) for c in conversations.values())} in the chunks' conversations -> {out}")


def _kind(index: int) -> str:
    """Both engines ask extract, continue, loop check, continue, ... (versions with no loop check
    ask extract, continue)."""
    return "extract" if index == 0 else "continue" if index % 2 == 1 else "loop"


# --------------------------------------------------------------------------- engine side (LightRAG)


def drive_lightrag(base_url: str, root: Path) -> None:
    """LightRAG's own insert, its llm_model_func sending what lightrag/llm/openai.py sends (a system
    message when system_prompt is set, the history, the prompt as user) to BASE_URL."""
    import numpy as np
    from lightrag import LightRAG
    from lightrag.utils import EmbeddingFunc

    async def llm(prompt: str, system_prompt: str | None = None, history_messages: list | None = None,
                  **kwargs: Any) -> str:
        messages = ([{"role": "system", "content": system_prompt}] if system_prompt else []) + list(
            history_messages or []) + [{"role": "user", "content": prompt}]
        body = json.dumps({"model": "smollm2", "messages": messages}).encode("utf-8")
        request = urllib.request.Request(f"{base_url}/chat/completions", body,
                                         {"Content-Type": "application/json", "Authorization": "Bearer sk-local"})
        loop = asyncio.get_running_loop()
        data = await loop.run_in_executor(None, lambda: json.load(urllib.request.urlopen(request, timeout=1800)))
        return data["choices"][0]["message"]["content"] or ""

    async def embed(texts: list[str]) -> np.ndarray:
        return np.array([[float((hash(t) >> i) & 1) for i in range(8)] for t in texts])

    async def run() -> None:
        gleanings = json.loads((root / "gleanings.json").read_text(encoding="utf-8"))
        rag = LightRAG(working_dir=str(root / "rag"), llm_model_func=llm, entity_extract_max_gleaning=gleanings,
                       llm_model_max_async=1, enable_llm_cache=False, enable_llm_cache_for_entity_extract=False,
                       embedding_func=EmbeddingFunc(embedding_dim=8, max_token_size=8192, func=embed))
        await rag.initialize_storages()
        try:
            from lightrag.kg.shared_storage import initialize_pipeline_status
            await initialize_pipeline_status()
        except ImportError:
            pass
        chunks = json.loads((root / "chunks.json").read_text(encoding="utf-8"))
        await rag.ainsert(chunks, file_paths=[f"chunk-{i}.txt" for i in range(len(chunks))])
        await rag.finalize_storages()

    asyncio.run(run())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=["graphrag", "lightrag", "drive-lightrag"])
    parser.add_argument("--python", help="the scratch virtualenv's Python, with the engine installed")
    parser.add_argument("--llm", help="the llama.cpp server's base URL")
    parser.add_argument("--model", default="SmolLM2-135M-Instruct.Q4_1", help="the model it serves (recorded)")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--prompt", type=Path, help="GraphRAG: the extraction prompt file (default: the version's own)")
    parser.add_argument("--max-tokens", type=int, default=MAX_TOKENS, help="the cap put on every request's max_tokens")
    parser.add_argument("--gleanings", type=int, default=MAX_GLEANINGS, help="max gleanings the engine is set to")
    parser.add_argument("--base-url")
    parser.add_argument("--root", type=Path)
    args = parser.parse_args()
    if args.command == "drive-lightrag":
        drive_lightrag(args.base_url, args.root)
    elif args.python and args.llm and args.out:
        record(args.command, args.python, args.llm, args.model, args.out, args.prompt, args.gleanings,
               args.max_tokens)
    else:
        parser.error("give --python, --llm and --out")


if __name__ == "__main__":
    main()
