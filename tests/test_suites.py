"""Suite loading: every enumerated or ranged field is checked at load, chunks are read safely
and only from inside the project, and every problem is one line naming file, line and key."""

from __future__ import annotations

import copy
import os
from pathlib import Path
from typing import Any

import pytest
import yaml

from harness.errors import InputError
from harness.suites import CASE_ID, load_gold_case, load_suite

from .conftest import write_project

PROMPT = "Types {entity_types} {tuple_delimiter}{record_delimiter}{completion_delimiter} {language}\nText: {input_text}\n"
BASE: dict[str, Any] = {
    "name": "s",
    "variants": {"default": {"prompt": "prompts/p.txt"}},
    "cases": [{"id": "a", "chunk": "fixtures/chunks/a.txt"}],
}


def suites_project(tmp_path: Path) -> Path:
    """A project folder with `suites/`, the prompt `prompts/p.txt` and the chunk `fixtures/chunks/a.txt`."""
    root = tmp_path / "project"
    (root / "suites").mkdir(parents=True)
    (root / "prompts").mkdir()
    (root / "prompts" / "p.txt").write_text(PROMPT, encoding="utf-8")
    (root / "fixtures" / "chunks").mkdir(parents=True)
    (root / "fixtures" / "chunks" / "a.txt").write_text("Ana met Bo in Lisbon.", encoding="utf-8")
    return root


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    return suites_project(tmp_path)


