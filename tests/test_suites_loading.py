"""Loading a big suite: aliases shared, a shared gold validated once, folders resolved once —
each giving what the straightforward load gives (the same spec, cases, paths and errors)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
import yaml

from harness import suites, yamlfile
from harness.errors import InputError
from harness.model import GoldCase
from harness.suites import SuitePaths, load_suite, read_chunk
from .test_suites import suites_project

HEAD = "name: s\nvariants:\n  default:\n    prompt: prompts/p.txt\ncases:\n"
GOLD = ("  entities: &ents\n  - name: Ana\n    type: person\n  - name: Bo\n    type: person\n"
        "  relationships: &rels\n  - source: Ana\n    target: Bo\n")


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    """test_suites.py's project (a prompt, one chunk file), with four chunk files of its own."""
    root = suites_project(tmp_path)
    (root / "chunks").mkdir()
    for index in range(4):
        (root / "chunks" / f"c{index}.txt").write_text(f"Ana met Bo, time {index}.", encoding="utf-8")
    return root


def anchored(cases: int = 4, gold: str = GOLD, later: str = "  entities: *ents\n  relationships: *rels\n") -> str:
    """A suite whose first case anchors its gold and every later case refers to it."""
    text = HEAD + "- id: c0\n  chunk: chunks/c0.txt\n" + gold
    return text + "".join(f"- id: c{i}\n  chunk: chunks/c{i}.txt\n" + later for i in range(1, cases))


def write(root: Path, text: str) -> Path:
    path = root / "suites" / "s.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def straightforward_load(path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """load_suite as it was: every alias a copy, every case's gold validated on its own."""
    with monkeypatch.context() as patch:
        patch.setattr(suites, "load_yaml", lambda file, shared=False: yamlfile.load_yaml(file))
        patch.setattr(suites, "_validate_shared_gold", lambda data: data)
        try:
            return load_suite(path)
        except InputError as exc:
            return exc.message


def load_or_message(path: Path) -> Any:
    try:
        return load_suite(path)
    except InputError as exc:
        return exc.message


