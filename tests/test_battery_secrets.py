"""Battery: a key must not reach disk or screen, whatever carries it there (issue 28, items 1-4).

Each scenario runs one harness command end to end (in this process, through `harness.cli.main`)
with a configured key that something hostile or careless puts in its way: an endpoint that
echoes it (in the answer, at its start or end, base64 with or without padding, URL-encoded,
JSON-escaped, in usage, in the finish reason, in an error body, in a batch status), an outputs
file that holds it (`harness evaluate`), a project whose settings or files hold it (`harness
import`), or a command line that names it. Every surface the command writes or prints is then
searched for the key in any common encoding, by a detector of this module's own (decoding what it
finds, not re-deriving the harness's list of forms).

A scenario runs once per process (cached); each (variant, surface) pair is one test, so a
failure names the surface and the count of held/broken per surface is the count of passed and
failed tests with that surface in their id (`surface-variant`). Recording, batch and evaluate
scenarios are `slow` (a run with reports each); import and command-line ones are quick.
"""

from __future__ import annotations

import base64
import contextlib
import html
import io
import json
import logging
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, quote_plus, unquote, unquote_plus

import pytest
import yaml

from harness.cli import main
from harness.run import batch as batch_module
from harness.llm import client as client_module

from .support.fake_server import FakeOpenAIServer, RawReply

# --------------------------------------------------------------------------- keys (built at run time:
# the repository holds no credential-like text)

KEYS: dict[str, str] = {
    "openai": "sk-proj-" + "T3stK3yQ9wErTy7uIoP4" + "aSdF6gHjK2lZxC8vBnM5",
    "azure": "9f86d081884c7d65" + "9a2feaa0c55ad015",  # 32 hex digits, as Azure's
    "b64ish": "Zm9v+bar/BAZ" + "==qux+Kq7Lm2Np9Rs4",  # base64's own alphabet, padding inside
    "special": 'pw"q\\r/s&t' + "<u>v%w+x=y'z",  # what JSON, URLs and HTML escape
    "unicode": "clé-секрет-" + "\U0001f511-0042-Ωμέγα",  # no header can carry it: files only
}
HTTP_KEYS = ("openai", "azure", "b64ish", "special")


# --------------------------------------------------------------------------- the detector

_B64_RUN = re.compile(r"[A-Za-z0-9+/_-]{6,}")
_HEX_RUN = re.compile(r"[0-9a-fA-F]{16,}")
_JSON_ESCAPE = re.compile(r'\\(u[0-9a-fA-F]{4}|["\\/bfnrt])')
_SSE_PIECE = re.compile(r'"content"\s*:\s*"((?:[^"\\]|\\.)*)"')
_SIMPLE = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


def _json_unescape(text: str) -> str:
    def one(match: re.Match[str]) -> str:
        code = match.group(1)
        return chr(int(code[1:], 16)) if code[0] == "u" else _SIMPLE[code]

    # escaped surrogate pairs (an emoji as two \\u escapes) make one character again
    return _JSON_ESCAPE.sub(one, text).encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def _views(text: str) -> Iterator[tuple[str, str]]:
    """The text as a reader could decode it: as is, URL-decoded, HTML-unescaped, JSON-unescaped
    (once, twice), and the pieces of a streamed answer joined."""
    for outer_name, outer in (("", text), ("html+", html.unescape(text))):
        for name, view in (("plain", outer), ("url", unquote(outer)), ("url+", unquote_plus(outer)),
                           ("json", _json_unescape(outer)), ("json2", _json_unescape(_json_unescape(outer)))):
            yield outer_name + name, view
            yield outer_name + name + "+sse", "".join(map(_json_unescape, _SSE_PIECE.findall(view)))


def _decoded_runs(text: str) -> Iterator[tuple[str, bytes]]:
    for run in _B64_RUN.findall(text):
        standard = run.replace("-", "+").replace("_", "/")
        for skip in range(4):
            body = standard[skip:]
            body = body[:-1] if len(body) % 4 == 1 else body + "=" * (-len(body) % 4)
            if body:
                with contextlib.suppress(ValueError):
                    yield "base64", base64.b64decode(body)
    for run in _HEX_RUN.findall(text):
        for skip in range(2):
            body = run[skip:]
            yield "hex", bytes.fromhex(body[: len(body) - len(body) % 2])


def exposed(text: str, key: str) -> str | None:
    """How `key` can be read back from `text` (a view's name), or None when it cannot."""
    raw = key.encode("utf-8")
    for name, view in _views(text):
        if key in view:
            return name
        if len(key) >= 8:
            for kind, decoded in _decoded_runs(view):
                if raw in decoded:
                    return f"{name}+{kind}"
    return None


def test_the_detector_finds_every_form_it_is_meant_to():
    """The battery is only as good as its detector: each encoding an endpoint could echo is found."""
    for key in KEYS.values():
        raw = key.encode()
        for form in (key, json.dumps(key), json.dumps(json.dumps(key)), quote(key, safe=""), quote_plus(key),
                     html.escape(key), base64.b64encode(raw).decode(), base64.b64encode(raw).decode().rstrip("="),
                     base64.urlsafe_b64encode(raw).decode().rstrip("="),
                     base64.b64encode(b"Bearer " + raw).decode(), base64.b64encode(b"u:" + raw).decode(),
                     raw.hex(), raw.hex().upper(), "".join(f"\\u{ord(c):04x}" for c in key if ord(c) < 0x10000)):
            if "\\u" in form and any(ord(c) >= 0x10000 for c in key):
                continue
            assert exposed(f"before {form} after", key), (key, form)
        half = len(key) // 2
        stream = (f'data: {{"choices":[{{"delta":{{"content":{json.dumps(key[:half])}}}}}]}}\n\n'
                  f'data: {{"choices":[{{"delta":{{"content":{json.dumps(key[half:])}}}}}]}}\n\n')
        assert exposed(stream, key)
    assert exposed("nothing here: [REDACTED] and sk-proj-other", KEYS["openai"]) is None


