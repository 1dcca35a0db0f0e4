"""`harness import graphrag ROOT --cache`: the project's LLM cache as cassettes (GraphRAG 0.x-2.x).

GraphRAG 0.x-2.x store each extraction call with its request (the first user message of the
conversation, and the call's own last user message), so a cached conversation is found by the
harness's own first request: a case whose rendered first request is byte-equal to a cached one is
covered by that model. The harness then replays its own conversation for the case (runner.converse,
as `record --batch` does) over a stand-in client that answers each call from the cache, in the
order GraphRAG made them (extraction, continuation 0, loop 0, continuation 1, ...), checking that
each request the harness sends is the one the engine sent; the exchanges go through
`cassettes.write_exchanges`, the writer a recording uses, so a replayed run reads exactly the
answers `harness audit-cache` reads. A case whose conversation the cache does not hold in full,
or whose request differs, gets no cassette and is reported, never scored as an empty answer.

GraphRAG 3.x stores no request: its entries cannot be matched this way (not handled here).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...cache_audit.classify import classify
from ...cache_audit.discovery import MAX_FILE_BYTES, Skipped, discover
from ...cache_audit.versions import settle_fnllm_versions
from ...errors import InputError
from ...inputfiles import loads, read_bytes

EXTRACTION_KINDS = ("extraction", "continuation", "loop")
_ROUND = re.compile(r"extract-(continuation|loopcheck)-(\d+)")


@dataclass(slots=True)
class CachedCall:
    """One cached extraction-conversation call: its place in the conversation and the body a
    recording of it would hold."""

    id: str
    kind: str  # extraction, continuation or loop
    index: int  # the gleaning round (0 for the first extraction)
    model: str
    conversation: str  # the first user message of its conversation (holds the text unit)
    request: str  # the call's own last user message
    answer: str
    body: bytes  # a chat completion, as the endpoint answered it

    @property
    def order(self) -> int:
        """Its place in GraphRAG's conversation: extraction, continuation-0, loop-0, continuation-1, ..."""
        if self.kind == "extraction":
            return 0
        return 1 + 2 * self.index + (1 if self.kind == "loop" else 0)


@dataclass(slots=True)
class ModelCoverage:
    """What the cache holds for one model: the cases covered, and why each other case is not."""

    model: str
    covered: list[str] = field(default_factory=list)
    left_out: dict[str, str] = field(default_factory=dict)  # case id -> reason

    def line(self, total: int) -> str:
        return f"{self.model}: {len(self.covered)} of {total} cases covered"


def cache_folder(settings: Mapping[str, Any], base: Path) -> Path:
    """The project's cache folder: `cache.base_dir` of the settings (GraphRAG's default `cache`)."""
    section = settings.get("cache")
    value = section.get("base_dir") if isinstance(section, Mapping) else None
    folder = Path(value) if isinstance(value, str) and value.strip() else Path("cache")
    return folder if folder.is_absolute() else base / folder


