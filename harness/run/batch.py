"""`harness record --batch`: a suite's calls through the OpenAI Batch API (half the price, 24 h window).

The calls of a case depend on each other (a gleaning round continues the previous answer), so
the batch goes in phases: phase 1 holds every case's first call, phase k the k-th call of every
case whose conversation goes on. Each phase replays the conversation so far with the runner's own
`converse` (llm/gleaning.py), answered from the earlier phases, and collects the next request it
would send, so the batch sends exactly the requests a live recording sends. Gleaning rounds stay
in the batch (rather than live) because they are most of a gleaning suite's calls and cost half
there; a phase usually takes minutes, at worst the 24 h window.

A case whose conversation is complete gets its cassette written as a live recording would
(cassettes.write_exchanges); a case with a failed or missing line gets none, and the normal
recording run that follows (`record_mode` once) records it live. The batch id and phase are kept
in a state file beside the cassettes (`STATE_FILE`), with the answers of finished phases, so an
interrupted `harness record --batch` resumes polling the same batch instead of paying twice; it is
removed when every phase is done.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import InputError, ModelCallError
from ..inputfiles import jsonl_lines, loads
from ..suites import Suite
from ..llm.batch_sdk import guarded
from ..llm.batch_state import load_state, save_state
from ..llm.client import ChatResult, ModelClient
from ..llm.providers.openai import OpenAIProvider
from ..llm.request_digest import request_hash

STATE_FILE = ".batch-state"  # in the suite's cassette folder; not *.json, so the audit never sees it
BATCH_ENDPOINT = "/v1/chat/completions"
COMPLETION_WINDOW = "24h"
FINISHED = ("completed", "failed", "expired", "cancelled")
# the statuses of a batch on its way, in the order it goes through them (cancelling last: a batch
# being cancelled goes on to cancelled); any other status is not the Batch API's
STAGES = ("validating", "in_progress", "finalizing", "cancelling")
MIN_POLL_S = 1.0  # the shortest wait between two checks of a batch (`--batch-poll 0` is no loop)
MAX_POLL_S = 300.0  # the longest wait between two checks of a batch
MAX_BATCH_S = 26 * 3600.0  # the window plus the time OpenAI takes to finalise; then give up polling
MAX_STEPS_BACK = 3  # a batch whose status goes back this many times is not followed further


class _Pending(Exception):
    """The conversation needs a call no phase has answered yet."""

    def __init__(self, payload: dict[str, Any]) -> None:
        super().__init__("pending")
        self.payload = payload


class _PhaseClient:
    """Stands in for ModelClient in `converse`: answers the calls earlier phases answered (this
    case's, by request hash, in order) and stops the conversation at the first one not answered."""

    def __init__(self, client: ModelClient, answers: dict[str, str]) -> None:
        self.client = client
        self.answers = answers
        self.sent: list[dict[str, Any]] = []  # the conversation's payloads, in order

    def payload(self, messages: list[dict[str, Any]], **overrides: Any) -> dict[str, Any]:
        return self.client.payload(messages, **overrides)

    async def chat(self, messages: list[dict[str, Any]], *, payload: dict[str, Any] | None = None,
                   **overrides: Any) -> ChatResult:
        body = payload if payload is not None else self.client.payload(messages, **overrides)
        content = self.answers.get(request_hash(body))
        if content is None:
            raise _Pending(body)
        self.sent.append(body)
        c = self.client
        answer = c.provider.read_answer(content.encode("utf-8"), messages, c.settings.model)  # ModelCallError: failed
        return ChatResult(text=c.redactor.redact(answer.text), usage=answer.usage, latency_s=None,
                          usage_note=answer.usage_note, finish_reason=answer.finish_reason)


@dataclass
class BatchCase:
    """One case x variant x sample recorded through the batch."""

    key: str  # variant/case/sN: names its lines (custom_id) and its answers in the state file
    request: Any  # run.requests.CaseRequest
    client: ModelClient
    path: Path
    roots: tuple[Path, ...] = ()  # the project folder its cassette is written inside (harness/confined.py)


@dataclass
class BatchReport:
    """What `harness record --batch` did for one suite (its summary line)."""

    suite: str
    phases: int = 0
    lines: int = 0
    batch_ids: list[str] = field(default_factory=list)
    written: int = 0  # cassettes written from the batch
    failed: list[str] = field(default_factory=list)  # cases left to the live recording
    skipped: int = 0  # cases whose cassette exists (record mode once)
    resumed: bool = False

    def line(self) -> str:
        ids = ", ".join(self.batch_ids) or "none"
        return (f"harness: {self.suite}: batch: {self.lines} calls in {self.phases} phase"
                f"{'s' if self.phases != 1 else ''} ({ids}){' (resumed)' if self.resumed else ''}; "
                f"{self.written} cassettes written from the batch, {self.skipped} already recorded, "
                f"{len(self.failed)} failed lines retried live")


def state_path(suite: Suite) -> Path:
    return suite.cassette_dir() / STATE_FILE


def _load_state(path: Path) -> dict[str, Any]:
    return load_state(path)  # bounded, and every field checked (llm/batch_state.py)


def _save_state(path: Path, state: dict[str, Any]) -> None:
    save_state(path, state)


def _progress(message: str) -> None:
    sys.stderr.write(f"harness: {message}\n")
    sys.stderr.flush()


def _wait(seconds: float) -> None:
    """Between two checks of a batch (a function of its own: tests interrupt the run here)."""
    time.sleep(seconds)


def sdk_client(client: ModelClient) -> Any:
    """A synchronous OpenAI SDK client for the files and batches endpoints of `client`'s endpoint:
    bounded bodies, each request within the call deadline (`timeout_s`), retried by `_checked`
    (announced) rather than silently by the SDK."""
    import openai

    from ..llm.client import MAX_BODY_BYTES
    from ..llm.transport import BoundedSyncTransport, proxy_mounts

    deadline, limits = client.settings.timeout_s, openai.DEFAULT_CONNECTION_LIMITS
    http_client = openai.DefaultHttpxClient(
        transport=BoundedSyncTransport(max_body_bytes=MAX_BODY_BYTES, deadline_s=deadline, limits=limits),
        mounts=proxy_mounts(max_body_bytes=MAX_BODY_BYTES, deadline_s=deadline, limits=limits, sync=True))
    base_url = _openai_provider(client).base_url(client.settings)
    # its refusals (404/405: no Batch API) as the harness's own errors; what `_checked` retries passes through
    return guarded(openai.OpenAI(base_url=base_url, api_key=client._api_key,
                                 timeout=client.settings.timeout_s, max_retries=0, http_client=http_client), base_url)


def _openai_provider(client: ModelClient) -> OpenAIProvider:
    """The Batch API is OpenAI's: a suite whose provider has none is refused before this is reached
    (`plan_batch`); a provider that is not OpenAI's here is a bug, said as one."""
    provider = client.provider
    if not isinstance(provider, OpenAIProvider):
        raise TypeError(f"record --batch reached provider {provider.name!r}, which has no Batch API")
    return provider


def poll_interval(seconds: float) -> float:
    """A wait between two checks of a batch: at least MIN_POLL_S (0, negative and NaN included),
    at most MAX_POLL_S (infinity included)."""
    return MIN_POLL_S if not seconds >= MIN_POLL_S else min(seconds, MAX_POLL_S)


def _checked(call: Callable[[], Any], what: str, *, retries: int, label: str) -> Any:
    """`call()` (one request to the files or batches endpoints), retried up to `retries` times on
    a timeout, a dropped connection, a 429 or a 5xx; every retry announced."""
    import openai

    failures = 0
    while True:
        try:
            return call()
        except (openai.APIConnectionError, openai.RateLimitError, openai.InternalServerError) as exc:
            failures += 1
            why = ("no complete answer within the call's timeout_s" if isinstance(exc, openai.APITimeoutError)
                   else f"HTTP {exc.status_code}" if isinstance(exc, openai.APIStatusError)
                   else f"{type(exc).__name__}: {exc}")
            if failures > retries:
                raise ModelCallError(f"{label}: {what} failed after {failures} attempts: {why}") from None
            wait = poll_interval(2.0 ** (failures - 1))
            _progress(f"{label}: {what} failed ({why}); attempt {failures + 1} of {retries + 1} in {wait:g} s")
            _wait(wait)


class _Retried:
    """An SDK client whose files and batches calls go through `_checked`: what the SDK retried
    silently is retried here, announced."""

    def __init__(self, sdk: Any, *, retries: int, label: str) -> None:
        self.files = _RetriedResource(sdk.files, "files", retries, label)
        self.batches = _RetriedResource(sdk.batches, "batches", retries, label)


class _RetriedResource:
    def __init__(self, resource: Any, name: str, retries: int, label: str) -> None:
        self._resource, self._name, self._retries, self._label = resource, name, retries, label

    def __getattr__(self, method: str) -> Callable[..., Any]:
        call = getattr(self._resource, method)
        return lambda *args, **kwargs: _checked(lambda: call(*args, **kwargs), f"{self._name}.{method}",
                                                retries=self._retries, label=self._label)


def _lines_digest(lines: list[dict[str, Any]]) -> str:
    return request_hash({"lines": [[line["custom_id"], request_hash(line["body"])] for line in lines]})


def _submit(sdk: Any, lines: list[dict[str, Any]], suite: str, phase: int) -> str:
    data = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines).encode("utf-8")
    upload = sdk.files.create(file=(f"{suite}-phase-{phase}.jsonl", data, "application/jsonl"), purpose="batch")
    batch = sdk.batches.create(input_file_id=upload.id, endpoint=BATCH_ENDPOINT, completion_window=COMPLETION_WINDOW,
                               metadata={"harness_suite": suite, "harness_phase": str(phase)})
    return str(batch.id)