# --------------------------------------------------------------------------- encodings an echo uses

Encode = Callable[[str], str]


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


FORMS: dict[str, Encode] = {
    "plain": lambda k: f"note {k} note",
    "start": lambda k: k + " trails",
    "end": lambda k: "leads " + k,
    "alone": lambda k: k,
    "b64-pad": lambda k: _b64(k),
    "b64-nopad": lambda k: _b64(k).rstrip("="),
    "b64url": lambda k: base64.urlsafe_b64encode(k.encode()).decode().rstrip("="),
    "b64-bearer": lambda k: _b64("Bearer " + k),
    "b64-basic": lambda k: _b64("user:" + k),
    "b64-in-blob": lambda k: _b64("{\"auth\": \"" + k + "\", \"n\": 1}"),
    "url": lambda k: quote(k, safe=""),
    "url-plus": lambda k: quote_plus(k),
    "json": lambda k: json.dumps(k)[1:-1],
    "json2": lambda k: json.dumps(json.dumps(k))[1:-1],
    "html": lambda k: html.escape(k),
    "hex": lambda k: k.encode().hex(),
    "uescape": lambda k: "".join(f"\\u{ord(c):04x}" for c in k),
    "header-echo": lambda k: f"Debug: you sent Authorization: Bearer {k}",
}
# the forms each key is tried in (JSON, URL and HTML escapes change only keys with such characters)
KEY_FORMS: dict[str, tuple[str, ...]] = {
    "openai": tuple(FORMS),
    "azure": ("plain", "alone", "b64-pad", "b64-nopad", "hex", "header-echo"),
    "b64ish": ("plain", "b64-pad", "url", "url-plus", "json"),
    "special": ("plain", "alone", "json", "json2", "url", "url-plus", "html", "b64-nopad", "uescape"),
    "unicode": ("plain", "json", "url", "b64-pad"),
}


# --------------------------------------------------------------------------- running a scenario once


@dataclass
class Outcome:
    key: str
    code: int
    surfaces: dict[str, str] = field(default_factory=dict)


_OUTCOMES: dict[str, Outcome] = {}


def _read_all(paths: list[Path], root: Path) -> str:
    parts = []
    for path in sorted(paths):
        parts.append(str(path.relative_to(root)))  # a file's name is on disk too
        with contextlib.suppress(OSError):
            parts.append(path.read_text(encoding="utf-8", errors="replace"))
    return "\n".join(parts)


def _files(root: Path, pattern: str) -> list[Path]:
    return [p for p in root.rglob(pattern) if p.is_file()] if root.exists() else []


class _ToStderr(logging.Handler):
    """What Python's last-resort handler does outside pytest: each warning on `sys.stderr` as it
    is at that moment (pytest's own log capture would otherwise keep them off the screen)."""

    def emit(self, record: logging.LogRecord) -> None:
        sys.stderr.write(self.format(record) + "\n")


def _cli(args: list[str], cwd: Path, env: dict[str, str | None]) -> tuple[int, str, str]:
    """`harness ARGS` in `cwd` with `env` set (None: unset); its exit code, stdout and stderr."""
    out, err = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as mp:
        for name in ("CI", "OPENAI_BASE_URL", "AZURE_OPENAI_ENDPOINT", "OPENAI_API_KEY", "AZURE_OPENAI_API_KEY"):
            mp.delenv(name, raising=False)
        for name, value in env.items():
            if value is None:
                mp.delenv(name, raising=False)
            else:
                mp.setenv(name, value)
        mp.chdir(cwd)
        # every wait is announced (the announcement is what item 4 is about; the client announces
        # each retry since issue 28.9), none is waited
        handler = _ToStderr(logging.WARNING)
        logger = logging.getLogger("harness")
        logger.addHandler(handler)
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = main(args)
        finally:
            logger.removeHandler(handler)
    return code, out.getvalue(), err.getvalue()


def run_surfaces(root: Path) -> dict[str, str]:
    """What a run folder holds, by surface."""
    reports = root / "reports"
    return {
        "results": _read_all(_files(reports, "results.jsonl"), root),
        "report": _read_all(_files(reports, "report.html") + _files(reports, "report.md"), root),
        "junit": _read_all(_files(reports, "junit.xml"), root),
        "summary": _read_all(_files(reports, "summary.json") + _files(reports, "gate.json"), root),
    }


def outcome(name: str, make: Callable[[Path], Outcome], factory: pytest.TempPathFactory) -> Outcome:
    if name not in _OUTCOMES:
        _OUTCOMES[name] = make(factory.mktemp(re.sub(r"[^A-Za-z0-9]+", "-", name)[:60]))
    return _OUTCOMES[name]


SCREEN = ("stdout", "stderr")


def check(result: Outcome, surface: str) -> None:
    text = result.surfaces.get(surface, "")
    # a file surface a variant claims must exist: a key is not "held" by a command that wrote nothing
    assert text or surface in SCREEN, f"{surface}: nothing was written (exit {result.code})"
    found = exposed(text, result.key)
    assert found is None, f"{surface}: the key can be read back ({found}); exit {result.code}"


# --------------------------------------------------------------------------- recording (items 3-4: runs)

PROMPT = ("Extract entities of types [{entity_types}] from the text.\n"
          '("entity"{tuple_delimiter}NAME{tuple_delimiter}TYPE{tuple_delimiter}DESC){record_delimiter}\n'
          "End with {completion_delimiter}\nText: {input_text}\nOutput:")
GOOD = '("entity"<|>ANA RUIZ<|>person<|>Mayor)##("entity"<|>LOWBRIDGE<|>geo<|>Town)\n<|COMPLETE|>'


