"""How each engine and version stores a cached call, read into CacheEntry values. Pure: JSON in,
entries out (reading files is harness.cache_audit.discovery's job).

GraphRAG keeps one JSON file per call, `{"result": value, **debug_data}`, in a folder per workflow
(JsonPipelineCache.set in every version); what `value` is and which debug data come with it
changed with the LLM layer:

- 0.x (graphrag.llm, CachingLLM, 0.1 to 0.5.x): `result` is the answer text (a list of vectors
  for embeddings), with `input` (the prompt), `parameters` (the call's model parameters, `model`
  among them) and, from 0.2.1, `history`; from 0.3.0 the file is written with
  `json.dumps(..., ensure_ascii=False)`, before it non-ASCII text is stored as `\\uXXXX` escapes.
  Nothing else stored tells 0.3.0-0.3.1 from 0.3.2-0.5.x (the versions whose weights differ:
  harness.cache_audit.versions). File names `chat-<md5>` (first call), `<name>-chat-v2-<md5>` for named calls
  (`extract-continuation-0`, `extract-loopcheck-0`, `summarize`, `create_community_report`),
  `embedding-<md5>`. Folders entity_extraction, summarize_descriptions, community_reporting,
  claim_extraction, text_embedding.
- 0.9, 1.x and 2.x with fnllm: `result` is the OpenAI response object (`choices`, `model`), with
  `input` = {"messages", "parameters"}; file names `chat_<name>_<sha256>_v2` / `chat_<sha256>_v2`.
  Folders as 0.x in 1.x; extract_graph and extract_claims in 2.x.
- 2.x with LiteLLM: `result` = {"response": <response object>}, file names `..._v3`.
- 3.x (graphrag-llm): `result` = {"response": ..., "metrics": ...}, file names `<sha256>_v4`,
  no request stored; the folder is the model instance name (extract_graph,
  summarize_descriptions, community_reporting, extract_claims, text_embedding).

LightRAG keeps every call of one kind in `kv_store_llm_response_cache.json`: older versions nest
`{mode: {hash: {"return", "original_prompt", "embedding", ...}}}` (mode "default" for indexing,
the query mode otherwise); current ones are flat, `{"<mode>:<cache_type>:<hash>": {"return",
"cache_type", "chunk_id", "original_prompt", "queryparam", "create_time", ...}}`, cache_type one
of extract, summary, keywords, query. LightRAG stores no model name.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from harness.cache_audit.entry import CacheEntry

_LIGHTRAG_MODES = ("default", "local", "global", "hybrid", "naive", "mix", "bypass")
_GRAPHRAG_2X_FOLDERS = ("extract_graph", "extract_claims")


def _is_vector(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(
        isinstance(x, (int, float)) and not isinstance(x, bool) for x in value[:8]
    )


def _vectors(value: Any) -> list[Any] | None:
    """The vectors of an embedding result: a list of vectors (0.x), a response with
    `data: [{"embedding": [...]}]` (fnllm, LiteLLM, graphrag-llm), or one vector."""
    if _is_vector(value):
        return [value]
    if isinstance(value, list) and value and all(_is_vector(v) for v in value[:4]):
        return value
    if isinstance(value, dict):
        data = value.get("data")
        if isinstance(data, list) and data and all(isinstance(d, dict) and _is_vector(d.get("embedding")) for d in data[:4]):
            return [d["embedding"] for d in data]
    return None


def _choice_text(response: Any) -> str | None:
    if not isinstance(response, dict):
        return None
    choices = response.get("choices")
    if isinstance(choices, list) and choices and isinstance(choices[0], dict):
        first = choices[0]
        message = first.get("message")
        if isinstance(message, dict) and isinstance(message.get("content"), str):
            return message["content"]
        if isinstance(first.get("text"), str):
            return first["text"]
    return None


def _last_user_message(messages: Any) -> str | None:
    if not isinstance(messages, list):
        return None
    for message in reversed(messages):
        if isinstance(message, dict) and message.get("role") == "user" and isinstance(message.get("content"), str):
            return message["content"]
    return None


def _first_user_message(messages: Any) -> str | None:
    if not isinstance(messages, list):
        return None
    for message in messages:
        if isinstance(message, dict) and message.get("role") == "user" and isinstance(message.get("content"), str):
            return message["content"]
    return None


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _parameters(value: Any) -> str | None:
    """Stored model parameters as canonical JSON (keys sorted), None when none are stored."""
    if not isinstance(value, dict) or not value:
        return None
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


def path_hints(rel: str) -> tuple[str, ...]:
    """Lower-case hints from a GraphRAG cache path: each folder, and the file name's call name
    (`extract-continuation-0` of `extract-continuation-0-chat-v2-<md5>` or of
    `chat_extract-continuation-0_<sha>_v2`)."""
    parts = rel.replace("\\", "/").split("/")
    hints = [p.lower() for p in parts[:-1]]
    name = parts[-1].lower()
    match = re.match(r"^(.*?)-(chat|completion|embedding)-v\d+-[0-9a-f]{8,}$", name) or re.match(
        r"^(?:chat|embeddings?)_(.+)_[0-9a-f]{16,}_v\d+$", name
    )
    if match and match.group(1):
        hints.append(match.group(1))
    if name.startswith(("embedding", "embeddings_")):
        hints.append("embedding")
    return tuple(hints)


def _graphrag_version(rel: str, data: dict[str, Any], result: Any) -> str:
    name = rel.rsplit("/", 1)[-1]
    folders = rel.lower().split("/")[:-1]
    if isinstance(result, dict) and "response" in result:
        if "metrics" in result or name.endswith("_v4"):
            return "graphrag-3.x"
        return "graphrag-2.x"
    if isinstance(result, dict) or isinstance(data.get("input"), dict):
        return "graphrag-2.x" if any(f in _GRAPHRAG_2X_FOLDERS for f in folders) else "graphrag-1.x"
    return "graphrag-0.x"


def _version_evidence(version: str, data: dict[str, Any], escaped_non_ascii: bool) -> str | None:
    """What a 0.x entry itself proves about the version that wrote it (None: nothing)."""
    if version != "graphrag-0.x":
        return None
    if "history" not in data:
        return "0.1-0.2.0 (no history stored)"
    if escaped_non_ascii:
        return "0.1-0.2.x (non-ASCII text stored escaped)"
    return None


def graphrag_entry(rel: str, data: Any, engine: str | None = None, *, escaped_non_ascii: bool = False) -> CacheEntry | None:
    """One GraphRAG cache file as an entry; None when it is no GraphRAG cache entry.
    `escaped_non_ascii`: the file's text is ASCII although what it holds is not (written with
    json.dumps' default ensure_ascii, as GraphRAG before 0.3.0 did)."""
    if not isinstance(data, dict) or "result" not in data:
        return None
    result = data["result"]
    version = engine or _graphrag_version(rel, data, result)
    evidence = _version_evidence(version, data, escaped_non_ascii)
    hints = path_hints(rel)
    response = result.get("response") if isinstance(result, dict) and isinstance(result.get("response"), dict) else result
    vectors = _vectors(response)
    if vectors is not None:
        embedder = response.get("model") if isinstance(response, dict) else None
        if embedder is None and isinstance(data.get("parameters"), dict):
            embedder = data["parameters"].get("model")
        return CacheEntry(
            id=rel, engine=version, layout=_layout_name(version, data, result), answer=None,
            model=_str_or_none(embedder), hints=hints, embedding=True, vectors=len(vectors),
            dimensions=len(vectors[0]) if vectors else 0, version_evidence=evidence,
        )
    answer: str | None
    model: Any = None
    request: str | None = None
    if isinstance(result, str):
        answer = result
    else:
        answer = _choice_text(response)
        if isinstance(response, dict):
            model = response.get("model")
        if answer is None:
            return None
    inp = data.get("input")
    conversation: str | None = None
    parameters = _parameters(data.get("parameters"))
    if isinstance(inp, str):  # 0.x: the prompt (or the continuation / loop prompt) itself
        request = inp
        conversation = _first_user_message(data.get("history")) or inp
    elif isinstance(inp, dict):  # fnllm: {"messages", "parameters"}
        request = _last_user_message(inp.get("messages"))
        conversation = _first_user_message(inp.get("messages"))
        parameters = _parameters(inp.get("parameters")) or parameters
        if model is None and isinstance(inp.get("parameters"), dict):
            model = inp["parameters"].get("model")
    if model is None and isinstance(data.get("parameters"), dict):
        model = data["parameters"].get("model")
    prompt_tokens, completion_tokens = _usage(response)
    return CacheEntry(
        id=rel, engine=version, layout=_layout_name(version, data, result), answer=answer,
        request=request, conversation=conversation, model=_str_or_none(model), parameters=parameters,
        hints=hints, version_evidence=evidence, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens,
        latency_s=_duration(result),
    )


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 10**12 else None


