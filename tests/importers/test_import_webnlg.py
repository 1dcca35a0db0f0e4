"""`harness import webnlg` (a suite of the challenge's references) and `harness import
webnlg-candidates` (a system's candidate XML as outputs rows), on the hand-written fixtures in
tests/fixtures/webnlg/ (no file of the challenge is shipped)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from harness.suites import load_suite

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "webnlg"


def test_a_case_per_entry_named_by_its_eid_with_its_triples_in_order(harness_cli, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert harness_cli(["import", "webnlg", str(FIXTURES / "refs.xml"), "--out", "suites/test.yaml"]) == 0
    suite = load_suite(Path("suites/test.yaml"))
    assert [case.id for case in suite.cases] == ["Id1", "Id2", "Id3"]
    trane = suite.cases[2]
    assert trane.text == "Trane, founded on January 1st 1913, is based in Ireland."
    assert [(r.source, r.type, r.target) for r in trane.relationships] == [
        ("Trane", "location", "Ireland"), ("Trane", "foundingDate", "1913-01-01")]
    raw = yaml.safe_load(Path("suites/test.yaml").read_text(encoding="utf-8"))
    assert "split: all" in raw["notes"] and "Airport 1, Company 1, Politician 1" in raw["notes"]
    assert raw["variants"]["webnlg"]["format"] == "json_triples"
    assert Path("prompts/webnlg/test.yaml").is_file()


def test_the_split_is_read_from_the_challenge_file_names(harness_cli, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    named = tmp_path / "semantic-parsing-test-data-with-refs-en(2) (Unseen Entities).xml"
    shutil.copy(FIXTURES / "refs.xml", named)
    assert harness_cli(["import", "webnlg", str(named), "--out", "suites/ue.yaml"]) == 0
    assert "split: unseen_entities" in yaml.safe_load(Path("suites/ue.yaml").read_text(encoding="utf-8"))["notes"]


def test_candidates_without_eids_take_the_references_eids_by_position(harness_cli, tmp_path) -> None:
    out = tmp_path / "cands.jsonl"
    assert harness_cli(["import", "webnlg-candidates", str(FIXTURES / "cands.xml"), "--refs", str(FIXTURES / "refs.xml"),
                        "--out", str(out)]) == 0
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [row["id"] for row in rows] == ["Id1", "Id2", "Id3"]
    assert json.loads(rows[1]["output"]) == [["X", "p", "New_Hampshire"]]


def test_a_bare_ampersand_is_the_character_as_the_scorer_reads_it(harness_cli, tmp_path) -> None:
    cands = tmp_path / "c.xml"
    cands.write_text('<benchmark><entries><entry eid="Id1"><generatedtripleset>'
                     "<gtriple>Hall | owner | College_of_William_&_Mary</gtriple><gtriple>A | b | &amp;c</gtriple>"
                     "</generatedtripleset></entry></entries></benchmark>", encoding="utf-8")
    out = tmp_path / "o.jsonl"
    assert harness_cli(["import", "webnlg-candidates", str(cands), "--out", str(out)]) == 0
    assert json.loads(json.loads(out.read_text(encoding="utf-8"))["output"]) == [
        ["Hall", "owner", "College_of_William_&_Mary"], ["A", "b", "&c"]]


@pytest.mark.parametrize(("text", "message"), [
    ('<?xml version="1.0"?><!DOCTYPE b [<!ENTITY x "xxxxxxxx">]><benchmark>&x;</benchmark>', "DTD or entity declaration"),
    ("<benchmark><entries><entry eid='Id1'>", "not well-formed XML"),
    ("<benchmark><entries></entries></benchmark>", "no <entry> element"),
    ("<benchmark><entries><entry eid='Id1'><modifiedtripleset><mtriple>A | b</mtriple></modifiedtripleset>"
     "<lex>t</lex></entry></entries></benchmark>", "is not 'subject | property | object'"),
    ("<benchmark><entries><entry eid='Id 1'><lex>t</lex></entry></entries></benchmark>", "cannot be a case id"),
    ("<benchmark><entries><entry><lex>t</lex></entry></entries></benchmark>", "entry 1: no eid attribute"),
])
def test_bad_references_are_one_line_and_exit_2(harness_cli, tmp_path, monkeypatch, capsys, text, message) -> None:
    monkeypatch.chdir(tmp_path)
    refs = tmp_path / "refs.xml"
    refs.write_text(text, encoding="utf-8")
    assert harness_cli(["import", "webnlg", str(refs)]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and str(refs) in err
    assert len(err.splitlines()) == 1
    assert not (tmp_path / "suites").exists()


def test_candidates_without_eids_need_the_references(harness_cli, tmp_path, capsys) -> None:
    assert harness_cli(["import", "webnlg-candidates", str(FIXTURES / "cands.xml"), "--out", str(tmp_path / "o.jsonl")]) == 2
    assert "give --refs" in capsys.readouterr().err
