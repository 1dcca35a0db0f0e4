"""An engine's LLM cache as cassettes, whatever the engine: `harness import ... --cache`.

For every variant of a cache suite (one per cached model) and every case, the harness plays its
own conversation for the case (`run.requests.converse`, as `record --batch` does) over a stand-in
client whose answers come from the cache: each call the harness would send is looked up by the
engine's own rule (`CaseCache.reply`: GraphRAG 0.x-2.x by the stored request, 3.x by the engine's
cache key computed from the request, LightRAG by the stored prompt). A case whose whole
conversation the cache answers gets a cassette written by the recording's own writer
(`cassettes.write_exchanges`), so a replayed run reads exactly the cached answers; any other case
is left out of that model's variant with the reason, never scored as an empty answer.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol


class Uncovered(Exception):
    """The harness's conversation needs a call the cache does not answer as the engine asked it."""


@dataclass(slots=True, frozen=True)
class CachedReply:
    """One cached answer: the entry it was read from and the chat completion a recording holds."""

    entry: str  # the cache entry's id, as `harness audit-cache` names it
    body: bytes


class CaseCache(Protocol):
    """The cached calls of one case's conversation for one model."""

    def reply(self, step: int, messages: list[dict[str, Any]]) -> CachedReply:
        """The cached answer to call `step` (0: the first extraction) of the conversation, whose
        messages are the harness's request; Uncovered with the reason when there is none."""
        ...

    def unused(self, used: int) -> str | None:
        """Why the conversation the harness made (`used` calls) is not the engine's, when the
        cache holds more of it than the harness asked for; None when nothing is left over."""
        ...


# the cache of one case for one variant, or why the cache holds none (a reason for the report)
CaseFinder = Callable[[Any, Any], "CaseCache | str"]  # (GoldCase, run.requests.CaseRequest)


@dataclass(slots=True)
class ModelCoverage:
    """What the cache holds for one model: the cases covered (with the entries each replays, in
    conversation order), and why each other case is not."""

    model: str
    variant: str
    covered: list[str] = field(default_factory=list)
    left_out: dict[str, str] = field(default_factory=dict)  # case id -> reason
    entries: dict[str, list[str]] = field(default_factory=dict)  # case id -> cache entry ids

    def line(self, total: int) -> str:
        return f"{self.model}: {len(self.covered)} of {total} cases covered"


