"""One atomic writer for results, reports, summaries, cassettes and the tokenizer seed."""

from __future__ import annotations

import enum
import json
import os
import stat
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness import atomicfile
from harness.atomicfile import atomic_write, atomic_write_json, iter_json


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "results.jsonl"
    target.write_text("old\n", encoding="utf-8")

    def rows():
        yield "new 1\n"
        raise RuntimeError("killed mid-write")

    with pytest.raises(RuntimeError):
        atomic_write(target, rows())
    assert target.read_text(encoding="utf-8") == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results.jsonl"]


def test_text_bytes_chunks_and_json_with_a_deliberate_mode(tmp_path: Path) -> None:
    old = os.umask(0o077)  # a strict umask must not make reports unreadable to CI
    try:
        atomic_write(tmp_path / "a" / "t.txt", "é\n")
        atomic_write(tmp_path / "b.bin", b"\x00\xff")
        atomic_write(tmp_path / "c.jsonl", iter(["1\n", "2\n"]))
        atomic_write_json(tmp_path / "d.json", {"name": "é"})
        atomic_write(tmp_path / "e", "x", mode=0o600)
    finally:
        os.umask(old)
    assert (tmp_path / "a" / "t.txt").read_text(encoding="utf-8") == "é\n"
    assert (tmp_path / "b.bin").read_bytes() == b"\x00\xff"
    assert (tmp_path / "c.jsonl").read_text(encoding="utf-8") == "1\n2\n"
    assert (tmp_path / "d.json").read_text(encoding="utf-8") == '{\n  "name": "é"\n}\n'
    modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in tmp_path.rglob("*") if p.is_file()}
    assert modes == {"t.txt": 0o644, "b.bin": 0o644, "c.jsonl": 0o644, "d.json": 0o644, "e": 0o600}


# --------------------------------------------------------------------------- iter_json == json.dumps

def _reference(data: object) -> str:
    """What atomic_write_json wrote before iter_json: the standard library's indented dump."""
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


class _Label(str, enum.Enum):
    A = "a"


class _Rank(enum.IntEnum):
    ONE = 1


_TRICKY = {
    "floats": [1e-05, 0.1 + 0.2, 1e16, -0.0, 5e-324, 1.7976931348623157e308, float("nan"), float("inf"), -float("inf")],
    "ints": [0, -1, 2**70, True, False, None],
    "text": ["é", "日本", "\u2028", "\x00\x1f", 'quote " and \\ back', "\ud800", "emoji 🧪", ""],
    "empty": [[], {}, [[]], [{}], {"k": []}, {"k": {}}],
    "keys": {1: "int", 2.5: "float", True: "bool", None: "none", "é": "text", 10**20: "big"},
    "nested": {"a": {"b": [[1, "x"], [2.0, None]], "c": ({"d": ()},)}, "flat": {"x": 1.0, "y": None}},
    "subclasses": [_Label.A, _Rank.ONE, {_Label.A: 1, _Rank.ONE: 2}],
    "deep": [[[[[[[1, {"k": [2, 3]}]]]]]]],
}


def test_iter_json_writes_what_json_dumps_writes_on_tricky_values() -> None:
    assert "".join(iter_json(_TRICKY)) == _reference(_TRICKY)
    for value in [*_TRICKY.values(), 1.5, "s", None, [], {}, 0, float("nan")]:
        assert "".join(iter_json(value)) == _reference(value)


def test_iter_json_without_the_c_encoder_writes_the_same(monkeypatch) -> None:
    monkeypatch.setattr(atomicfile.json.encoder, "c_make_encoder", None)
    assert "".join(iter_json(_TRICKY)) == _reference(_TRICKY)


def test_iter_json_refuses_what_json_dumps_refuses() -> None:
    for bad in [{"k": object()}, [1, {2, 3}], {(1, 2): "tuple key"}, {"k": {"flat": b"bytes"}}]:
        with pytest.raises(TypeError):
            "".join(iter_json(bad))


def test_iter_json_streams_a_long_list_in_pieces() -> None:
    data = {"comparisons": {"b": {"case_diffs": [{"case_id": str(i), "a": {"x": i / 7}} for i in range(50)]}}}
    chunks = list(iter_json(data))
    assert len(chunks) > 50
    assert "".join(chunks) == _reference(data)


_leaves = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True, allow_infinity=True) | st.text()
_json = st.recursive(
    _leaves,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5) | st.integers() | st.floats(), inner, max_size=4),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(_json)
def test_iter_json_matches_json_dumps_on_any_document(data: object) -> None:
    assert "".join(iter_json(data)) == _reference(data)


KEY = "sk-writer-" + "Mn4Bv7Cx1Zl9Kj3Hg6Fd"


def test_text_is_written_with_every_known_key_redacted_bytes_as_given(tmp_path: Path, monkeypatch) -> None:
    """The one writer scrubs (issue 28): whole text, chunks that cut the key in two, JSON; bytes
    (a plot, the tokenizer's cache) are never rewritten."""
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    atomic_write(tmp_path / "t.md", f"# {KEY}\n")
    atomic_write(tmp_path / "c.jsonl", iter([f'{{"a": "{KEY[:9]}', f'{KEY[9:]}"}}\n']))
    atomic_write_json(tmp_path / "s.json", {"model": KEY, KEY: 1})
    atomic_write(tmp_path / "b.bin", KEY.encode())
    assert (tmp_path / "t.md").read_text(encoding="utf-8") == "# [REDACTED]\n"
    assert json.loads((tmp_path / "c.jsonl").read_text(encoding="utf-8")) == {"a": "[REDACTED]"}
    assert json.loads((tmp_path / "s.json").read_text(encoding="utf-8")) == {"model": "[REDACTED]", "[REDACTED]": 1}
    assert (tmp_path / "b.bin").read_bytes() == KEY.encode()
