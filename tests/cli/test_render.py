"""`--json` output: one indented JSON document on stdout, non-ASCII kept readable."""

from __future__ import annotations

import json

from harness.cli.render import emit_json


def test_emit_json_writes_one_indented_document_with_non_ascii_kept(capsys):
    emit_json({"entities": ["ANA RUIZ", "Zürich", "東京"], "count": 3})
    out = capsys.readouterr().out
    assert out.endswith("}\n") and out.count("\n") > 1  # indented, one trailing newline
    assert "Zürich" in out and "東京" in out and "\\u" not in out
    assert json.loads(out) == {"entities": ["ANA RUIZ", "Zürich", "東京"], "count": 3}


def test_emit_json_keeps_key_order(capsys):
    emit_json({"z": 1, "a": 2})
    assert capsys.readouterr().out == '{\n  "z": 1,\n  "a": 2\n}\n'
