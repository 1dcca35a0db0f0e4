"""`harness import docred`: a case per document, text rebuilt from tokens, vertexSet and labels as gold.

The two documents are written here in DocRED's format (no file of DocRED or Re-DocRED is shipped).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from harness.importers.docred import detokenize
from harness.run.plan import plan_variant
from harness.suites import load_suite


def _mention(name: str, type_: str, sent_id: int, start: int, end: int) -> dict:
    return {"name": name, "type": type_, "sent_id": sent_id, "pos": [start, end]}


DOC_1 = {
    "title": "Willi Schneider (skeleton racer)",
    "sents": [
        ["Wilfried", '"', "Willi", '"', "Schneider", "(", "born", "13", "March", "1963", "in", "Mediaș", ")",
         "is", "a", "German", "skeleton", "racer", "."],
        ["In", "2012", "Schneider", "agreed", "a", "two", "-", "year", "contract", "with", "Russia", "'s", "team", "."],
    ],
    "vertexSet": [
        [_mention('Wilfried " Willi " Schneider', "PER", 0, 0, 5), _mention("Schneider", "PER", 1, 2, 3)],
        [_mention("13 March 1963", "TIME", 0, 7, 10)],
        [_mention("Mediaș", "LOC", 0, 11, 12)],
        [_mention("German", "LOC", 0, 15, 16)],
        [_mention("Russia", "LOC", 1, 10, 11)],
    ],
    "labels": [
        {"h": 0, "t": 1, "r": "P569", "evidence": [0]},
        {"h": 0, "t": 2, "r": "P19", "evidence": [0]},
        {"h": 0, "t": 3, "r": "P27", "evidence": [0]},
        {"h": 2, "t": 3, "r": "P17", "evidence": [0]},  # P17 has no name in REL_INFO below
    ],
}
DOC_2 = {
    "title": "Acme",
    "sents": [["Acme", "Corp", "(", "Acme", ")", "is", "based", "in", "Paris", ",", "France", "."],
              ["Paris", "is", "the", "capital", "of", "France", "."]],
    "vertexSet": [
        [_mention("Acme Corp", "ORG", 0, 0, 2), _mention("Acme", "ORG", 0, 3, 4)],
        [_mention("Paris", "LOC", 0, 8, 9), _mention("Paris", "LOC", 1, 0, 1)],
        [_mention("France", "LOC", 0, 10, 11), _mention("France", "LOC", 1, 5, 6)],
        [_mention("Acme", "MISC", 0, 3, 4)],  # its name is another entity's alias: the name wins
        [_mention("Paris", "MISC", 1, 0, 1)],  # its only name is another entity's name
    ],
    "labels": [
        {"h": 0, "t": 1, "r": "P159", "evidence": [0]},
        {"h": 2, "t": 1, "r": "P36", "evidence": [1]},
        {"h": 2, "t": 1, "r": "P36", "evidence": [1]},  # the same label twice
    ],
}
REL_INFO = {"P569": "date of birth", "P19": "place of birth", "P27": "country of citizenship",
            "P159": "headquarters location", "P36": "capital"}


def write_files(folder: Path, docs: object = None) -> tuple[Path, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    data = folder / "dev.json"
    data.write_text(json.dumps([DOC_1, DOC_2] if docs is None else docs), encoding="utf-8")
    rel_info = folder / "rel_info.json"
    rel_info.write_text(json.dumps(REL_INFO), encoding="utf-8")
    return data, rel_info


def test_detokenize_joins_tokens_as_prose() -> None:
    assert detokenize(["Wilfried", '"', "Willi", '"', "Schneider", "(", "born", "1963", ")", "."]) == \
        'Wilfried "Willi" Schneider (born 1963).'
    assert detokenize(["a", "two", "-", "year", "deal", "with", "Russia", "'s", "team", ",", "he", "said"]) == \
        "a two-year deal with Russia's team, he said"
    assert detokenize(["players", "'", "union", ";", "costs", "$", "5", "or", "10", "%", "."]) == \
        "players' union; costs $5 or 10%."


def test_one_case_per_document_with_its_gold(harness_cli, tmp_path, monkeypatch, capsys) -> None:
    data, rel_info = write_files(tmp_path / "docred")
    monkeypatch.chdir(tmp_path)
    assert harness_cli(["import", "docred", str(data), "--rel-info", str(rel_info)]) == 0
    out, err = capsys.readouterr()
    # 4 labels in document 0, 2 distinct in document 1; the ontology lists REL_INFO's 5 names and the unnamed P17
    assert "wrote suites/dev.yaml: 2 case(s), 6 gold relationship(s), ontology of 6 relation(s)" in out
    assert "no name for P17; kept as P-ids" in err
    assert "1 entity share every name with another entity" in err

    suite = load_suite(Path("suites/dev.yaml"))
    assert [c.id for c in suite.cases] == ["0000-Willi-Schneider-skeleton-racer", "0001-Acme"]
    first = suite.cases[0]
    assert first.text == ('Wilfried "Willi" Schneider (born 13 March 1963 in Mediaș) is a German skeleton racer. '
                          "In 2012 Schneider agreed a two-year contract with Russia's team.")
    assert first.annotated is True
    assert [(e.name, e.type, e.aliases) for e in first.entities] == [
        ('Wilfried "Willi" Schneider', "PER", ["Schneider"]), ("13 March 1963", "TIME", []),
        ("Mediaș", "LOC", []), ("German", "LOC", []), ("Russia", "LOC", [])]
    assert [(r.source, r.type, r.target, r.directed) for r in first.relationships] == [
        ('Wilfried "Willi" Schneider', "date of birth", "13 March 1963", True),
        ('Wilfried "Willi" Schneider', "place of birth", "Mediaș", True),
        ('Wilfried "Willi" Schneider', "country of citizenship", "German", True),
        ("Mediaș", "P17", "German", True)]
    second = suite.cases[1]
    assert second.text == "Acme Corp (Acme) is based in Paris, France. Paris is the capital of France."
    # names before aliases: entity 3 is named Acme, so entity 0 loses that alias; entity 4's only
    # name is entity 1's, so it is named by its vertexSet index
    assert [(e.name, e.aliases) for e in second.entities] == [
        ("Acme Corp", []), ("Paris", []), ("France", []), ("Acme", []), ("Paris [4]", [])]
    assert [(r.source, r.type, r.target) for r in second.relationships] == [
        ("Acme Corp", "headquarters location", "Paris"), ("France", "capital", "Paris")]
    spec = suite.spec
    assert spec.entity_types == ["PER", "ORG", "LOC", "TIME", "MISC"]
    assert spec.ontology is not None
    assert [r.name for r in spec.ontology.relations] == [
        "date of birth", "place of birth", "country of citizenship", "headquarters location", "capital", "P17"]
    assert spec.matching.directed is True


def test_types_and_limit_filter_entities_and_documents(harness_cli, tmp_path, monkeypatch, capsys) -> None:
    data, _ = write_files(tmp_path / "docred")
    monkeypatch.chdir(tmp_path)
    assert harness_cli(["import", "docred", str(data), "--types", "PER,LOC,ORG", "--limit", "1", "--name", "small"]) == 0
    assert "wrote suites/small.yaml: 1 case(s), 3 gold relationship(s)" in capsys.readouterr().out
    case = load_suite(Path("suites/small.yaml")).cases[0]
    # the TIME entity goes, and with it the date-of-birth label; relations are P-ids without --rel-info
    assert [e.name for e in case.entities] == ['Wilfried "Willi" Schneider', "Mediaș", "German", "Russia"]
    assert [(r.source, r.type, r.target) for r in case.relationships] == [
        ('Wilfried "Willi" Schneider', "P19", "Mediaș"), ('Wilfried "Willi" Schneider', "P27", "German"),
        ("Mediaș", "P17", "German")]


def test_the_variants_render_the_document(harness_cli, tmp_path, monkeypatch) -> None:
    data, rel_info = write_files(tmp_path / "docred")
    monkeypatch.chdir(tmp_path)
    assert harness_cli(["import", "docred", str(data), "--rel-info", str(rel_info)]) == 0
    suite = load_suite(Path("suites/dev.yaml"))
    assert suite.baseline == "triples"
    triples = plan_variant(suite, "triples")
    assert triples.format == "function"
    text = triples.render(suite.cases[1])[-1]["content"]
    assert "- headquarters_location\n- capital\n- P17\n" in text
    assert text.endswith("Document:\nAcme Corp (Acme) is based in Paris, France. Paris is the capital of France.\n\nTriples:\n")
    graphrag = plan_variant(suite, "graphrag")
    assert "PER,ORG,LOC,TIME,MISC" in graphrag.render(suite.cases[1])[-1]["content"]


@pytest.mark.parametrize(("docs", "message"), [
    ({"title": "x"}, "a DocRED file is a JSON list of documents, found dict"),
    ([{**DOC_1, "labels": [{"h": 0, "t": 9, "r": "P19"}]}],
     "document 0 ('Willi Schneider (skeleton racer)'): labels[0].t = 9 is not an index of vertexSet (0..4)"),
    ([DOC_1, {k: v for k, v in DOC_2.items() if k != "labels"}], "document 1 ('Acme'): no `labels`"),
    ([{**DOC_2, "sents": "Acme is in Paris."}], "document 0 ('Acme'): `sents` must be a list of token lists"),
    ([{**DOC_2, "vertexSet": [[{"name": "Acme"}]]}], "vertexSet[0][0] needs a string `name` and `type`"),
])
def test_malformed_files_are_one_line_and_exit_2(harness_cli, tmp_path, monkeypatch, capsys, docs, message) -> None:
    data, _ = write_files(tmp_path / "docred", docs)
    monkeypatch.chdir(tmp_path)
    assert harness_cli(["import", "docred", str(data)]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err
    assert len(err.splitlines()) == 1
    assert not (tmp_path / "suites").exists()


def test_bad_json_and_bad_rel_info_name_the_file(harness_cli, tmp_path, monkeypatch, capsys) -> None:
    data, rel_info = write_files(tmp_path / "docred")
    monkeypatch.chdir(tmp_path)
    rel_info.write_text('{"P17": 5}')
    assert harness_cli(["import", "docred", str(data), "--rel-info", str(rel_info)]) == 2
    assert "rel_info.json: rel_info is a JSON object of P-id -> relation name strings" in capsys.readouterr().err
    data.write_text('[{"title": "x",\n oops]')
    assert harness_cli(["import", "docred", str(data)]) == 2
    assert "dev.json:2: not valid JSON" in capsys.readouterr().err


REAL_COPY = Path("/work/.mirror/tonytan48+Re-DocRED/repo")


@pytest.mark.skipif(not REAL_COPY.is_dir(), reason="no real copy of Re-DocRED")
def test_real_redocred_copy_dev_file_keeps_every_label(harness_cli, tmp_path, monkeypatch, capsys) -> None:
    """Reads a real copy of Re-DocRED (a git mirror fetched by hand), when there is one."""
    dev = tmp_path / "dev_revised.json"
    dev.write_bytes(subprocess.run(["git", "--git-dir", str(REAL_COPY), "show", "HEAD:data/dev_revised.json"],
                                   check=True, capture_output=True).stdout)
    monkeypatch.chdir(tmp_path)
    assert harness_cli(["import", "docred", str(dev), "--limit", "50"]) == 0
    suite = load_suite(tmp_path / "suites" / "dev_revised.yaml")
    assert len(suite.cases) == 50
    labels = sum(len(doc["labels"]) for doc in json.loads(dev.read_text(encoding="utf-8"))[:50])
    # Re-DocRED's labels are distinct (h, t, r) triples: every one becomes a gold relationship
    assert sum(len(c.relationships) for c in suite.cases) == labels
    assert suite.cases[0].text.startswith('Wilfried "Willi" Schneider (born 13 March 1963 in Mediaș, Transylvania)')


def test_the_hugging_face_export_with_label_columns_is_read(harness_cli, tmp_path, monkeypatch, capsys) -> None:
    columns = {"head": [0, 2], "tail": [1, 1], "relation_id": ["P159", "P36"],
               "relation_text": ["headquarters location", "capital"], "evidence": [[0], [1]]}
    data, _ = write_files(tmp_path / "docred", [{**DOC_2, "labels": columns}])
    monkeypatch.chdir(tmp_path)
    assert harness_cli(["import", "docred", str(data)]) == 0
    suite = load_suite(Path("suites/dev.yaml"))
    # without --rel-info the names come from relation_text, and the ontology lists the same names
    assert [(r.source, r.type, r.target) for r in suite.cases[0].relationships] == [
        ("Acme Corp", "headquarters location", "Paris"), ("France", "capital", "Paris")]
    assert suite.spec.ontology is not None
    assert [r.name for r in suite.spec.ontology.relations] == ["capital", "headquarters location"]  # P36 before P159
    data.write_text(json.dumps([{**DOC_2, "labels": {**columns, "tail": [1]}}]), encoding="utf-8")
    assert harness_cli(["import", "docred", str(data), "--force"]) == 2
    assert "`labels` as columns needs lists `head`, `tail`, `relation_id` of one length" in capsys.readouterr().err