def _project(root: Path, *, key_env: str = "OPENAI_API_KEY", model: str = "gpt-4o-mini") -> Path:
    (root / "suites").mkdir(parents=True)
    (root / "prompts").mkdir()
    (root / "prompts" / "p.txt").write_text(PROMPT, encoding="utf-8")
    suite = {
        "name": "echo", "language": "English", "entity_types": ["person", "geo"],
        "model": {"name": model, "temperature": 0, "max_gleanings": 1, "max_retries": 2, "api_key_env": key_env},
        "variants": {"default": {"prompt": "prompts/p.txt"}},
        "thresholds": {"entity_recall": 0.5},
        "cases": [{"id": "mayor", "text": "Mayor Ana Ruiz of Lowbridge opened the library.",
                   "entities": [{"name": "Ana Ruiz", "type": "person"}, {"name": "Lowbridge", "type": "geo"}]}],
    }
    (root / "suites" / "echo.yaml").write_text(yaml.safe_dump(suite, sort_keys=False), encoding="utf-8")
    return root / "suites" / "echo.yaml"


def _completion(text: str, *, usage: Any = None, finish: Any = "stop", model: str = "gpt-4o-mini",
                extra: dict[str, Any] | None = None) -> bytes:
    body: dict[str, Any] = {"id": "chatcmpl-1", "object": "chat.completion", "created": 1700000000, "model": model,
                            "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                                         "finish_reason": finish}],
                            "usage": usage if usage is not None else
                            {"prompt_tokens": 50, "completion_tokens": 20, "total_tokens": 70}}
    body.update(extra or {})
    return json.dumps(body).encode()


def _json_reply(payload: Any, status: int = 200, headers: dict[str, str] | None = None) -> RawReply:
    data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    return RawReply(status, {"Content-Type": "application/json", **(headers or {})}, data)


# an endpoint's replies, call by call (then a good answer for every later call)
Replies = Callable[[str], list[RawReply]]

RECORD_ALL = ("cassettes", "results", "report", "junit", "summary", "stdout", "stderr")


@dataclass(frozen=True)
class RecordCase:
    name: str
    key: str
    replies: Replies
    surfaces: tuple[str, ...] = RECORD_ALL
    key_env: str = "OPENAI_API_KEY"
    model_is_key: bool = False


def _echo(form: str) -> Replies:
    return lambda k: [_json_reply(_completion(GOOD + "\n" + FORMS[form](k)))]


def _split_rounds(k: str) -> list[RawReply]:
    half = len(k) // 2
    return [_json_reply(_completion(GOOD.replace("<|COMPLETE|>", "") + k[:half])),
            _json_reply(_completion(k[half:] + "\n<|COMPLETE|>"))]


def _sse(k: str) -> list[RawReply]:
    half = len(k) // 2
    events = "".join(f"data: {json.dumps({'choices': [{'index': 0, 'delta': {'content': piece}}]})}\n\n"
                     for piece in (GOOD, k[:half], k[half:])) + "data: [DONE]\n\n"
    return [RawReply(200, {"Content-Type": "text/event-stream"}, events.encode())] * 2  # then an answer


RECORD_CASES: list[RecordCase] = [
    *(RecordCase(f"answer-{key}-{form}", key, _echo(form)) for key in HTTP_KEYS for form in KEY_FORMS[key]),
    RecordCase("answer-split-across-gleaning-rounds", "openai", _split_rounds),
    RecordCase("sse-stream-split-key", "openai", _sse, ("cassettes", "stderr", "stdout")),
    RecordCase("usage-token-count-is-key", "openai",
               lambda k: [_json_reply(_completion(GOOD, usage={"prompt_tokens": k, "completion_tokens": 3,
                                                               "total_tokens": 9}))]),
    RecordCase("usage-extra-field", "openai",
               lambda k: [_json_reply(_completion(GOOD, usage={"prompt_tokens": 50, "completion_tokens": 20,
                                                               "total_tokens": 70, "debug": _b64(k)}))]),
    RecordCase("finish-reason-is-key", "openai", lambda k: [_json_reply(_completion(GOOD, finish=k))]),
    RecordCase("finish-reason-b64", "openai", lambda k: [_json_reply(_completion(GOOD, finish=_b64(k)))]),
    RecordCase("response-model-is-key", "openai", lambda k: [_json_reply(_completion(GOOD, model=k))]),
    RecordCase("response-extra-field", "openai",
               lambda k: [_json_reply(_completion(GOOD, extra={"system_fingerprint": quote(k)}))]),
    RecordCase("response-header-echo", "openai",
               lambda k: [_json_reply(_completion(GOOD), headers={"X-Debug-Auth": f"Bearer {k}"})]),
    # item 4: error bodies on the way to a success (the "waiting N s before attempt" warning)
    *(RecordCase(f"error-500-then-ok-{form}", "openai",
                 (lambda f: lambda k: [_json_reply({"error": {"message": f"bad key {FORMS[f](k)}"}}, 500,
                                                   {"Retry-After": "0"})])(form))
      for form in ("plain", "b64-nopad", "url", "header-echo")),
    RecordCase("error-500-then-ok-special-json", "special",
               lambda k: [_json_reply({"error": {"message": f"bad key {k}"}}, 500, {"Retry-After": "0"})]),
    RecordCase("error-502-text-body", "openai",
               lambda k: [RawReply(502, {"Content-Type": "text/plain"}, f"upstream said: {k}".encode())]),
    RecordCase("error-200-not-an-answer", "openai", lambda k: [_json_reply({"detail": f"token {k} refused"})]),
    # item 4: the Retry-After refusal (the call gives up at once: nothing else written)
    *(RecordCase(f"retry-after-refusal-{form}", "openai",
                 (lambda f: lambda k: [_json_reply({"error": {"message": f"slow down, {FORMS[f](k)}"}}, 503,
                                                   {"Retry-After": "100000"})])(form), SCREEN)
      for form in ("plain", "b64-pad", "json", "url")),
    RecordCase("retry-after-refusal-429", "openai",
               lambda k: [_json_reply({"error": {"message": f"quota of {k}"}}, 429, {"Retry-After": "100000"})],
               SCREEN),
    RecordCase("error-400-final", "openai",
               lambda k: [_json_reply({"error": {"message": f"invalid key {k}"}}, 400)], SCREEN),
    RecordCase("error-401-b64", "openai",
               lambda k: [_json_reply({"error": {"message": f"invalid {_b64(k)}"}}, 401)], SCREEN),
    RecordCase("every-attempt-fails", "openai",
               lambda k: [_json_reply({"error": {"message": f"down for {k}"}}, 500, {"Retry-After": "0"})] * 3,
               SCREEN),
    # the suite names its own key variable (not a name that looks like a key)
    *(RecordCase(f"own-key-env-{form}", "azure", _echo(form), key_env="MY_LLM_CREDENTIAL")
      for form in ("plain", "b64-nopad", "hex")),
    RecordCase("own-key-env-error-refusal", "openai",
               lambda k: [_json_reply({"error": {"message": f"no: {k}"}}, 503, {"Retry-After": "100000"})],
               SCREEN, key_env="MY_LLM_CREDENTIAL"),
    # a model name holding the key (a copy-paste slip in the suite): reports must not repeat it
    RecordCase("suite-model-name-is-key", "openai", lambda k: [], ("results", "report", "junit", "summary", "stdout",
                                                                   "stderr"), model_is_key=True),
]