def test_cases_sharing_an_anchored_gold_share_its_models(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write(project, anchored())
    suite = load_suite(path)
    expected = straightforward_load(path, monkeypatch)
    assert suite.spec.model_dump() == expected.spec.model_dump()
    assert [case.model_dump() for case in suite.cases] == [case.model_dump() for case in expected.cases]
    assert suite.cases[3].entities[1] is suite.cases[0].entities[1]
    assert suite.cases[3].relationships[0] is suite.cases[1].relationships[0]
    assert expected.cases[3].entities[1] is not expected.cases[0].entities[1]


def test_written_out_gold_loads_as_the_anchored_one(project: Path) -> None:
    written = yaml.safe_dump(json.loads(json.dumps(yaml.safe_load(anchored()))), sort_keys=False)  # no sharing left
    assert "&" not in written
    from_anchor = load_suite(write(project, anchored()))
    from_text = load_suite(write(project, written))
    assert [case.model_dump() for case in from_anchor.cases] == [case.model_dump() for case in from_text.cases]


@pytest.mark.parametrize("text", [
    anchored(gold=GOLD.replace("- name: Bo", "- nom: Bo")),  # the shared list does not validate: reported at c0
    anchored(gold=GOLD.replace("type: person\n  rel", "type: person\n    extra: 1\n  rel")),
    anchored(later="  entities: [{name: Cy}]\n  relationships: *rels\n"),  # c1's endpoints are not its entities
    anchored(later="  entities: *ents\n  relationships: *rels\n  annotated: maybe\n"),
    anchored().replace("- id: c3\n", "- id: c1\n"),  # duplicate id
    anchored().replace("chunks/c2.txt", "chunks/none.txt"),
    anchored() + "- id: c9\n  chunk: chunks/c0.txt\n  entities: *ents\n  relationships: *nowhere\n",
    anchored(gold=GOLD.replace("target: Bo", "target: Bo\n    type: '!!'")),  # a predicate with no letters
    HEAD.replace("prompt: prompts/p.txt", "prompt: 3\n    format: nope") + "- id: c0\n  text: x\n  entities: &e [{nom: a}]\n- id: c1\n  text: y\n  entities: *e\n",
])
def test_errors_are_those_of_the_straightforward_load(project: Path, text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write(project, text)
    message = load_or_message(path)
    assert isinstance(message, str), "the suite should be refused"
    assert message == straightforward_load(path, monkeypatch)


@pytest.mark.parametrize("chunk", [
    "chunks/c1.txt", "../project/chunks/c2.txt", "./chunks//c3.txt", "chunks/none.txt", "chunks", "chunks/.", "chunks/..",
    "link.txt", "linked/c1.txt", "loop/c1.txt", "outside.txt", "chunks/c1.txt/", "",
])
def test_suite_paths_resolve_as_each_file_alone_would(project: Path, chunk: str) -> None:
    """One SuitePaths for all chunks reads (or refuses) each as read_chunk alone does."""
    (project / "link.txt").symlink_to(project / "chunks" / "c0.txt")
    (project / "linked").symlink_to(project / "chunks")
    (project / "loop").symlink_to(project / "loop")
    (project.parent / "secret.txt").write_text("s", encoding="utf-8")
    (project / "outside.txt").symlink_to(project.parent / "secret.txt")
    suite_path = write(project, anchored())
    paths = SuitePaths(suite_path, project)

    def read(**kwargs: Any) -> str:
        try:
            return read_chunk(chunk, suite_path, project, **kwargs)
        except ValueError as exc:
            return f"error: {exc}"

    first = read(paths=paths)
    assert first == read(paths=paths) == read()
    resolved = paths.resolve(chunk)
    assert resolved == suites.resolve_path(chunk, suite_path, project)
    assert paths.realpath(resolved) == os.path.realpath(resolved)
    assert paths.inside(resolved) == suites._inside(resolved, project)


def test_an_anchored_suite_beyond_a_copying_loads_limit_loads(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """More values once aliases expand than a copying load accepts (MAX_YAML_NODES), fewer than
    four per character: a suite loads them."""
    monkeypatch.setattr(yamlfile, "MAX_YAML_NODES", 10_000)
    for index in range(4, 200):
        (project / "chunks" / f"c{index}.txt").write_text("Ana met Bo.", encoding="utf-8")
    gold = "  entities: &ents\n" + "".join(f"  - name: P{i}\n    type: person\n" for i in range(20))
    gold += "  relationships: &rels\n" + "".join(f"  - source: P{i}\n    target: P{i + 1}\n" for i in range(10))
    text = anchored(200, gold=gold)  # about 31,000 values in 15,000 characters
    with pytest.raises(InputError, match="more than 10000 values once aliases are expanded"):
        yamlfile.parse_yaml(text, "s.yaml")
    suite = load_suite(write(project, text))
    assert len(suite.cases) == 200 and suite.cases[-1].entities[19].name == "P19"


SHIPPED = sorted((Path(__file__).parent.parent / "suites").glob("*.yaml"))


@pytest.mark.parametrize("suite_file", SHIPPED, ids=[path.stem for path in SHIPPED])
def test_cases_built_without_validation_are_the_validated_ones(suite_file: Path) -> None:
    """Every shipped suite's cases (every kind) equal GoldCase validated from the same values:
    the same values of the same types, and the same fields set."""
    for case in load_suite(suite_file).cases:
        validated = GoldCase(**{name: getattr(case, name) for name in GoldCase.model_fields})
        assert case == validated and case.model_dump() == validated.model_dump()
        assert case.model_fields_set == validated.model_fields_set
        for name in GoldCase.model_fields:
            assert type(getattr(case, name)) is type(getattr(validated, name)), name


def test_yaml_merge_keys_load_as_yaml_says(project: Path) -> None:
    """Issue 28 item 22: `<<: *base` was refused ("could not determine a constructor for the tag")."""
    text = ("name: s\n"
            "model:\n  <<: {name: gpt-4o-mini, temperature: 0, max_gleanings: 0}\n  max_gleanings: 1\n"
            "variants:\n  default: &v\n    prompt: prompts/p.txt\n    entity_types: [person]\n"
            "  tuned:\n    <<: *v\n    entity_types: [person, place]\n"
            "cases:\n- id: a\n  text: Ana met Bo.\n  <<: {entities: [{name: Ana}]}\n")
    suite = load_suite(write(project, text))
    assert (suite.spec.model.name, suite.spec.model.max_gleanings) == ("gpt-4o-mini", 1)
    assert suite.spec.variants["tuned"].prompt == "prompts/p.txt"
    assert suite.spec.variants["tuned"].entity_types == ["person", "place"]
    assert [e.name for e in suite.cases[0].entities] == ["Ana"]
    # what a merge gives is checked like what is written: an unknown key names the `<<` line
    message = load_or_message(write(project, text.replace("{entities: [{name: Ana}]}", "{entitys: []}")))
    assert isinstance(message, str) and "s.yaml:15:" in message and "entitys" in message, message


def test_a_merge_of_no_mapping_names_its_line(project: Path) -> None:
    path = write(project, "name: s\nvariants:\n  default:\n    <<: [1, 2]\n    prompt: prompts/p.txt\ncases:\n- id: a\n  text: x\n")
    assert load_or_message(path) == f"{path}:4: a merge (<<) takes a mapping or a list of mappings"
