"""The cassette store: reading vcrpy cassettes without vcrpy, and answering requests by hash."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.errors import InputError
from harness.llm.cassette_store import CassetteStore, current_replay, replaying
from harness.llm.request_digest import request_hash

ASK = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
OTHER = {"model": "m", "messages": [{"role": "user", "content": "bye"}]}


def answer(text: str) -> dict:
    return {"choices": [{"message": {"content": text}}], "usage": {"prompt_tokens": 1, "completion_tokens": 1}}


def interaction(payload: dict, text: str, uri: str = "http://h/v1/chat/completions") -> dict:
    return {"request": {"method": "POST", "uri": uri, "body": {"json": payload}, "headers": {}},
            "response": {"status": {"code": 200, "message": "OK"}, "headers": {}, "body": {"string": {"json": answer(text)}}}}


def write(path: Path, *interactions: dict) -> Path:
    path.write_text(json.dumps({"version": 1, "interactions": list(interactions)}), encoding="utf-8")
    return path


def text_of(body: bytes | None) -> str | None:
    return None if body is None else json.loads(body)["choices"][0]["message"]["content"]


def test_recordings_are_indexed_by_method_path_and_request_hash(tmp_path):
    store = CassetteStore.load(write(tmp_path / "c.json", interaction(ASK, "a"), interaction(OTHER, "b", "http://h/v1/chat/completions/")))
    assert store.exists and [r.index for r in store.recordings] == [0, 1]
    assert {r.digest for r in store.recordings} == {request_hash(ASK), request_hash(OTHER)}
    assert {r.path for r in store.recordings} == {"/v1/chat/completions"}  # a trailing slash does not count


def test_no_file_is_an_empty_store_and_a_damaged_one_an_input_error_naming_it(tmp_path):
    absent = CassetteStore.load(tmp_path / "none.json")
    assert not absent.exists and absent.recordings == []
    broken = tmp_path / "broken.json"
    broken.write_text('{"version": 1, "interactions": [{"request": {}}]}', encoding="utf-8")
    with pytest.raises(InputError, match=r"broken\.json: corrupt cassette: interactions\[0\]\.request"):
        CassetteStore.load(broken)


def test_each_recording_answers_once_in_order_and_the_rest_stay_unused(tmp_path):
    path = write(tmp_path / "c.json", interaction(ASK, "first"), interaction(ASK, "second"), interaction(OTHER, "spare"))
    with replaying(path) as replay:
        assert current_replay() is replay
        where = ("POST", "/v1/chat/completions", request_hash(ASK))
        assert [text_of(replay.answer(*where)) for _ in range(3)] == ["first", "second", None]
        assert replay.answer("POST", "/v2/chat/completions", request_hash(OTHER)) is None  # another path
        assert replay.unanswered == [request_hash(ASK), request_hash(OTHER)]
        assert [r.index for r in replay.unused()] == [2]
    assert current_replay() is None


def test_the_store_reads_what_the_recorder_wrote(recorded_towns):
    store = CassetteStore.load(recorded_towns)
    raw = json.loads(recorded_towns.read_text(encoding="utf-8"))
    assert len(store.recordings) == len(raw["interactions"]) >= 1
    first = raw["interactions"][0]
    assert store.recordings[0].digest == request_hash(first["request"]["body"]["json"])
    assert json.loads(store.recordings[0].answer) == first["response"]["body"]["string"]["json"]


def test_vcrpys_own_persister_reads_every_shipped_cassette_as_the_store_does():
    # cassettes stay vcrpy cassettes: vcrpy's stock filesystem persister, given the harness's
    # serializer (vcr.VCR(serializer=...) takes it the same way), loads each shipped file to the
    # same requests and answers the store replays from
    from urllib.parse import urlsplit

    from vcr.persisters.filesystem import FilesystemPersister

    from harness.llm.cassettes import JsonSerializer
    from harness.llm.request_digest import body_hash

    shipped = sorted((Path(__file__).resolve().parents[2] / "fixtures" / "cassettes").rglob("*.json"))
    assert len(shipped) > 50
    for path in shipped:
        requests, responses = FilesystemPersister.load_cassette(str(path), JsonSerializer())
        store = CassetteStore.load(path)
        seen = [(r.method, urlsplit(r.uri).path.rstrip("/"), body_hash(r.body), resp["body"]["string"])
                for r, resp in zip(requests, responses)]
        assert seen == [(r.method, r.path, r.digest, r.answer) for r in store.recordings], path


@pytest.mark.parametrize("depth", [100, 5_000, 200_000])
def test_a_deep_cassette_gets_the_harness_bound_whatever_the_interpreter_recurses_to(tmp_path, depth):
    """Nesting past the schema's 64 levels reads the same whether json.loads managed it (the schema
    says so) or gave up (RecursionError, whose depth depends on the interpreter)."""
    from harness.llm.cassette_store import read_cassette

    deep = "[" * depth + "]" * depth
    path = tmp_path / "deep.json"
    path.write_text('{"version": 1, "interactions": [{"request": {"method": "POST", "uri": "http://h/v1/chat/completions", '
                    '"body": {"json": ' + deep + '}, "headers": {}}}]}', encoding="utf-8")
    with pytest.raises(InputError, match="nested deeper than 64 levels"):
        read_cassette(path)


@pytest.mark.parametrize("depth", [100, 200_000])
def test_a_deep_stored_answer_gets_the_harness_bound(depth):
    from harness.llm.cassette_schema import CorruptCassette, check_completion_body

    with pytest.raises(CorruptCassette, match="nested deeper than 64 levels"):
        check_completion_body('{"a": ' * depth + "1" + "}" * depth, "interactions[0].response")


# ------------------------------------------------------------------ issue 28: special files, sizes, numbers


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "socket", "folder"])
def test_a_cassette_that_is_no_file_is_refused_unread(tmp_path, kind):
    """Item 11: a FIFO hung the replay, /dev/zero read without end."""
    import os
    import threading

    from harness.llm.cassette_store import read_cassette

    from ..support.battery import plant_special

    path = tmp_path / "case.json"
    plant_special(path, kind)
    writer = None
    if kind == "fifo":  # a reader that blocks pairs with this writer and sees an empty file
        writer = threading.Thread(target=lambda: os.close(os.open(path, os.O_WRONLY)), daemon=True)
        writer.start()
    try:
        with pytest.raises(InputError, match=r"case\.json: corrupt cassette: (not a regular file|is a folder)"):
            read_cassette(path)
    finally:
        if writer is not None:
            if writer.is_alive():
                os.close(os.open(path, os.O_RDONLY | os.O_NONBLOCK))
            writer.join(5)


def test_a_cassette_over_the_size_bound_is_refused_unread(tmp_path, monkeypatch):
    """Item 11: a 2 GB cassette was read whole (MemoryError); the bound is checked before reading."""
    from harness.llm import cassette_store

    monkeypatch.setattr(cassette_store, "MAX_CASSETTE_BYTES", 100)
    path = write(tmp_path / "case.json", interaction(ASK, "x" * 200))
    with pytest.raises(InputError, match=r"case\.json: corrupt cassette: cassette of \d+ bytes is larger than the 100"):
        cassette_store.read_cassette(path)


@pytest.mark.parametrize("where", ["version", "usage", "request"])
def test_a_5000_digit_number_in_a_cassette_is_the_harness_line(tmp_path, where):
    """Item 12: Python's int limit spoke for the harness (its wording, "sys.set_int_max_str_digits")."""
    from harness.llm.cassette_store import read_cassette

    data = {"version": 1, "interactions": [interaction(ASK, "x")]}
    if where == "version":
        data["version"] = 777
    elif where == "usage":
        data["interactions"][0]["response"]["body"]["string"]["json"]["usage"]["prompt_tokens"] = 777
    else:
        data["interactions"][0]["request"]["body"]["json"]["seed"] = 777
    path = tmp_path / "case.json"
    path.write_text(json.dumps(data).replace("777", "7" * 5000), encoding="utf-8")
    with pytest.raises(InputError) as caught:
        read_cassette(path)
    assert caught.value.message == f"{path}: corrupt cassette: number longer than 640 digits"