def _record(case: RecordCase) -> Callable[[Path], Outcome]:
    def make(root: Path) -> Outcome:
        key = KEYS[case.key]
        suite = _project(root, key_env=case.key_env, model=key if case.model_is_key else "gpt-4o-mini")
        replies = list(case.replies(key))

        def raw(body: dict[str, Any]) -> RawReply | None:
            return replies.pop(0) if replies else None

        def responder(body: dict[str, Any]) -> str:
            users = [m for m in body.get("messages", []) if m.get("role") == "user"]
            return GOOD if len(users) == 1 else "<|COMPLETE|>"

        with FakeOpenAIServer(responder, raw=raw) as server:
            code, out, err = _cli(["record", str(suite), "--base-url", server.base_url, "--reports",
                                   str(root / "reports"), "--run-id", "r"], root, {case.key_env: key})
        result = Outcome(key, code, run_surfaces(root))
        result.surfaces.update(stdout=out, stderr=err,
                               cassettes=_read_all(_files(root / "fixtures", "*"), root))
        return result

    return make


@pytest.mark.slow
@pytest.mark.xdist_group("battery-secrets-record")
@pytest.mark.parametrize(("case", "surface"), [(c, s) for c in RECORD_CASES for s in c.surfaces],
                         ids=[f"{s}-{c.name}" for c in RECORD_CASES for s in c.surfaces])
