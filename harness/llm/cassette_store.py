"""The one reader of cassette files: which requests are recorded, and with which answer.

Cassettes stay vcrpy's JSON cassettes (vcrpy loads them, and records them: llm/cassettes.py);
this module reads them without vcrpy, checks them once (`cassette_schema`), and indexes each
interaction by method, URL path and request hash (llm/request_digest.py). Replay asks a
`CaseReplay` for the answer to a request; `harness cassettes audit` compares the hashes a case
will send with the recorded ones; vcrpy's persister loads through `read_cassette` too.
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ..errors import InputError
from ..inputfiles import MIB, JsonRefused, UnreadableFile, loads, read_bytes, shown_path
from .cassette_schema import MAX_DEPTH, SCAN_DEPTH, CorruptCassette, validate_cassette
from ..text import scrub_surrogates
from .request_digest import VOLATILE_BODY_FIELDS, body_hash


# A cassette holds one case's conversation: answers of megabytes at most, with gleaning rounds.
MAX_CASSETTE_BYTES = 256 * MIB


class CassetteAbsent(FileNotFoundError):
    """No cassette file at the path (nothing recorded yet, or a dangling link)."""


def read_cassette(path: Path, *, request_text: bool = True) -> dict[str, Any]:
    """A cassette file, validated, with each interaction as vcrpy replays it (`request_text=False`:
    request bodies as stored, see `validate_cassette`).

    Raises CassetteAbsent when there is none, InputError naming the file when it is damaged."""
    try:  # a regular file of bounded size: a FIFO, /dev/zero or a 2 GB file is refused, never read
        raw = read_bytes(path, limit=MAX_CASSETTE_BYTES, what="cassette")
    except UnreadableFile as exc:
        if exc.reason == "not found":  # nothing recorded yet, or a dangling link
            raise CassetteAbsent(str(path)) from None
        raise InputError(f"{shown_path(path)}: corrupt cassette: {exc.detail}") from None
    try:
        return validate_cassette(loads(raw, limit=SCAN_DEPTH), request_text=request_text)
    except UnicodeDecodeError as exc:
        raise InputError(f"{shown_path(path)}: corrupt cassette: not UTF-8 (byte {exc.start})") from None
    except JsonRefused as exc:  # nested far deeper than the schema's bound, or an integer past the JSON policy's
        problem = f"nested deeper than {MAX_DEPTH} levels" if exc.depth else str(exc).removeprefix("JSON ")
        raise InputError(f"{shown_path(path)}: corrupt cassette: {problem}") from None
    except CorruptCassette as exc:
        raise InputError(f"{shown_path(path)}: corrupt cassette: {exc}") from None
    except ValueError:
        raise InputError(f"{shown_path(path)}: corrupt cassette: not JSON") from None


def stored_body_hash(body: str | dict[str, Any] | None) -> str:
    """`body_hash` of a request body as a cassette stores it (`validate_cassette(request_text=False)`).

    A JSON body is hashed from its value: its text, read back, would be that value, so the
    canonical form is written once, instead of writing the text, reading it and writing again.
    A value holding a surrogate takes the long way, where the text's surrogates are replaced first."""
    if not isinstance(body, dict):
        return body_hash(body)
    value = body["json"]
    if isinstance(value, dict):
        value = {key: item for key, item in value.items() if key not in VOLATILE_BODY_FIELDS}
    canonical = json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    if scrub_surrogates(canonical) is not canonical:
        return body_hash(scrub_surrogates(json.dumps(body["json"], ensure_ascii=False)))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def url_path(uri: str) -> str:
    """The part of a URL requests are matched on (as vcrpy's path matcher compares it)."""
    return urlsplit(uri).path.rstrip("/")


@dataclass(frozen=True)
class Recording:
    """One recorded interaction: the request's identity and the answer body."""

    index: int
    method: str
    path: str
    digest: str
    answer: bytes
    # the call's latency as measured when it was recorded; None in a cassette recorded before
    # latencies were kept, or written from answers that came another way (a batch, a cache)
    latency_s: float | None = None
    batch: bool = False  # answered by the Batch API (`harness record --batch`): batch prices

    def matches(self, method: str, path: str, digest: str) -> bool:
        return self.method == method and self.path == path.rstrip("/") and self.digest == digest


@dataclass
class CassetteStore:
    """The recordings of one cassette file (none when the file does not exist)."""

    path: Path
    recordings: list[Recording]
    exists: bool

    @classmethod
    def load(cls, path: Path) -> CassetteStore:
        try:
            data = read_cassette(path, request_text=False)
        except CassetteAbsent:
            return cls(path, [], exists=False)
        recordings = [
            Recording(i, item["request"]["method"], url_path(item["request"]["uri"]),
                      stored_body_hash(item["request"]["body"]), item["response"]["body"]["string"],
                      latency_s=item["response"].get("harness", {}).get("latency_s"),
                      batch=item["response"].get("harness", {}).get("batch", False))
            for i, item in enumerate(data["interactions"])
        ]
        return cls(path, recordings, exists=True)


@dataclass
class CaseReplay:
    """One case's conversation against its cassette: each recording answers once, in order,
    as vcrpy plays them; what was asked and not found is kept for the audit."""

    store: CassetteStore
    played: set[int] = field(default_factory=set)
    unanswered: list[str] = field(default_factory=list)  # digests of requests with no recording

    def answer(self, method: str, path: str, digest: str) -> bytes | None:
        recording = self.play(method, path, digest)
        return recording.answer if recording is not None else None

    def play(self, method: str, path: str, digest: str) -> Recording | None:
        """The next unplayed recording of this request (its answer and what was noted of the call)."""
        for recording in self.store.recordings:
            if recording.index not in self.played and recording.matches(method, path, digest):
                self.played.add(recording.index)
                return recording
        self.unanswered.append(digest)
        return None

    def unused(self) -> list[Recording]:
        return [r for r in self.store.recordings if r.index not in self.played]


_CASE_REPLAY: contextvars.ContextVar[CaseReplay | None] = contextvars.ContextVar("harness_replay", default=None)


@contextlib.contextmanager
def replaying(path: Path) -> Iterator[CaseReplay]:
    """Answer this task's model calls from the cassette at `path` (see ModelClient.chat)."""
    replay = CaseReplay(CassetteStore.load(path))
    token = _CASE_REPLAY.set(replay)
    try:
        yield replay
    finally:
        _CASE_REPLAY.reset(token)


def current_replay() -> CaseReplay | None:
    """The replay session of the running case, if it replays from the store."""
    return _CASE_REPLAY.get()


@dataclass
class CallNote:
    """One call sent through the SDK, as the recorder and the client see it: when it was sent
    (perf_counter), and, when vcrpy answered it from a cassette instead of the endpoint, what the
    recording noted (its latency, None when none was kept; whether a batch answered it)."""

    started: float
    played: bool = False
    # the latency of the recording: read from the cassette that played it, or kept in the cassette
    # that recorded it (so the recording run's row says what a replay of it will say)
    recorded_latency_s: float | None = None
    batch: bool = False


_CALL_NOTE: contextvars.ContextVar[CallNote | None] = contextvars.ContextVar("harness_call_note", default=None)


def begin_call(started: float) -> CallNote:
    """Note that this task sends a call now (ModelClient); the cassette router reads it to keep the
    call's latency in what it records, or to say that it played a recording instead."""
    note = CallNote(started)
    _CALL_NOTE.set(note)
    return note


def current_call() -> CallNote | None:
    """The call this task is sending, if the client noted one (`begin_call`)."""
    return _CALL_NOTE.get()
