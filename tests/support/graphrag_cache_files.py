"""Small GraphRAG caches written in the layouts GraphRAG writes (1.x fnllm: the response object
with its `usage`, the request's messages; 3.x: the response and `metrics`, no request), so the
estimate's tests read caches of the real format without a real project."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

LOOP = "It appears some entities may have still been missed. Answer Y if there are still entities that need to be added, or N if there are none."
CONTINUE = "MANY entities and relationships were missed in the last extraction. Remember to ONLY emit entities that match any of the previously extracted types. Add them below using the same format:"


def _response(model: str, text: str, prompt: int, completion: int) -> dict[str, object]:
    return {"id": "x", "model": model, "object": "chat.completion",
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
            "usage": {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}}


def _write(folder: Path, name: str, data: dict[str, object]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(json.dumps(data), encoding="utf-8")


def _key(*parts: str) -> str:
    return hashlib.sha256("|".join(parts).encode()).hexdigest()


def write_fnllm_cache(root: Path, *, model: str = "gpt-4o-mini-2024-07-18", chunks: int = 4,
                      summaries: int = 6, reports: int = 2, usage: bool = True) -> dict[str, tuple[int, int]]:
    """A GraphRAG 1.x cache of `chunks` chunks (an extraction, one gleaning and its loop check each),
    `summaries` description summaries and `reports` community reports. Returns the (prompt,
    completion) tokens written per kind."""
    totals: dict[str, tuple[int, int]] = {}

    def add(kind: str, prompt: int, completion: int) -> None:
        before = totals.get(kind, (0, 0))
        totals[kind] = (before[0] + prompt, before[1] + completion)

    def entry(folder: str, name: str, messages: list[dict[str, str]], text: str, prompt: int, completion: int) -> None:
        response = _response(model, text, prompt, completion)
        if not usage:
            del response["usage"]
        _write(root / folder, name, {"result": response, "input": {"messages": messages, "parameters": {"model": model}}})

    record = '("entity"<|>ACME<|>ORGANIZATION<|>A firm)\n<|COMPLETE|>'
    for i in range(chunks):
        first = [{"role": "user", "content": f"-Goal- extract entities\nText: chunk number {i}"}]
        entry("entity_extraction", f"chat_{_key('x', str(i))}_v2", first, record, 1000 + 10 * i, 200 + i)
        add("extraction", 1000 + 10 * i, 200 + i)
        history = [*first, {"role": "assistant", "content": record}, {"role": "user", "content": CONTINUE}]
        entry("entity_extraction", f"chat_extract-continuation-0_{_key('c', str(i))}_v2", history, record, 1300, 50)
        add("continuation", 1300, 50)
        loop = [*history, {"role": "assistant", "content": record}, {"role": "user", "content": LOOP}]
        entry("entity_extraction", f"chat_extract-loopcheck-0_{_key('l', str(i))}_v2", loop, "N", 1400, 1)
        add("loop", 1400, 1)
    for i in range(summaries):
        messages = [{"role": "user", "content": f"Write a comprehensive summary of the data provided below. #{i}"}]
        entry("summarize_descriptions", f"chat_summarize_{_key('s', str(i))}_v2", messages, "A summary.", 300 + i, 60)
        add("summary", 300 + i, 60)
    for i in range(reports):
        messages = [{"role": "user", "content": f"Write a comprehensive report of a community. #{i}"}]
        report = json.dumps({"title": "T", "summary": "S", "rating": 5, "rating_explanation": "E",
                             "findings": [{"summary": "F", "explanation": "X"}]})
        entry("community_reporting", f"chat_create_community_report_{_key('r', str(i))}_v2", messages, report,
              2500, 700)
        add("report", 2500, 700)
    return totals


def write_v3_cache(root: Path, *, model: str = "mistral-nemo", calls: int = 6, seconds: float = 2.0) -> None:
    """A GraphRAG 3.x cache: extraction answers with usage and durations, no request stored."""
    record = '("entity"<|>ACME<|>ORGANIZATION<|>A firm)\n<|COMPLETE|>'
    for i in range(calls):
        response = _response(model, record, 800, 100)
        _write(root / "extract_graph", f"{_key('v3', str(i))}_v4",
               {"result": {"response": response, "metrics": {"compute_duration_seconds": seconds}}})
    for i in range(2):
        response = _response(model, "A summary.", 200, 40)
        _write(root / "summarize_descriptions", f"{_key('v3s', str(i))}_v4",
               {"result": {"response": response, "metrics": {"compute_duration_seconds": seconds}}})