def test_record(case: RecordCase, surface: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    check(outcome(f"record-{case.name}", _record(case), tmp_path_factory), surface)


# --------------------------------------------------------------------------- the Batch API (item 1)


class _EchoingBatchServer(FakeOpenAIServer):
    """Batch answers through `shape` (the completion body a line gets); `status` renames a batch's
    in-progress state (a hostile endpoint's free text, printed by the poller)."""

    def __init__(self, responder: Any, shape: Callable[[dict[str, Any]], dict[str, Any]],
                 status: str | None = None) -> None:
        super().__init__(responder)
        self.shape = shape
        self.status = status

    def completion(self, body: dict[str, Any], text: str, number: int) -> dict[str, Any]:
        return self.shape(super().completion(body, text, number))

    def batch_view(self, batch_id: str) -> dict[str, Any]:
        view = super().batch_view(batch_id)
        if self.status is not None and view["status"] == "in_progress":
            view["status"] = self.status
        return view


@dataclass(frozen=True)
class BatchCase:
    name: str
    key: str
    shape: Callable[[str, dict[str, Any]], dict[str, Any]]
    status: Callable[[str], str] | None = None
    surfaces: tuple[str, ...] = ("batch_state", "stderr", "stdout")


def _answer_with(form: str) -> Callable[[str, dict[str, Any]], dict[str, Any]]:
    def shape(k: str, body: dict[str, Any]) -> dict[str, Any]:
        body["choices"][0]["message"]["content"] += "\n" + FORMS[form](k)
        return body

    return shape


def _set(path: tuple[str, ...], value: Callable[[str], Any]) -> Callable[[str, dict[str, Any]], dict[str, Any]]:
    def shape(k: str, body: dict[str, Any]) -> dict[str, Any]:
        target = body
        for step in path[:-1]:
            target = target.setdefault(step, {})
        target[path[-1]] = value(k)
        return body

    return shape


BATCH_CASES: list[BatchCase] = [
    *(BatchCase(f"answer-{key}-{form}", key, _answer_with(form))
      for key in HTTP_KEYS for form in KEY_FORMS[key] if form in ("plain", "alone", "b64-pad", "b64-nopad", "b64url",
                                                                    "json", "json2", "url", "hex", "uescape",
                                                                    "header-echo", "html")),
    BatchCase("usage-field", "openai", _set(("usage", "debug"), lambda k: k)),
    BatchCase("usage-tokens-b64", "openai", _set(("usage", "prompt_tokens"), _b64)),
    BatchCase("model-field", "openai", _set(("model",), lambda k: k)),
    BatchCase("finish-reason", "openai", lambda k, b: {**b, "choices": [{**b["choices"][0], "finish_reason": k}]}),
    BatchCase("extra-field-url", "openai", _set(("system_fingerprint",), lambda k: quote(k, safe=""))),
    BatchCase("batch-status-is-key", "openai", lambda k, b: b, status=lambda k: f"in_progress ({k})",
              surfaces=("stderr", "stdout")),
]


def _batch(case: BatchCase) -> Callable[[Path], Outcome]:
    def make(root: Path) -> Outcome:
        key = KEYS[case.key]
        suite = _project(root)

        def responder(body: dict[str, Any]) -> str:
            users = [m for m in body.get("messages", []) if m.get("role") == "user"]
            return GOOD if len(users) == 1 else "<|COMPLETE|>"

        waits = {"n": 0}

        def interrupted(seconds: float) -> None:
            waits["n"] += 1
            if waits["n"] >= 2:  # phase 2 in progress: phase 1's answers are in the state file
                raise KeyboardInterrupt

        server = _EchoingBatchServer(responder, lambda body: case.shape(key, body),
                                     None if case.status is None else case.status(key))
        with server, pytest.MonkeyPatch.context() as mp:
            mp.setattr(batch_module, "_wait", interrupted)
            code, out, err = _cli(["record", str(suite), "--batch", "--batch-poll", "1", "--base-url", server.base_url,
                                   "--reports", str(root / "reports")], root, {"OPENAI_API_KEY": key})
        state = root / "fixtures" / "cassettes" / "echo" / batch_module.STATE_FILE
        text = state.read_text(encoding="utf-8") if state.exists() else ""
        return Outcome(key, code, {"batch_state": text, "stderr": err, "stdout": out})

    return make


@pytest.mark.slow
@pytest.mark.xdist_group("battery-secrets-batch")
@pytest.mark.parametrize(("case", "surface"), [(c, s) for c in BATCH_CASES for s in c.surfaces],
                         ids=[f"{s}-{c.name}" for c in BATCH_CASES for s in c.surfaces])
def test_batch(case: BatchCase, surface: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    result = outcome(f"batch-{case.name}", _batch(case), tmp_path_factory)
    if surface == "batch_state" and case.status is None:
        assert result.code == 130 and result.surfaces["batch_state"], "the battery meant to leave a batch state"
    check(result, surface)


# --------------------------------------------------------------------------- evaluate (item 3)

EVAL_SUITE = """\
name: astronauts
model:
  api_key_env: {key_env}
variants:
  benchmark:
    prompt: builtin:graphrag.extract_graph
entity_types: [person, city]
cases:
  - id: s1
    text: "Alan Bean was born in Wheeler."
    entities: [{{name: Alan Bean}}, {{name: Wheeler}}]
  - id: s2
    text: "Buzz Aldrin studied at MIT."
    entities: [{{name: Buzz Aldrin}}, {{name: MIT}}]
"""
EVAL_GOOD = '("entity"<|>ALAN BEAN<|>person<|>Astronaut)##("entity"<|>WHEELER<|>city<|>Town)\n<|COMPLETE|>'
EVAL_ALL = ("results", "report", "junit", "summary", "stdout", "stderr")


@dataclass(frozen=True)
class EvalCase:
    name: str
    key: str
    rows: Callable[[str], list[dict[str, Any]]]
    surfaces: tuple[str, ...] = EVAL_ALL
    key_env: str = "OPENAI_API_KEY"
    outputs_name: Callable[[str], str] = lambda k: "pipeline.jsonl"
    extra: tuple[str, ...] = ()


def _rows_with(text: Callable[[str], str]) -> Callable[[str], list[dict[str, Any]]]:
    return lambda k: [{"id": "s1", "output": text(k)}, {"id": "s2", "output": EVAL_GOOD}]


EVAL_CASES: list[EvalCase] = [
    *(EvalCase(f"output-{key}-{form}", key, _rows_with((lambda f: lambda k: EVAL_GOOD + "\n" + FORMS[f](k))(form)))
      for key in KEYS for form in KEY_FORMS[key]),
    EvalCase("output-is-only-the-key", "openai", _rows_with(lambda k: k)),
    EvalCase("entity-name-is-key", "openai",
             _rows_with(lambda k: f'("entity"<|>{k}<|>person<|>Someone)\n<|COMPLETE|>')),
    EvalCase("entity-name-is-special-key", "special",
             _rows_with(lambda k: f'("entity"<|>{k}<|>person<|>Someone)\n<|COMPLETE|>')),
    EvalCase("entity-type-is-key", "openai",
             _rows_with(lambda k: f'("entity"<|>ALAN BEAN<|>{k}<|>Astronaut)\n<|COMPLETE|>')),
    EvalCase("description-holds-b64", "openai",
             _rows_with(lambda k: f'("entity"<|>ALAN BEAN<|>person<|>auth {_b64(k)})\n<|COMPLETE|>')),
    EvalCase("relationship-holds-key", "openai",
             _rows_with(lambda k: EVAL_GOOD.replace("<|COMPLETE|>", "")
                        + f'##("relationship"<|>ALAN BEAN<|>WHEELER<|>{k}<|>5)\n<|COMPLETE|>')),
    EvalCase("json-answer-holds-key", "openai",
             _rows_with(lambda k: json.dumps({"entities": [{"name": k, "type": "person"}], "relationships": []}))),
    EvalCase("second-round-holds-key", "openai",
             lambda k: [{"id": "s1", "rounds": [EVAL_GOOD, f"more: {k}"]}, {"id": "s2", "output": EVAL_GOOD}]),
    EvalCase("row-id-is-key", "openai", lambda k: [{"id": k, "output": EVAL_GOOD}, {"id": "s1", "output": EVAL_GOOD}]),
    EvalCase("row-id-is-b64-key", "openai",
             lambda k: [{"id": _b64(k), "output": EVAL_GOOD}, {"id": "s1", "output": EVAL_GOOD}]),
    EvalCase("bad-row-names-key", "openai", lambda k: [{"id": "s1", "output": EVAL_GOOD, "rounds": [k]}],
             ("stdout", "stderr")),
    EvalCase("outputs-file-named-after-key", "openai", _rows_with(lambda k: EVAL_GOOD),
             outputs_name=lambda k: f"{k}.jsonl"),
    EvalCase("suite-key-env-plain", "azure", _rows_with(lambda k: EVAL_GOOD + " " + k), key_env="MY_LLM_CREDENTIAL"),
    EvalCase("suite-key-env-b64", "azure", _rows_with(lambda k: EVAL_GOOD + " " + _b64(k)), key_env="MY_LLM_CREDENTIAL"),
    EvalCase("suite-key-env-hex", "azure", _rows_with(lambda k: EVAL_GOOD + " " + k.encode().hex()),
             key_env="MY_LLM_CREDENTIAL"),
    EvalCase("json-printout", "openai", _rows_with(lambda k: EVAL_GOOD + "\n" + k), ("stdout", "stderr"),
             extra=("--json",)),
    EvalCase("json-printout-b64", "openai", _rows_with(lambda k: EVAL_GOOD + "\n" + _b64(k)), ("stdout", "stderr"),
             extra=("--json",)),
]


def _evaluate(case: EvalCase) -> Callable[[Path], Outcome]:
    def make(root: Path) -> Outcome:
        key = KEYS[case.key]
        (root / "suites").mkdir()
        suite = root / "suites" / "astronauts.yaml"
        suite.write_text(EVAL_SUITE.format(key_env=case.key_env), encoding="utf-8")
        outputs = root / case.outputs_name(key)
        outputs.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in case.rows(key)), encoding="utf-8")
        code, out, err = _cli(["evaluate", str(suite), "--outputs", str(outputs), "--reports", str(root / "reports"),
                               "--run-id", "e", *case.extra], root, {case.key_env: key})
        result = Outcome(key, code, run_surfaces(root))
        result.surfaces.update(stdout=out, stderr=err)
        return result

    return make


