"""Cassettes: one file per suite x variant x case, recorded through vcrpy.

`harness run` replays without vcrpy, from the cassette store (cassette_store.py); vcrpy is used
where calls are sent: recording, and record modes that replay what exists and record the rest.

vcrpy patches httpx2's transports globally, but a run plays many cases at once. The
`CassetteRouter` stands where vcrpy expects one cassette and hands each request to the
cassette of the case whose task sent it (a context variable follows each asyncio task).

Requests match on method, path and a sha256 of the canonical JSON body (request_digest.py),
as in the store, so an edited prompt misses instead of replaying another prompt's answer. Before anything is written,
credentials and volatile fields are removed, and failed responses are never stored.
Cassettes are JSON, read by the cassette store with `json.loads`, so a cassette cannot run
code when loaded, and checked against `cassette_schema` once, so a damaged one is an input
error naming it.
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import time
from collections.abc import Callable, Iterator
from json.encoder import encode_basestring
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from vcr.cassette import Cassette
from vcr.filters import decode_response
from vcr.patch import PATCHER_NAMES, CassettePatcherBuilder
from vcr.persisters.filesystem import CassetteNotFoundError
from vcr.record_mode import RecordMode
from vcr.request import Request

from .replicas import canonical_uri
from ..atomicfile import FILE_MODE, atomic_write, json_float
from ..errors import InputError
from ..known_keys import learn_keys, redactor as known_redactor
from ..text import scrub_surrogates
from .cassette_store import CassetteAbsent, current_call, read_cassette
from .cassette_schema import FORMAT_VERSION, CorruptCassette, check_completion_body, validate_cassette
from .providers.base import REPLAY_KEY
from .request_digest import body_hash, canonical_body, canonical_hash, dump_json as _dump
from .record_modes import RECORD_MODES
from ..redaction import Redactor, configured_secrets, header_secrets

KEPT_REQUEST_HEADERS = frozenset({"content-type"})
KEPT_RESPONSE_HEADERS = frozenset({"content-type"})
KEPT_QUERY_PARAMS = frozenset({"api-version"})
# Cassettes are written rw-r--r--, as a checked-out file is: after scrubbing they hold no
# credential, and they are meant to be committed and read by CI, like the shipped ones.
CASSETTE_MODE = FILE_MODE


# --------------------------------------------------------------------------- matching requests


def _cached_hash(request: Request) -> str:
    cached = getattr(request, "_harness_hash", None)
    if cached is None:
        cached = body_hash(request.body)
        request._harness_hash = cached
    return cached


def match_body_hash(r1: Request, r2: Request) -> None:
    if _cached_hash(r1) != _cached_hash(r2):
        raise AssertionError("request bodies differ")


def match_method(r1: Request, r2: Request) -> None:
    if r1.method != r2.method:
        raise AssertionError(f"{r1.method} != {r2.method}")


def match_path(r1: Request, r2: Request) -> None:
    if r1.path.rstrip("/") != r2.path.rstrip("/"):
        raise AssertionError(f"{r1.path} != {r2.path}")


MATCHERS = (match_method, match_path, match_body_hash)


# --------------------------------------------------------------------------- scrubbing


def _scrub_uri(uri: str) -> str:
    parts = urlsplit(canonical_uri(uri))  # a replica's answer is stored as its first replica's
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k in KEPT_QUERY_PARAMS]
    return urlunsplit((parts.scheme, parts.netloc.rsplit("@", 1)[-1], parts.path, urlencode(query), ""))


def scrub_request(request: Request) -> Request:
    """A copy of the request without credentials, cookies or volatile body fields.

    vcrpy asks for it several times per request; the copy is computed once and kept."""
    cached = getattr(request, "_harness_clean", None)
    if cached is not None:
        return cached
    body = request.body
    if body:
        data = canonical_body(body)  # read once: the stored body and the hash both come from it
        if getattr(request, "_harness_hash", None) is None:
            request._harness_hash = canonical_hash(body, data)
        if isinstance(data, (dict, list)):
            body = _dump(data, sort_keys=True).encode("utf-8")
    headers = {k: v for k, v in request.headers.items() if k.lower() in KEPT_REQUEST_HEADERS}
    clean = Request(request.method, _scrub_uri(request.uri), body, headers)
    clean._harness_hash = _cached_hash(request)
    clean._harness_clean = clean
    request._harness_clean = clean
    return clean


def scrub_response(response: dict[str, Any]) -> dict[str, Any] | None:
    """Drop failures; store bodies decoded, as UTF-8 JSON text, and only the content-type header.

    An answer body is kept only when the cassette loader would accept it back: JSON in any of the
    encodings `json.loads` detects (UTF-8/16/32, as the SDK reads it) is stored re-encoded as
    UTF-8; a body the client rejected as an endpoint error (not JSON, not a chat completion) was
    retried, and storing it would make the whole cassette unreadable, so it is left out.
    """
    if int(response.get("status", {}).get("code", 0)) >= 400:
        return None
    if any(name.lower() == "content-encoding" for name in response.get("headers", {})):
        response = decode_response(response)
    else:  # nothing to decode (the bounded transport decoded it): vcrpy's deep copy is not needed
        response = {**response, "body": dict(response.get("body", {}))}
    response["headers"] = {
        k: v for k, v in response.get("headers", {}).items() if k.lower() in KEPT_RESPONSE_HEADERS
    }
    raw = response.get("body", {}).get("string")
    if isinstance(raw, (bytes, str)):
        try:
            text = json.dumps(json.loads(raw), ensure_ascii=False)
            check_completion_body(text, "answer")
        except (ValueError, RecursionError):  # CorruptCassette is a ValueError
            return None
        response["body"]["string"] = scrub_surrogates(text).encode("utf-8")
        # the body is UTF-8 JSON now, whatever charset it came in
        response["headers"] = {k: ["application/json"] for k in response["headers"]}
    return response


# --------------------------------------------------------------------------- storage


def _to_json_body(body: Any) -> Any:
    """Store JSON bodies as JSON, not as an escaped string, so cassettes read and diff well."""
    if isinstance(body, str):
        try:
            return {"json": json.loads(body)}
        except (ValueError, RecursionError):
            return body
    return body


class _NotPlainJson(Exception):
    """A value the fast cassette writer leaves to `json.dumps` (any type but plain JSON's)."""


def _write_indented(value: Any, redact: Callable[[str], str] | None, parts: list[str], newline: str) -> None:
    """Append `value` as `json.dumps(indent=1, sort_keys=True, ensure_ascii=False)` writes it,
    each string (keys too) passed through `redact` first, as `Redactor.redact_data` would."""
    kind = type(value)
    if kind is str:
        parts.append(encode_basestring(redact(value) if redact is not None else value))
    elif value is None:
        parts.append("null")
    elif value is True:
        parts.append("true")
    elif value is False:
        parts.append("false")
    elif kind is int:
        parts.append(int.__repr__(value))
    elif kind is float:
        parts.append(json_float(value))
    elif kind is dict:
        if not value:
            parts.append("{}")
            return
        if redact is not None:  # as redact_data: keys redacted first (a clash keeps the later value)
            value = {redact(k) if type(k) is str else k: v for k, v in value.items()}
        if any(type(k) is not str for k in value):
            raise _NotPlainJson
        inner = newline + " "
        separator = "," + inner
        parts.append("{" + inner)
        first = True
        for key, item in sorted(value.items()):
            if first:
                first = False
            else:
                parts.append(separator)
            parts.append(encode_basestring(key) + ": ")
            _write_indented(item, redact, parts, inner)
        parts.append(newline + "}")
    elif kind is list:  # a tuple too is a JSON array, but redact_data leaves its strings as they are
        if not value:
            parts.append("[]")
            return
        inner = newline + " "
        separator = "," + inner
        parts.append("[" + inner)
        first = True
        for item in value:
            if first:
                first = False
            else:
                parts.append(separator)
            _write_indented(item, redact, parts, inner)
        parts.append(newline + "]")
    else:
        raise _NotPlainJson


def dump_cassette_json(data: Any, redactor: Redactor) -> str:
    """`dump_json(redactor.redact_data(data), indent=1, sort_keys=True)`, in one pass.

    `json.dumps` with an indent runs its pure-Python encoder, a generator per nesting level,
    which made serialising the largest per-call cost of recording; this writes the same text
    with one recursive function (and no redacted copy of the data). Anything but plain JSON
    types, or nesting deeper than Python's recursion allows, is left to `json.dumps` itself."""
    parts: list[str] = []
    try:
        _write_indented(data, redactor.redact if redactor else None, parts, "\n")
    except (_NotPlainJson, RecursionError):
        return _dump(redactor.redact_data(data), indent=1, sort_keys=True)
    return scrub_surrogates("".join(parts))


class JsonSerializer:
    """vcrpy serializer: plain JSON, readable diffs, nothing executable.

    Writing removes every form of the known credentials (`redactor`) from every string, and
    lone surrogates, which UTF-8 cannot hold; reading validates the structure once."""

    def __init__(self, redactor: Redactor | None = None) -> None:
        self.redactor = redactor if redactor is not None else known_redactor()

    def serialize(self, cassette_dict: dict[str, Any]) -> str:
        cassette_dict["version"] = cassette_dict.get("version", FORMAT_VERSION)
        for interaction in cassette_dict.get("interactions", []):
            interaction["request"]["body"] = _to_json_body(interaction["request"].get("body"))
            body = interaction["response"].get("body", {})
            if "string" in body:
                body["string"] = _to_json_body(body["string"])
        return dump_cassette_json(cassette_dict, self.redactor) + "\n"

    def deserialize(self, text: str) -> dict[str, Any]:
        try:
            data = json.loads(text)
        except RecursionError:
            raise CorruptCassette("nested too deeply to read") from None
        return validate_cassette(data)


class AtomicPersister:
    """Loads like vcrpy's filesystem persister, but reports damaged files as corrupt cassettes
    (exit 2, naming the file); saves atomically, with mode `CASSETTE_MODE`, never through a link
    out of the project (`roots`: the suite's project folder, see harness/confined.py)."""

    def __init__(self, roots: tuple[Path, ...] = ()) -> None:
        self.roots = roots

    @classmethod
    def load_cassette(cls, cassette_path: str | Path, serializer: Any) -> Any:
        from vcr.serializers.compat import convert_to_bytes

        try:
            data = read_cassette(Path(cassette_path))
        except CassetteAbsent:
            raise CassetteNotFoundError() from None
        requests = [Request._from_dict(item["request"]) for item in data["interactions"]]
        return requests, [convert_to_bytes(item["response"]) for item in data["interactions"]]

    def save_cassette(self, cassette_path: str | Path, cassette_dict: dict[str, Any], serializer: Any) -> None:
        from vcr.serialize import serialize

        atomic_write(Path(cassette_path), serialize(cassette_dict, serializer), mode=CASSETTE_MODE,  # makes the folder
                     roots=self.roots)


_VCR_MODES = {"none": RecordMode.NONE, "once": RecordMode.ONCE, "rewrite": RecordMode.ALL, "all": RecordMode.ALL}


def open_cassette(path: Path, mode: str, redactor: Redactor | None = None, roots: tuple[Path, ...] = ()) -> Cassette:
    """A vcrpy cassette for one case. `rewrite` starts from nothing; `all` re-records every call.
    `roots`: the project folders it must be written inside (harness/confined.py).

    The key each recorded request carries is added to `redactor`, so whatever the key's name
    or shape, an endpoint that echoes it does not get it written."""
    if mode not in _VCR_MODES:
        raise InputError(f"unknown record mode '{mode}' (one of {', '.join(RECORD_MODES)})")
    serializer = JsonSerializer(redactor)

    def before_record_request(request: Request) -> Request:
        sent = header_secrets(request.headers)
        serializer.redactor.add(sent)
        learn_keys(key for key in sent if key != REPLAY_KEY)  # and whatever else this process writes or prints
        return scrub_request(request)

    cassette = Cassette(
        path=str(path),
        serializer=serializer,
        persister=AtomicPersister(roots),
        record_mode=_VCR_MODES[mode],
        match_on=MATCHERS,
        before_record_request=before_record_request,
        before_record_response=scrub_response,
        drop_unused_requests=(mode == "rewrite"),
    )
    if mode != "rewrite":
        cassette._load()
    else:
        cassette.rewound = True
    return cassette


# --------------------------------------------------------------------------- routing


_CASE_CASSETTE: contextvars.ContextVar[Cassette | None] = contextvars.ContextVar("harness_cassette", default=None)


class NoCassetteError(RuntimeError):
    """A request was sent outside any case while cassettes are active."""


class CassetteRouter:
    """Quacks like the vcrpy cassette the httpx2 stub is bound to; delegates per task."""

    custom_patches = ()
    skip_patchers = tuple(name for name in PATCHER_NAMES if name != "httpx2")

    def __init__(self, mode: str, key_envs: tuple[str, ...] = (), roots: tuple[Path, ...] = ()) -> None:
        if mode not in _VCR_MODES:
            raise InputError(f"unknown record mode '{mode}' (one of {', '.join(RECORD_MODES)})")
        self.mode = mode
        self.roots = roots  # the project folders cassettes are written inside
        self.secrets = configured_secrets(key_envs)

    @staticmethod
    def _current() -> Cassette:
        cassette = _CASE_CASSETTE.get()
        if cassette is None:
            raise NoCassetteError("an HTTP request was sent outside a harness case")
        return cassette

    @property
    def _path(self) -> str:
        cassette = _CASE_CASSETTE.get()
        return cassette._path if cassette is not None else "harness-cassettes"

    def __getattr__(self, name: str) -> Any:
        # anything else vcrpy asks of "the cassette" (error messages, record mode) is the case's
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self._current(), name)

    def __len__(self) -> int:
        return len(self._current())

    def __contains__(self, request: Request) -> bool:
        return request in self._current()

    @property
    def write_protected(self) -> bool:
        return self._current().write_protected

    def can_play_response_for(self, request: Request) -> bool:
        return bool(self._current().can_play_response_for(request))

    def play_response(self, request: Request) -> Any:
        response = self._current().play_response(request)
        note = current_call()
        if note is not None:  # the client reports the recorded latency, not the time to play it
            facts = response.get("harness", {}) if isinstance(response, dict) else {}
            note.played, note.recorded_latency_s, note.batch = True, facts.get("latency_s"), facts.get("batch", False)
        return response

    def filter_request(self, request: Request) -> Request:
        return self._current().filter_request(request)

    def append(self, request: Request, response: dict[str, Any]) -> None:
        """Record an exchange, with the call's latency as measured from when the client sent it
        (`cassette_store.begin_call`) to its whole answer, under the response's "harness" key."""
        note = current_call()
        if note is not None:
            note.recorded_latency_s = round(max(0.0, time.perf_counter() - note.started), 6)
            response = {**response, "harness": {**response.get("harness", {}), "latency_s": note.recorded_latency_s}}
        self._current().append(request, response)

    @contextlib.contextmanager
    def patched(self) -> Iterator[CassetteRouter]:
        """Patch httpx2 for the duration of a run."""
        with contextlib.ExitStack() as stack:
            for patcher in CassettePatcherBuilder(self).build():
                stack.enter_context(patcher)
            yield self

    @contextlib.contextmanager
    def case(self, path: Path, *, save: bool = True) -> Iterator[Cassette]:
        """Route this task's requests to the cassette at `path`; save it when the case ends well.

        With `save=False` the caller saves it (`save_case`), e.g. in a thread, off the event loop."""
        cassette = open_cassette(path, self.mode, Redactor(self.secrets), self.roots)
        token = _CASE_CASSETTE.set(cassette)
        try:
            yield cassette
        except BaseException:
            raise
        else:
            if save:
                self.save_case(cassette)
        finally:
            _CASE_CASSETTE.reset(token)

    def save_case(self, cassette: Cassette) -> None:
        """Write what the case recorded (nothing when it recorded nothing, or in mode `none`).

        Touches only this case's cassette and its own redactor, so it may run in a thread."""
        if self.mode != "none":
            cassette._save()