def _usage(response: Any) -> tuple[int | None, int | None]:
    """The (prompt, completion) tokens of a stored response's `usage`; (None, None) without one."""
    usage = response.get("usage") if isinstance(response, dict) else None
    if not isinstance(usage, dict):
        return None, None
    prompt, completion = _count(usage.get("prompt_tokens")), _count(usage.get("completion_tokens"))
    if prompt is None and completion is None:
        return None, None
    return prompt or 0, completion or 0


def _duration(result: Any) -> float | None:
    """GraphRAG 3.x keeps each call's `metrics`, its duration among them."""
    metrics = result.get("metrics") if isinstance(result, dict) else None
    value = metrics.get("compute_duration_seconds") if isinstance(metrics, dict) else None
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value >= 0:
        return float(value)
    return None


def _layout_name(version: str, data: dict[str, Any], result: Any) -> str:
    keys = ", ".join(k for k in data if k != "result")
    shape = "text" if isinstance(result, str) else "vectors" if isinstance(result, list) else \
        "response" if isinstance(result, dict) and "response" in result else "response object"
    return f"{version} json (result: {shape}{'; ' + keys if keys else ''})"


def is_lightrag_store(name: str, data: Any) -> bool:
    """A LightRAG LLM-response kv store: the file name says so (an empty `{}` store too: LightRAG
    writes one before its first cached call), or every value sampled is an entry holding `return`
    (flat) or a mode's map of such entries (nested)."""
    if not isinstance(data, dict) or "result" in data:
        return False
    if name.startswith("kv_store_llm_response_cache"):
        return True
    if not data:
        return False
    sample = list(data.items())[:5]
    return all(_is_lightrag_entry(v) or (k in _LIGHTRAG_MODES and isinstance(v, dict) and all(
        _is_lightrag_entry(x) for x in list(v.values())[:5])) for k, v in sample)


