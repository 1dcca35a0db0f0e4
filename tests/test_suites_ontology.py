"""Suite `ontology:` (inline or a file), `matching.predicate_synonyms` and typed gold: what loads,
and bad input refused in one line naming file, line and key (exit 2 from the CLI)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness.cli import main
from harness.suites import load_gold_case, load_suite

from .test_suites import project, refused, with_, write_suite  # noqa: F401  (project is a fixture)

ONTOLOGY: dict[str, Any] = {
    "name": "companies",
    "entity_types": ["company", "person"],
    "relations": [{"name": "foundedBy", "domain": "company", "range": "person"}, {"name": "knows"}],
}
TYPED_CASE = {"id": "a", "text": "Ana founded Bo Corp.", "entities": [{"name": "Ana"}, {"name": "Bo Corp"}],
              "relationships": [{"source": "Bo Corp", "target": "Ana", "type": "founded_by"}]}


def test_an_inline_ontology_and_typed_gold_load(project: Path) -> None:
    suite = load_suite(write_suite(project, with_(ontology=ONTOLOGY, cases=[TYPED_CASE],
                                                  matching={"predicate_synonyms": {"founded by": ["founder"]}})))
    assert suite.spec.ontology is not None and suite.spec.ontology.relations[0].domain == "company"
    assert suite.cases[0].relationships[0].type == "founded_by"
    assert suite.spec.matching.predicate_synonyms == {"founded by": ["founder"]}


@pytest.mark.parametrize("suffix", ["json", "yaml"])
def test_an_ontology_file_loads(project: Path, suffix: str) -> None:
    text = json.dumps(ONTOLOGY) if suffix == "json" else "name: companies\nentity_types: [company, person]\n" \
        "relations:\n  - {name: foundedBy, domain: company, range: person}\n  - {name: knows}\n"
    (project / "suites" / f"onto.{suffix}").write_text(text, encoding="utf-8")
    suite = load_suite(write_suite(project, with_(ontology=f"onto.{suffix}")))
    assert suite.spec.ontology is not None
    assert [r.name for r in suite.spec.ontology.relations] == ["foundedBy", "knows"]


@pytest.mark.parametrize(
    ("ontology", "needles"),
    [
        ({"entity_types": ["company", " "]}, ("ontology.entity_types[1]", "blank")),
        ({"relations": [{"name": "--"}]}, ("ontology.relations[0].name", "no letters or digits")),
        ({"relations": [{"label": "r"}]}, ("ontology.relations[0]", "missing required key 'name'")),
        ({"relations": "foundedBy"}, ("ontology.relations",)),
    ],
)
def test_bad_ontologies_are_one_line_errors(project: Path, ontology: dict[str, Any], needles: tuple[str, ...]) -> None:
    refused(project, with_(ontology=ontology), *needles)


def test_published_ontologies_load_as_they_are(project: Path) -> None:
    # Text2KGBench's astronaut ontology lists Place twice and gives datatype ranges (string, Date)
    onto = {"entity_types": ["Astronaut", "Place", "Place"],
            "relations": [{"name": "birthPlace", "domain": "Astronaut", "range": "Place"},
                          {"name": "birthDate", "domain": "Astronaut", "range": "Date"},
                          {"name": "title", "domain": "Astronaut", "range": "string"}]}
    suite = load_suite(write_suite(project, with_(ontology=onto)))
    assert suite.spec.ontology is not None and len(suite.spec.ontology.relations) == 3


def test_a_blank_domain_or_range_is_not_declared(project: Path) -> None:
    # Text2KGBench's ontologies write "range": "" for a relation whose objects may be anything
    onto = {"entity_types": ["company"], "relations": [{"name": "r", "domain": "company", "range": ""}]}
    suite = load_suite(write_suite(project, with_(ontology=onto)))
    assert suite.spec.ontology is not None and suite.spec.ontology.relations[0].range == ""


def test_bad_ontology_files_name_their_own_file(project: Path) -> None:
    refused(project, with_(ontology="missing.json"), "ontology file not found")
    bad = project / "suites" / "bad.json"
    bad.write_text(json.dumps({"relations": [{"name": "r", "domains": "x"}]}), encoding="utf-8")
    path = write_suite(project, with_(ontology="bad.json"))
    with pytest.raises(Exception) as caught:
        load_suite(path)
    assert str(bad) in str(caught.value) and "unknown key 'domains'" in str(caught.value)
    (project / "suites" / "list.json").write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(Exception, match="an ontology is a mapping"):
        load_suite(write_suite(project, with_(ontology="list.json")))


def test_an_ontology_file_outside_the_project_is_refused(project: Path, tmp_path: Path) -> None:
    outside = tmp_path / "onto.json"
    outside.write_text(json.dumps(ONTOLOGY), encoding="utf-8")
    refused(project, with_(ontology=str(outside)), "outside the project folder")
    assert load_suite(write_suite(project, with_(ontology=str(outside))), allow_outside_chunks=True).spec.ontology


@pytest.mark.parametrize(
    ("synonyms", "needles"),
    [
        ({"founded by": ["founder"], "founder_of": ["founder"]}, ("matching.predicate_synonyms.founder_of[0]",
                                                                  "'founder' already means 'founded by'")),
        ({"founded by": ["FoundedBy", "..."]}, ("matching.predicate_synonyms.founded by[1]", "no letters or digits")),
        ({"?": []}, ("no letters or digits",)),
        ({"founded by": "founder"}, ("matching.predicate_synonyms",)),
    ],
)
def test_bad_predicate_synonyms_are_refused(project: Path, synonyms: dict[str, Any], needles: tuple[str, ...]) -> None:
    refused(project, with_(matching={"predicate_synonyms": synonyms}), *needles)


def test_a_gold_predicate_without_letters_is_refused(project: Path) -> None:
    case = {**TYPED_CASE, "relationships": [{"source": "Ana", "target": "Bo Corp", "type": "—"}]}
    refused(project, with_(cases=[case]), "cases[0].relationships[0].type", "no letters or digits")
    gold = project / "gold.yaml"
    gold.write_text(json.dumps({k: v for k, v in case.items() if k != "id"}), encoding="utf-8")
    with pytest.raises(Exception, match="no letters or digits"):
        load_gold_case(gold)


def test_the_cli_exits_2_on_a_bad_ontology(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write_suite(project, with_(ontology={"relations": [{"name": "r"}, {"name": "?"}]}))
    code = main(["run", str(path)])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "no letters or digits" in err and "Traceback" not in err