# --------------------------------------------------------------------------- answers recorded elsewhere


def write_exchanges(path: Path, exchanges: list[tuple[Request, int, bytes]], *, key_envs: tuple[str, ...] = (),
                    replace: bool = False, roots: tuple[Path, ...] = (), batch: bool = False) -> bool:
    """Write a case's cassette from (request, status, body) exchanges answered elsewhere (the Batch
    API, run/batch.py), through the same scrubbing, serializer and file as a live recording, so
    replay and `harness cassettes audit` cannot tell them apart. The request should carry the
    headers it would have been sent with (its key is learnt by the redactor, never written).

    No latency is kept (none was measured per call); `batch` marks each call as answered by the
    Batch API, so its cost is reckoned at batch prices.
    Nothing is written when a cassette exists and `replace` is false; returns whether it wrote."""
    if path.exists() and not replace:
        return False
    cassette = open_cassette(path, "rewrite", Redactor(configured_secrets(key_envs)), roots)
    for request, status, body in exchanges:
        reason = "OK" if status == 200 else ""
        response: dict[str, Any] = {"status": {"code": status, "message": reason},
                                    "headers": {"content-type": ["application/json"]}, "body": {"string": body}}
        if batch:
            response["harness"] = {"batch": True}
        cassette.append(request, response)
    cassette._save(force=True)
    return True