def _status_problem(status: Any, latest: int, steps_back: int) -> str | None:
    """Why a status cannot be followed: not the Batch API's, or going back once too often."""
    if not isinstance(status, str) or (status not in FINISHED and status not in STAGES):
        return f"answered a status the Batch API does not have ({str(status)[:40]!r})"
    if steps_back >= MAX_STEPS_BACK:
        return (f"went back to an earlier status {steps_back} times (now {status!r} after "
                f"{STAGES[latest]!r}): the endpoint's batch does not move on")
    return None


def _poll(sdk: Any, batch_id: str, label: str, first_wait_s: float) -> Any:
    """The batch once it has finished, checking with backoff (first_wait_s, doubling, between
    MIN_POLL_S and MAX_POLL_S). Gives up with one line on a status the Batch API does not have, on
    a status that keeps going back, and MAX_BATCH_S after the first check."""
    started = time.monotonic()
    wait = poll_interval(first_wait_s)
    latest = 0  # the furthest stage seen
    steps_back = 0
    while True:
        batch = sdk.batches.retrieve(batch_id)
        status = getattr(batch, "status", None)
        if isinstance(status, str) and status in STAGES:
            stage = STAGES.index(status)
            steps_back += stage < latest
            latest = max(latest, stage)
        problem = _status_problem(status, latest, steps_back)
        if problem is not None:
            raise ModelCallError(f"{label}: batch {batch_id} {problem}; nothing more is read from it "
                                 "(its finished cases are kept: run `harness record --batch` again to resume)")
        counts = getattr(batch, "request_counts", None)
        done = (f"{counts.completed}/{counts.total} done, {counts.failed} failed" if counts is not None
                else "no counts yet")
        if status in FINISHED:
            _progress(f"{label}: batch {batch_id} {status}: {done}")
            return batch
        elapsed = time.monotonic() - started
        if elapsed > MAX_BATCH_S:
            raise ModelCallError(f"batch {batch_id} still {status} after {elapsed / 3600:.1f} h; "
                                 "run `harness record --batch` again later to resume it")
        _progress(f"{label}: batch {batch_id} {status}: {done}; next check in {wait:.3g} s")
        _wait(wait)
        wait = poll_interval(wait * 2)