def _response_body(raw: Any, answer: str, model: str) -> bytes:
    """The chat completion the endpoint answered: the stored response object (1.x, 2.x), else
    (0.x stores the text only) the smallest completion holding the text."""
    result = raw.get("result") if isinstance(raw, dict) else None
    if isinstance(result, dict) and isinstance(result.get("response"), dict):
        result = result["response"]
    if isinstance(result, dict) and isinstance(result.get("choices"), list):
        return json.dumps(result, ensure_ascii=False).encode("utf-8")
    digest = hashlib.sha256(answer.encode("utf-8")).hexdigest()[:24]
    body = {"id": f"chatcmpl-cache-{digest}", "object": "chat.completion", "model": model,
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": answer}}]}
    return json.dumps(body, ensure_ascii=False).encode("utf-8")


def read_cached_calls(folder: Path) -> tuple[list[CachedCall], list[str]]:
    """The extraction-conversation calls of a GraphRAG cache folder, and notes on what was not used."""
    skipped = Skipped()
    entries = list(discover(folder, skipped))
    settle_fnllm_versions(entries)
    calls: list[CachedCall] = []
    no_request = 0
    for entry in entries:
        kind = classify(entry).kind
        if kind not in EXTRACTION_KINDS or entry.answer is None:
            continue
        if entry.engine == "graphrag-3.x" or entry.request is None or entry.conversation is None:
            no_request += 1
            continue
        index = 0
        for hint in entry.hints:
            match = _ROUND.fullmatch(hint)
            if match:
                index = int(match.group(2))
        try:  # bounded, regular files only, the JSON policy (discovery read it so already)
            raw = loads(read_bytes(folder / entry.id, limit=MAX_FILE_BYTES, what="cache entry"))
        except (InputError, ValueError):
            raw = None
        model = entry.model or "(not stored)"
        calls.append(CachedCall(entry.id, kind, index, model, entry.conversation, entry.request, entry.answer,
                                _response_body(raw, entry.answer, model)))
    notes = []
    if no_request:
        notes.append(f"{folder}: {no_request} extraction entr{'y' if no_request == 1 else 'ies'} store no request "
                     "(GraphRAG 3.x): not turned into cassettes")
    return calls, notes


class _Uncovered(Exception):
    """The harness's conversation needs a call the cache does not hold as the harness sends it."""


class _CacheClient:
    """Stands in for ModelClient in `converse`: answers each call from one case's cached
    conversation, in GraphRAG's order, after checking the request is the one the engine sent."""

    def __init__(self, client: Any, calls: list[CachedCall]) -> None:
        self.client = client
        self.calls = sorted(calls, key=lambda c: c.order)
        self.sent: list[tuple[dict[str, Any], bytes]] = []

    def payload(self, messages: list[dict[str, Any]], **overrides: Any) -> dict[str, Any]:
        return self.client.payload(messages, **overrides)

    async def chat(self, messages: list[dict[str, Any]], *, payload: dict[str, Any] | None = None,
                   **overrides: Any) -> Any:
        from ...llm.client import ChatResult

        body = payload if payload is not None else self.client.payload(messages, **overrides)
        step = len(self.sent)
        if step >= len(self.calls) or self.calls[step].order != step:
            raise _Uncovered(f"the cache holds no answer to call {step + 1} of the conversation")
        call = self.calls[step]
        last = next((m.get("content") for m in reversed(messages) if m.get("role") == "user"), None)
        if last != call.request:
            raise _Uncovered(f"call {step + 1} ({call.kind}): the harness's request differs from the cached one ({call.id})")
        self.sent.append((body, call.body))
        c = self.client
        answer = c.provider.read_answer(call.body, messages, c.settings.model)
        return ChatResult(text=c.redactor.redact(answer.text), usage=answer.usage, latency_s=0.0,
                          usage_note=answer.usage_note, finish_reason=answer.finish_reason)


def _exchanges(client: Any, sent: list[tuple[dict[str, Any], bytes]]) -> list[tuple[Any, int, bytes]]:
    from vcr.request import Request

    provider, settings = client.provider, client.settings
    uri = provider.base_url(settings).rstrip("/") + provider.post_path
    headers = {"content-type": "application/json"}
    return [(Request("POST", uri, json.dumps(p, ensure_ascii=False).encode("utf-8"), headers), 200, body)
            for p, body in sent]


def _first_user(messages: list[dict[str, Any]]) -> str | None:
    return next((m.get("content") for m in messages if m.get("role") == "user"), None)


def write_cache_cassettes(suite_path: Path, calls: list[CachedCall], *, replace: bool = False) -> list[ModelCoverage]:
    """For every variant of the cache suite (named after a cached model), find the cases the cache
    covers (the coverage per model says why every other case is left out) and write the cassettes
    of the cases every model covers: the suite keeps only those, so no cassette is orphaned."""
    from ...llm.cassettes import write_exchanges
    from ...runner import case_request, clients_for, converse, plan_variant
    from ...suites import load_suite

    suite = load_suite(suite_path)
    names = suite.variant_names()
    plans = {name: plan_variant(suite, name) for name in names}
    client_of = clients_for(plans, replay=True)
    coverage: list[ModelCoverage] = []
    pending: list[tuple[str, Path, list[tuple[Any, int, bytes]], tuple[str, ...]]] = []
    for name in names:
        model = suite.spec.variants[name].model or name
        mine = [c for c in calls if c.model == model]
        by_conversation: dict[str, list[CachedCall]] = {}
        for call in mine:
            by_conversation.setdefault(call.conversation, []).append(call)
        report = ModelCoverage(model)
        client = client_of[name]
        for case in suite.cases:
            request = case_request(plans[name], client, case)
            first = _first_user(request.messages)
            held = by_conversation.get(first or "")
            if held is None:
                if case.text and any(case.text in conv for conv in by_conversation):
                    report.left_out[case.id] = ("the cache holds this text unit, but the harness's first request "
                                                "differs from the cached one (prompt or settings)")
                else:
                    report.left_out[case.id] = "not in the cache"
                continue
            stand_in = _CacheClient(client, held)
            try:
                asyncio.run(converse(stand_in, request))  # type: ignore[arg-type]
            except _Uncovered as exc:
                report.left_out[case.id] = str(exc)
                continue
            unused = len(stand_in.calls) - len(stand_in.sent)
            if unused:
                report.left_out[case.id] = (f"the cache holds {unused} more call(s) of this conversation than the "
                                            "harness sends (max_gleanings?)")
                continue
            key_envs = (client.settings.api_key_env, *client.provider.key_envs)
            pending.append((case.id, request.cassette_path(suite), _exchanges(client, stand_in.sent), key_envs))
            report.covered.append(case.id)
        coverage.append(report)
    common = set.intersection(*(set(r.covered) for r in coverage)) if coverage else set()
    for case_id, path, exchanges, key_envs in pending:
        if case_id in common:
            write_exchanges(path, exchanges, key_envs=key_envs, replace=replace, roots=(suite.root,))
    return coverage


def cache_models(calls: list[CachedCall]) -> list[str]:
    """The models of the cached extraction calls, in first-seen order."""
    seen: dict[str, None] = {}
    for call in calls:
        seen.setdefault(call.model, None)
    return list(seen)


def require_calls(folder: Path, calls: list[CachedCall]) -> None:
    """A cache with no extraction conversation to turn into cassettes is an input error."""
    if not folder.is_dir():
        raise InputError(f"{folder}: --cache: no such cache folder (the settings' cache.base_dir)")
    if not calls:
        raise InputError(f"{folder}: --cache: no cached extraction call that stores its request "
                         "(GraphRAG 0.x-2.x caches do; 3.x stores none)")