def response_body(answer: str, model: str, stored: Any = None) -> bytes:
    """The chat completion a recording would hold: the cached response object when the cache kept
    one (`choices` in it), else the smallest completion holding the cached text."""
    if isinstance(stored, dict) and isinstance(stored.get("choices"), list):
        return json.dumps(stored, ensure_ascii=False).encode("utf-8")
    digest = hashlib.sha256(answer.encode("utf-8")).hexdigest()[:24]
    body = {"id": f"chatcmpl-cache-{digest}", "object": "chat.completion", "model": model,
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": answer}}]}
    return json.dumps(body, ensure_ascii=False).encode("utf-8")


class _CacheClient:
    """Stands in for ModelClient in `converse`: each call is answered from the case's cache."""

    def __init__(self, client: Any, cache: CaseCache) -> None:
        self.client = client
        self.cache = cache
        self.sent: list[tuple[dict[str, Any], CachedReply]] = []

    def payload(self, messages: list[dict[str, Any]], **overrides: Any) -> dict[str, Any]:
        return self.client.payload(messages, **overrides)

    async def chat(self, messages: list[dict[str, Any]], *, payload: dict[str, Any] | None = None,
                   **overrides: Any) -> Any:
        from ..llm.client import ChatResult

        body = payload if payload is not None else self.client.payload(messages, **overrides)
        reply = self.cache.reply(len(self.sent), messages)
        self.sent.append((body, reply))
        c = self.client
        answer = c.provider.read_answer(reply.body, messages, c.settings.model)
        return ChatResult(text=c.redactor.redact(answer.text), usage=answer.usage, latency_s=None,
                          usage_note=answer.usage_note, finish_reason=answer.finish_reason)


def _exchanges(client: Any, sent: list[tuple[dict[str, Any], CachedReply]]) -> list[tuple[Any, int, bytes]]:
    from vcr.request import Request

    from ..errors import InputError

    provider, settings = client.provider, client.settings
    try:
        uri = provider.base_url(settings).rstrip("/") + provider.post_path
    except InputError:  # an unset base_url_env: a replay matches the path only (request_path)
        uri = "https://endpoint.invalid" + provider.request_path(settings)
    headers = {"content-type": "application/json"}
    return [(Request("POST", uri, json.dumps(p, ensure_ascii=False).encode("utf-8"), headers), 200, reply.body)
            for p, reply in sent]


def write_cache_cassettes(suite_path: Path, finders: dict[str, CaseFinder], models: dict[str, str], *,
                          replace: bool = False) -> list[ModelCoverage]:
    """For each variant of the suite at `suite_path` that `finders` names, the cases its model's
    cache covers: their cassettes are written, every other case is reported with its reason.
    `models`: the model each variant stands for (the coverage lines name it)."""
    from ..llm.cassettes import write_exchanges
    from ..run.requests import case_request, clients_for, converse
    from ..run.plan import plan_variant
    from ..suites import load_suite

    suite = load_suite(suite_path)
    names = [name for name in suite.variant_names() if name in finders]
    plans = {name: plan_variant(suite, name) for name in names}
    client_of = clients_for(plans, replay=True)
    coverage: list[ModelCoverage] = []
    for name in names:
        report = ModelCoverage(models.get(name, name), name)
        client = client_of[name]
        for case in suite.cases:
            request = case_request(plans[name], client, case)
            found = finders[name](case, request)
            if isinstance(found, str):
                report.left_out[case.id] = found
                continue
            stand_in = _CacheClient(client, found)
            try:
                asyncio.run(converse(stand_in, request))  # type: ignore[arg-type]
            except Uncovered as exc:
                report.left_out[case.id] = str(exc)
                continue
            extra = found.unused(len(stand_in.sent))
            if extra is not None:
                report.left_out[case.id] = extra
                continue
            key_envs = (client.settings.api_key_env, *client.provider.key_envs)
            write_exchanges(request.cassette_path(suite), _exchanges(client, stand_in.sent), key_envs=key_envs,
                            replace=replace, roots=(suite.root,))
            report.covered.append(case.id)
            report.entries[case.id] = [reply.entry for _, reply in stand_in.sent]
        coverage.append(report)
    return coverage


@dataclass(slots=True)
class CachePlan:
    """What an engine's importer found in a project's cache: a variant per cached model (its suite
    entry and the model it stands for), how each finds a case's cached conversation, and notes."""

    source: Path  # the cache folder or store
    variants: dict[str, dict[str, Any]]
    models: dict[str, str]
    finders: dict[str, CaseFinder]
    notes: list[str] = field(default_factory=list)
    engine: str | None = None  # the suite's `engine:` (None: the draft's)
    max_gleanings: int | None = None  # what the cache shows the project gleaned (None: the draft's)
    prompt_from: str = "project"  # the import's variant whose prompt every cache variant sends


def cache_draft(draft: Any, plan: CachePlan) -> Any:
    """The `<name>-cache` suite draft: the import's cases, a variant per cached model."""
    import dataclasses

    from .common import reference_free_thresholds

    typed = "type_conformance" in draft.thresholds or plan.prompt_from in draft.thresholds.get("variants", {})
    model = dict(draft.model)
    if plan.max_gleanings is not None:
        model["max_gleanings"] = plan.max_gleanings
    return dataclasses.replace(
        draft, name=f"{draft.name}-cache", variants=dict(plan.variants), baseline=next(iter(plan.variants)),
        files={}, warnings=[], model=model, engine=plan.engine or draft.engine,
        thresholds=reference_free_thresholds({v: typed for v in plan.variants}),
        description=f"{draft.description}: the answers the project's LLM cache holds, one variant per model",
        notes=(f"{draft.notes} Made by --cache from {plan.source}: each variant replays its model's cached "
               "answers (harness run --record-mode none) on the cases it lists, those the cache covers for it."))


def covered_draft(draft: Any, coverage: list[ModelCoverage]) -> Any | None:
    """The cache suite draft keeping every case some model covers, each variant listing its own
    (none when it covers them all) and the variants that cover nothing left out; the variant
    covering most is the baseline. None when no case is covered."""
    import dataclasses

    covered = {case for report in coverage for case in report.covered}
    kept = [case for case in draft.cases if case["id"] in covered]
    if not kept:
        return None
    variants: dict[str, dict[str, Any]] = {}
    for report in coverage:
        if not report.covered:
            continue
        entry = dict(draft.variants[report.variant])
        if len(report.covered) < len(kept):
            mine = set(report.covered)
            entry["cases"] = [case["id"] for case in kept if case["id"] in mine]
        variants[report.variant] = entry
    baseline = max(variants, key=lambda name: len(variants[name].get("cases", kept)))
    thresholds = dict(draft.thresholds)
    per_variant = thresholds.get("variants")
    if isinstance(per_variant, dict):
        thresholds["variants"] = {k: v for k, v in per_variant.items() if k in variants}
    return dataclasses.replace(draft, cases=kept, variants=variants, baseline=baseline, thresholds=thresholds)