def write_suite(root: Path, data: dict[str, Any] | str) -> Path:
    path = root / "suites" / "s.yaml"
    path.write_text(data if isinstance(data, str) else yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def with_(**changes: Any) -> dict[str, Any]:
    data = copy.deepcopy(BASE)
    for dotted, value in changes.items():
        target = data
        keys = dotted.split("__")
        for key in keys[:-1]:
            target = target.setdefault(key, {}) if isinstance(target, dict) else target[int(key)]
        if isinstance(target, list):
            target[int(keys[-1])] = value
        else:
            target[keys[-1]] = value
    return data


def refused(root: Path, data: dict[str, Any] | str, *needles: str, **kwargs: Any) -> str:
    path = write_suite(root, data)
    with pytest.raises(InputError) as caught:
        load_suite(path, **kwargs)
    message = caught.value.message
    assert message.startswith(f"{path}:"), message
    assert "\n" not in message
    for needle in needles:
        assert needle in message, message
    return message


def test_the_base_suite_loads(project: Path) -> None:
    suite = load_suite(write_suite(project, BASE))
    assert suite.cases[0].text == "Ana met Bo in Lisbon."


# ------------------------------------------------------------------ A: enumerated and ranged fields


def test_unknown_variant_format_is_refused_at_load_with_its_line(project: Path) -> None:
    message = refused(project, with_(variants={"default": {"prompt": "prompts/p.txt", "format": "xml"}}),
                      "variants.default.format", "'xml'", "graphrag")
    assert message.startswith(f"{project / 'suites' / 's.yaml'}:5:")


@pytest.mark.parametrize("value", [".nan", "5", "-1", ".inf", "1.5"])
@pytest.mark.parametrize("key", ["entity_recall", "relationship_f1", "format_errors", "completion_rate"])
def test_thresholds_outside_zero_one_are_refused(project: Path, key: str, value: str) -> None:
    text = yaml.safe_dump(BASE, sort_keys=False) + f"thresholds: {{{key}: {value}}}\n"
    refused(project, text, f"thresholds.{key}")


def test_per_variant_thresholds_are_checked_too(project: Path) -> None:
    text = yaml.safe_dump(BASE, sort_keys=False) + "thresholds: {variants: {default: {entity_recall: .nan}}}\n"
    refused(project, text, "thresholds.variants.default.entity_recall")


@pytest.mark.parametrize(
    ("key", "value"),
    [("max_drop", ".nan"), ("max_drop", "-0.1"), ("case_max_drop", "7"), ("metrics", "[entity_recal]")],
)
def test_regression_settings_are_checked(project: Path, key: str, value: str) -> None:
    text = yaml.safe_dump(BASE, sort_keys=False) + f"regression: {{{key}: {value}}}\n"
    refused(project, text, f"regression.{key}")


@pytest.mark.parametrize(
    ("key", "value"),
    [("temperature", ".nan"), ("temperature", ".inf"), ("temperature", "-1"), ("temperature", "3"),
     ("top_p", ".nan"), ("top_p", "0"), ("top_p", "1.5"), ("max_tokens", "0"), ("timeout_s", ".inf"),
     ("timeout_s", ".nan"), ("seed", "1.5")],
)
def test_model_settings_out_of_range_are_refused(project: Path, key: str, value: str) -> None:
    text = yaml.safe_dump(BASE, sort_keys=False) + f"model: {{{key}: {value}}}\n"
    refused(project, text, f"model.{key}")


def test_case_and_variant_names_do_not_end_in_a_newline(project: Path) -> None:
    assert CASE_ID.fullmatch("a") and not CASE_ID.fullmatch("a\n")
    refused(project, with_(cases=[{"id": "a\n", "text": "Ana met Bo."}]), "cases[0].id")
    refused(project, with_(variants={"v\n": {"prompt": "prompts/p.txt"}}), "variant name")
    refused(project, with_(name="s\n"), "name")


# ------------------------------------------------------------------ B: hostile YAML and chunk paths


def test_alias_bomb_suite_is_refused(project: Path) -> None:
    lines = ["x0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    lines += [f"x{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, 9)]
    refused(project, "\n".join(lines) + "\n" + yaml.safe_dump(BASE), "aliases are expanded")


def test_bad_tagged_scalar_in_a_suite_names_its_line(project: Path) -> None:
    text = yaml.safe_dump(BASE, sort_keys=False) + "model: {temperature: !!float zz}\n"
    refused(project, text, "not a valid float")


@pytest.mark.parametrize("chunk", ["fixtures/chunks/a\x00.txt", "x" * 5000])
def test_odd_chunk_paths_are_one_line_errors(project: Path, chunk: str) -> None:
    message = refused(project, with_(cases=[{"id": "a", "chunk": chunk}]), "cases[0].chunk")
    assert len(message) < 500


def test_device_chunk_is_refused(project: Path) -> None:
    refused(project, with_(cases=[{"id": "a", "chunk": "/dev/zero"}]), "cases[0].chunk", allow_outside_chunks=True)


def test_fifo_chunk_is_refused_without_blocking(project: Path) -> None:
    os.mkfifo(project / "fixtures" / "chunks" / "pipe.txt")
    refused(project, with_(cases=[{"id": "a", "chunk": "fixtures/chunks/pipe.txt"}]), "not a regular file")


def test_oversized_chunk_is_refused(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import harness.suites as suites

    monkeypatch.setattr(suites, "MAX_CHUNK_BYTES", 100)
    (project / "fixtures" / "chunks" / "big.txt").write_text("x" * 101, encoding="utf-8")
    refused(project, with_(cases=[{"id": "a", "chunk": "fixtures/chunks/big.txt"}]), "larger than")


# ------------------------------------------------------------------ D: chunks stay inside the project


@pytest.mark.parametrize("chunk", ["../../../../../../etc/passwd", "/etc/passwd", "/proc/self/environ", "../outside.txt"])
def test_chunks_outside_the_project_are_refused(project: Path, chunk: str) -> None:
    (project.parent / "outside.txt").write_text("secret", encoding="utf-8")
    refused(project, with_(cases=[{"id": "a", "chunk": chunk}]), "outside the project", "--allow-outside-chunks")


def test_a_symlink_out_of_the_project_is_refused(project: Path) -> None:
    (project.parent / "secret.txt").write_text("OPENAI_API_KEY=sk-secret", encoding="utf-8")
    (project / "fixtures" / "chunks" / "link.txt").symlink_to(project.parent / "secret.txt")
    refused(project, with_(cases=[{"id": "a", "chunk": "fixtures/chunks/link.txt"}]), "outside the project")


def test_outside_chunks_load_when_explicitly_allowed(project: Path) -> None:
    (project.parent / "outside.txt").write_text("Ana met Bo.", encoding="utf-8")
    suite = load_suite(write_suite(project, with_(cases=[{"id": "a", "chunk": "../outside.txt"}])),
                       allow_outside_chunks=True)
    assert suite.cases[0].text == "Ana met Bo."


def test_a_symlink_inside_the_project_is_fine(project: Path) -> None:
    (project / "fixtures" / "chunks" / "alias.txt").symlink_to(project / "fixtures" / "chunks" / "a.txt")
    suite = load_suite(write_suite(project, with_(cases=[{"id": "a", "chunk": "fixtures/chunks/alias.txt"}])))
    assert suite.cases[0].text.startswith("Ana")


def test_gold_file_chunks_stay_inside_their_project(project: Path) -> None:
    gold = project / "gold.yaml"
    gold.write_text("chunk: /proc/self/environ\nentities: []\n", encoding="utf-8")
    with pytest.raises(InputError, match="outside the project"):
        load_gold_case(gold)


def test_shipped_suites_still_load() -> None:
    root = Path(__file__).resolve().parent.parent
    for path in sorted((root / "suites").glob("*.yaml")):
        assert load_suite(path).cases


@pytest.mark.parametrize("prompt", ["prompts/a\x00b.txt", "x" * 5000 + ".txt", "x" * 300 + "/p.txt"])
def test_odd_prompt_paths_name_the_suite_line(project: Path, prompt: str) -> None:
    message = refused(project, with_(variants={"default": {"prompt": prompt}}), "variants.default.prompt")
    assert "\x00" not in message and len(message) < 600


def test_model_max_wait_reaches_the_endpoint_and_is_checked(tmp_path):
    """`model.max_wait_s` caps how long a Retry-After may make a call wait (then exit 4)."""
    from harness.run.plan import endpoint_settings

    path = write_project(tmp_path)
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    data["model"]["max_wait_s"] = 5
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    assert endpoint_settings(load_suite(path).spec.model).max_wait_s == 5
    data["model"]["max_wait_s"] = float("inf")
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    with pytest.raises(InputError, match="max_wait_s"):
        load_suite(path)


# ------------------------------------------------------------------ variant prompts stay inside the project


@pytest.mark.parametrize("prompt", ["/etc/passwd", "../outside.txt", "../../../../../../etc/hostname"])
def test_variant_prompts_outside_the_project_are_refused(project: Path, prompt: str) -> None:
    """A prompt is sent to the model and written to cassettes and reports, like a chunk."""
    (project.parent / "outside.txt").write_text(PROMPT, encoding="utf-8")
    refused(project, with_(variants={"default": {"prompt": prompt}}), "variants.default.prompt",
            "outside the project", "--allow-outside-chunks")


def test_a_variant_prompt_symlinked_out_of_the_project_is_refused(project: Path) -> None:
    (project.parent / "secret.txt").write_text("OPENAI_API_KEY=sk-secret {input_text}", encoding="utf-8")
    (project / "prompts" / "link.txt").symlink_to(project.parent / "secret.txt")
    refused(project, with_(variants={"default": {"prompt": "prompts/link.txt"}}), "outside the project")


def test_outside_variant_prompts_load_when_explicitly_allowed(project: Path) -> None:
    (project.parent / "outside.txt").write_text(PROMPT, encoding="utf-8")
    suite = load_suite(write_suite(project, with_(variants={"default": {"prompt": "../outside.txt"}})),
                       allow_outside_chunks=True)
    assert suite.spec.variants["default"].prompt == "../outside.txt"


def test_a_bare_prompt_name_found_only_in_the_current_folder_outside_the_project_is_refused(
        project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # `prompt: extract` has no slash or suffix, so load_suite leaves it to the resolver, which tries
    # suffixes (extract.txt) and also looks in the current folder: run from outside the project,
    # that must not read an outside file
    from harness.run.variant_prompt import load_variant_prompt, resolve_variant_prompt

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "extract.txt").write_text("OUTSIDE {input_text}", encoding="utf-8")
    monkeypatch.chdir(elsewhere)
    path = write_suite(project, with_(variants={"default": {"prompt": "extract"}}))
    with pytest.raises(InputError, match="outside the project folder .*--allow-outside-chunks"):
        load_variant_prompt(load_suite(path), "default")
    assert resolve_variant_prompt(load_suite(path, allow_outside_chunks=True), "default").found == "cwd"
    # an environment override is the user's own choice
    monkeypatch.setenv("HARNESS_PROMPT_DEFAULT", str(elsewhere / "extract.txt"))
    assert load_variant_prompt(load_suite(path), "default").render({"input_text": "x"})[-1]["content"] == "OUTSIDE x"


def test_builtin_and_inside_variant_prompts_load(project: Path) -> None:
    suite = load_suite(write_suite(project, with_(variants={"default": {"prompt": "prompts/p.txt"},
                                                            "builtin": {"prompt": "builtin:graphrag.extract_graph"}})))
    assert suite.variant_names() == ["default", "builtin"]


# ------------------------------------------------------------------ suite kinds (docs/suites.md, "Suite kinds")

def kind_suite(kind: str, **case: Any) -> dict[str, Any]:
    data = copy.deepcopy(BASE)
    data["kind"] = kind
    data["cases"] = [{"id": "a", **case}]
    return data


def test_a_summary_case_gets_the_description_list_as_graphrag_writes_it(project: Path) -> None:
    suite = load_suite(write_suite(project, kind_suite("summarize_descriptions", entity_name="ANA",
                                                       descriptions=["b second", "a first"])))
    case = suite.cases[0]
    # GraphRAG 1.x-3.x: json.dumps(sorted(descriptions), ensure_ascii=False)
    assert case.text == '["a first", "b second"]'
    assert case.entity_name == "ANA" and case.descriptions == ["b second", "a first"]


def test_a_relationship_summary_names_its_pair_as_graphrag_writes_it(project: Path) -> None:
    suite = load_suite(write_suite(project, kind_suite("summarize_descriptions", entity_name=["ANA", "BO"],
                                                       descriptions=["Ana met Bo"])))
    assert suite.cases[0].entity_name == '["ANA", "BO"]'


@pytest.mark.parametrize(("case", "needles"), [
    ({"descriptions": ["x"]}, ("cases[0]", "needs `entity_name`")),
    ({"entity_name": "  ", "descriptions": ["x"]}, ("cases[0].entity_name", "needs `entity_name`")),
    ({"entity_name": "ANA"}, ("cases[0]", "non-empty `descriptions`")),
    ({"entity_name": "ANA", "descriptions": []}, ("cases[0].descriptions", "non-empty `descriptions`")),
    ({"entity_name": "ANA", "descriptions": ["x", " "]}, ("cases[0].descriptions[1]", "a description is blank")),
    ({"entity_name": "ANA", "descriptions": ["x"], "text": "x"}, ("cases[0].text", "not `text`")),
    ({"entity_name": "ANA", "descriptions": ["x"], "chunk": "fixtures/chunks/a.txt"}, ("cases[0].chunk", "not `chunk`")),
    ({"entity_name": "ANA", "descriptions": ["x"], "entities": [{"name": "ANA"}]},
     ("cases[0].entities", "`entities` is not gold of a summarize_descriptions case")),
    ({"entity_name": "ANA", "descriptions": ["x"], "claims": [{"subject": "ANA"}]}, ("cases[0].claims", "not gold")),
    ({"entity_name": "ANA", "descriptions": ["x"], "entity_specs": ["person"]},
     ("cases[0].entity_specs", "not an input of a summarize_descriptions case")),
    ({"entity_name": ["ANA"], "descriptions": ["x"]}, ("cases[0].entity_name", "[source, target]")),
])
def test_summary_cases_are_validated(project: Path, case: dict[str, Any], needles: tuple[str, ...]) -> None:
    refused(project, kind_suite("summarize_descriptions", **case), *needles)


@pytest.mark.parametrize(("kind", "case", "needles"), [
    ("extract_graph", {}, ("cases[0]", "needs `chunk`")),
    ("extract_graph", {"text": "x", "descriptions": ["d"]}, ("cases[0].descriptions", "not an input of an extract_graph")),
    ("extract_graph", {"text": "x", "facts": ["f"]}, ("cases[0].facts", "not gold of an extract_graph")),
    ("extract_graph", {"text": "x", "max_length": 50}, ("cases[0].max_length", "not an input")),
    ("community_report", {}, ("cases[0]", "needs `chunk`")),
    ("community_report", {"text": "x", "relationships": [{"source": "a", "target": "b"}]},
     ("cases[0].relationships", "not gold of a community_report")),
    ("community_report", {"text": "x", "claims": [{"subject": "A"}]}, ("cases[0].claims", "not gold")),
    ("community_report", {"text": "x", "annotated": True}, ("cases[0].annotated", "not gold of a community_report")),
    ("extract_claims", {"text": "x", "facts": ["f"]}, ("cases[0].facts", "not gold of an extract_claims")),
    ("extract_claims", {"text": "x", "entity_name": "A"}, ("cases[0].entity_name", "not an input")),
    ("extract_claims", {"text": "x", "question": "Who?"}, ("cases[0].question", "not an input of an extract_claims")),
    ("global_search_map", {"question": "Who?"}, ("cases[0]", "needs `chunk`")),
    ("global_search_map", {"text": "x"}, ("cases[0]", "needs `question`")),
    ("global_search_map", {"text": "x", "question": "  "}, ("cases[0].question", "needs `question`")),
    ("global_search_map", {"text": "x", "question": "Who?", "claims": [{"subject": "A"}]},
     ("cases[0].claims", "not gold of a global_search_map")),
    ("global_search_map", {"text": "x", "question": "Who?", "entity_specs": ["A"]},
     ("cases[0].entity_specs", "not an input of a global_search_map")),
])
def test_cases_of_the_other_kinds_are_validated(project: Path, kind: str, case: dict[str, Any],
                                                needles: tuple[str, ...]) -> None:
    refused(project, kind_suite(kind, **case), *needles)


def test_report_and_claims_cases_load_with_their_inputs(project: Path) -> None:
    report = load_suite(write_suite(project, kind_suite("community_report", text="-----Entities-----\nid,entity",
                                                        facts=["A leads"])))
    assert report.spec.kind == "community_report" and report.cases[0].facts == ["A leads"]
    claims = load_suite(write_suite(project, kind_suite("extract_claims", chunk="fixtures/chunks/a.txt",
                                                        entity_specs=["ANA"], claim_description="moves",
                                                        claims=[{"subject": "ANA", "type": "MOVE"}])))
    assert claims.cases[0].text == "Ana met Bo in Lisbon." and claims.cases[0].entity_specs == ["ANA"]
    answers = load_suite(write_suite(project, kind_suite("global_search_map", text="-----Reports-----\nid|title",
                                                         question="Who leads?", max_length=200, facts=["A leads"])))
    case = answers.cases[0]
    assert (case.question, case.max_length, case.facts) == ("Who leads?", 200, ["A leads"])


def test_an_unknown_kind_is_refused(project: Path) -> None:
    refused(project, with_(kind="summaries"), "kind", "summarize_descriptions")


def test_summary_thresholds_validate(project: Path) -> None:
    suite = load_suite(write_suite(project, with_(thresholds={"facts_kept": 0.8, "within_length": 1.0})))
    assert suite.spec.thresholds.facts_kept == 0.8  # type: ignore[attr-defined]
    refused(project, with_(thresholds={"facts_kept": 1.5}), "thresholds.facts_kept")


# ------------------------------------------------------------------ a variant's own case list


def test_a_variant_case_list_is_kept_in_suite_order(project: Path) -> None:
    (project / "fixtures" / "chunks" / "b.txt").write_text("Bo left Porto.", encoding="utf-8")
    data = with_(cases=[{"id": "a", "chunk": "fixtures/chunks/a.txt"}, {"id": "b", "chunk": "fixtures/chunks/b.txt"}],
                 variants={"default": {"prompt": "prompts/p.txt"}, "small": {"prompt": "prompts/p.txt", "cases": ["b"]}})
    suite = load_suite(write_suite(project, data))
    assert [c.id for c in suite.variant_cases("default")] == ["a", "b"]
    assert [c.id for c in suite.variant_cases("small")] == ["b"]
    assert [(v, c.id) for v, c in suite.pairs()] == [("default", "a"), ("default", "b"), ("small", "b")]
    assert [(v, c.id) for v, c in suite.pairs(["small"], [suite.cases[0]])] == []


@pytest.mark.parametrize(("cases", "needles"), [
    (["a", "nope"], (":7: variants.default.cases[1]: no case named 'nope'",)),
    (["a", "a"], (":7: variants.default.cases[1]: case 'a' is listed twice",)),
    ([], ("variants.default.cases: the list is empty",)),
])
def test_a_variant_case_list_naming_no_case_is_refused_at_load_with_its_line(project: Path, cases: list[str],
                                                                            needles: tuple[str, ...]) -> None:
    refused(project, with_(variants={"default": {"prompt": "prompts/p.txt", "cases": cases}}), *needles)