def _read_lines(sdk: Any, file_id: str | None) -> list[dict[str, Any]]:
    if not file_id:
        return []
    text = sdk.files.content(file_id).content.decode("utf-8", "replace")
    lines = []
    for _, raw in jsonl_lines(text):  # "\n" only: an answer may hold U+2028
        if not raw.strip():
            continue
        try:
            item = loads(raw)  # the JSON policy: no traceback for deep nesting or a 5,000-digit number
        except ValueError:
            continue  # a damaged line is a missing answer: its case is retried live
        if isinstance(item, dict):
            lines.append(item)
    return lines


def _answers_of(batch: Any, sdk: Any) -> tuple[dict[str, str], int]:
    """custom_id -> answer body (JSON text) of every line answered 200; and the count of error lines."""
    answers: dict[str, str] = {}
    for item in _read_lines(sdk, batch.output_file_id):
        response = item.get("response")
        if item.get("error") or not isinstance(response, dict) or response.get("status_code") != 200:
            continue
        body = response.get("body")
        if isinstance(body, dict) and isinstance(item.get("custom_id"), str):
            answers[item["custom_id"]] = json.dumps(body, ensure_ascii=False)
    errors = len(_read_lines(sdk, getattr(batch, "error_file_id", None)))
    return answers, errors