def _is_lightrag_entry(value: Any) -> bool:
    return isinstance(value, dict) and "return" in value


def lightrag_entries(rel: str, data: Any) -> list[CacheEntry]:
    """Every entry of a LightRAG kv store, flat (`mode:cache_type:hash`) or nested by mode."""
    out: list[CacheEntry] = []
    if not isinstance(data, dict):
        return out
    for key, value in data.items():
        if _is_lightrag_entry(value):
            parts = str(key).split(":")
            mode = parts[0] if len(parts) >= 3 else None
            out.append(_lightrag_entry(f"{rel}#{key}", value, mode=mode, layout="lightrag flat (mode:cache_type:hash)"))
        elif isinstance(value, dict):  # older LightRAG: {mode: {hash: entry}}
            for inner_key, inner in value.items():
                if _is_lightrag_entry(inner):
                    out.append(_lightrag_entry(f"{rel}#{key}/{inner_key}", inner, mode=str(key),
                                               layout="lightrag nested by mode"))
    return out


def _lightrag_entry(entry_id: str, value: dict[str, Any], *, mode: str | None, layout: str) -> CacheEntry:
    answer = value.get("return")
    if not isinstance(answer, str):
        answer = None if answer is None else str(answer)
    cache_type = value.get("cache_type")
    model = value.get("model")  # not written by LightRAG; read when a wrapper adds it
    return CacheEntry(
        id=entry_id, engine="lightrag", layout=layout, answer=answer,
        request=_str_or_none(value.get("original_prompt")), model=_str_or_none(model),
        hints=tuple(h for h in (mode, cache_type) if isinstance(h, str)),
        cache_type=cache_type if isinstance(cache_type, str) else None, mode=mode,
    )