@pytest.mark.slow
@pytest.mark.xdist_group("battery-secrets-evaluate")
@pytest.mark.parametrize(("case", "surface"), [(c, s) for c in EVAL_CASES for s in c.surfaces],
                         ids=[f"{s}-{c.name}" for c in EVAL_CASES for s in c.surfaces])
def test_evaluate(case: EvalCase, surface: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    check(outcome(f"evaluate-{case.name}", _evaluate(case), tmp_path_factory), surface)


# --------------------------------------------------------------------------- import (item 2)

EXTRACT = """-Goal-
Given a text document and a list of entity types, identify all entities of those types.
Entity types: {entity_types}
Format each entity as ("entity"{tuple_delimiter}<name>{tuple_delimiter}<type>{tuple_delimiter}<description>)
Use {record_delimiter} between records and end with {completion_delimiter}.
######################
Example 1:
Entity_types: person, geo
Text: Mara Lind moved to Oslo.
Output:
("entity"{tuple_delimiter}MARA LIND{tuple_delimiter}person{tuple_delimiter}A woman){record_delimiter}
("entity"{tuple_delimiter}OSLO{tuple_delimiter}geo{tuple_delimiter}A city){completion_delimiter}
######################
Entity_types: {entity_types}
Text: {input_text}
Output:
"""
GRAPHRAG_SETTINGS = """\
encoding_model: cl100k_base
llm:
  api_key: ${{{key_var}}}
  type: openai_chat
  model: {model}
  api_base: http://localhost:8000/v1
  max_tokens: 2000
chunks:
  size: 300
  overlap: 100
input:
  type: file
  file_type: text
  base_dir: "{input_dir}"
  file_encoding: utf-8
  file_pattern: ".*\\\\.txt$"
entity_extraction:
  prompt: "prompts/entity_extraction.txt"
  entity_types: {types}
  max_gleanings: 1
{extra}"""
IMPORT_ALL = ("import", "stdout", "stderr")


@dataclass(frozen=True)
class GraphRAGCase:
    name: str
    key: str = "openai"
    key_var: str = "GRAPHRAG_API_KEY"  # what `api_key:` names
    environ: tuple[str, ...] = ()  # variables set in the environment (to the key)
    dotenv: tuple[str, ...] = ("GRAPHRAG_API_KEY",)  # variables the project's .env sets (to the key)
    model: str = "gpt-4o-mini"
    types: str = "[organization, person, geo]"
    extra: str = ""
    prompt_extra: Callable[[str], str] = lambda k: ""
    input_text: Callable[[str], str] = lambda k: "Mayor Ana Ruiz of Lowbridge opened the library."
    input_dir: str = "input"
    others: dict[str, str] = field(default_factory=dict)  # other variables: name -> value ("KEY": the key)


GRAPHRAG_CASES: list[GraphRAGCase] = [
    GraphRAGCase("types-list-from-openai-key", environ=("OPENAI_API_KEY",), types="[person, ${OPENAI_API_KEY}]"),
    GraphRAGCase("types-list-from-settings-key", types="[person, ${GRAPHRAG_API_KEY}]"),
    GraphRAGCase("types-string-from-key", types='"person,${GRAPHRAG_API_KEY},geo"'),
    GraphRAGCase("types-dollar-form", types="[person, $GRAPHRAG_API_KEY]"),
    GraphRAGCase("types-from-environ-only", environ=("GRAPHRAG_API_KEY",), dotenv=(),
                 types="[person, ${GRAPHRAG_API_KEY}]"),
    GraphRAGCase("types-from-azure-key", environ=("AZURE_OPENAI_API_KEY",), types="[person, ${AZURE_OPENAI_API_KEY}]"),
    GraphRAGCase("types-from-own-key-var", key_var="LLM_CREDENTIAL", dotenv=("LLM_CREDENTIAL",),
                 types="[person, ${LLM_CREDENTIAL}]"),
    GraphRAGCase("types-from-secret-looking-var", others={"HF_TOKEN": "KEY"}, types="[person, ${HF_TOKEN}]"),
    GraphRAGCase("tuple-delimiter-from-key", extra="  tuple_delimiter: ${GRAPHRAG_API_KEY}\n"),
    GraphRAGCase("record-delimiter-from-key", extra="  record_delimiter: \"##${GRAPHRAG_API_KEY}\"\n"),
    GraphRAGCase("completion-delimiter-from-key", extra="  completion_delimiter: ${OPENAI_API_KEY}\n",
                 environ=("OPENAI_API_KEY",)),
    GraphRAGCase("model-name-from-key", model="${GRAPHRAG_API_KEY}"),
    GraphRAGCase("model-name-with-key-inside", model="gpt-${GRAPHRAG_API_KEY}-mini"),
    GraphRAGCase("claim-description-from-key",
                 extra="claim_extraction:\n  description: \"claims about ${GRAPHRAG_API_KEY}\"\n"),
    GraphRAGCase("special-key-in-types", key="special", types="[person, \"${GRAPHRAG_API_KEY}\"]"),
    GraphRAGCase("unicode-key-in-types", key="unicode", types="[person, \"${GRAPHRAG_API_KEY}\"]"),
    GraphRAGCase("key-in-prompt-file", prompt_extra=lambda k: f"\n# debug key {k}\n"),
    GraphRAGCase("b64-key-in-prompt-file", prompt_extra=lambda k: f"\n# debug key {_b64(k)}\n"),
    GraphRAGCase("key-in-input-text", input_text=lambda k: f"Mayor Ana Ruiz of Lowbridge used key {k} once."),
    GraphRAGCase("url-key-in-input-text", key="special",
                 input_text=lambda k: f"Mayor Ana Ruiz visited https://x.test/?k={quote(k, safe='')} today."),
    GraphRAGCase("input-dir-from-key", input_dir="${GRAPHRAG_API_KEY}"),
]


def _graphrag(case: GraphRAGCase) -> Callable[[Path], Outcome]:
    def make(root: Path) -> Outcome:
        key = KEYS[case.key]
        project = root / "project"
        (project / "prompts").mkdir(parents=True)
        (project / "input").mkdir()
        settings = GRAPHRAG_SETTINGS.format(key_var=case.key_var, model=case.model, types=case.types,
                                            extra=case.extra, input_dir=case.input_dir)
        (project / "settings.yaml").write_text(settings, encoding="utf-8")
        (project / "prompts" / "entity_extraction.txt").write_text(EXTRACT + case.prompt_extra(key), encoding="utf-8")
        (project / "input" / "mayor.txt").write_text(case.input_text(key), encoding="utf-8")
        dotenv = "".join(f"{name}={json.dumps(key, ensure_ascii=False)}\n" for name in case.dotenv)
        (project / ".env").write_text(dotenv, encoding="utf-8")
        env: dict[str, str | None] = {name: key for name in case.environ}
        env.update({name: key if value == "KEY" else value for name, value in case.others.items()})
        env.setdefault("GRAPHRAG_API_KEY", None)
        work = root / "work"
        work.mkdir()
        code, out, err = _cli(["import", "graphrag", str(project), "--out", "suites/imported.yaml"], work, env)
        return Outcome(key, code, {"import": _read_all(_files(work, "*"), work), "stdout": out, "stderr": err})

    return make


@pytest.mark.xdist_group("battery-secrets-import")
@pytest.mark.parametrize(("case", "surface"), [(c, s) for c in GRAPHRAG_CASES for s in IMPORT_ALL],
                         ids=[f"{s}-graphrag-{c.name}" for c in GRAPHRAG_CASES for s in IMPORT_ALL])
def test_import_graphrag(case: GraphRAGCase, surface: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    check(outcome(f"graphrag-{case.name}", _graphrag(case), tmp_path_factory), surface)


LIGHTRAG_PROMPT = '''PROMPTS = {}
PROMPTS["DEFAULT_TUPLE_DELIMITER"] = "<|#|>"
PROMPTS["DEFAULT_COMPLETION_DELIMITER"] = "<|COMPLETE|>"
PROMPTS["entity_extraction_system_prompt"] = """---Role---
Extract entities of types [{entity_types}] in {language}.
Use {tuple_delimiter} between fields and end with {completion_delimiter}.
---Examples---
{examples}
"""
PROMPTS["entity_extraction_user_prompt"] = """---Data---
Entity_types: [{entity_types}]
Text:
{input_text}
Output:
"""
PROMPTS["entity_extraction_examples"] = ["""Example 1:
Entity_types: [person, geo]
Text:
Mara Lind moved to Oslo.
Output:
entity{tuple_delimiter}Mara Lind{tuple_delimiter}person{tuple_delimiter}A woman who moved to Oslo
entity{tuple_delimiter}Oslo{tuple_delimiter}geo{tuple_delimiter}A city
{completion_delimiter}
"""]
PROMPTS["entity_continue_extraction"] = """Some entities were missed; add them with {tuple_delimiter}.
"""
'''


@dataclass(frozen=True)
class LightRAGCase:
    name: str
    dotenv: Callable[[str], str]
    key: str = "openai"
    prompt_extra: Callable[[str], str] = lambda k: ""
    input_text: Callable[[str], str] = lambda k: "Ana Ruiz leads the Kestrel Trust in Lowbridge."
    environ: Callable[[str], dict[str, str]] = lambda k: {}


LIGHTRAG_CASES: list[LightRAGCase] = [
    LightRAGCase("model-is-the-key", lambda k: f"LLM_BINDING_API_KEY={k}\nLLM_MODEL={k}\n"),
    LightRAGCase("types-hold-the-key", lambda k: f"LLM_BINDING_API_KEY={k}\nENTITY_TYPES='[\"person\", \"{k}\"]'\n"),
    LightRAGCase("language-is-the-key", lambda k: f"LLM_BINDING_API_KEY={k}\nSUMMARY_LANGUAGE={k}\n"),
    LightRAGCase("embedding-key-in-types",
                 lambda k: f"EMBEDDING_BINDING_API_KEY={k}\nENTITY_TYPES='[\"person\", \"{k}\"]'\n"),
    LightRAGCase("environ-openai-key-in-types", lambda k: "",
                 environ=lambda k: {"OPENAI_API_KEY": k, "ENTITY_TYPES": f"person, {k}"}),
    LightRAGCase("key-in-prompt-py", lambda k: f"LLM_BINDING_API_KEY={k}\n",
                 prompt_extra=lambda k: f'PROMPTS["note"] = "{k}"\n'
                                        f'PROMPTS["entity_continue_extraction"] = "More ({k}) with {{tuple_delimiter}}."\n'),
    LightRAGCase("key-in-input", lambda k: f"LLM_BINDING_API_KEY={k}\n",
                 input_text=lambda k: f"Ana Ruiz leads the Kestrel Trust; her token is {k}."),
    LightRAGCase("b64-key-in-input", lambda k: f"LLM_BINDING_API_KEY={k}\n",
                 input_text=lambda k: f"Ana Ruiz leads the Kestrel Trust; auth {_b64(k)}."),
]


def _lightrag(case: LightRAGCase) -> Callable[[Path], Outcome]:
    def make(root: Path) -> Outcome:
        key = KEYS[case.key]
        setup = root / "setup"
        (setup / "inputs").mkdir(parents=True)
        (setup / "prompt.py").write_text(LIGHTRAG_PROMPT + case.prompt_extra(key), encoding="utf-8")
        (setup / "inputs" / "trust.txt").write_text(case.input_text(key), encoding="utf-8")
        # an OpenAI-compatible server, the binding a suite can call (LightRAG's default, ollama, is refused)
        (setup / ".env").write_text("LLM_BINDING=openai\n" + case.dotenv(key), encoding="utf-8")
        work = root / "work"
        work.mkdir()
        env: dict[str, str | None] = {name: None for name in ("ENTITY_TYPES", "SUMMARY_LANGUAGE", "LLM_MODEL",
                                                               "INPUT_DIR", "CHUNK_SIZE", "LLM_BINDING_API_KEY",
                                                               "LLM_BINDING", "LLM_BINDING_HOST", "WORKING_DIR")}
        env.update(case.environ(key))
        code, out, err = _cli(["import", "lightrag", str(setup), "--out", "suites/lr.yaml"], work, env)
        return Outcome(key, code, {"import": _read_all(_files(work, "*"), work), "stdout": out, "stderr": err})

    return make


@pytest.mark.xdist_group("battery-secrets-import")
@pytest.mark.parametrize(("case", "surface"), [(c, s) for c in LIGHTRAG_CASES for s in IMPORT_ALL],
                         ids=[f"{s}-lightrag-{c.name}" for c in LIGHTRAG_CASES for s in IMPORT_ALL])
def test_import_lightrag(case: LightRAGCase, surface: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    check(outcome(f"lightrag-{case.name}", _lightrag(case), tmp_path_factory), surface)


# --------------------------------------------------------------------------- the command line itself


@dataclass(frozen=True)
class CommandCase:
    name: str
    args: Callable[[str, Path], list[str]]
    key: str = "openai"


COMMAND_CASES: list[CommandCase] = [
    CommandCase("suite-path-holds-key", lambda k, r: ["run", f"suites/{k}.yaml"]),
    CommandCase("suite-path-holds-b64-key", lambda k, r: ["run", f"suites/{_b64(k).rstrip('=')}.yaml"]),
    CommandCase("base-url-holds-key", lambda k, r: ["record", str(r / "suites" / "echo.yaml"), "--base-url",
                                                   f"ftp://proxy.test/v1?api-key={k}"]),
    CommandCase("base-url-userinfo-key", lambda k, r: ["record", str(r / "suites" / "echo.yaml"), "--base-url",
                                                      f"http://user:{k}@127.0.0.1:0/v1"]),
    CommandCase("outputs-path-holds-key", lambda k, r: ["evaluate", str(r / "suites" / "echo.yaml"), "--outputs",
                                                       f"missing-{k}.jsonl"]),
    CommandCase("run-id-holds-key", lambda k, r: ["run", str(r / "suites" / "echo.yaml"), "--run-id", f"../{k}"]),
    CommandCase("variant-holds-key", lambda k, r: ["run", str(r / "suites" / "echo.yaml"), "--variant", k]),
    CommandCase("case-holds-url-key", lambda k, r: ["run", str(r / "suites" / "echo.yaml"), "--case",
                                                   quote(k, safe="")], key="special"),
    CommandCase("prompts-lint-path-holds-key", lambda k, r: ["prompts", "lint", f"prompts/{k}.txt"]),
]


def _command(case: CommandCase) -> Callable[[Path], Outcome]:
    def make(root: Path) -> Outcome:
        key = KEYS[case.key]
        _project(root)
        code, out, err = _cli(case.args(key, root), root, {"OPENAI_API_KEY": key})
        return Outcome(key, code, {"stdout": out, "stderr": err})

    return make


@pytest.mark.xdist_group("battery-secrets-command")
@pytest.mark.parametrize(("case", "surface"), [(c, s) for c in COMMAND_CASES for s in SCREEN],
                         ids=[f"{s}-command-{c.name}" for c in COMMAND_CASES for s in SCREEN])
def test_command_line(case: CommandCase, surface: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    check(outcome(f"command-{case.name}", _command(case), tmp_path_factory), surface)


def test_battery_is_not_vacuous() -> None:
    """Every family covers each surface it claims, with enough variants to mean something."""
    assert len(RECORD_CASES) >= 40 and len(EVAL_CASES) >= 40 and len(BATCH_CASES) >= 20
    assert len(GRAPHRAG_CASES) + len(LIGHTRAG_CASES) >= 25 and len(COMMAND_CASES) >= 8