def _exchanges(case: BatchCase, payloads: list[dict[str, Any]], answers: dict[str, str]) -> list[tuple[Any, int, bytes]]:
    """The case's calls as vcrpy requests with the headers the SDK sends (the key: learnt, then scrubbed)."""
    from vcr.request import Request

    provider, settings = case.client.provider, case.client.settings
    uri = _openai_provider(case.client).base_url(settings).rstrip("/") + provider.post_path
    headers = {"content-type": "application/json", "authorization": f"Bearer {case.client._api_key}"}
    return [(Request("POST", uri, json.dumps(p, ensure_ascii=False).encode("utf-8"), headers), 200,
             answers[request_hash(p)].encode("utf-8")) for p in payloads]


async def _next_calls(cases: list[BatchCase], answers: dict[str, dict[str, str]], failed: set[str]
                      ) -> tuple[dict[str, dict[str, Any]], dict[str, list[dict[str, Any]]]]:
    """Replay every open case's conversation from the answers so far: the next payload of each
    case that goes on, and the payloads of each case that is complete."""
    from .requests import converse

    pending: dict[str, dict[str, Any]] = {}
    complete: dict[str, list[dict[str, Any]]] = {}
    for case in cases:
        if case.key in failed:
            continue
        phase_client = _PhaseClient(case.client, answers.get(case.key, {}))
        try:
            await converse(phase_client, case.request)  # type: ignore[arg-type]
        except _Pending as stop:
            pending[case.key] = stop.payload
        except ModelCallError:
            failed.add(case.key)  # an answer that is no chat completion: the live run retries it
        else:
            complete[case.key] = phase_client.sent
    return pending, complete


def record_batch(suite: Suite, cases: list[BatchCase], *, replace: bool, poll_s: float = 10.0,
                 batch_id: str | None = None, sdk_for: Callable[[ModelClient], Any] = sdk_client) -> BatchReport:
    """Record `cases` through the Batch API, phase by phase; write each complete case's cassette.

    `batch_id` attaches the current phase to a batch created earlier (e.g. from another machine)."""
    report = BatchReport(suite=suite.name)
    path = state_path(suite)
    state = _load_state(path)
    answers: dict[str, dict[str, str]] = state.get("answers", {})
    failed: set[str] = set(state.get("failed", []))
    report.batch_ids = list(state.get("batch_ids", []))
    report.phases = int(state.get("phase", 0))
    report.lines = int(state.get("lines", 0))
    report.resumed = bool(state)
    by_key = {c.key: c for c in cases}
    written: set[str] = set()
    while True:
        pending, complete = asyncio.run(_next_calls([c for c in cases if c.key not in written], answers, failed))
        for key, payloads in complete.items():
            case = by_key[key]
            write_ok = _write_case(case, payloads, answers.get(key, {}), replace=replace)
            written.add(key)
            report.written += int(write_ok)
        if not pending:
            break
        # one batch per model and endpoint: OpenAI takes one model per batch file
        groups: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
        for key, payload in pending.items():
            settings = by_key[key].client.settings
            lines = groups.setdefault((settings.base_url or "", settings.api_key_env, str(payload.get("model"))), [])
            call = len(answers.get(key, {}))
            lines.append({"custom_id": f"{key}#{call}", "method": "POST", "url": BATCH_ENDPOINT, "body": payload})
        phase = report.phases + 1 if state.get("open") is None else report.phases
        open_batches: dict[str, dict[str, str]] = dict(state.get("open") or {})
        for (base, key_env, model), lines in groups.items():
            group = f"{base} {key_env} {model}"
            digest = _lines_digest(lines)
            client = by_key[lines[0]["custom_id"].rsplit("#", 1)[0]].client
            sdk = _Retried(sdk_for(client), retries=client.settings.max_retries, label=f"{suite.name} phase {phase}")
            current = open_batches.get(group)
            if batch_id is not None:
                current = {"id": batch_id, "digest": digest}
                batch_id = None
            elif current is not None and current.get("digest") != digest:
                _progress(f"{suite.name}: the calls of batch {current['id']} are not this phase's any more "
                          "(the suite or the selection changed); creating a new batch (the old one is not cancelled)")
                current = None
            if current is None:
                current = {"id": _submit(sdk, lines, suite.name, phase), "digest": digest}
                report.lines += len(lines)
                report.batch_ids.append(current["id"])
            open_batches[group] = current
            state = {"phase": phase, "open": open_batches, "answers": answers, "failed": sorted(failed),
                     "batch_ids": report.batch_ids, "lines": report.lines}
            _save_state(path, state)
            label = f"{suite.name} phase {phase} ({len(lines)} calls)"
            batch = _poll(sdk, current["id"], label, poll_s)
            got, errors = _answers_of(batch, sdk)
            for line in lines:
                key = line["custom_id"].rsplit("#", 1)[0]
                content = got.get(line["custom_id"])
                if content is None:
                    failed.add(key)  # an error line, or no line at all (expired, failed batch)
                else:
                    answers.setdefault(key, {})[request_hash(line["body"])] = content
            if errors:
                _progress(f"{suite.name} phase {phase}: {errors} line{'s' if errors != 1 else ''} in the error file")
            del open_batches[group]
        report.phases = phase
        state = {"phase": phase, "open": None, "answers": answers, "failed": sorted(failed),
                 "batch_ids": report.batch_ids, "lines": report.lines}
        _save_state(path, state)
    for key in failed:
        report.failed.append(key)
        if replace:  # rewrite: the old cassette must not answer instead of the live recording
            by_key[key].path.unlink(missing_ok=True)
    path.unlink(missing_ok=True)
    return report


def _write_case(case: BatchCase, payloads: list[dict[str, Any]], answers: dict[str, str], *, replace: bool) -> bool:
    from ..llm.cassettes import write_exchanges

    key_envs = (case.client.settings.api_key_env, *case.client.provider.key_envs)
    return write_exchanges(case.path, _exchanges(case, payloads, answers), key_envs=key_envs, replace=replace,
                           roots=case.roots, batch=True)


def plan_batch(suite: Suite, *, mode: str, variants: list[str] | None, cases: list[str] | None,
               base_url: str | None, shard: tuple[int, int] | None, repeat: int,
               models: list[str] | None = None) -> tuple[list[BatchCase], int]:
    """The cases to record through the batch, and how many are skipped (their cassette exists, mode once)."""
    from .schedule import RunOptions, select_cases
    from .requests import case_request, clients_for
    from .plan import plan_variant

    options = RunOptions(record_mode=mode, variants=variants, models=models, cases=cases, base_url=base_url, shard=shard,
                         repeat=repeat)
    names, chosen = select_cases(suite, options)
    plans = {name: plan_variant(suite, name) for name in names}
    for name, plan in plans.items():
        if base_url:
            plan.endpoint.base_url = base_url
            plan.endpoint.base_urls = ()
        if plan.endpoint.provider != "openai":
            raise InputError(f"{suite.path}: variant '{name}': --batch sends through the OpenAI Batch API; "
                             f"model.provider '{plan.endpoint.provider}' is not supported (record it without --batch)")
    client_of = clients_for(plans, replay=False)  # a key is needed: refused here without one
    todo: list[BatchCase] = []
    skipped = 0
    for name, case in suite.pairs(names, chosen):
        first = case_request(plans[name], client_of[name], case)
        for sample in range(repeat):
            request = first if sample == 0 else first.for_sample(sample)
            path = request.cassette_path(suite)
            if mode == "once" and path.exists():
                skipped += 1
                continue
            todo.append(BatchCase(f"{name}/{case.id}/s{sample}", request, client_of[name], path, (suite.root,)))
    return todo, skipped
